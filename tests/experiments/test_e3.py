"""E3's claims as scenarios on its view: the committed rows are what the claims say of the
committed view, and a view with one planted value changes the row it should (so each rule can
fail). No model runs here: the views are the recorded runs as ``reports/`` holds them."""

from __future__ import annotations

import dataclasses

import pytest
from support.committed import committed_rows, committed_view, judged, rows_of

from experiments.e3.claims import claims
from experiments.e3.view import E3View
from harness.compaction.agentscope import SUMMARY_PREFIX

RUNS = ("E3", "E3@qwen2.5-coder-0.5b-instruct-q4_k_m")
"""The two recorded runs: qwen2.5-coder 1.5B and 0.5B."""


def with_round(view: E3View, number: int, **changes: object) -> E3View:
    """``view`` with round ``number`` (1-based) changed."""
    rounds = [
        dataclasses.replace(r, **changes) if r.round == number else r  # type: ignore[arg-type]
        for r in view.rounds
    ]
    return dataclasses.replace(view, rounds=tuple(rounds))


@pytest.mark.parametrize("name", RUNS)
def test_the_committed_rows_are_what_the_claims_say_of_the_committed_view(name: str) -> None:
    view = committed_view(E3View, name)
    model = view.source.split("/")[-1]
    assert rows_of(claims(view)) == committed_rows("E3", model)


def test_a_first_compaction_a_round_late_differs() -> None:
    view = committed_view(E3View, "E3")
    assert judged(claims, view, "E3-FIRST") == ("match", "3")
    late = with_round(view, 3, compaction=None)
    assert judged(claims, late, "E3-FIRST") == ("differs", "4")


def test_a_context_a_message_short_at_the_end_differs() -> None:
    view = committed_view(E3View, "E3")
    assert judged(claims, view, "E3-FINAL-MSGS") == ("match", "4")
    short = with_round(view, 5, context_after=view.rounds[-1].context_after[1:])
    assert judged(claims, short, "E3-FINAL-MSGS") == ("differs", "3")


def test_a_visible_count_that_grew_differs() -> None:
    view = committed_view(E3View, "E3")
    assert judged(claims, view, "E3-VISIBLE")[0] == "match"
    grown = with_round(view, 4, visible_after=5)
    status, value = judged(claims, grown, "E3-VISIBLE")
    assert status == "differs" and "round 4: 4 → 5" in value


def test_a_summary_message_with_nothing_after_its_opening_differs() -> None:
    view = committed_view(E3View, "E3")
    summary = view.final_summary_message
    assert summary is not None and judged(claims, view, "E3-SUMMARY-MSG")[0] == "match"
    opening_only = dataclasses.replace(summary, text=SUMMARY_PREFIX + "\n\n")
    empty = dataclasses.replace(view, final_summary_message=opening_only)
    status, value = judged(claims, empty, "E3-SUMMARY-MSG")
    assert status == "differs" and value.endswith("but nothing after it (an empty summary)")
