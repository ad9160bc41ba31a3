"""The test processes' ``os.fsync`` (tests/support/skipped_fsync.py): skipped, yet a descriptor
that is not open still fails as with the real one, and ``CTXLAB_TESTS_FSYNC=real`` keeps it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import skipped_fsync


def test_the_session_runs_the_skipped_fsync_and_a_closed_descriptor_still_fails(
    tmp_path: Path,
) -> None:
    assert os.fsync is skipped_fsync.fsync_skipped  # installed by the root conftest.py
    with (tmp_path / "f").open("wb") as handle:
        os.fsync(handle.fileno())
        os.fsync(handle)  # an object with fileno(), as os.fsync takes
        fd = handle.fileno()
    with pytest.raises(OSError) as real:
        skipped_fsync.REAL(fd)
    with pytest.raises(OSError) as skipped:
        os.fsync(fd)
    assert skipped.value.errno == real.value.errno


def test_the_switch_keeps_the_real_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "fsync", skipped_fsync.REAL)
    monkeypatch.setenv(skipped_fsync.SWITCH, "real")
    skipped_fsync.install()()
    assert os.fsync is skipped_fsync.REAL
    monkeypatch.delenv(skipped_fsync.SWITCH)
    uninstall = skipped_fsync.install()
    assert os.fsync is skipped_fsync.fsync_skipped
    uninstall()
    assert os.fsync is skipped_fsync.REAL
