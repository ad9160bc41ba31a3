"""Tests of X-THRASH (experiments/x_thrash/): the scripted session does what X-THRASH says, and
every judge fails on measurements that should fail it (a guard that does not cut the rate, a guard
that turns compaction off, silent skips, a split pair, a refill loop that is not stopped)."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import replace
from typing import Any

import pandas as pd
import pytest
from support.paths import ROOT

from experiments.manifest import entry
from experiments.x_thrash import CONFIG, GUARD, _refill_session, _session, lookup_order
from experiments.x_thrash.claims import claims
from experiments.x_thrash.page import PAGE as X_THRASH_PAGE
from experiments.x_thrash.page import x_thrash_section
from experiments.x_thrash.view import XThrashView
from lab.registry import EXPERIMENTS
from lab.views import ShapeError, from_data

REPORTS = ROOT / "reports"

RUN = {
    "turns": 600,
    "requests": 1200,
    "summary_calls": 1136,
    "compactions": 1136,
    "compactions_per_100_turns": 189.3,
    "summary_calls_per_100_turns": 189.3,
    "triggers": {"messages": 1136},
    "largest_request_tokens": 8099,
    "agent_prompt_tokens": 9_600_000,
    "summary_prompt_tokens": 600_000,
    "prompt_tokens_per_100_turns": 1_700_000,
    "context_messages_at_end": 128,
    "pairing_errors": 0,
    "guard": None,
}
GUARDED = {
    **RUN,
    "summary_calls": 1,
    "compactions": 1,
    "compactions_per_100_turns": 0.2,
    "summary_calls_per_100_turns": 0.2,
    "triggers": {"messages+tokens": 1},
    "largest_request_tokens": 107_966,
    "prompt_tokens_per_100_turns": 9_700_000,
    "guard": {
        "skipped": {"tail-meets-trigger": 1135},
        "log_lines": 1135,
        "allowed": 1,
        "refills": 0,
        "last_skip": None,
    },
}
DATA: dict[str, Any] = {
    "experiment": "X-THRASH",
    "source": "scripted",
    "model": "deepseek-chat",
    "thresholds": "window 128,000",
    "trigger_messages": 50,
    "trigger_tokens": 108_000,
    "keep_tokens": 8000,
    "context_window": 128_000,
    "guard_config": {"min_removed_fraction": 0.1, "refill_requests": 3, "max_refills": 3},
    "without_guard": RUN,
    "with_guard": GUARDED,
    "refill": {"compactions": 3, "stopped_at_call": 6, "error": "CompactionThrashError: x"},
}


def statuses(data: dict[str, Any]) -> dict[str, str]:
    return {c.claim_id: c.status for c in claims(from_data(XThrashView, data))}


def test_good_measurements_match_every_claim() -> None:
    rows = claims(from_data(XThrashView, DATA))
    assert [c.claim_id for c in rows] == [
        "X-THRASH-BASELINE",
        "X-THRASH-GUARDED",
        "X-THRASH-SUMMARY-CALLS",
        "X-THRASH-PRESSURE",
        "X-THRASH-SKIPS",
        "X-THRASH-PAIRS",
        "X-THRASH-REFILL",
        "X-THRASH-TOKENS",
    ]
    assert all(c.status == "match" and c.kind == "ctxlab" and not c.article_value for c in rows)
    assert all(c.source == "scripted" for c in rows)


def changed(path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(DATA)
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[key]
    node[last] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "fails"),
    [
        # no thrash to begin with
        ("without_guard.compactions", 500, "X-THRASH-BASELINE"),
        ("without_guard.context_messages_at_end", 40, "X-THRASH-BASELINE"),
        # a guard that does not cut the rate (tenfold)
        ("with_guard.compactions", 200, "X-THRASH-GUARDED"),
        ("with_guard.summary_calls", 200, "X-THRASH-SUMMARY-CALLS"),
        # a skipped compaction that still made a summary call
        ("without_guard.summary_calls", 1137, "X-THRASH-SUMMARY-CALLS"),
        # a guard that turns compaction off, or lets messages alone compact, or overflows
        ("with_guard.triggers", {}, "X-THRASH-PRESSURE"),
        ("with_guard.triggers", {"messages": 1}, "X-THRASH-PRESSURE"),
        ("with_guard.largest_request_tokens", 130_000, "X-THRASH-PRESSURE"),
        # silent skips
        ("with_guard.guard.log_lines", 0, "X-THRASH-SKIPS"),
        ("with_guard.guard.skipped", {}, "X-THRASH-SKIPS"),
        ("with_guard.pairing_errors", 1, "X-THRASH-PAIRS"),
        # a refill loop that is not stopped, or stopped late
        ("refill.error", None, "X-THRASH-REFILL"),
        ("refill.compactions", 4, "X-THRASH-REFILL"),
        # the trade-off the guard makes must show
        ("with_guard.prompt_tokens_per_100_turns", 1_000_000, "X-THRASH-TOKENS"),
    ],
)
def test_each_judge_fails_when_it_should(path: str, value: Any, fails: str) -> None:
    assert statuses(changed(path, value))[fails] == "differs"


def test_a_guarded_session_skips_and_an_unguarded_one_thrashes() -> None:
    # 150 turns: the context passes 50 messages early, far from the token trigger
    bare = _session(CONFIG, 150)
    guarded = _session(replace(CONFIG, thrash=GUARD), 150)
    assert bare.compactions > 200 and bare.summary_calls == bare.compactions
    assert guarded.compactions == 0 and guarded.summary_calls == 0
    assert guarded.guard is not None and bare.guard is None
    assert guarded.skipped["tail-meets-trigger"] == guarded.guard.log_lines
    assert "thrash guard" in guarded.last_skip_line
    assert bare.pairing_errors == guarded.pairing_errors == 0
    assert guarded.context_messages_at_end == 600


def test_refill_session_stops_with_the_typed_error() -> None:
    refill = _refill_session()
    assert refill.compactions == GUARD.max_refills
    assert refill.error and refill.error.startswith(
        "CompactionThrashError: compaction is thrashing"
    )


def test_registered_with_its_summary() -> None:
    assert EXPERIMENTS["X-THRASH"].title == entry("X-THRASH").title
    assert not EXPERIMENTS["X-THRASH"].needs_cassettes


def test_lookup_is_deterministic() -> None:
    assert lookup_order("SO-2026-0007") == lookup_order("SO-2026-0007")
    assert '"carrier": "MSC"' in lookup_order("SO-2026-0007")


# --- the report page ----------------------------------------------------------------------------


def test_page_sets_both_runs_side_by_side() -> None:
    data = json.loads((REPORTS / "X-THRASH.json").read_text(encoding="utf-8"))
    view = X_THRASH_PAGE.read(data)
    assert view.without_guard.compactions > 100 * view.with_guard.compactions
    section = x_thrash_section(view, pd.DataFrame())
    per_100 = "| compactions per 100 turns | "
    line = next(x for x in section.splitlines() if x.startswith(per_100))
    assert line == (
        f"{per_100}{view.without_guard.compactions_per_100_turns} | "
        f"{view.with_guard.compactions_per_100_turns} |"
    )
    assert "Compaction skipped by the thrash guard" in section
    assert "CompactionThrashError" in section


@pytest.mark.parametrize("missing", ["with_guard", "refill", "thresholds", "guard_config"])
def test_page_refuses_a_json_of_another_shape(missing: str) -> None:
    data = json.loads((REPORTS / "X-THRASH.json").read_text(encoding="utf-8"))
    del data[missing]
    with pytest.raises(ShapeError, match=f"lacks the key '{missing}'"):
        X_THRASH_PAGE.read(data)


@pytest.mark.parametrize(
    ("path", "value", "where"),
    [
        ("with_guard.guard.last_skip", {"reason": "x"}, "XThrashView.with_guard.guard.last_skip"),
        ("without_guard.triggers", {"messages": "1136"}, "XThrashView.without_guard.triggers"),
        ("with_guard.compactions", True, "XThrashView.with_guard.compactions"),
        ("refill.stopped_at_call", "6", "XThrashView.refill.stopped_at_call"),
    ],
)
def test_page_names_where_a_nested_value_has_another_shape(
    path: str, value: Any, where: str
) -> None:
    with pytest.raises(ShapeError, match=re.escape(where)):
        X_THRASH_PAGE.read(changed(path, value))
