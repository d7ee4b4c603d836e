"""`fix` keeps a file's extended attributes and POSIX ACLs (mmlint.core.write):
the temporary file that replaces it gets exactly the original's, and where
one cannot be given the file is rewritten in place, so none is lost."""

from __future__ import annotations

import errno
import os
import shutil
import struct
import subprocess
import sys

import pytest
from cache_support import SOURCE
from cli_support import CliRunner

from mmlint.cli import cli
from mmlint.core import write

FIXED = SOURCE.replace(
    "return self.process_and_combine_mm_data(", "return await self.process_and_combine_mm_data_async("
)
ATTRIBUTE = "user.mmlint_test"
VALUE = b"kept \x00 as bytes"
ACCESS_ACL = "system.posix_acl_access"
DEFAULT_ACL = "system.posix_acl_default"


def _acl(*entries: tuple[int, int, int]) -> bytes:
    """Linux's binary form of a POSIX ACL (version 2): (tag, permissions, id) entries."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", tag, perm, ident) for tag, perm, ident in entries)


UNDEFINED = 0xFFFFFFFF
# user::rw- user:4242:r-- group::r-- mask::r-- other::---
AN_ACL = _acl((0x01, 6, UNDEFINED), (0x02, 4, 4242), (0x04, 4, UNDEFINED), (0x10, 4, UNDEFINED), (0x20, 0, UNDEFINED))


@pytest.fixture
def source(tmp_path, monkeypatch, cache_dir):
    if not hasattr(os, "setxattr"):
        pytest.skip("this platform has no extended attribute calls in Python (Linux only)")
    project = tmp_path / "proj"
    project.mkdir()
    path = project / "p.py"
    path.write_text(SOURCE, encoding="utf-8")
    try:
        os.setxattr(path, ATTRIBUTE, VALUE)
    except OSError as error:
        pytest.skip(f"the temporary directory's filesystem has no user extended attributes ({error.strerror})")
    monkeypatch.chdir(project)
    monkeypatch.setenv("PWD", str(project))
    return path


def _fix(*args: str):
    result = CliRunner().invoke(cli, ["fix", *args])
    assert result.exit_code == 0 and "Fixed 1 site in 1 file." in result.stdout, result.output
    return result


def _no_leftovers(path):
    assert not [name for name in os.listdir(path.parent) if name.endswith(write.TEMP_SUFFIX)]


def test_fix_keeps_a_user_attribute(source):
    before = source.stat()
    _fix("p.py")
    after = source.stat()
    assert source.read_text(encoding="utf-8") == FIXED
    assert os.getxattr(source, ATTRIBUTE) == VALUE
    assert after.st_ino != before.st_ino  # replaced by a rename, as a file with nothing special is
    assert after.st_mode == before.st_mode
    _no_leftovers(source)


def test_fix_keeps_a_user_attribute_in_a_real_subprocess(source):
    env = {**os.environ, "NO_COLOR": "1", "PWD": str(source.parent)}
    ran = subprocess.run(
        [sys.executable, "-m", "mmlint", "fix", "p.py"],
        cwd=source.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert source.read_text(encoding="utf-8") == FIXED and os.getxattr(source, ATTRIBUTE) == VALUE


def _give_acl(path) -> None:
    if shutil.which("setfacl"):
        subprocess.run(["setfacl", "-m", "u:4242:r,o::-", str(path)], check=True)
        return
    try:  # no setfacl: the same ACL as the kernel stores it
        os.setxattr(path, ACCESS_ACL, AN_ACL)
    except OSError as error:
        pytest.skip(f"the temporary directory's filesystem takes no POSIX ACL ({error.strerror})")


def test_fix_keeps_a_posix_acl(source):
    _give_acl(source)
    acl, mode = os.getxattr(source, ACCESS_ACL), source.stat().st_mode
    _fix("p.py")
    assert source.read_text(encoding="utf-8") == FIXED
    assert os.getxattr(source, ACCESS_ACL) == acl and source.stat().st_mode == mode
    assert os.getxattr(source, ATTRIBUTE) == VALUE


def test_an_acl_the_directory_would_give_a_new_file_is_not_added(source):
    """The directory's default ACL, set after the file was made: a new file
    would inherit it, the original has none, and the fixed file keeps none."""
    try:
        os.setxattr(source.parent, DEFAULT_ACL, _acl((0x01, 7, UNDEFINED), (0x04, 5, UNDEFINED), (0x20, 5, UNDEFINED)))
    except OSError as error:
        pytest.skip(f"the temporary directory's filesystem takes no default ACL ({error.strerror})")
    probe = source.parent / "probe"
    probe.write_text("")
    inherited = ACCESS_ACL in os.listxattr(probe) or DEFAULT_ACL in os.listxattr(probe)
    probe.unlink()
    mode = source.stat().st_mode
    assert ACCESS_ACL not in os.listxattr(source)
    _fix("p.py")
    assert source.read_text(encoding="utf-8") == FIXED
    assert set(os.listxattr(source)) == {ATTRIBUTE} and source.stat().st_mode == mode, inherited


def test_an_attribute_that_cannot_be_given_means_a_rewrite_in_place(source, monkeypatch):
    """EPERM on setting an attribute (a security.* one, for a user): the file
    is rewritten in place, keeping them all, and no temporary file is left."""
    real_setxattr = os.setxattr

    def setxattr(target, name, value, *args):
        if name == ATTRIBUTE:
            raise PermissionError(errno.EPERM, "Operation not permitted")
        return real_setxattr(target, name, value, *args)

    monkeypatch.setattr(os, "setxattr", setxattr)
    before = source.stat()
    _fix("p.py")
    assert source.read_text(encoding="utf-8") == FIXED
    assert source.stat().st_ino == before.st_ino  # the same file, written in place
    assert os.getxattr(source, ATTRIBUTE) == VALUE
    _no_leftovers(source)


def test_a_filesystem_without_attributes_is_replaced_as_before(source, monkeypatch):
    def unsupported(*args):
        raise OSError(errno.ENOTSUP, "Operation not supported")

    monkeypatch.setattr(os, "listxattr", unsupported)
    before = source.stat()
    _fix("p.py")
    assert source.read_text(encoding="utf-8") == FIXED and source.stat().st_ino != before.st_ino


def test_unreadable_attributes_are_not_guessed(source, monkeypatch):
    """An error listing them other than "not supported": the copy would not be
    faithful, so the file is rewritten in place."""

    def denied(*args):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(os, "listxattr", denied)
    before = source.stat()
    _fix("p.py")
    assert source.read_text(encoding="utf-8") == FIXED and source.stat().st_ino == before.st_ino
    assert os.getxattr(source, ATTRIBUTE) == VALUE
