"""E4's claims as scenarios on its view: the committed rows are what the claims say of the
committed view, and a view with one planted value changes the row it should (so each rule can
fail). No model runs here: the views are the recorded runs as ``reports/`` holds them."""

from __future__ import annotations

import dataclasses

import pytest
from support.committed import committed_rows, committed_view, judged, rows_of

from experiments.e4.claims import DSH_SECTIONS, claims
from experiments.e4.view import E4View

RUNS = ("E4", "E4@qwen2.5-coder-0.5b-instruct-q4_k_m")
"""The two recorded runs: qwen2.5-coder 1.5B and 0.5B."""


def with_dsh(view: E4View, **changes: object) -> E4View:
    """``view`` with the DSH engine's run changed."""
    engines = tuple(
        dataclasses.replace(e, **changes) if e.engine == "dsh" else e  # type: ignore[arg-type]
        for e in view.engines
    )
    return dataclasses.replace(view, engines=engines)


@pytest.fixture
def view() -> E4View:
    """The 1.5B run, whose DSH compaction committed (its structural rows match)."""
    return committed_view(E4View, "E4")


@pytest.mark.parametrize("name", RUNS)
def test_the_committed_rows_are_what_the_claims_say_of_the_committed_view(name: str) -> None:
    recorded = committed_view(E4View, name)
    model = recorded.source.split("/")[-1]
    assert rows_of(claims(recorded)) == committed_rows("E4", model)


def test_a_log_without_the_summary_event_differs(view: E4View) -> None:
    assert judged(claims, view, "DSH-EVENTS")[0] == "match"
    events = view.run("dsh").events
    without = with_dsh(view, events=(events[0], *events[2:]))
    assert judged(claims, without, "DSH-EVENTS") == (
        "differs",
        "compaction/start, user/message(replace), compaction/end",
    )


def test_a_replay_that_is_not_the_recording_differs(view: E4View) -> None:
    assert judged(claims, view, "DSH-REPLAY")[0] == "match"
    status, value = judged(claims, with_dsh(view, replay_as_recorded=False), "DSH-REPLAY")
    assert status == "differs" and value.startswith("DSH: not as recorded")


def test_a_summary_event_missing_a_field_differs(view: E4View) -> None:
    event = view.run("dsh").summary_event
    assert event is not None and judged(claims, view, "DSH-SUMMARY-EVENT")[0] == "match"
    no_usage = dataclasses.replace(event, fields=tuple(f for f in event.fields if f != "usage"))
    status, value = judged(claims, with_dsh(view, summary_event=no_usage), "DSH-SUMMARY-EVENT")
    assert status == "differs" and "usage" not in value


def test_no_prefix_reuse_makes_the_cache_row_differ(view: E4View) -> None:
    assert judged(claims, view, "DSH-CACHE")[0] == "match"
    status, value = judged(claims, with_dsh(view, prefix_reuse=0.01), "DSH-CACHE")
    assert status == "differs" and value.startswith("DSH 1% vs AgentScope")


def test_a_summary_with_all_eight_sections_filled_matches(view: E4View) -> None:
    assert judged(claims, view, "DSH-SUMMARY-SECTIONS")[0] == "differs"  # as recorded
    sectioned = "\n".join(f"## {name}\n- one line\n" for name in DSH_SECTIONS)
    assert judged(claims, with_dsh(view, summary=sectioned), "DSH-SUMMARY-SECTIONS") == (
        "match",
        "8 of 8 sections",
    )
