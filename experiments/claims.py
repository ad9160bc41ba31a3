"""Claim records: one published statement beside what we reproduced, and the table of them.

Computing (the experiments build :class:`Claim` records) is kept apart from rendering: one
function turns records into a pandas DataFrame, and writers turn that frame into files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import pandas as pd

from harness.errors import ExperimentError
from harness.files import write_atomic

__all__ = ["CLAIM_COLUMNS", "Claim", "claims_frame", "merge_claims", "read_claims", "write_claims"]

Status = Literal["match", "differs"]

CLAIM_COLUMNS = [
    "experiment",
    "claim_id",
    "claim",
    "article_value",
    "reproduced_value",
    "status",
    "source",
    "note",
]


@dataclass(frozen=True)
class Claim:
    """One row of ``claims.csv``."""

    experiment: str
    claim_id: str
    claim: str
    """The statement, in one sentence."""
    article_value: str
    """What the article reports."""
    reproduced_value: str
    """What we measured."""
    status: Status
    """``match`` or ``differs``, decided by a rule in the experiment's code."""
    source: str
    """What produced the value: ``scripted``, or the cassette's ``provider/model``."""
    note: str = ""
    """Why a claim differs, or how it was judged."""

    def __post_init__(self) -> None:
        if self.status not in ("match", "differs"):
            raise ValueError(f"status must be 'match' or 'differs', not {self.status!r}")
        if self.status == "differs" and not self.note:
            raise ValueError(f"{self.claim_id} differs and needs a note saying why")

    @classmethod
    def compare(
        cls,
        experiment: str,
        claim_id: str,
        claim: str,
        article_value: object,
        reproduced_value: object,
        source: str,
        note: str = "",
        *,
        differs_note: str = "",
    ) -> Claim:
        """A claim whose status is ``match`` exactly when the two values read the same."""
        article, reproduced = str(article_value), str(reproduced_value)
        status: Status = "match" if article == reproduced else "differs"
        if status == "differs":
            note = differs_note or note or f"measured {reproduced}, the article reports {article}"
        return cls(experiment, claim_id, claim, article, reproduced, status, source, note)


def claims_frame(claims: Iterable[Claim]) -> pd.DataFrame:
    """The claims as a DataFrame with the columns of ``claims.csv``, in the given order."""
    return pd.DataFrame([asdict(c) for c in claims], columns=CLAIM_COLUMNS)


def read_claims(path: Path) -> pd.DataFrame:
    """An existing ``claims.csv``, or an empty frame when there is none."""
    if not path.exists():
        return pd.DataFrame(columns=CLAIM_COLUMNS)
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False)[CLAIM_COLUMNS]
    except (pd.errors.EmptyDataError, pd.errors.ParserError, KeyError) as exc:
        raise ExperimentError(
            f"{path} is not a claims table ({exc}); delete it and run again."
        ) from exc


def merge_claims(existing: pd.DataFrame, fresh: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Replace the rows of the experiments in ``fresh``; keep the others; sort by ``order``."""
    kept = existing[~existing["experiment"].isin(set(fresh["experiment"]))]
    merged = pd.concat([kept, fresh], ignore_index=True)
    rank = {name: i for i, name in enumerate(order)}
    merged["_rank"] = merged["experiment"].map(lambda e: rank.get(e, len(rank)))
    merged = merged.sort_values("_rank", kind="stable").drop(columns="_rank")
    return merged.reset_index(drop=True)


def write_claims(frame: pd.DataFrame, path: Path) -> None:
    """Write ``claims.csv`` atomically (LF line ends, UTF-8)."""
    from experiments.base import refuse_secrets

    text = frame.to_csv(index=False, lineterminator="\n")
    refuse_secrets(path, text)
    write_atomic(path, text)
