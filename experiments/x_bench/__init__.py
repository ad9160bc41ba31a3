"""X-BENCH (ctxlab's own benchmark, beyond the articles): does what matters survive a compaction,
and at what cost?

Eighteen seeded conversations (:mod:`experiments.x_bench.corpus`: 12 at 2K tokens, 4 at 8K, 2 at
24K, half Chinese, half English, twelve planted facts each) are played through the real agent
loop by a scripted agent model under each condition of :mod:`experiments.x_bench.conditions`, all
at one budget per size, and scored without a model judge (:mod:`experiments.x_bench.scoring`).

The conditions that need no model (full context, truncation, masking, the gate alone) run with
no cassette at all. The others' summaries and every probe are calls to a recorded model: they
replay from ``cassettes/X-BENCH/<set>/<conversation>--<condition>.json`` where recorded and are
reported as "not recorded yet" otherwise, never faked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from contextlib import ExitStack
from functools import cache
from typing import TypeVar

from experiments.x_bench.claims import claims
from experiments.x_bench.conditions import (
    BUDGETS,
    CONDITIONS,
    REFERENCE_SOURCE,
    budget_for,
)
from experiments.x_bench.corpus import GENERATOR_VERSION
from experiments.x_bench.recorded import RecordedModels, cassette_name
from experiments.x_bench.replay import run_conversation
from experiments.x_bench.runs import FreeRuns, GridHooks, run_all
from experiments.x_bench.schema import Conversation
from experiments.x_bench.suite import (
    HELDOUT_CONDITIONS,
    HELDOUT_FIRST,
    bench_conversations,
    heldout_conversations,
    tabulate,
)
from experiments.x_bench.view import BudgetRecord, RunRecord, XBenchView
from lab import Experiment, ExperimentResult, RecordPlan, RunSettings, list_sets, to_data

__all__ = [
    "EXPERIMENT",
    "ID",
    "cassette_name",
    "measure",
    "plan_slice",
    "record",
    "record_cassette",
    "record_plan",
    "recording_plan",
    "run",
    "scored_view",
]

T = TypeVar("T")

ID = "X-BENCH"
SOURCE = "scripted"


def measure(settings: RunSettings, free_runs: FreeRuns | None = None) -> XBenchView:
    """Every conversation under every condition that can run: the model-free ones without a
    cassette, the others once per recorded set where their cassette exists (a condition whose
    cassettes are of an earlier definition, :attr:`Condition.replays_recorded` False, not);
    and the held-out conversations under :data:`HELDOUT_CONDITIONS`, kept apart.

    ``free_runs``: model-free plays to read and add to, shared with other measures of the same
    code in this process (the test suite's memo passes one: a replay with cassettes and one
    without play the same model-free runs); None plays them here."""
    conversations = bench_conversations()
    names = list(CONDITIONS)
    records, recorded = _played(settings, conversations, names, free_runs)
    heldout, _ = _played(settings, heldout_conversations(), list(HELDOUT_CONDITIONS), free_runs)
    not_recorded = [n for n in names if CONDITIONS[n].needs_model and n not in recorded]
    budgets = [BudgetRecord(s, b.trigger_tokens, b.keep_tokens) for s, b in BUDGETS.items()]
    view = scored_view(conversations, records, names, budgets, not_recorded)
    return dataclasses.replace(view, heldout=heldout)


def _played(
    settings: RunSettings,
    conversations: Sequence[Conversation],
    names: list[str],
    shared: FreeRuns | None = None,
) -> tuple[list[RunRecord], set[str]]:
    """``conversations`` under ``names``: the model-free ones with no model, then every
    condition whose cassettes replay under each recorded set; and the conditions recorded."""
    free = [n for n in names if not CONDITIONS[n].needs_model]
    replayed = [n for n in names if CONDITIONS[n].replays_recorded]
    # a model-free condition's turns are played once, then only probed
    free_runs = shared if shared is not None else FreeRuns()
    records: list[RunRecord]
    records, _ = run_all(
        conversations, free, lambda *_: None, "none", GridHooks(free_runs=free_runs)
    )
    recorded: set[str] = set()
    # Under order replay (mutation testing, never a reproduction) the recorded runs are played
    # too, their summary answers and probe served apart (experiments.x_bench.recorded), so
    # that a mutated harness that compacts more often still gets to its probe.
    for cassette_set in list_sets(settings.cassette_root, ID):
        with ExitStack() as stack:
            model_for = RecordedModels(settings, cassette_set, stack)
            hooks = GridHooks(  # a run with no cassette in this set is not kept: not played
                select=model_for.holds,
                free_runs=free_runs,
            )
            found, _ = run_all(conversations, replayed, model_for, cassette_set, hooks)
        records += [r for r in found if r.model != "none"]
        recorded |= {r.condition for r in found if r.model != "none"}
    return records, recorded


def scored_view(
    conversations: Sequence[Conversation],
    records: Sequence[RunRecord],
    names: Sequence[str],
    budgets: Sequence[BudgetRecord],
    not_recorded: Sequence[str] = (),
) -> XBenchView:
    """``records`` of ``conversations`` under the conditions ``names``, tabulated (X-BENCH's
    view; ``ctxlab bench`` builds one for its own run)."""
    summary, by_kind, by_band, pairs = tabulate(conversations, records, names)
    return XBenchView(
        experiment=ID,
        source=SOURCE,
        generator_version=GENERATOR_VERSION,
        conversations=[c.id for c in conversations],
        budgets=list(budgets),
        conditions=summary,
        by_kind=by_kind,
        by_band=by_band,
        pairs=pairs,
        runs=list(records),
        not_recorded=list(not_recorded),
        reference=REFERENCE_SOURCE,
    )


def recording_plan() -> list[tuple[Conversation, str]]:
    """Every cassette X-BENCH can record, in order: each tune conversation under each condition
    but the candidates (:data:`~experiments.x_bench.suite.HELDOUT_FIRST`, measured on the
    held-out split first), then each held-out conversation under
    :data:`~experiments.x_bench.suite.HELDOUT_CONDITIONS`. A model-free condition's cassette
    holds its probe call only."""
    tune = [c for c in _corpus().values() if c.id in _tune_ids()]
    heldout = [c for c in _corpus().values() if c.id not in _tune_ids()]
    names = [n for n in CONDITIONS if n not in HELDOUT_FIRST]
    return [(c, n) for c in tune for n in names] + [
        (c, n) for c in heldout for n in HELDOUT_CONDITIONS
    ]


@cache
def _tune_ids() -> frozenset[str]:
    return frozenset(c.id for c in bench_conversations())


@cache
def _corpus() -> dict[str, Conversation]:
    """X-BENCH's conversations by id, the held-out ones it records included, generated once per
    process (0.5 s; a recording's worker processes are forked after its plan is made, so they
    inherit them)."""
    return {c.id: c for c in [*bench_conversations(), *heldout_conversations()]}


def plan_slice(plan: list[T], part: tuple[int, int] | None) -> list[T]:
    """Part ``K`` of ``N`` of ``plan`` (contiguous, the last ones possibly shorter)."""
    if part is None:
        return plan
    k, n = part
    size = -(-len(plan) // n)
    return plan[(k - 1) * size : k * size]


def record(settings: RunSettings) -> None:
    """Record the slice's cassettes, keeping those already there unless forced (resumable);
    ``settings.concurrency`` of them at once, each in a worker process of its own
    (:mod:`lab.record_pool`, which ``ctxlab record`` runs for every experiment)."""
    from lab import record_all

    record_all([ID], settings)


def record_plan(settings: RunSettings) -> RecordPlan:
    """The slice's cassettes, in the plan's order, each weighed by how long it likely takes
    (its conversation's tokens, twice under a summary model)."""
    plan = [(c, n) for c, n in recording_plan() if n in (settings.conditions or CONDITIONS)]
    plan = plan_slice(plan, settings.slice)
    label = f"slice {settings.slice[0]}/{settings.slice[1]}" if settings.slice else "all"
    label += f" of {', '.join(settings.conditions)}" if settings.conditions else ""
    names = tuple(cassette_name(c, n) for c, n in plan)
    weights = tuple(float(c.tokens * (2 if CONDITIONS[n].needs_model else 1)) for c, n in plan)
    return RecordPlan(label, names, weights)


def record_cassette(settings: RunSettings, cassette: str) -> None:
    """Play the conversation under the condition ``cassette`` names against the live model."""
    conversation_id, _, name = cassette.rpartition("--")
    _record_one(settings, _corpus()[conversation_id], name, cassette)


def _record_one(
    settings: RunSettings, conversation: Conversation, name: str, cassette: str
) -> None:
    """Play ``conversation`` under condition ``name`` against the live model into ``cassette``."""
    budget = budget_for(conversation.size, conversation.tokens)
    with settings.model(ID, cassette) as client:
        run_conversation(conversation, CONDITIONS[name], budget, client.client)


def run(settings: RunSettings) -> ExperimentResult:
    """Run X-BENCH and judge its claims (recording the slice's cassettes first when asked)."""
    if settings.mode == "record":
        record(settings)
        # ``ctxlab record`` replays what it recorded for the reports; nothing judges this
        return ExperimentResult(ID, (), {}, SOURCE)
    view = measure(settings)
    return ExperimentResult(ID, claims(view), to_data(view), SOURCE)


EXPERIMENT = Experiment.listed(
    __name__,
    run,
    version=1,
    needs_cassettes=False,  # the model-free conditions run with no cassette; recorded sets add
    records=True,  # the others
    conditions=tuple(CONDITIONS),  # what `ctxlab record X-BENCH --conditions` chooses among
    local_context=32_768,  # Qwen2.5-Coder's window: an 8K conversation is ~12K of its tokens
    weight=4.0,
    record_plan=record_plan,
    record_one=record_cassette,
)
