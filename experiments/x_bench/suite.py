"""Running X-BENCH's conditions over a set of conversations and tabulating the scores; shared by
the experiment (:mod:`experiments.x_bench`) and ``ctxlab bench``.

:func:`run_all` plays every conversation under every condition it can (a condition that needs a
summary model runs only where ``model_for`` gives one) and scores each run;
:func:`tabulate` turns the records into the view's tables, with seeded bootstrap intervals.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from experiments.x_bench.conditions import CONDITIONS, budget_for
from experiments.x_bench.corpus import generate
from experiments.x_bench.replay import ConversationRun, run_conversation
from experiments.x_bench.schema import FACT_KINDS, Conversation
from experiments.x_bench.scoring import RunScore, bootstrap, paired, score_run
from experiments.x_bench.view import CellRecord, ConditionRecord, PairRecord, RunRecord
from harness.model import ChatModel

__all__ = [
    "BENCH_SELECTION",
    "NO_MODEL",
    "Outcome",
    "bench_conversations",
    "run_all",
    "tabulate",
    "window_share",
]

NO_MODEL = "none"
BENCH_SELECTION: tuple[tuple[str, range], ...] = (
    ("2k", range(1, 7)),
    ("8k", range(1, 3)),
    ("24k", range(1, 2)),
)
"""X-BENCH's conversations: seeds per size, each in both languages (12 at 2K, 4 at 8K, 2 at
24K)."""
BANDS = ("early", "middle", "late")

ModelFor = Callable[[Conversation, str], ChatModel | None]
Cached = Callable[[Conversation, str], RunRecord | None]
"""An earlier run of a conversation under a condition (``ctxlab bench``'s journal), or None."""
Finished = Callable[[Conversation, RunRecord], None]
"""Called with each run as soon as it is scored (``ctxlab bench`` journals it)."""


def bench_conversations(
    selection: Iterable[tuple[str, Iterable[int]]] = BENCH_SELECTION,
) -> list[Conversation]:
    return [
        generate(seed, size, lang)
        for size, seeds in selection
        for seed in seeds
        for lang in ("zh", "en")
    ]


def window_share(conversation: Conversation, kept_turns: set[int]) -> float:
    """The share of scorable facts whose planting turn is among ``kept_turns``."""
    facts = [f for f in conversation.facts if f.values]
    return sum(f.turn in kept_turns for f in facts) / len(facts) if facts else 0.0


@dataclass(frozen=True)
class Outcome:
    """One run's record and how long it took."""

    record: RunRecord
    seconds: float


def run_all(
    conversations: Sequence[Conversation],
    conditions: Sequence[str],
    model_for: ModelFor,
    model_label: str,
    progress: Callable[[str], None] | None = None,
    cached: Cached | None = None,
    finished: Finished | None = None,
) -> tuple[list[RunRecord], list[str]]:
    """Every conversation under every condition; the conditions that needed a model and got
    none are returned as not run. A run ``cached`` gives is kept, not played again."""
    records: list[RunRecord] = []
    skipped: list[str] = []
    hooks = _Hooks(progress, cached, finished)
    for conversation in conversations:
        records += _run_conditions(conversation, conditions, model_for, model_label, skipped, hooks)
    return records, skipped


@dataclass(frozen=True)
class _Hooks:
    progress: Callable[[str], None] | None
    cached: Cached | None
    finished: Finished | None

    def say(self, line: str) -> None:
        if self.progress is not None:
            self.progress(line)

    def scored(
        self,
        conversation: Conversation,
        label: str,
        run: ConversationRun,
        full_turns: list[int],
        started: float,
    ) -> RunRecord:
        """``run`` scored, handed to ``finished`` and said, with the seconds since ``started``."""
        score = score_run(conversation, run)
        record = _run_record(conversation, run.condition, label, run, score, full_turns)
        if self.finished is not None:
            self.finished(conversation, record)
        seconds = time.perf_counter() - started
        stop = "" if run.stopped_at is None else f", {_stop_note(run.stopped_at)}"
        self.say(
            f"{conversation.id} {run.condition}: survival {score.survival:.0%}{stop} "
            f"({seconds:.1f} s)"
        )
        return record

    def kept(self, conversation: Conversation, name: str) -> RunRecord | None:
        """The run an earlier bench finished, said as kept; None: it plays."""
        found = self.cached(conversation, name) if self.cached is not None else None
        if found is not None:
            self.say(f"{conversation.id} {name}: survival {found.survival:.0%} (kept: run before)")
        return found


def _run_conditions(
    conversation: Conversation,
    conditions: Sequence[str],
    model_for: ModelFor,
    model_label: str,
    skipped: list[str],
    hooks: _Hooks,
) -> list[RunRecord]:
    """One conversation under each of ``conditions`` it can run; a condition left out for want
    of a model is added to ``skipped``. ``full`` always plays first, because the net tokens are
    counted against its turns: with no model (no probe call) when it was not asked for or its
    run is kept."""
    records: list[RunRecord] = []
    budget = budget_for(conversation.size, conversation.tokens)
    full_turns: list[int] | None = None
    for name in ["full", *[c for c in conditions if c != "full"]]:
        condition = CONDITIONS[name]
        wanted = name in conditions
        kept = hooks.kept(conversation, name) if wanted else None
        if kept is not None:
            records.append(kept)
            if name == "full":  # no model: the turns' tokens are the same without the probe
                full_turns = run_conversation(conversation, condition, budget).agent_prompt_tokens
            continue
        model = model_for(conversation, name) if wanted else None
        if condition.needs_model and model is None:
            if name not in skipped:
                skipped.append(name)
            continue
        started = time.perf_counter()
        run = run_conversation(conversation, condition, budget, model)
        if full_turns is None:
            full_turns = run.agent_prompt_tokens
        if not wanted:
            continue
        label = model_label if model is not None else NO_MODEL
        records.append(hooks.scored(conversation, label, run, full_turns, started))
    return records


def _stop_note(turn: int) -> str:
    return f"stopped by the thrash guard at turn {turn}"


def _net_tokens(
    conversation: Conversation, run: ConversationRun, score: RunScore, full_turns: list[int]
) -> tuple[int, int]:
    """Agent tokens saved against ``full`` minus the summary calls' tokens, over the turns
    ``run`` played and over the continuation turns among them."""
    played = len(run.agent_prompt_tokens)
    continuation = sum(
        full_turns[t.index]
        for t in conversation.turns
        if t.phase == "continuation" and t.index < played
    )
    return (
        sum(full_turns[:played]) - score.agent_prompt_tokens - score.summary_tokens,
        continuation - score.continuation_prompt_tokens - score.summary_tokens,
    )


def _run_record(
    conversation: Conversation,
    name: str,
    model: str,
    run: ConversationRun,
    score: RunScore,
    full_turns: list[int],
) -> RunRecord:
    """One scored run as the view's record (net tokens: :func:`_net_tokens`)."""
    kept, by_id = run.turns_in_context(conversation), {f.fact: f for f in score.facts}
    net, net_continuation = _net_tokens(conversation, run, score, full_turns)
    return RunRecord(
        conversation=conversation.id,
        lang=conversation.lang,
        size=conversation.size,
        condition=name,
        model=model,
        compactions=score.compactions,
        survival=round(score.survival, 4),
        survived=[i for i, f in by_id.items() if f.survived],
        lost=[i for i, f in by_id.items() if f.survived is False],
        in_tail=[f.id for f in conversation.facts if f.values and f.turn in kept],
        carried_tokens=score.carried_tokens,
        compression=score.compression,
        final_tokens=score.final_tokens,
        invented=score.invented,
        agent_prompt_tokens=score.agent_prompt_tokens,
        continuation_prompt_tokens=score.continuation_prompt_tokens,
        summary_calls=score.summary_calls,
        failed_summaries=sum(c.summary_failed for c in run.compactions),
        summary_tokens=score.summary_tokens,
        net_tokens=net,
        net_continuation_tokens=net_continuation,
        turns_after_last_compaction=score.turns_after_last_compaction,
        **_probe(score),
        window_share=round(window_share(conversation, kept), 4) if name == "truncation" else None,
        stopped_at=run.stopped_at,
        oversized=score.oversized,
    )


def _probe(score: RunScore) -> dict[str, Any]:
    """Whether a model answered the probe, how many answers were correct, of how many."""
    if not score.answered:
        return {"answered": False, "correct": None, "questions": 0}
    correct = sum(bool(f.correct) for f in score.facts)
    return {"answered": True, "correct": correct, "questions": len(score.facts)}


def _facts_of(conversations: Sequence[Conversation]) -> dict[str, dict[str, tuple[str, str]]]:
    """Conversation id → fact id → (kind, band), scorable facts only."""
    return {c.id: {f.id: (f.kind, f.band) for f in c.facts if f.values} for c in conversations}


def _cells(
    records: Sequence[RunRecord],
    facts: dict[str, dict[str, tuple[str, str]]],
    groups: Sequence[str],
    position: int,
) -> list[CellRecord]:
    cells = []
    keyed: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for record in records:
        keyed[(record.condition, record.model)].append(record)
    for (condition, model), runs in keyed.items():
        for group in groups:
            shares: list[float] = []
            total = kept = 0
            for run in runs:
                ids = [i for i, kb in facts[run.conversation].items() if kb[position] == group]
                if not ids:
                    continue
                here = sum(i in run.survived for i in ids)
                total, kept = total + len(ids), kept + here
                shares.append(here / len(ids))
            if not total:
                continue
            _, low, high = bootstrap(shares)
            cells.append(
                CellRecord(condition, model, group, total, kept, round(kept / total, 4), low, high)
            )
    return cells


def tabulate(
    conversations: Sequence[Conversation],
    records: Sequence[RunRecord],
    conditions: Sequence[str],
) -> tuple[list[ConditionRecord], list[CellRecord], list[CellRecord], list[PairRecord]]:
    """The per-condition summary, survival by kind and by depth band, and paired differences
    against truncation and masking."""
    facts = _facts_of(conversations)
    summary = [row for name in conditions for row in _condition_rows(name, records)]
    by_kind = _cells(records, facts, [k for k in FACT_KINDS if k != "abstention"], 0)
    by_band = _cells(records, facts, BANDS, 1)
    return summary, by_kind, by_band, _pairs(conversations, records, conditions)


def _condition_rows(name: str, records: Sequence[RunRecord]) -> list[ConditionRecord]:
    """A condition's rows, one per model its runs were played with (``none`` first: the runs
    that needed no model), so a conversation is counted once per row; a condition that needs a
    model and has no run is one "not recorded yet" row."""
    runs = [r for r in records if r.condition == name]
    models = sorted({r.model for r in runs}, key=lambda m: (m != "none", m))
    if not models:
        return [_not_recorded(name)]
    return [_condition_summary(name, m, [r for r in runs if r.model == m]) for m in models]


def _condition_summary(name: str, model: str, runs: Sequence[RunRecord]) -> ConditionRecord:
    """One condition's row for one model: mean survival with its interval, over its runs."""
    condition = CONDITIONS[name]
    mean, low, high = bootstrap([r.survival for r in runs])
    carried = [t for r in runs for t in r.carried_tokens]
    return ConditionRecord(
        name=name,
        title=condition.title,
        needs_model=condition.needs_model,
        status="run",
        conversations=len(runs),
        survival=mean,
        low=low,
        high=high,
        mean_final_tokens=round(sum(r.final_tokens for r in runs) / len(runs), 1),
        mean_carried_tokens=round(sum(carried) / len(carried), 1) if carried else 0.0,
        compactions=sum(r.compactions for r in runs),
        invented=sum(len(r.invented) for r in runs),
        model=model,
        stopped=sum(r.stopped_at is not None for r in runs),
    )


def _not_recorded(name: str) -> ConditionRecord:
    condition = CONDITIONS[name]
    return ConditionRecord(
        name,
        condition.title,
        condition.needs_model,
        "not recorded yet",
        0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0,
        0,
    )


def _pairs(
    conversations: Sequence[Conversation],
    records: Sequence[RunRecord],
    conditions: Sequence[str],
) -> list[PairRecord]:
    """Each condition's survival minus truncation's and masking's, paired by conversation."""
    pairs = []
    keyed = {(r.condition, r.model, r.conversation): r.survival for r in records}
    models = sorted({r.model for r in records})
    for model in models:
        for baseline in ("truncation", "masking"):
            for name in conditions:
                if name in ("full", "truncation", baseline):
                    continue
                ids = [
                    c.id
                    for c in conversations
                    if (name, model, c.id) in keyed and (baseline, NO_MODEL, c.id) in keyed
                ]
                if not ids:
                    continue
                a = [keyed[(name, model, i)] for i in ids]
                b = [keyed[(baseline, NO_MODEL, i)] for i in ids]
                difference, low, high = paired(a, b)
                pairs.append(PairRecord(name, baseline, model, difference, low, high, len(ids)))
    return pairs
