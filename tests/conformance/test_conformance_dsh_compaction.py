"""dsh's compaction-basic cases (``compaction-basic.spec.ts``) against ctxlab's DSH engine: its
configuration, the range selection, the pressure loop and the checkpoint's price."""

from __future__ import annotations

import logging
import math
from typing import Any

import dsh_cases as dc
import pytest
from dsh_cases import Case
from test_conformance_dsh_tool_pairing import node

from harness.compaction.dsh import DshConfig, DshEngine
from harness.compaction.dsh.selection import Measurement, select_compactable_range
from harness.compaction.dsh.summarizer import frame_checkpoint
from harness.errors import ConfigError, SurfaceError
from harness.messages import Message
from harness.meter.dsh_heuristic import price_message
from harness.model import ChatRequest
from harness.store.eventlog import EventLog
from harness.testing import FunctionModel


def _config(case: Case) -> bool:
    try:
        config = DshConfig(**case.input["config"])
    except (ConfigError, TypeError):
        return "refused" in case.dsh
    want = case.dsh.get("config", {})
    return bool(want) and all(getattr(config, k) == v for k, v in want.items())


def _selection(case: Case) -> bool:
    given = case.input
    nodes = list(enumerate(node(n) for n in given["surface"]))
    priced = tuple(enumerate(given["prices"]))[given.get("priced_from", 0) :]
    try:
        found = select_compactable_range(nodes, Measurement(0, priced), given["retain"])
    except SurfaceError:
        return "refused" in case.dsh
    want = case.dsh.get("range", "refused")
    return want == (None if found is None else [found.start, found.end])


def _pressure(case: Case, caplog: pytest.LogCaptureFixture) -> bool:
    """dsh raises "still above threshold"; True when ctxlab raises that too."""
    log = EventLog()
    for turn in range(4):
        log.append_message(Message.user(f"question {turn} " + "word " * 60))
        log.append_message(Message.assistant(f"answer {turn} " + "word " * 60))
    summary = "\n".join(f"summary {i} " + "word " * 40 for i in range(7))
    engine = DshEngine(log, FunctionModel(lambda _r: summary), DshConfig(**case.input["engine"]))
    with caplog.at_level(logging.WARNING):
        try:
            engine.compact_if_needed(ChatRequest(messages=()))
        except Exception as exc:  # any error is what dsh does
            return case.dsh["raises"].split(" after")[0] in str(exc)
    assert "still above the threshold" in caplog.text  # ctxlab warns instead
    return False


def _price(case: Case) -> bool:
    units: Any = case.input["dsh_frame"]["preamble_utf16_units"]
    summary = case.input["summary"]
    blocks = [units + 2 + len("<compacted-summary>"), len(summary), len("</compacted-summary>")]
    assert sum(math.ceil(b / 4) + 4 for b in blocks) + 4 == case.dsh["price"]
    return price_message(frame_checkpoint(summary)) == case.dsh["price"]


@pytest.mark.parametrize("case", dc.params("compaction_basic"))
def test_ctxlabs_dsh_engine_configures_selects_and_prices_as_dsh_does(
    case: Case, caplog: pytest.LogCaptureFixture
) -> None:
    given = case.input
    if "config" in given:
        dc.conform(case, lambda: _config(case))
    elif "surface" in given:
        dc.conform(case, lambda: _selection(case))
    elif "engine" in given:
        dc.conform(case, lambda: _pressure(case, caplog))
    else:
        dc.conform(case, lambda: _price(case))
