"""Cadence: the rounds in which a plain Q&A agent compacts, over a grid of trigger × keep.

The article computed the interval between compactions as ``ceil((trigger − keep − 1) / 2)``
and never ran it; here every cell of trigger 4–20 × keep 1–6 runs for 30 rounds.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from experiments.e5.common import qa_config
from experiments.e5.view import E5View, GridCell
from harness import Agent, FunctionModel, make_engine
from harness.model import ChatRequest
from lab import AS_SEED, FORMULA, ClaimSpec, Verdict, cite

__all__ = ["GRID_SPECS", "cadence", "formula_interval", "measure_grid"]

ROUNDS = 30
TRIGGERS = range(4, 21)
KEEPS = range(1, 7)


def formula_interval(trigger: int, keep: int) -> int:
    """The article's interval between compactions in plain Q&A rounds."""
    return math.ceil((trigger - keep - 1) / 2)


def _echo_model() -> FunctionModel:
    def reply(request: ChatRequest) -> str:
        return "SUMMARY" if request.purpose == "summary" else "OK"

    return FunctionModel(reply, model_name="scripted")


def cadence(trigger: int, keep: int, rounds: int = ROUNDS) -> list[int]:
    """The rounds (1-based) in which a plain Q&A agent compacted."""
    model = _echo_model()
    agent = Agent(model, "system", engine=make_engine(qa_config(trigger, keep), model))
    return [r for r in range(1, rounds + 1) if agent.call(f"question {r}").compactions]


def measure_grid() -> tuple[GridCell, ...]:
    """One cell per trigger × keep with keep below trigger."""
    return tuple(_measure_cell(t, k) for t in TRIGGERS for k in KEEPS if k < t)


def _measure_cell(trigger: int, keep: int) -> GridCell:
    rounds = cadence(trigger, keep)
    gaps = tuple(sorted({b - a for a, b in itertools.pairwise(rounds)}))
    return GridCell(
        trigger=trigger,
        keep=keep,
        first=rounds[0] if rounds else None,
        first_formula=math.ceil((trigger + 1) / 2),
        intervals=gaps,
        interval=gaps[0] if len(gaps) == 1 else None,
        formula=formula_interval(trigger, keep),
        compactions=len(rounds),
    )


def _cell(grid: tuple[GridCell, ...], trigger: int, keep: int) -> GridCell:
    return next(c for c in grid if c.trigger == trigger and c.keep == keep)


def _cadence(trigger: int, keep: int) -> Callable[[E5View], Verdict]:
    def measure(view: E5View) -> Verdict:
        cell = _cell(view.grid, trigger, keep)
        return Verdict(f"first at round {cell.first}, then every {cell.interval}")

    return measure


def _every_two(view: E5View) -> Verdict:
    """The seed computes the interval for trigger 6 / keep 2 (2 rounds), not the first round."""
    cell = _cell(view.grid, 6, 2)
    return Verdict(
        f"every {cell.interval} rounds (first at round {cell.first})", cell.interval == 2
    )


def _formula(view: E5View) -> Verdict:
    """Matches when every cell's single measured interval is the formula's."""
    agree, disagree = [c for c in view.grid if c.agrees], list(view.disagreeing)
    return Verdict(
        f"{len(agree)} of {len(view.grid)} cells agree",
        not disagree,
        differs_note=_disagreement_note(disagree),
    )


def _disagreement_note(disagree: list[GridCell]) -> str:
    only_edge = all(c.trigger == c.keep + 1 and c.interval == 1 for c in disagree)
    which = "exactly those with trigger = keep + 1" if only_edge else "listed in E5.json"
    return (
        f"the {len(disagree)} cells that disagree are {which}: the formula gives 0 there, "
        "but after a compaction the context holds "
        "keep + 1 = trigger messages and the next round's user message makes it larger, "
        "so the harness compacts every round (interval 1); the harness is right, the "
        "formula needs max(1, …)"
    )


GRID_SPECS: tuple[ClaimSpec[E5View], ...] = (
    ClaimSpec(
        "E5-CADENCE-5-2",
        "trigger 5 / keep 2 compacts every round (from round 3).",
        _cadence(5, 2),
        "first at round 3, then every 1",
        cite(AS_SEED, "trigger=5 / keep=2 的稳态是从第 3 轮起每轮都压"),
    ),
    ClaimSpec(
        "E5-CADENCE-6-2",
        "trigger 6 / keep 2 compacts every 2 rounds (computed in the article, never run).",
        _every_two,
        "every 2 rounds",
        cite(AS_SEED, "拿 trigger=6 / keep=2 代进去，间隔 2 轮"),
        kind="article-computed",
        note="judged on the interval; the first round is ours, the seed does not state it",
        differs_note="the measured interval is not 2; see E5.json grid",
    ),
    ClaimSpec(
        "E5-CADENCE-13-2",
        "trigger 13 / keep 2: first at round 7, then every 5 rounds "
        "(computed in the article, never run).",
        _cadence(13, 2),
        "first at round 7, then every 5",
        cite(AS_SEED, "得 trigger=13 / keep=2，第一次在第 7 轮命中——这条是算的，我没跑"),
        kind="article-computed",
    ),
    ClaimSpec(
        "E5-CADENCE-GRID",
        "Interval = ceil((trigger − keep − 1) / 2) over the grid "
        "trigger 4–20 × keep 1–6 (30 rounds each).",
        _formula,
        "interval = ceil((trigger − keep − 1) / 2) in plain Q&A rounds",
        cite(AS_SEED, "普通问答的间隔：ceil((trigger − keep − 1) / 2)"),
        kind="article-computed",
        note="every cell's measured interval is the formula's",
        reason_class=FORMULA,
    ),
)
"""The three cells the article named, then the formula over the whole grid."""
