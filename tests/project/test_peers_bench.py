"""The ``peers`` section of ``python -m benchmarks`` (benchmarks/peers.py): without the ``peers``
extra it prints its one "not installed" row and the run passes (CI has no peers); with the extra
it measures every framework, at a tiny size here (slow)."""

from __future__ import annotations

import contextlib
import io
import math
import sys

import pytest

from benchmarks import peers
from benchmarks.__main__ import main

PEER_MODULES = ("benchmarks.peer_sessions", "langchain", "langgraph", "agents")


def test_without_the_extra_the_section_prints_one_row_and_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in PEER_MODULES:  # None in sys.modules: the import fails as for a missing package
        monkeypatch.setitem(sys.modules, name, None)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["--quick", "--only", "peers"])
    assert status == 0
    body = [line for line in out.getvalue().splitlines() if line.startswith("| peers |")]
    assert len(body) == 1
    assert "not installed" in body[0]
    assert "does not import" in body[0]


@pytest.mark.slow
def test_with_the_extra_every_framework_has_its_rows() -> None:
    if (name := peers.missing()) is not None:
        pytest.skip(f"the peers extra is not installed ({name} does not import)")
    from benchmarks.peer_sessions import PEERS

    rows = peers.rows(True, late=60, timed=2)
    names = {row.name for row in rows}
    frameworks = ["ctxlab state store", "ctxlab event log", *(name for name, _ in PEERS)]
    for framework in frameworks:
        assert f"{framework}: turn 60, CPU median" in names
        assert f"{framework}: turn 60 / turn 50, CPU median" in names
    for framework in frameworks[2:]:
        assert f"ctxlab event log ÷ {framework}: CPU median per turn, turn 60" in names
    reopened = {row.name.split(":")[0] for row in rows if "reopen after" in row.name}
    assert reopened == {"ctxlab state store", "ctxlab event log", *frameworks[3:]}
    assert not any(row.failed for row in rows)  # nothing here is gated
    assert all(row.value > 0 for row in rows if row.unit == "ms" and not math.isnan(row.value))
