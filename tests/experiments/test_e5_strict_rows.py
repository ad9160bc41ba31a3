"""Two E5 rows made strict (no plausible wrong answer may match), each fed the wrong answer it let
through: a failed summary replaced by a bare ``(Summary unavailable)`` (the error dropped), and a
``sourceEventSeqs`` chain that agrees with the engine's own summary event but not with the log."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from experiments.e5.claims.compaction_commit import compaction_commit_claims
from experiments.e5.measures.compaction_commit import measure_compaction_commit
from experiments.e5.mechanisms.failures import FAILURE_SPECS, measure_summary_failure
from lab.claims.specs import evaluate


def _summary_fail(summary: object) -> str:
    spec = next(s for s in FAILURE_SPECS if s.id == "E5-SUMMARY-FAIL")
    view = SimpleNamespace(failures=SimpleNamespace(summary_failure=summary))
    (claim,) = evaluate("E5", [spec], view, "scripted")
    return claim.status


def test_e5_summary_fail_needs_the_error_carried() -> None:
    measured = measure_summary_failure()
    assert measured.error_carried and _summary_fail(measured) == "match"
    bare = dataclasses.replace(
        measured, summary_starts="(Summary unavailable)", error_carried=False
    )
    assert _summary_fail(bare) == "differs"


def test_dsh_source_seqs_are_judged_against_the_log_not_the_engines_own_list() -> None:
    more = measure_compaction_commit()
    start, summary, *shadowed = more.commit.expected_sources
    assert [
        c.status for c in compaction_commit_claims(more) if c.claim_id == "DSH-SOURCE-SEQS"
    ] == ["match"]
    # the replace cites a node the log still shows (the engine's summary event said the same)
    kept = max(shadowed) + 1
    wrong = (start, summary, kept, *shadowed)
    changed = dataclasses.replace(
        more, commit=dataclasses.replace(more.commit, source_event_seqs=wrong)
    )
    assert [
        c.status for c in compaction_commit_claims(changed) if c.claim_id == "DSH-SOURCE-SEQS"
    ] == ["differs"]
