"""Running X-BENCH's conditions over a set of conversations and tabulating the scores; shared by
the experiment (:mod:`experiments.x_bench`) and ``ctxlab bench``.

:func:`run_record` scores one run into the view's record (:mod:`experiments.x_bench.runs` plays
the grid, concurrently when asked); :func:`tabulate` turns the records into the view's tables,
with seeded bootstrap intervals.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from experiments.x_bench.conditions import CONDITIONS
from experiments.x_bench.corpus import generate
from experiments.x_bench.equal_budget import at_equal_budget
from experiments.x_bench.replay import ConversationRun
from experiments.x_bench.schema import FACT_KINDS, Conversation
from experiments.x_bench.scoring import RunScore, bootstrap, paired
from experiments.x_bench.view import CellRecord, ConditionRecord, PairRecord, RunRecord

__all__ = [
    "BENCH_SELECTION",
    "HELDOUT_CONDITIONS",
    "HELDOUT_FIRST",
    "HELDOUT_SELECTION",
    "NO_MODEL",
    "bench_conversations",
    "heldout_conversations",
    "run_record",
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
HELDOUT_SELECTION: tuple[tuple[str, range], ...] = (("2k", range(1, 4)),)
"""The held-out conversations X-BENCH records (:func:`heldout_conversations`): seeds per size,
each in both languages and both shapes (12 at 2K)."""
HELDOUT_CONDITIONS: tuple[str, ...] = (
    "ctxlab+pin+recall",
    "reference",
    "truncation",
    "ctxlab-gate",
    "ctxlab",
    "ctxlab+quotes",
)
"""The conditions recorded on the held-out conversations, in the plan's order: the candidate
profile, what it must beat (the reference prompt, truncation), then the rest of ctxlab's.
:data:`HELDOUT_FIRST` are recorded here before the tune split."""
HELDOUT_FIRST: tuple[str, ...] = ("ctxlab+pin+recall", "ctxlab+quotes")
"""The candidates measured on the held-out split first (not in the tune split's plan yet)."""
BANDS = ("early", "middle", "late")


def bench_conversations(
    selection: Iterable[tuple[str, Iterable[int]]] = BENCH_SELECTION,
) -> list[Conversation]:
    return [
        generate(seed, size, lang)
        for size, seeds in selection
        for seed in seeds
        for lang in ("zh", "en")
    ]


def heldout_conversations(
    selection: Iterable[tuple[str, Iterable[int]]] = HELDOUT_SELECTION,
) -> list[Conversation]:
    """The held-out split's conversations X-BENCH records (phrasing the profile was not written
    against: :mod:`experiments.x_bench.heldout`), with and without tool outputs."""
    return [
        generate(seed, size, lang, "heldout", shape)
        for size, seeds in selection
        for seed in seeds
        for shape in ("tools", "chat")
        for lang in ("zh", "en")
    ]


def window_share(conversation: Conversation, kept_turns: set[int]) -> float:
    """The share of scorable facts whose planting turn is among ``kept_turns``."""
    facts = [f for f in conversation.facts if f.values]
    return sum(f.turn in kept_turns for f in facts) / len(facts) if facts else 0.0


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


def run_record(
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
    judged = [f for f in score.facts if f.correct is not None]  # not the unanchored ones
    return {"answered": True, "correct": sum(f.correct for f in judged), "questions": len(judged)}


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
    # a run that never compacted is no comparison at equal budget (experiments.x_bench.equal_budget)
    keyed = {(r.condition, r.model, r.conversation): r.survival for r in at_equal_budget(records)}
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
