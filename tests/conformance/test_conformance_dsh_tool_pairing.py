"""dsh's tool-pairing cases (``tool-pairing.spec.ts``) against ctxlab's :func:`cut_balance`.

The cut before node ``i`` is ``cut_balance(nodes)[i]``, the cut after it ``[i + 1]``; a corrupt
surface (a result with no open call) raises UnbalancedSurfaceError in both.
"""

from __future__ import annotations

import dsh_cases as dc
import pytest
from dsh_cases import Case

from harness.compaction.dsh.selection import cut_balance
from harness.errors import UnbalancedSurfaceError
from harness.messages import CHECKPOINT_NAME, Message, ToolCall


def node(text: str) -> Message:
    """A surface node written short: user, checkpoint, ``call <ids>``, ``result <id>``."""
    kind, *ids = text.split()
    if kind == "call":
        return Message.assistant("", tuple(ToolCall(i, "bash", "{}") for i in ids))
    if kind == "result":
        return Message.tool(ids[0], "done")
    return Message.user("hello", name=CHECKPOINT_NAME if kind == "checkpoint" else None)


def _agrees(case: Case) -> bool:
    nodes = list(enumerate(node(n) for n in case.input))
    try:
        balanced = cut_balance(nodes)
    except UnbalancedSurfaceError:
        return "refused" in case.dsh
    before, after = balanced[:-1], balanced[1:]
    want = case.dsh
    return want.get("before", before) == before and want.get("after", after) == after


@pytest.mark.parametrize("case", dc.params("tool_pairing"))
def test_ctxlab_balances_tool_pairs_as_dsh_does(case: Case) -> None:
    dc.conform(case, lambda: _agrees(case))
