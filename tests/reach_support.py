"""What the reach memo's tests share (tests/test_reach_memo.py and its
ecosystem form): which files the reach follows names of."""

from __future__ import annotations

import pytest

import mmlint.check.reach as reach_module


def followed_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The display paths of the files whose names the reach follows from now
    on, one entry a name (a step taken from the memo is not followed)."""
    followed: list[str] = []
    real = reach_module._followed

    def counted(view: reach_module._FileView, name: str) -> object:
        followed.append(view.facts.path)
        return real(view, name)

    monkeypatch.setattr(reach_module, "_followed", counted)
    return followed
