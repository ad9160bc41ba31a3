"""The cost ledger of a finished session: a usage tap on the model plus the calls' records.

The agent's request records (:class:`harness.agent.RequestRecord`) carry each request's usage,
its meter reading and the compactions that ran before it, under either engine; the summary
calls themselves are made inside the engine. :class:`UsageTap` wraps the model the agent (and
so its engine) talks to and keeps every call's purpose and usage, so the summary calls' usage
can be put beside the compactions they belong to::

    tap = UsageTap(model)
    agent = Agent(tap, system_prompt, compaction=CompactionConfig(...))   # or DshConfig
    results = [agent.call(text) for text in turns]
    ledger = ledger_from_calls(results, tap.calls)
    print(ledger.cost, ledger.savings, ledger.net, ledger.missing)

The summary calls made since the previous agent request belong to the compactions of the next
one; when a request has as many compactions as calls they are paired in order, otherwise all
the calls are charged to its first compaction. Summary calls before a request that ran no
compaction (the summary was refused, say) are still paid: they make a row that removed nothing.
Memory flush and consolidation calls are not a summary's cost and are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from experiments.x_cost.ledger import CostLedger, LedgerCompaction, LedgerRequest, build_ledger
from harness import ConfigError
from harness.model import ChatModel, ChatRequest, ChatResponse, Usage

if TYPE_CHECKING:
    from harness import CallResult, RequestRecord

__all__ = ["TappedCall", "UsageTap", "ledger_from_calls", "ledger_requests"]

SUMMARY = "summary"


@dataclass(frozen=True)
class TappedCall:
    """One model call seen by the tap."""

    purpose: str
    usage: Usage | None
    failed: bool = False


class UsageTap:
    """A chat model that passes every call to ``model`` and records its purpose and usage."""

    def __init__(self, model: ChatModel) -> None:
        self.model = model
        self.calls: list[TappedCall] = []

    @property
    def model_name(self) -> str:
        return self.model.model_name

    def complete(self, request: ChatRequest) -> ChatResponse:
        try:
            response = self.model.complete(request)
        except Exception:
            self.calls.append(TappedCall(request.purpose, None, failed=True))
            raise
        self.calls.append(TappedCall(request.purpose, response.usage))
        return response

    def __getattr__(self, name: str) -> Any:
        # Everything else (a client's provider, build_body, ...) is the wrapped model's.
        if name == "model":
            raise AttributeError(name)
        return getattr(self.model, name)


def _summary_groups(calls: Sequence[TappedCall], purpose: str) -> list[list[Usage | None]]:
    """The summary calls' usage before each answered request of ``purpose``, in order."""
    groups: list[list[Usage | None]] = []
    pending: list[Usage | None] = []
    for call in calls:
        if call.purpose == SUMMARY:
            pending.append(call.usage)
        elif call.purpose == purpose and not call.failed:
            groups.append(pending)
            pending = []
    return groups


def _compactions(record: RequestRecord, usages: list[Usage | None]) -> tuple[LedgerCompaction, ...]:
    events = record.compactions
    if not events:
        # Summary calls that ended in no compaction (a refused summary): paid, removed nothing.
        return (LedgerCompaction(None, None, tuple(usages), record.meter),) if usages else ()
    if len(events) == len(usages):
        shares = [[u] for u in usages]
    else:
        shares = [usages if i == 0 else [] for i in range(len(events))]
    return tuple(
        LedgerCompaction(e.total_tokens, e.tokens_after, tuple(share), e.meter)
        for e, share in zip(events, shares, strict=True)
    )


def ledger_requests(
    results: Sequence[CallResult], calls: Sequence[TappedCall]
) -> list[LedgerRequest]:
    """The ledger's input for a session: its calls' results and the tap's calls, in order."""
    records = [r for result in results for r in result.requests]
    groups = _summary_groups(calls, records[0].purpose if records else "agent")
    if len(groups) != len(records):
        raise ConfigError(
            f"the tap saw {len(groups)} answered requests but the results hold {len(records)}: "
            "wrap the agent's model in the tap before the first call"
        )
    return [
        LedgerRequest(r.usage, r.metered_tokens, _compactions(r, group))
        for r, group in zip(records, groups, strict=True)
    ]


def ledger_from_calls(results: Sequence[CallResult], calls: Sequence[TappedCall]) -> CostLedger:
    """The cost ledger of the session that produced ``results``, through a :class:`UsageTap`."""
    return build_ledger(ledger_requests(results, calls))
