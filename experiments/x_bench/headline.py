"""X-BENCH's answer first: ctxlab's own profile against the reference prompt and the model-free
baselines, per recorded model, over the same conversations.

The conditions table averages each condition over the conversations it was recorded on, which
differ from one condition to the next while recording goes on. The headline compares like with
like: for each recorded model, the conversations on which both ctxlab's profile and the
reference prompt were recorded, and on exactly those, every condition of :data:`HEADLINE`
(a model-free condition's survival and tokens are its run without a model; its answers are
the model's probe of it, where recorded on every one of those conversations).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from experiments.x_bench.conditions import CONDITIONS
from experiments.x_bench.equal_budget import at_equal_budget
from experiments.x_bench.scoring import bootstrap, paired
from experiments.x_bench.view import RunRecord, XBenchView

__all__ = [
    "HEADLINE",
    "Carrying",
    "HeadlineRow",
    "answer_share",
    "carried",
    "dominating",
    "headline",
    "headline_models",
    "headline_rows",
    "models_of",
]

HEADLINE = ("ctxlab", "reference", "masking", "truncation")
"""The conditions the headline sets side by side, ctxlab's profile first."""
NO_MODEL = "none"


@dataclass(frozen=True)
class HeadlineRow:
    """One condition on one model's headline conversations."""

    model: str
    condition: str
    conversations: int
    survival: float
    low: float
    high: float
    carried_tokens: float
    """Tokens carried (:func:`carried`)."""
    final_tokens: float
    correct: float | None
    """Share of the probe's questions answered correctly, or None where a probe is missing."""
    invented: int
    difference: tuple[float, float, float] | None
    """ctxlab's survival minus this condition's, paired by conversation, with its interval
    (None on ctxlab's own row)."""
    never_compacted: int = 0
    """The headline conversations on which this condition never compacted: left out of the row
    (not a comparison at equal budget, :mod:`experiments.x_bench.equal_budget`)."""


def answer_share(probes: Sequence[RunRecord]) -> float | None:
    """The share of the probe's questions answered correctly over ``probes`` (None when no
    model answered any)."""
    questions = sum(r.questions for r in probes)
    return round(sum(r.correct or 0 for r in probes) / questions, 4) if questions else None


class Carrying(Protocol):
    """What :func:`carried` reads of a run (a :class:`RunRecord` has it)."""

    @property
    def carried_tokens(self) -> Sequence[int]: ...

    @property
    def final_tokens(self) -> int: ...


def carried(runs: Sequence[Carrying]) -> float:
    """The tokens ``runs`` carried: per conversation, the mean context right after its
    compactions (its final context when it never compacted: a run that compacts nothing carries
    everything), then the mean over conversations, so each conversation weighs the same."""
    each = [
        sum(r.carried_tokens) / len(r.carried_tokens) if r.carried_tokens else r.final_tokens
        for r in runs
    ]
    return sum(each) / len(each) if each else 0.0


def headline_models(view: XBenchView) -> list[tuple[str, str]]:
    """``(model, size)`` of each recorded model and corpus size with at least one conversation
    under both ctxlab and reference (sizes apart: an 8K conversation compacts three times or
    more at another budget)."""
    return models_of(view.runs)


def models_of(runs: Sequence[RunRecord], ours: str = "ctxlab") -> list[tuple[str, str]]:
    """``(model, size)`` of each recorded model and size of ``runs`` with at least one
    conversation under both ``ours`` and reference."""
    keys = dict.fromkeys((r.model, r.size) for r in runs if r.model != NO_MODEL)
    return [(m, size) for m, size in keys if _conversations(runs, m, size, ours)]


def headline(view: XBenchView, model: str, size: str) -> list[HeadlineRow]:
    """Every condition of :data:`HEADLINE` on ``model``'s headline conversations of ``size``,
    each without the runs that never compacted (and ctxlab's differences paired only over the
    conversations on which both compacted)."""
    return headline_rows(view.runs, model, size)


def headline_rows(
    runs: Sequence[RunRecord],
    model: str,
    size: str,
    ours: str = "ctxlab",
    names: Sequence[str] = HEADLINE,
) -> list[HeadlineRow]:
    """Every condition of ``names`` (``ours`` first) on ``model``'s conversations of ``size``
    recorded under both ``ours`` and reference, as :func:`headline` (which is this over
    X-BENCH's tune runs)."""
    ids = _conversations(runs, model, size, ours)
    if not ids:
        return []
    mine = at_equal_budget(_runs(runs, ours, model, ids))
    rows = []
    for name in names:
        every = _runs(runs, name, model if CONDITIONS[name].needs_model else NO_MODEL, ids)
        if not every and name not in (ours, "reference", "truncation"):
            continue  # not recorded on these conversations yet: no row
        kept_runs = at_equal_budget(every)
        kept = {r.conversation for r in kept_runs}
        probes = [p for p in _runs(runs, name, model, ids) if p.conversation in kept]
        row = _row(model, name, kept_runs, probes, None if name == ours else mine)
        rows.append(dataclasses.replace(row, never_compacted=len(every) - len(kept_runs)))
    return rows


def _conversations(
    runs: Sequence[RunRecord], model: str, size: str, ours: str = "ctxlab"
) -> list[str]:
    """The conversations of ``size`` recorded under both ``ours`` and reference on ``model``,
    in run order."""
    of = {c: {r.conversation for r in runs if (r.condition, r.model, r.size) == (c, model, size)}
          for c in (ours, "reference")}  # fmt: skip
    order = dict.fromkeys(r.conversation for r in runs)
    return [c for c in order if c in of[ours] and c in of["reference"]]


def _runs(runs: Sequence[RunRecord], name: str, model: str, ids: list[str]) -> list[RunRecord]:
    """``name``'s runs on ``model`` over ``ids``, in their order (fewer when some are missing)."""
    found = {r.conversation: r for r in runs if r.condition == name and r.model == model}
    return [found[i] for i in ids if i in found]


def _row(
    model: str,
    name: str,
    runs: list[RunRecord],
    probes: list[RunRecord],
    ours: list[RunRecord] | None,
) -> HeadlineRow:
    mean, low, high = bootstrap([r.survival for r in runs])
    answered = len(probes) == len(runs) and all(p.correct is not None for p in probes)
    return HeadlineRow(
        model=model,
        condition=name,
        conversations=len(runs),
        survival=mean,
        low=low,
        high=high,
        carried_tokens=round(carried(runs), 1),
        final_tokens=round(sum(r.final_tokens for r in runs) / max(len(runs), 1), 1),
        correct=answer_share(probes) if answered else None,
        invented=sum(len(r.invented) for r in runs),
        difference=_against(ours, runs) if ours is not None else None,
    )


def _against(ours: list[RunRecord], theirs: list[RunRecord]) -> tuple[float, float, float]:
    """ctxlab's survival minus ``theirs``, paired by conversation."""
    mine = {r.conversation: r.survival for r in ours}
    both = [r for r in theirs if r.conversation in mine]
    return paired([mine[r.conversation] for r in both], [r.survival for r in both])


def dominating(rows: Sequence[HeadlineRow]) -> list[str]:
    """The conditions that keep at least as many facts as ctxlab's profile (``rows[0]``) while
    carrying fewer tokens after a compaction: none means ctxlab's profile is on the trade-off
    frontier of the headline's conditions."""
    ours = rows[0]
    return [
        r.condition
        for r in rows[1:]
        if r.conversations
        and r.survival >= ours.survival
        and r.carried_tokens < ours.carried_tokens
    ]
