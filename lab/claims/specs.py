"""Claims as data: a table of :class:`ClaimSpec` per experiment, judged by :func:`evaluate`.

A spec holds what is fixed about a claim (its id, statement, kind, the article's value and where
a seed states it) and a ``measure`` function that reads the experiment's typed view (see
:mod:`lab.views`) and returns a :class:`Verdict`: the reproduced value and, when the
claim is not a plain comparison, whether it holds and why. :func:`evaluate` turns specs and a
view into :class:`~lab.claims.Claim` rows, the same way for every experiment:

- ``article`` and ``article-computed`` rows match when the verdict says so, or, when it does not
  say, when the reproduced value reads as the article value; a differing row's note says why
  (the verdict's or spec's reason, else the two values);
- ``ctxlab`` rows (our own check) match when the verdict says so, or when the reproduced value
  reads as the expected one, and the expectation goes into the note (``ctxlab's own check (no
  seed states a value); expected …``); a ``ctxlab`` row with no expected value is a check judged
  by a rule: its note is the rule, after why it failed when it did.

A ``measure`` that returns None leaves the claim out for that view (X-GATE's E4 rows for a set
that recorded E3 only). An experiment that judges a claim once per recorded model itself
(X-BENCH) evaluates a table per model, naming it.

The strict rules that judge model output stay in :mod:`lab.claims.judges`; a ``measure``
function calls them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from lab.claims import DSH_SEED, REASON_CLASSES, Claim, Kind
from lab.seeds import parse_citation

__all__ = ["ClaimSpec", "Verdict", "evaluate", "every", "yes"]

V = TypeVar("V")


@dataclass(frozen=True)
class Verdict:
    """What a claim's ``measure`` found in a view."""

    value: str
    """The reproduced value."""
    holds: bool | None = None
    """Whether the claim holds; None = decided by comparing :attr:`value` (see the module)."""
    note: str = ""
    """How it was judged (overrides the spec's note)."""
    differs_note: str = ""
    """Why it does not hold (overrides the spec's)."""
    article: str = ""
    """The article's value when it depends on what was measured (the article says "each
    summary", so ``3 of 3`` for three summaries); empty = the spec's ``article_value``."""
    expected: str = ""
    """For ``ctxlab`` rows, the expected value when it depends on what was measured; empty =
    the spec's ``expected``."""
    text: str = ""
    """The statement when it names a measured figure; empty = the spec's ``text``."""


@dataclass(frozen=True)
class ClaimSpec(Generic[V]):
    """One claim of an experiment, as data."""

    id: str
    text: str
    """The statement, in one sentence."""
    measure: Callable[[V], Verdict | None]
    """Reads the view into a verdict (a recorded view carries the source of its model output as
    ``view.source``); None: the view does not hold what the claim compares (no row)."""
    article_value: str = ""
    article_source: str = ""
    """Where a seed states the value (:func:`lab.claims.cite`)."""
    kind: Kind = "article"
    expected: str = ""
    """For ``ctxlab`` rows: the value our own check expects."""
    note: str = ""
    """How the claim is judged, when it holds and the verdict gives no note."""
    differs_note: str = ""
    """Why it differs, when the verdict gives no reason."""
    reason_class: str = ""
    """Its main cause when it differs, in a few words (one of
    :data:`~lab.claims.REASON_CLASSES`; :mod:`lab.claims.reason_classes`): ``claims.csv``'s
    ``reason_class``. A claim that can differ needs one (a test checks the committed table)."""
    reason_by_model: Mapping[str, str] = field(default_factory=dict)
    """The main cause for one recorded model when it is not :attr:`reason_class` (the 0.5B
    model's DSH summary was cut at the recording's token cap), by model."""

    def __post_init__(self) -> None:
        causes = {self.reason_class, *self.reason_by_model.values()} - {""}
        if not causes <= set(REASON_CLASSES):
            known = ", ".join(REASON_CLASSES)
            raise ValueError(f"{self.id}: unknown reason class in {sorted(causes)}; {known}")


def yes(flag: bool) -> str:
    """``yes`` or ``no``."""
    return "yes" if flag else "no"


def every(*checks: tuple[str, bool]) -> Verdict:
    """A verdict that holds when every named check does, read ``name: yes; other: no``."""
    return Verdict(
        "; ".join(f"{name}: {yes(ok)}" for name, ok in checks), all(ok for _, ok in checks)
    )


def evaluate(
    experiment: str, specs: Iterable[ClaimSpec[V]], view: V, source: str, model: str = ""
) -> tuple[Claim, ...]:
    """The claims of ``experiment``: each spec measured on ``view`` and judged; ``model`` names
    the recorded model when the experiment judges one itself (empty: the runner sets it)."""
    judged = ((spec, spec.measure(view)) for spec in specs)
    return tuple(
        _claim(experiment, spec, verdict, source, model)
        for spec, verdict in judged
        if verdict is not None
    )


def _kind(spec: ClaimSpec[V]) -> Kind:
    """Seed 002 only reads DeepSeek-Harness's source, never runs it: every row citing it as
    the article's value is ``article-computed``."""
    cited = parse_citation(spec.article_source)
    if spec.kind == "article" and cited is not None and cited.seed == DSH_SEED:
        return "article-computed"
    return spec.kind


def _claim(experiment: str, spec: ClaimSpec[V], verdict: Verdict, source: str, model: str) -> Claim:
    spec = replace(spec, kind=_kind(spec))
    ours = spec.kind == "ctxlab"
    article = verdict.article or spec.article_value
    expected = verdict.expected or spec.expected
    target = expected if ours else article
    holds = verdict.value == target if verdict.holds is None else verdict.holds
    reason = "" if holds else spec.reason_class
    return Claim(
        experiment,
        spec.id,
        verdict.text or spec.text,
        "" if ours else article,
        verdict.value,
        "match" if holds else "differs",
        source,
        _note(spec, verdict, holds, expected, target),
        spec.kind,
        spec.article_source,
        model,
        reason,
        tuple(spec.reason_by_model.items()),
    )


def _note(spec: ClaimSpec[V], verdict: Verdict, holds: bool, expected: str, target: str) -> str:
    note = verdict.note or spec.note
    differs_note = verdict.differs_note or spec.differs_note
    if spec.kind == "ctxlab" and not expected:  # judged by a rule: the rule, after why not
        return note if holds else f"{differs_note}; {note}"
    if spec.kind == "ctxlab":  # the expectation is ours, so it goes into the note
        detail = note if holds else differs_note or f"measured {verdict.value}"
        note = f"ctxlab's own check (no seed states a value); expected {expected}"
        return note + (f"; {detail}" if detail else "")
    if not holds:
        return differs_note or note or f"measured {verdict.value}, the article reports {target}"
    return note
