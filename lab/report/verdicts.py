"""The verdicts ``index.html`` opens with: per experiment and recorded model, how many claims
match and differ, and across the models which claims match, differ or are mixed.

The unit is always the claim (one ``claim_id`` of one experiment): a claim recorded with two
models is one claim with two values. Nothing here renders; :mod:`.html` shows it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from lab.report.markdown import and_list
from lab.report.tables import SCRIPTED_MODEL, experiment_key

UNCLASSIFIED = "unclassified"
"""The reason class shown for a differing row that has none (a test keeps there being none)."""

__all__ = [
    "UNCLASSIFIED",
    "Cell",
    "ClaimVerdict",
    "Verdict",
    "claim_status",
    "claim_verdicts",
    "plural",
    "verdicts",
]


@dataclass(frozen=True)
class Cell:
    """One experiment with one model: its claims that match and that differ."""

    matched: int
    differed: int

    @property
    def total(self) -> int:
        return self.matched + self.differed


@dataclass(frozen=True)
class ClaimVerdict:
    """One claim across its models: ``match``, ``differs`` or ``mixed`` (models disagree), and
    the reason classes of its differing rows."""

    experiment: str
    claim_id: str
    status: str
    reasons: tuple[str, ...]
    models: tuple[str, ...] = ()
    """The models it has a row for (``scripted`` for a scripted claim)."""


@dataclass(frozen=True)
class Verdict:
    """One experiment's row of the verdict matrix."""

    experiment: str
    title: str
    cells: Mapping[str, Cell]
    """By model (``scripted`` for a scripted experiment), in the claims' model order."""
    claims: tuple[ClaimVerdict, ...]

    def count(self, status: str) -> int:
        """How many of its claims are ``match``, ``differs`` or ``mixed``."""
        return sum(c.status == status for c in self.claims)

    @property
    def scripted(self) -> bool:
        return list(self.cells) == [SCRIPTED_MODEL]

    @property
    def reasons(self) -> list[tuple[str, int]]:
        """Reason classes by how many of its not-matching claims they explain, most first."""
        counted = Counter(r for c in self.claims for r in dict.fromkeys(c.reasons))
        return sorted(counted.items(), key=lambda item: (-item[1], item[0]))

    def sentence(self) -> str:
        """What the experiment's claims came to, in one sentence, with the main causes."""
        total = len(self.claims)
        models = [m for m in self.cells if m != SCRIPTED_MODEL]
        # "for both models" only when every claim was judged on every model (X-BENCH mixes
        # scripted claims with claims judged only where a model's runs hold what they compare)
        uniform = all(set(c.models) == set(models) for c in self.claims if c.models)
        every = (
            ""
            if not models or not uniform
            else "for the model"
            if len(models) == 1
            else "for both models"
            if len(models) == 2
            else f"for all {len(models)} models"
        )
        matched, differed, mixed = (self.count(s) for s in ("match", "differs", "mixed"))
        if matched == total:
            return f"All {plural(total, 'claim')} match" + (f" {every}." if every else ".")
        parts = [f"{matched} of {plural(total, 'claim')} match" + (f" {every}" if every else "")]
        if differed:
            parts.append(
                f"{differed} {'differs' if differed == 1 else 'differ'}"
                + (f" {every}" if every else "")
            )
        if mixed:
            parts.append(f"{mixed} {'is' if mixed == 1 else 'are'} mixed (the models disagree)")
        text = and_list(parts)
        causes = self.reasons
        if causes:
            named = ", ".join(f"{reason} ({n})" for reason, n in causes)
            text += f"; {'cause' if len(causes) == 1 else 'causes'}: {named}"
        return text + "."


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def claim_status(statuses: Sequence[str]) -> str:
    """A claim's status across its models: the common one, or ``mixed``."""
    seen = {"match" if s == "match" else "differs" for s in statuses}
    return seen.pop() if len(seen) == 1 else "mixed"


def claim_verdicts(claims: pd.DataFrame) -> list[ClaimVerdict]:
    """One verdict per claim (experiment and claim id), in table order."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in claims.to_dict("records"):
        groups.setdefault((row["experiment"], row["claim_id"]), []).append(row)
    return [
        ClaimVerdict(
            experiment,
            claim_id,
            claim_status([r["status"] for r in rows]),
            tuple(r.get("reason_class") or UNCLASSIFIED for r in rows if r["status"] != "match"),
            tuple(str(r.get("model", "")) for r in rows),
        )
        for (experiment, claim_id), rows in groups.items()
    ]


def verdicts(
    claims: pd.DataFrame, titles: Mapping[str, str], order: Sequence[str]
) -> list[Verdict]:
    """One verdict per experiment with claims: experiments in ``order`` first, then the others
    by :func:`~.tables.experiment_key`."""
    rank = {e: i for i, e in enumerate(order)}
    ids = sorted(
        dict.fromkeys(claims["experiment"]),
        key=lambda e: (rank.get(e, len(rank)), experiment_key(e)),
    )
    every = claim_verdicts(claims)
    found = []
    for experiment in ids:
        own = claims[claims["experiment"] == experiment]
        cells = {
            str(model): Cell(
                int((rows["status"] == "match").sum()), int((rows["status"] != "match").sum())
            )
            for model, rows in own.groupby("model", sort=False)
        }
        found.append(
            Verdict(
                experiment,
                titles.get(experiment, ""),
                cells,
                tuple(c for c in every if c.experiment == experiment),
            )
        )
    return found
