"""Claim notes name their judge by a stable name, never by a file (files move),
and the kinds follow the seeds: seed 002 only reads source code, so none of its rows is
``article``."""

from __future__ import annotations

import csv
import re

from support.paths import ROOT

from lab.claims import DSH_SEED
from lab.claims.judge_names import JUDGES, named_judges
from lab.report.experiments import experiment_pages
from lab.seeds import parse_citation

CLAIMS = ROOT / "reports" / "claims.csv"
FILE_NAME = re.compile(r"[\w./-]+\.py\b")
SEED_FILE = re.compile(r"\b\d{3}_[0-9a-f]{16}\.txt\b")


def rows() -> list[dict[str, str]]:
    with CLAIMS.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def files_named(note: str) -> list[str]:
    """The source files a note names (data files such as ``E4.json`` or ``MEMORY.md`` are what
    the claims are about, not where a judge lives)."""
    return FILE_NAME.findall(SEED_FILE.sub("", note))


def test_no_note_names_a_source_file() -> None:
    named = {r["claim_id"]: files_named(r["note"]) for r in rows()}
    assert not {k: v for k, v in named.items() if v}


def known_judges(experiment: str) -> set[str]:
    """The shared judges and the experiment's own (on its page)."""
    page = experiment_pages().get(experiment)
    return set(JUDGES) | set(page.judges if page is not None else {})


def test_every_judge_a_note_names_exists() -> None:
    unknown = {
        r["claim_id"]: name
        for r in rows()
        for name in named_judges(r["note"])
        if name not in known_judges(r["experiment"])
    }
    assert not unknown


def test_a_judge_of_another_experiment_is_unknown() -> None:
    assert "e3-rules" in known_judges("E3")
    assert "e3-rules" not in known_judges("E4") and "e3-rules" not in JUDGES


def test_a_note_naming_a_file_is_caught() -> None:
    assert files_named("judged by a rule in experiments/e3/__init__.py; model output as recorded")
    assert files_named("see harness/tools.py") == ["harness/tools.py"]
    assert not files_named("judged by judge `e3-rules`; see E4.json")


def test_rows_of_the_source_reading_are_article_computed() -> None:
    reading = [r for r in rows() if _cites(r["article_source"]) == DSH_SEED]
    assert reading
    assert not [r["claim_id"] for r in reading if r["kind"] == "article"]


def _cites(source: str) -> str | None:
    """The seed file an ``article_source`` cites (by its title and section), if any."""
    citation = parse_citation(source)
    return None if citation is None else citation.seed
