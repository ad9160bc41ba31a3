"""The evidence pages: one small self-contained HTML page per claim, ``evidence/<CLAIM-ID>.html``
beside ``index.html``, built offline from the cassettes, so a reader who doubts a claim opens
one file (no network, no server) and sees what it was judged on.

A page holds the claim (its text, kind, the article's value and seed passage), each model's value,
status, cause and full note, the judge's rule (the judges its notes name, from
:data:`lab.claims.judge_names.JUDGES` and the experiment's page, and the module holding its
rule), then per model the recorded calls it was judged on (:mod:`.calls`: each message's head
and tail with the count of characters between, the answer, usage and cache tokens; which calls,
:mod:`.picks`, as the experiment's page says) or the outcomes its page reads from its JSON
(:mod:`.facts`: X-BENCH's facts each condition kept, lost or invented per conversation). A
scripted claim says it has no cassette. Every text is escaped
by the template (``templates/evidence.html.j2``); the claim's own texts (not the recorded
messages) get their Chinese glossed, as on ``index.html``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd
from markupsafe import Markup

from lab.cassette_sets import set_name
from lab.claims.judge_names import JUDGES, named_judges
from lab.registry import EXPERIMENTS
from lab.report.evidence.calls import Call, read_calls
from lab.report.evidence.facts import ConditionRuns, FactsRow
from lab.report.evidence.picks import pick
from lab.report.experiments import experiment_pages
from lab.report.glossary import gloss_html
from lab.report.piece import Evidence
from lab.report.tables import SCRIPTED_MODEL, ReportInputs, experiment_title
from lab.report.templating import ENVIRONMENT

__all__ = ["FOLDER", "evidence_href", "evidence_pages"]

FOLDER = "evidence"
"""The pages' folder, beside ``index.html``."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_ENVIRONMENT = ENVIRONMENT
_ENVIRONMENT.filters["gloss"] = lambda text: Markup(gloss_html(str(text)))
"""``text`` escaped, each known Chinese run glossed in English (:func:`.glossary.gloss_html`);
the recorded messages are shown as recorded, unglossed."""


def evidence_href(claim_id: str) -> str:
    """The claim's page, relative to ``index.html``: ``evidence/<CLAIM-ID>.html``."""
    return f"{FOLDER}/{_UNSAFE.sub('_', claim_id)}.html"


@dataclass(frozen=True)
class ModelEvidence:
    """One model's side of a claim: its row and what it was judged on."""

    model: str
    status: str
    value: str
    reason: str
    note: str
    source: str
    calls: tuple[Call, ...] = ()
    exact: bool = False
    cassettes: tuple[str, ...] = ()
    """The cassettes the calls come from, as ``cassettes/<experiment>/<set>/<name>.json``."""
    facts: tuple[ConditionRuns, ...] = ()


def _cassettes(experiment: str, model_set: str, root: Path) -> list[tuple[str, Path]]:
    """``(shown path, file)`` of the experiment's cassettes for one recorded set."""
    names = _evidence(experiment).cassettes
    if not names:
        known = EXPERIMENTS.get(experiment)
        folder = known.cassette_folder if known else experiment
        files = sorted((root / folder / model_set).glob("*.json"))
        names = tuple(f"{folder}/{f.stem}" for f in files)
    found = []
    for name in names:
        folder, stem = name.split("/", 1)
        path = root / folder / model_set / f"{stem}.json"
        if path.is_file():
            found.append((f"cassettes/{folder}/{model_set}/{stem}.json", path))
    return found


def _evidence(experiment: str) -> Evidence:
    """What ``experiment``'s page says its claims were judged on (the default without one)."""
    page = experiment_pages().get(experiment)
    return page.evidence if page is not None else Evidence()


def _model_evidence(
    row: Mapping[str, str], root: Path, data: Mapping[str, Any] | None, cache: dict[Path, Any]
) -> ModelEvidence:
    base = ModelEvidence(
        row["model"],
        row["status"],
        row["reproduced_value"],
        row.get("reason_class", ""),
        row["note"],
        row["source"],
    )
    experiment, source = row["experiment"], row["source"]
    recorded = "/" in source
    model_set = set_name(*source.split("/", 1)) if recorded else "none"
    evidence = _evidence(experiment)
    if evidence.facts is not None and data is not None:
        facts = evidence.facts(data, row["claim_id"], model_set)
        shown = tuple(
            replace(c, rows=tuple(_named_if_present(r, root) for r in c.rows)) for c in facts
        )
        return replace(base, facts=shown, exact=True)
    if not recorded:
        return base
    calls: list[Call] = []
    files = _cassettes(experiment, model_set, root)
    for shown_as, path in files:
        if path not in cache:
            cache[path] = read_calls(path, shown_as)
        calls += cache[path]
    picked = pick(evidence, row["claim_id"], calls)
    return replace(
        base, calls=picked.calls, exact=picked.exact, cassettes=tuple(s for s, _ in files)
    )


def _named_if_present(row: FactsRow, root: Path) -> FactsRow:
    """The run, naming its cassette only where that file is there."""
    present = row.cassette and (root / row.cassette.removeprefix("cassettes/")).is_file()
    return row if present else replace(row, cassette="")


def _judges(notes: Sequence[str], experiment: str) -> list[tuple[str, str]]:
    page = experiment_pages().get(experiment)
    known = {**JUDGES, **(page.judges if page is not None else {})}
    names = list(dict.fromkeys(n for note in notes for n in named_judges(note)))
    return [(name, known.get(name, "not in the judges' table")) for name in names]


def _rule_module(experiment: str) -> str:
    known = EXPERIMENTS.get(experiment)
    module = getattr(getattr(known, "run", None), "__module__", "") if known else ""
    return module or ""


class _CallRenderer:
    """A recorded call's HTML, rendered once however many pages show it: the pages of an
    experiment whose calls are not tracked per claim each show all of its cassettes' calls."""

    def __init__(self) -> None:
        self._template = _ENVIRONMENT.get_template("evidence_call.html.j2")
        self._done: dict[int, tuple[Call, Markup]] = {}
        """By the call's ``id``; the call is held beside its HTML, so the id is not reused."""

    def __call__(self, call: Call) -> Markup:
        done = self._done.get(id(call))
        if done is None:
            done = self._done[id(call)] = (call, Markup(self._template.render(call=call)))
        return done[1]


def evidence_pages(inputs: ReportInputs, cassettes: Path, title: str) -> dict[str, str]:
    """Each claim's page, by its path relative to the reports folder (``evidence/…``)."""
    claims = inputs.claims
    if not len(claims):
        return {}
    docs = {doc.id: doc.data for doc in inputs.experiments}
    cache: dict[Path, Any] = {}
    template = _ENVIRONMENT.get_template("evidence.html.j2")
    call_html = _CallRenderer()
    pages: dict[str, str] = {}
    records = claims.to_dict("records")
    groups: dict[tuple[str, str], list[dict[str, str]]] = {}
    for record in records:
        row = {k: "" if pd.isna(v) else str(v) for k, v in record.items()}
        groups.setdefault((row["experiment"], row["claim_id"]), []).append(row)
    for (experiment, claim_id), rows in groups.items():
        first = rows[0]
        models = [_model_evidence(r, cassettes, docs.get(experiment), cache) for r in rows]
        pages[evidence_href(claim_id)] = template.render(
            title=title,
            claim_id=claim_id,
            experiment=experiment,
            experiment_title=experiment_title(experiment, docs.get(experiment)),
            claim=first["claim"],
            kind=first.get("kind", ""),
            article=first["article_value"],
            article_source=first.get("article_source", ""),
            judges=_judges([r["note"] for r in rows], experiment),
            rule_module=_rule_module(experiment),
            models=models,
            scripted=SCRIPTED_MODEL,
            call_html=call_html,
        )
    return pages
