"""Claim records: one published statement beside what we reproduced, and the table of them.

Computing is kept apart from rendering: every experiment declares its claims as a table of
specs that :func:`lab.claims.specs.evaluate` turns into :class:`Claim` records (the one way a
claim is declared and judged); one function turns records into a pandas DataFrame, and writers
turn that frame into files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from harness.fs.files import write_atomic
from lab.errors import ExperimentError
from lab.jsonio import refuse_secrets
from lab.seeds import AS_SEED, DSH_SEED, SEEDS, citation, parse_citation

if TYPE_CHECKING:  # pandas is imported where a frame is built: `import lab` stays light
    import pandas as pd

__all__ = [
    "AS_SEED",
    "CLAIM_COLUMNS",
    "DSH_SEED",
    "KINDS",
    "REASON_CLASSES",
    "Claim",
    "Kind",
    "cite",
    "claims_frame",
    "merge_claims",
    "read_claims",
    "write_claims",
]

Status = Literal["match", "differs"]
Kind = Literal["article", "article-computed", "ctxlab"]
KINDS: tuple[str, ...] = ("article", "article-computed", "ctxlab")
"""``article``: a seed states the value; ``article-computed``: a seed computed it or read it from
bytecode but never ran it; ``ctxlab``: our own check, no seed states a value."""

REASON_CLASSES: dict[str, str] = {
    "model": "the recorded model answered otherwise than the seeds' deepseek-flash",
    "recording cap": "the recording capped each answer's tokens and the model's answer was cut",
    "recording ends": "the recording stops before the effect measured would show",
    "deliberate deviation": "ctxlab does otherwise on purpose; the note says why",
    "seed's formula wrong": "the seed's formula, run, gives another value than the harness",
    "own input": "the seed does not publish its input, so ours is our own",
    "target missed": "ctxlab's own target was not met; the note gives the figure",
}
"""The main cause of a ``differs`` row, in a few words, and what each class means."""

# The seeds (lab/seeds.py): AS_SEED, the AgentScope Java 2.0.3 lesson; DSH_SEED, the
# DeepSeek-Harness compaction-basic reading.

CLAIM_COLUMNS = [
    "experiment",
    "version",
    "claim_id",
    "model",
    "kind",
    "claim",
    "article_value",
    "reproduced_value",
    "status",
    "reason_class",
    "source",
    "article_source",
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
    kind: Kind = "article"
    """Whose value :attr:`article_value` is; see :data:`KINDS`."""
    article_source: str = ""
    """For ``article`` and ``article-computed`` rows: the seed's title and section and a short
    quote stating the value (made by :func:`cite`); for ``ctxlab`` rows, optionally the seed
    passage checked."""
    model: str = ""
    """The recorded model the value comes from (one row per claim per recorded model), or
    ``scripted``; set by the runner (:func:`lab.runner.combine_sets`), unless the
    experiment judged the claim on one recorded model itself (X-BENCH plays every recorded set
    in one run and sets it)."""
    reason_class: str = ""
    """For a ``differs`` row, the main cause in a few words (one of :data:`REASON_CLASSES`);
    empty for ``match``. The claim's spec gives it
    (:attr:`lab.claims.specs.ClaimSpec.reason_class`)."""
    reason_by_model: tuple[tuple[str, str], ...] = ()
    """``(model, reason class)`` where one recorded model's cause is another than
    :attr:`reason_class`; the runner applies it once the row has its model
    (:func:`lab.claims.reason_classes.classified`). Not a column of ``claims.csv``."""

    def __post_init__(self) -> None:
        if self.status not in ("match", "differs"):
            raise ValueError(f"status must be 'match' or 'differs', not {self.status!r}")
        if self.status == "differs" and not self.note:
            raise ValueError(f"{self.claim_id} differs and needs a note saying why")
        if self.reason_class and self.reason_class not in REASON_CLASSES:
            known = ", ".join(REASON_CLASSES)
            raise ValueError(
                f"{self.claim_id}: unknown reason class {self.reason_class!r}; {known}"
            )
        if self.reason_class and self.status == "match":
            raise ValueError(f"{self.claim_id} matches; only a differing claim has a reason class")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind == "ctxlab" and self.article_value:
            raise ValueError(f"{self.claim_id} is our own check; it has no article value")
        if self.article_source and parse_citation(self.article_source) is None:
            raise ValueError(f"{self.claim_id}: article_source must cite a seed (cite())")


def cite(seed: str, quote: str) -> str:
    """``<title>, §<section>: "<quote>"``: where a seed states a value, for
    :attr:`Claim.article_source` (:func:`lab.seeds.citation`).

    The quote is copied from the seed text (tests check it occurs there, in that section)."""
    if seed not in SEEDS:
        raise ValueError(f"unknown seed {seed!r}; known: {', '.join(SEEDS)}")
    if not quote.strip():
        raise ValueError("a citation needs a quote from the seed")
    return citation(seed, quote)


def claims_frame(claims: Iterable[Claim]) -> pd.DataFrame:
    """The claims as a DataFrame with the columns of ``claims.csv``, in the given order; the
    ``version`` column is left empty for the runner (:func:`lab.runner.write_results`)."""
    import pandas as pd

    return pd.DataFrame([asdict(c) for c in claims], columns=CLAIM_COLUMNS)


def read_claims(path: Path) -> pd.DataFrame:
    """An existing ``claims.csv``, or an empty frame when there is none.

    A table written before the ``kind``, ``article_source``, ``model``, ``reason_class`` and
    ``version`` columns existed reads with those cells empty (the next ``ctxlab run`` fills
    them)."""
    import pandas as pd

    if not path.exists():
        return pd.DataFrame(columns=CLAIM_COLUMNS)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        for column in ("kind", "article_source", "model", "reason_class", "version"):
            if column not in frame.columns:
                frame[column] = ""
        return frame[CLAIM_COLUMNS]
    except (pd.errors.EmptyDataError, pd.errors.ParserError, KeyError) as exc:
        raise ExperimentError(
            f"{path} is not a claims table ({exc}); delete it and run again."
        ) from exc


def merge_claims(existing: pd.DataFrame, fresh: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Replace the rows of the experiments in ``fresh``; keep the others; sort by ``order``."""
    import pandas as pd

    kept = existing[~existing["experiment"].isin(set(fresh["experiment"]))]
    merged = pd.concat([kept, fresh], ignore_index=True)
    rank = {name: i for i, name in enumerate(order)}
    merged["_rank"] = merged["experiment"].map(lambda e: rank.get(e, len(rank)))
    merged = merged.sort_values("_rank", kind="stable").drop(columns="_rank")
    return merged.reset_index(drop=True)


def write_claims(frame: pd.DataFrame, path: Path) -> None:
    """Write ``claims.csv`` atomically (LF line ends, UTF-8)."""

    text = frame.to_csv(index=False, lineterminator="\n")
    refuse_secrets(path, text)
    write_atomic(path, text)
