"""dsh's token-meter cases (``token-meter.spec.ts``) against ctxlab's pricing of dsh messages
(:func:`~harness.store.dsh.messages.price_message`) and of a session file
(:func:`~harness.store.dsh.surface.view`)."""

from __future__ import annotations

from pathlib import Path

import dsh_cases as dc
import pytest
from dsh_cases import Case

from harness.errors import EventLogError
from harness.store.dsh.messages import price_message
from harness.store.dsh.surface import view
from harness.store.eventlog import EventLog


def _agrees(case: Case, folder: Path) -> bool:
    want = case.dsh
    if "blocks" in case.input:
        price = price_message("assistant/message", {"content": case.input["blocks"]})
        return price > want["above"] if "above" in want else price == want["price"]
    try:
        session = view(EventLog.replay(dc.session_file(folder, case.input["lines"])))
    except EventLogError:
        return "refused" in want
    if "nodes" in want:
        return [[n.seq, n.price] for n in session.nodes] == want["nodes"]
    if "total_above_surface" in want:
        return session.header_tokens > 0 and session.surface_tokens > 0
    return False


@pytest.mark.parametrize("case", dc.params("token_meter"))
def test_ctxlab_prices_dsh_messages_as_dshs_meter_does(case: Case, tmp_path: Path) -> None:
    dc.conform(case, lambda: _agrees(case, tmp_path))
