"""dsh's crash-repair cases (``repair.spec.ts``, ``interruptedTurnClosers``) against ctxlab.

dsh closes a crashed turn when it loads the session: a synthetic tool result for each call of
the open step left unanswered, then ``step/end`` and ``turn/end {interrupted}``. ctxlab does the
same in two moves: the results when the session is resumed (``close_interrupted_calls``), the
step and turn ends when the next call opens its turn (:class:`TurnMarks`). What both moves
append, in order, is compared with dsh's closers.
"""

from __future__ import annotations

from pathlib import Path

import dsh_cases as dc
import pytest
from dsh_cases import Case

from harness.messages import Message
from harness.store.eventlog import EventLog
from harness.store.eventlog.turns import TurnMarks


def _closers(path: Path) -> tuple[list[str], list[str]]:
    log = EventLog.open(path)
    before = len(log.events)
    results = [e.message.tool_call_id for e in log.close_interrupted_calls() if e.message]
    TurnMarks(log).before_messages([Message.user("the next call")])
    types = [e.type for e in log.events[before:]]
    assert types[-1] == "turn/start"  # the next call's own turn
    return types[:-1], [r for r in results if r]


@pytest.mark.parametrize("case", dc.params("repair"))
def test_ctxlab_closes_a_crashed_dsh_turn_as_dsh_does(case: Case, tmp_path: Path) -> None:
    path = dc.session_file(tmp_path, case.input)
    dc.conform(case, lambda: _closers(path) == (case.dsh["closers"], case.dsh["results"]))
