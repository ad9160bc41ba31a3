"""What the reports show, computed from what the experiments wrote: typed records and frames.

Nothing here renders. :func:`load_inputs` reads ``claims.csv`` and every ``E*.json`` of a
reports folder; :func:`claims_table` is the one function that builds the claims DataFrame; each
experiment's provenance becomes :class:`ProvenanceRow` records; :func:`records_frame` turns any
list of records into a DataFrame. Per-experiment measurements are read in :mod:`.experiments`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harness import json_depth
from lab.claims import read_claims
from lab.registry import EXPERIMENTS

__all__ = [
    "ClaimCounts",
    "ExperimentDoc",
    "ProvenanceRow",
    "ReportInputs",
    "claims_table",
    "count_claims",
    "experiment_key",
    "experiment_title",
    "load_inputs",
    "provenance_rows",
    "recorded_models",
    "records_frame",
    "set_docs",
    "side_by_side",
]

SCRIPTED = "scripted (no model)"
_ID_PATTERN = re.compile(r"^(E\d+|X-)[A-Za-z0-9_-]*$")
"""Report ids: the article's experiments ``E1``… and ctxlab's own ``X-…``; the
files of an experiment's other recorded models add ``@<model>`` to the id."""


def experiment_title(experiment_id: str, data: Mapping[str, Any] | None) -> str:
    """The experiment's title from the suite's list, else the JSON's ``title``, else empty."""
    if experiment_id in EXPERIMENTS:
        return EXPERIMENTS.title(experiment_id)
    title = (data or {}).get("title")
    return title if isinstance(title, str) else ""


def experiment_key(experiment_id: str) -> tuple[int, str]:
    """Sort key for experiment ids: ``E2`` before ``E10``, then by the id's text."""
    digits = re.match(r"E(\d+)", experiment_id)
    return (int(digits.group(1)) if digits else 1_000_000, experiment_id)


@dataclass(frozen=True)
class ExperimentDoc:
    """One ``<ID>.json`` of the reports folder, as read."""

    id: str
    """The experiment id, from the file name."""
    data: dict[str, Any] | None
    """The parsed JSON object; None when the file is not valid JSON or not an object."""
    raw: str
    """The file's text, shown as it is when it cannot be parsed."""
    error: str = ""
    """Why :attr:`data` is None."""


@dataclass(frozen=True)
class ReportInputs:
    """Everything a report is built from."""

    claims: pd.DataFrame
    """The claims table, from :func:`claims_table`."""
    experiments: tuple[ExperimentDoc, ...]
    """The experiments' JSON files, sorted by :func:`experiment_key`."""
    other_models: tuple[ExperimentDoc, ...] = ()
    """``<ID>@<model>.json``: what an experiment measured with its other recorded models
    (their provenance is listed; their claims are in the claims table)."""


def claims_table(path: Path) -> pd.DataFrame:
    """The claims of ``claims.csv`` sorted by experiment (E2 before E10), file order within one.

    Empty cells are empty strings; a missing file gives an empty table with the same columns.
    """
    frame = read_claims(path).fillna("").astype(str)
    keys = frame["experiment"].map(experiment_key)
    order = sorted(range(len(frame)), key=lambda i: (keys.iloc[i], i))
    return frame.iloc[order].reset_index(drop=True)


def _read_doc(path: Path) -> ExperimentDoc:
    raw = path.read_text(encoding="utf-8", errors="replace")
    try:
        data = json_depth.loads(raw)
    except ValueError as error:  # not JSON, or nested too deep to read
        return ExperimentDoc(path.stem, None, raw, f"not valid JSON: {error}")
    if not isinstance(data, dict):
        return ExperimentDoc(path.stem, None, raw, f"not a JSON object but a {type(data).__name__}")
    return ExperimentDoc(path.stem, data, raw)


def load_inputs(out_dir: Path) -> ReportInputs:
    """Read ``claims.csv``, every ``E*.json`` and ``X*.json`` of ``out_dir``, and the
    ``<ID>@<model>.json`` of experiments recorded with several models."""
    paths = [p for p in sorted(out_dir.glob("*.json")) if _ID_PATTERN.match(p.stem)]
    docs = sorted((_read_doc(p) for p in paths), key=lambda d: experiment_key(d.id))
    others = [p for p in out_dir.glob("*@*.json") if _ID_PATTERN.match(p.stem.split("@", 1)[0])]
    other_docs = sorted((_read_doc(p) for p in others), key=lambda d: experiment_key(d.id))
    return ReportInputs(claims_table(out_dir / "claims.csv"), tuple(docs), tuple(other_docs))


def set_docs(inputs: ReportInputs) -> dict[str, list[tuple[str, ExperimentDoc]]]:
    """Each experiment's JSON files, one per recorded set, each with its model's name as the
    claims name it (``<ID>.json``'s is the model of the experiment's claims that no
    ``<ID>@<model>.json`` names), in :func:`model_order`."""
    found: dict[str, list[tuple[str, ExperimentDoc]]] = {}
    for doc in inputs.experiments:
        own = inputs.claims.loc[inputs.claims["experiment"] == doc.id, "model"]
        models = list(dict.fromkeys(own))
        others = [o for o in inputs.other_models if o.id.split("@", 1)[0] == doc.id]
        labels = {o.id.split("@", 1)[1] for o in others}
        first = next((m for m in models if m not in labels), "")
        if not first:
            source = (doc.data or {}).get("source")
            first = str(source).split("/", 1)[-1] if source else SCRIPTED_MODEL
        pairs = [(first, doc)] + [(o.id.split("@", 1)[1], o) for o in others]
        found[doc.id] = sorted(pairs, key=lambda pair: model_order(pair[0]))
    return found


SCRIPTED_MODEL = "scripted"
PER_MODEL = ("reproduced_value", "status", "reason_class", "note")
"""The columns a claim has once per recorded model; the others are the claim's own."""


ARTICLE_MODEL = "deepseek-flash"
"""The model the seeds ran (its recorded set's name holds this)."""
_SIZE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)b(?![a-z])", re.IGNORECASE)


def model_order(model: str) -> tuple[int, float, str]:
    """The sort key of a model everywhere models are listed side by side: the article's model
    first, then by size (the ``<N>b`` in its name; a model without one after the sized ones),
    then by name. ``scripted`` has no size."""
    found = _SIZE.search(model)
    size = float(found.group(1)) if found else float("inf")
    return (0 if ARTICLE_MODEL in model else 1, size, model)


def recorded_models(claims: pd.DataFrame) -> list[str]:
    """The recorded models of a claims table (not ``scripted``), in :func:`model_order`."""
    if "model" not in claims.columns:
        return []
    models = [m for m in dict.fromkeys(claims["model"]) if m and m != SCRIPTED_MODEL]
    return sorted(models, key=model_order)


def side_by_side(claims: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """The claims of ``columns`` with one row per claim and, when more than one model produced
    them, ``reproduced_value``, ``status`` and ``note`` once per model, side by side, headed
    ``<column> (<model>)`` (``source`` is left out: the headers name the models). A table of one
    model (or scripted) keeps ``columns`` as they are."""
    models = list(dict.fromkeys(claims["model"])) if "model" in claims.columns else []
    models.sort(key=model_order)
    if len(models) <= 1:
        return claims.loc[:, list(columns)].reset_index(drop=True)
    own = [c for c in columns if c not in PER_MODEL and c != "source"]  # models head columns
    wide = claims.loc[:, own].drop_duplicates(subset=["claim_id"]).reset_index(drop=True)
    for model in models:
        rows = claims[claims["model"] == model].set_index("claim_id")
        for column in (c for c in columns if c in PER_MODEL):
            values = wide["claim_id"].map(rows[column]) if len(rows) else None
            wide[f"{column} ({model})"] = "" if values is None else values.fillna("")
    return wide


@dataclass(frozen=True)
class ClaimCounts:
    """How many claims match, differ or are mixed. The unit is the claim (one claim id of one
    experiment), as on the page: a claim measured with two models is one claim, ``mixed`` when
    it matches with one and differs with the other."""

    matched: int
    differed: int
    mixed: int = 0

    @property
    def total(self) -> int:
        """All claims."""
        return self.matched + self.differed + self.mixed

    def line(self) -> str:
        """The summary line ``claims: N match, M differ, K mixed (of T)``, as ``ctxlab run``
        prints it."""
        return (
            f"claims: {self.matched} match, {self.differed} differ, {self.mixed} mixed "
            f"(of {self.total})"
        )


def count_claims(claims: pd.DataFrame) -> ClaimCounts:
    """Count the claims (experiment and claim id) by their status across models: ``match``
    when every row matches, ``differs`` when none does, else ``mixed``."""
    statuses: dict[tuple[str, str], set[str]] = {}
    for experiment, claim_id, status in zip(
        claims["experiment"], claims["claim_id"], claims["status"], strict=True
    ):
        statuses.setdefault((str(experiment), str(claim_id)), set()).add(
            "match" if status == "match" else "differs"
        )
    found = ["mixed" if len(s) > 1 else next(iter(s)) for s in statuses.values()]
    return ClaimCounts(found.count("match"), found.count("differs"), found.count("mixed"))


@dataclass(frozen=True)
class ProvenanceRow:
    """Where one experiment's values came from: a script, or one recorded cassette."""

    experiment: str
    source: str
    provider: str = ""
    model: str = ""
    model_sha256: str = ""
    """The model file's checksum, as recorded (renderers shorten it)."""
    server: str = ""
    recorded_at: str = ""
    requests: str = ""
    params: str = ""
    """The body fields every recorded request carried (temperature, seed, a max_tokens cap)."""


def _text(value: Any) -> str:
    """A JSON value as one line of text: mappings as ``key=value`` pairs, sorted."""
    if value is None:
        return ""
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_text(v)}" for k, v in sorted(value.items(), key=str))
    if isinstance(value, list | tuple):
        return ", ".join(_text(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _sources(claims: pd.DataFrame, experiment: str) -> str:
    own = claims.loc[claims["experiment"] == experiment, "source"]
    return ", ".join(sorted(set(own)))


def _doc_provenance(doc: ExperimentDoc, claims: pd.DataFrame) -> list[ProvenanceRow]:
    data = doc.data or {}
    experiment = doc.id.split("@", 1)[0]
    source = _text(data.get("source")) or _sources(claims, experiment) or "unknown"
    raw = data.get("provenance")
    cassettes = [raw] if isinstance(raw, Mapping) else raw if isinstance(raw, list) else []
    cassettes = [c for c in cassettes if isinstance(c, Mapping)]
    if not cassettes:
        return [ProvenanceRow(experiment, SCRIPTED if source == "scripted" else source)]
    return [
        ProvenanceRow(
            experiment,
            _text(c.get("source")) or source,
            provider=_text(c.get("provider")),
            model=_text(c.get("model")),
            model_sha256=_text(c.get("model_sha256")),
            server=_text(c.get("server")),
            recorded_at=_text(c.get("recorded_at")),
            requests=_text(c.get("requests")),
            params=_text(c.get("params")),
        )
        for c in cassettes
    ]


def provenance_rows(inputs: ReportInputs) -> list[ProvenanceRow]:
    """One row per cassette of each experiment; one ``scripted (no model)`` row for the rest.

    Experiments with claims but no JSON get a row from their claims' sources.
    """
    docs = (*inputs.experiments, *inputs.other_models)
    rows = [row for doc in docs for row in _doc_provenance(doc, inputs.claims)]
    documented = {doc.id for doc in inputs.experiments}
    for experiment in sorted(set(inputs.claims["experiment"]) - documented, key=experiment_key):
        source = _sources(inputs.claims, experiment)
        rows.append(ProvenanceRow(experiment, SCRIPTED if source == "scripted" else source))
    return sorted(rows, key=lambda r: (experiment_key(r.experiment), r.recorded_at, r.model))


def records_frame(records: Sequence[Any], record_type: type) -> pd.DataFrame:
    """A DataFrame with one row per dataclass record and one column per field, in field order."""
    if not is_dataclass(record_type):
        raise TypeError(f"{record_type!r} is not a dataclass")
    columns = [f.name for f in fields(record_type)]
    return pd.DataFrame([asdict(r) for r in records], columns=columns)
