"""X-COST: what compaction costs and what it saves, from the recorded E3 and E4 runs.

Each compaction is an extra model call. This experiment replays E3 (AgentScope, trigger 5 /
keep 2, a compaction before rounds 3, 4 and 5) and E4 (one conversation compacted once by each
engine) through their own run functions, with a :class:`~experiments.x_cost.usage_tap.UsageTap`
on the cassette's client, and feeds :mod:`experiments.x_cost.ledger`'s ledger: per compaction the
summary call's prompt, cached and completion tokens (provider usage, never estimated) and the
tokens it removed from every later request (the engine's meter figure, in provider tokens by
each later request's own usage / meter ratio); per experiment and engine the cost, the savings
and the net.

"Pays off" means net > 0 by the end of the recording: the later requests that were actually
sent saved more prompt tokens than the summary calls cost. E4 sends no request after its
compaction, so its net is minus the cost; the break-even row says after how many later requests
of the recorded size the removal would repay the call (a projection, labelled as such).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any

from experiments import e3, e4
from experiments.e3 import CompactionRow, E3View
from experiments.e4.view import E4View, EngineRun
from experiments.x_cost.claims import BREAK_EVEN_WITHIN, x_cost_claims
from experiments.x_cost.ledger import CostLedger, LedgerCompaction, LedgerRequest, build_ledger
from experiments.x_cost.usage_tap import UsageTap
from experiments.x_cost.view import LedgerRecord, LedgerRow, XCostView
from harness.meter import build_meter
from harness.model import ChatRequest, ChatResponse
from lab import Experiment, ExperimentResult, OrderPart, Provenance, RunSettings, from_data, to_data

__all__ = ["BREAK_EVEN_WITHIN", "EXPERIMENT", "RecordingTap", "run"]


class RecordingTap(UsageTap):
    """A usage tap that also keeps each request and response (to price requests with a meter)."""

    def __init__(self, model: Any) -> None:
        super().__init__(model)
        self.exchanges: list[tuple[ChatRequest, ChatResponse | None]] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        try:
            response = super().complete(request)
        except Exception:
            self.exchanges.append((request, None))
            raise
        self.exchanges.append((request, response))
        return response


@dataclass(frozen=True)
class _TappingSettings(RunSettings):
    taps: dict[str, RecordingTap] = field(default_factory=dict)

    @contextmanager
    def model(
        self, experiment_id: str, name: str, order_part: OrderPart | None = None
    ) -> Iterator[Any]:
        with super().model(experiment_id, name, order_part) as cassette:
            tap = RecordingTap(cassette.client)
            self.taps[f"{experiment_id}/{name}"] = tap
            # The tap passes every call through, so the wire traffic (and replay) is unchanged.
            cassette.client = tap  # type: ignore[assignment]
            yield cassette


def replay(settings: RunSettings, experiment: str) -> tuple[ExperimentResult, dict[str, Any]]:
    """Run E3 or E4 from its cassettes with a tap on every cassette's client: the one place
    this experiment calls into E3/E4 (the result, and the taps by ``<experiment>/<cassette>``)."""
    base = {f.name: getattr(settings, f.name) for f in fields(RunSettings)}
    base["mode"] = "replay"
    tapping = _TappingSettings(**base)
    run = {"E3": e3.run, "E4": e4.run}[experiment]
    return run(tapping), dict(tapping.taps)


def _metered(meter: str, request: ChatRequest) -> int:
    return build_meter(meter).price_all(request.messages)


def _agent_exchanges(tap: RecordingTap) -> list[tuple[ChatRequest, ChatResponse | None]]:
    return [(q, a) for q, a in tap.exchanges if q.purpose != "summary"]


def _summary_usages(tap: RecordingTap) -> list[Any]:
    """The summary calls' usage in order, a failed call as None."""
    return [a.usage if a else None for q, a in tap.exchanges if q.purpose == "summary"]


def e3_ledgers(result: ExperimentResult, taps: dict[str, Any]) -> list[LedgerRow]:
    """E3's ledger: one request per round (no tools), the round's compaction before it."""
    rows = []
    rounds = from_data(E3View, result.data).rounds
    for name, tap in sorted(taps.items()):
        agent = _agent_exchanges(tap)
        if len(agent) != len(rounds):
            raise AssertionError(f"X-COST: {name} sent {len(agent)} requests for {len(rounds)}")
        summaries = iter(_summary_usages(tap))
        requests = []
        for record, (request, response) in zip(rounds, agent, strict=True):
            event = record.compaction
            compactions: tuple[LedgerCompaction, ...] = ()
            if event:
                compactions = (_compaction(event, (next(summaries),)),)
            meter = event.meter if event else e3.CONFIG.meter
            usage = response.usage if response else None
            requests.append(LedgerRequest(usage, _metered(meter, request), compactions))
        ledger = build_ledger(requests)
        rows.append(_row("E3", "agentscope", name, result.source, ledger, None))
    return rows


def _compaction(event: CompactionRow, usages: Sequence[Any]) -> LedgerCompaction:
    return LedgerCompaction(event.total_tokens, event.tokens_after, tuple(usages), event.meter)


E4_METERS: dict[str, tuple[str, Callable[[EngineRun], tuple[int, int]]]] = {
    "agentscope": (
        "agentscope-2.0.3",
        lambda r: (r.estimated_tokens_before, r.estimated_tokens_after),
    ),
    "dsh": ("dsh", lambda r: (r.dsh_meter_before, r.dsh_meter_after)),
}
"""Each E4 engine's meter (as ``experiments/e4/__init__.py`` configures it) and the context's tokens
before and after its compaction, as that meter priced them."""


def e4_ledgers(result: ExperimentResult, taps: dict[str, Any]) -> list[LedgerRow]:
    """E4's ledgers, one per engine: the conversation's requests, then that engine's
    compaction, after which the recording sends no request."""
    rows = []
    for name, tap in sorted(taps.items()):
        first_summary = next(i for i, (q, _) in enumerate(tap.exchanges) if q.purpose == "summary")
        conversation = tap.exchanges[:first_summary]
        summaries = [a for q, a in tap.exchanges if q.purpose == "summary"]
        for report in sorted(from_data(E4View, result.data).engines, key=lambda r: r.engine):
            engine = report.engine
            meter, priced = E4_METERS[engine]
            usage = next(
                (
                    a.usage
                    for a in summaries
                    if a and a.usage and a.usage.prompt_tokens == report.summary_prompt_tokens
                ),
                None,
            )
            before, after = priced(report)
            cut = report.summary_event is not None and report.summary_event.cut_at_max_tokens
            # a DSH summary cut at max_tokens is one the seed's engine refuses: nothing replaced
            compaction = LedgerCompaction(before, before if cut else after, (usage,), meter)
            requests = [
                LedgerRequest(a.usage if a else None, _metered(meter, q)) for q, a in conversation
            ]
            ledger = build_ledger(requests, trailing=(compaction,))
            rows.append(_row("E4", engine, name, result.source, ledger, requests[-1]))
    return rows


def _per_later(ledger: CostLedger, last: LedgerRequest | None) -> int | None:
    """What the last compaction would remove from a later request the size of ``last``."""
    if last is None or not ledger.compactions or last.usage is None or not last.metered_tokens:
        return None
    ratio = last.usage.prompt_tokens / last.metered_tokens
    return round(ledger.compactions[-1].removed_metered * ratio)


def _row(
    experiment: str,
    engine: str,
    cassette: str,
    source: str,
    ledger: CostLedger,
    last: LedgerRequest | None,
) -> LedgerRow:
    per_later = _per_later(ledger, last)
    cost = ledger.cost
    break_even = (
        math.ceil(cost / per_later) if cost is not None and per_later and per_later > 0 else None
    )
    cached = ledger.cached
    uncached = None if cost is None or cached is None else cost - cached
    return LedgerRow(
        experiment=experiment,
        engine=engine,
        cassette=cassette,
        source=source,
        compactions=len(ledger.compactions),
        cost=cost,
        cached=cached,
        cost_uncached=uncached,
        savings=ledger.savings,
        net=ledger.net,
        usage_missing=ledger.missing,
        later_requests=sum(len(c.later) for c in ledger.compactions),
        removed_per_later_request=per_later,
        break_even_requests=break_even,
        ledger=LedgerRecord.of(ledger),
    )


def measure(settings: RunSettings) -> XCostView:
    """Replay E3 and E4 with taps on their cassettes; one ledger per experiment and engine."""
    rows: list[LedgerRow] = []
    provenance: list[Provenance] = []
    for experiment, ledgers in (("E3", e3_ledgers), ("E4", e4_ledgers)):
        result, taps = replay(settings, experiment)
        rows += ledgers(result, taps)
        provenance += [from_data(Provenance, p) for p in result.provenance]
    return XCostView(
        experiment="X-COST",
        title="Compaction cost ledger: summary calls against the tokens they remove",
        ledgers=tuple(rows),
        provenance=tuple(provenance),
    )


def run(settings: RunSettings) -> ExperimentResult:
    view = measure(settings)
    source = ", ".join(sorted({row.source for row in view.ledgers}))
    provenance = tuple(to_data(p) for p in view.provenance)
    return ExperimentResult(
        "X-COST", x_cost_claims(view.ledgers), to_data(view), source, provenance
    )


EXPERIMENT = Experiment.listed(
    __name__,
    run,
    version=1,
    needs_cassettes=True,
    cassettes_of="E3",  # replays E3's and E4's cassettes, once per set that holds both
    requires=("E3/rounds", "E4/compactions"),
    reads=("E3", "E4"),
)
