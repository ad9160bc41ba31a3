"""X-BENCH (ctxlab's own, issue 23): does what matters survive a compaction, and at what cost?

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

import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TypeVar

from experiments.lab.cassette_sets import list_sets
from experiments.lab.errors import CassetteBusyError, RecordingIncompleteError
from experiments.lab.experiment import Experiment, ExperimentResult, RunSettings
from experiments.lab.parallel import in_order
from experiments.lab.views import to_data
from experiments.x_bench.claims import claims
from experiments.x_bench.conditions import BUDGETS, CONDITIONS, REFERENCE_SOURCE, budget_for
from experiments.x_bench.corpus import GENERATOR_VERSION
from experiments.x_bench.recorded import RecordedModels, cassette_name
from experiments.x_bench.replay import run_conversation
from experiments.x_bench.runs import run_all
from experiments.x_bench.schema import Conversation
from experiments.x_bench.suite import bench_conversations, tabulate
from experiments.x_bench.view import BudgetRecord, RunRecord, XBenchView
from harness import ModelError
from harness.errors import APIConnectionError

__all__ = [
    "EXPERIMENT",
    "ID",
    "cassette_name",
    "measure",
    "plan_slice",
    "record",
    "recording_plan",
    "run",
    "scored_view",
]

T = TypeVar("T")

ID = "X-BENCH"
SOURCE = "scripted"


def measure(settings: RunSettings) -> XBenchView:
    """Every conversation under every condition that can run: the model-free ones without a
    cassette, the others once per recorded set where their cassette exists."""
    conversations = bench_conversations()
    names = list(CONDITIONS)
    free = [n for n in names if not CONDITIONS[n].needs_model]
    records: list[RunRecord]
    records, _ = run_all(conversations, free, lambda *_: None, "none")
    recorded: set[str] = set()
    # Under order replay (mutation testing, never a reproduction) the recorded runs are played
    # too, their summary answers and probe served apart (experiments.x_bench.recorded), so
    # that a mutated harness that compacts more often still gets to its probe.
    for cassette_set in list_sets(settings.cassette_root, ID):
        with ExitStack() as stack:
            model_for = RecordedModels(settings, cassette_set, stack)
            found, _ = run_all(conversations, names, model_for, cassette_set)
        records += [r for r in found if r.model != "none"]
        recorded |= {r.condition for r in found if r.model != "none"}
    not_recorded = [n for n in names if CONDITIONS[n].needs_model and n not in recorded]
    budgets = [BudgetRecord(s, b.trigger_tokens, b.keep_tokens) for s, b in BUDGETS.items()]
    return scored_view(conversations, records, names, budgets, not_recorded)


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
    """Every cassette X-BENCH can record, in order: each conversation under each condition (a
    model-free condition's cassette holds its probe call only)."""
    return [(c, name) for c in bench_conversations() for name in CONDITIONS]


def plan_slice(plan: list[T], part: tuple[int, int] | None) -> list[T]:
    """Part ``K`` of ``N`` of ``plan`` (contiguous, the last ones possibly shorter)."""
    if part is None:
        return plan
    k, n = part
    size = -(-len(plan) // n)
    return plan[(k - 1) * size : k * size]


def record(settings: RunSettings) -> None:
    """Record the slice's cassettes, keeping those already there unless forced (resumable);
    ``settings.concurrency`` of them at once, each in a worker process of its own."""
    plan = [(c, n) for c, n in recording_plan() if n in (settings.conditions or CONDITIONS)]
    plan = plan_slice(plan, settings.slice)
    label = f"slice {settings.slice[0]}/{settings.slice[1]}" if settings.slice else "all"
    label += f" of {', '.join(settings.conditions)}" if settings.conditions else ""
    settings.progress(f"X-BENCH {label}: {len(plan)} cassette(s)")
    started, todo = time.monotonic(), []
    for number, (conversation, name) in enumerate(plan, 1):
        cassette = cassette_name(conversation, name)
        if settings.cassette_path(ID, cassette).is_file() and not settings.force:
            settings.progress(f"X-BENCH [{number}/{len(plan)}] {cassette}: kept (already recorded)")
        else:
            todo.append((number, conversation, name))
    failed, stopped = [], False
    items = [(settings, conversation, name) for _, conversation, name in todo]
    for (number, conversation, name), done in zip(
        todo, in_order(_record_item, items, settings.concurrency), strict=False
    ):
        cassette = cassette_name(conversation, name)
        where = f"X-BENCH [{number}/{len(plan)}] {cassette}"
        if done.error is None:
            settings.progress(f"{where}: {done.seconds:.1f} s")
            continue
        # one model call that never ends must not cost the rest of a slice of hours
        failed.append(cassette)
        stopped = done.blocks
        settings.progress(f"{where}: not recorded{'' if stopped else ', going on'} ({done.error})")
        if stopped:
            break
    settings.progress(f"X-BENCH {label} recorded in {time.monotonic() - started:.1f} s")
    if failed:
        raise _not_recorded(failed, stopped)


@dataclass(frozen=True)
class _Recorded:
    """One cassette's recording, as a worker process hands it back (plain, picklable)."""

    seconds: float
    error: str | None = None
    blocks: bool = False
    """The error left the local server busy: the slice stops (:func:`_blocks_the_server`)."""


def _record_item(item: tuple[RunSettings, Conversation, str]) -> _Recorded:
    settings, conversation, name = item
    began = time.monotonic()
    try:
        _record_one(settings, conversation, name, cassette_name(conversation, name))
    except (ModelError, RecordingIncompleteError, CassetteBusyError) as error:
        blocks = _blocks_the_server(settings, error)
        return _Recorded(time.monotonic() - began, str(error), blocks)
    return _Recorded(time.monotonic() - began)


def _not_recorded(failed: list[str], stopped: bool) -> RecordingIncompleteError:
    why = (
        " The local server was still writing the answer that timed out (or was gone), so the "
        "rest of the slice would have waited behind it: the slice stopped there; --max-tokens "
        "cuts a model that never stops."
        if stopped
        else ""
    )
    return RecordingIncompleteError(
        f"X-BENCH: {len(failed)} cassette(s) of the slice were not recorded "
        f"({', '.join(failed)}).{why} Run the same command again to retry them (recorded ones "
        "are kept), with more time (--read-timeout, --timeout) if they timed out."
    )


def _blocks_the_server(settings: RunSettings, error: Exception) -> bool:
    """A request that got no answer from a local server ctxlab started: the server (one
    request at a time, no cancel) goes on writing that answer, so every later request of the
    slice would wait behind it and time out too; or the server is gone."""
    return settings.server_info is not None and isinstance(
        error, APIConnectionError | RecordingIncompleteError
    )


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
    needs_cassettes=False,  # the model-free conditions run with no cassette; recorded sets add
    records=True,  # the others
    local_context=32_768,  # Qwen2.5-Coder's window: an 8K conversation is ~12K of its tokens
    weight=4.0,
)
