"""E2's claims as scenarios on its view: the committed rows are what the claims say of the
committed view, and a view with one planted value changes the row it should (so each rule can
fail). No model runs here: the views are the recorded runs as ``reports/`` holds them."""

from __future__ import annotations

import dataclasses

import pytest
from support.committed import committed_rows, committed_view, judged, rows_of

from experiments.e2.answer_rules import FACTS
from experiments.e2.claims import claims
from experiments.e2.view import E2View, FileState

SMALL = "E2@qwen2.5-coder-0.5b-instruct-q4_k_m"
RUNS = ("E2", SMALL)
"""The two recorded runs: qwen2.5-coder 1.5B and 0.5B."""


def with_step(view: E2View, index: int, **changes: object) -> E2View:
    """``view`` with step ``index`` (0-based) changed."""
    steps = list(view.steps)
    steps[index] = dataclasses.replace(steps[index], **changes)  # type: ignore[arg-type]
    return dataclasses.replace(view, steps=tuple(steps))


@pytest.mark.parametrize("name", RUNS)
def test_the_committed_rows_are_what_the_claims_say_of_the_committed_view(name: str) -> None:
    view = committed_view(E2View, name)
    model = view.source.split("/")[-1]
    assert rows_of(claims(view)) == committed_rows("E2", model)


def test_a_memory_md_before_the_first_step_makes_no_memory_differ() -> None:
    view = committed_view(E2View, "E2")
    assert judged(claims, view, "E2-S1-NO-MEMORY") == ("match", "absent")
    files = {**view.steps[0].files, "MEMORY.md": FileState(exists=True, size=12)}
    assert judged(claims, with_step(view, 0, files=files), "E2-S1-NO-MEMORY") == (
        "differs",
        "present",
    )


def test_a_daily_file_that_consolidation_changed_differs() -> None:
    view = committed_view(E2View, "E2")
    assert judged(claims, view, "E2-S2-DAILY") == ("match", "unchanged")
    changed = with_step(view, 1, daily_unchanged=False)
    assert judged(claims, changed, "E2-S2-DAILY") == ("differs", "changed")


def test_memory_md_rewritten_with_both_facts_matches_and_one_dropped_differs() -> None:
    view = committed_view(E2View, "E2")
    assert judged(claims, view, "E2-S2-MEMORY")[0] == "differs"  # the recorded verbatim copy
    rewritten = "- 出口港：" + FACTS[0] + "\n- 客户：" + FACTS[1] + "\n"
    assert judged(claims, with_step(view, 1, memory_text=rewritten), "E2-S2-MEMORY") == (
        "match",
        "both facts: yes; rewritten",
    )
    dropped = rewritten.replace(FACTS[1], "某客户")
    status, value = judged(claims, with_step(view, 1, memory_text=dropped), "E2-S2-MEMORY")
    assert (status, value) == ("differs", "both facts: no; rewritten")


def test_an_answer_naming_the_facts_with_no_memory_holding_them_is_no_recall() -> None:
    view = committed_view(E2View, SMALL)
    assert judged(claims, view, "E2-S3-RECALL") == ("match", "yes")
    unsourced = with_step(view, 2, memory_at_start="", tool_result_facts=(), daily_added="")
    assert judged(claims, unsourced, "E2-S3-RECALL") == (
        "differs",
        "yes, with no memory holding the facts",
    )
