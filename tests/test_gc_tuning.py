"""The collector settings of mmlint's own processes (mmlint.core.gc_tuning):
the command line freezes the facts it decodes, a library host and `mmlint
server` keep their collector as it was."""

from __future__ import annotations

import gc

import pytest

import mmlint.cli as cli_module
from mmlint.core import gc_tuning
from mmlint.core.gc_tuning import long_lived


@pytest.fixture
def restored_gc(monkeypatch):
    monkeypatch.setattr(gc_tuning, "_one_command", gc_tuning._one_command)
    threshold, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)
    (gc.enable if enabled else gc.disable)()


def test_a_library_host_keeps_its_collector(restored_gc):
    gc_tuning.one_command_per_process(False)  # as a library host (another test may have run the command line here)
    frozen = gc.get_freeze_count()
    with long_lived():
        assert gc.isenabled()
        kept = [[number] for number in range(1000)]
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    assert len(kept) == 1000


def test_a_one_command_process_freezes_what_it_decodes(restored_gc):
    gc_tuning.one_command_per_process()
    with long_lived():
        assert not gc.isenabled()  # no collection traverses what is being built
        kept = [[number] for number in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)  # moved to the permanent generation


def test_the_collector_comes_back_when_the_block_raises(restored_gc):
    gc_tuning.one_command_per_process()
    with pytest.raises(KeyError), long_lived():
        raise KeyError("x")
    assert gc.isenabled()


def test_the_command_line_declares_one_command_and_the_server_takes_it_back(restored_gc, monkeypatch):
    monkeypatch.setattr(gc_tuning, "_one_command", False)
    monkeypatch.setattr(cli_module, "cli", lambda **_: None)
    monkeypatch.setattr(cli_module.signal, "signal", lambda *_: None)  # the test process keeps its handlers
    cli_module.main()
    assert gc_tuning._one_command
    pytest.importorskip("pygls")
    import mmlint.server.server as server_module
    from mmlint.cli.server import command

    monkeypatch.setattr(server_module, "serve", lambda: 0)
    with pytest.raises(SystemExit) as stop:
        command.main([], standalone_mode=False)
    assert stop.value.code == 0
    assert not gc_tuning._one_command
