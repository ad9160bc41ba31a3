"""E5's rows for the AgentScope seed's memory switches and timing: each matches on
the harness, fails on the plausible wrong measurement, and flips under the catalogue's mutation
that breaks its behaviour (run here in process, beside ``pytest -m mutations``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from experiments.e5.claims.memory_switches import memory_switch_claims
from experiments.e5.measures.memory_switches import measure_memory_switches
from experiments.e5.view.memory_switches import MemorySwitches
from experiments.mutations.catalogue import by_name


@pytest.fixture(scope="module")
def measured() -> MemorySwitches:
    return measure_memory_switches()


def statuses(data: MemorySwitches) -> dict[str, str]:
    return {c.claim_id: c.status for c in memory_switch_claims(data)}


def edited(data: MemorySwitches, part: str, **values: Any) -> MemorySwitches:
    return replace(data, **{part: replace(getattr(data, part), **values)})


def test_every_row_matches_on_the_harness(measured: MemorySwitches) -> None:
    assert set(statuses(measured).values()) == {"match"}, statuses(measured)
    assert measured.archive.archived_ages == (91, 120)
    assert measured.flush_switches.throttled_flushed_at == (0, 10, 21)


@pytest.mark.parametrize(
    ("claim_id", "part", "values"),
    [
        ("AS-FLUSH-AFTER-SUCCESS", "after_success", {"failed_flushes": 1}),  # flush in finally
        ("AS-FLUSH-AFTER-SUCCESS", "after_success", {"failed_maintenance": 1}),
        ("AS-TOOLS-OFF-FLUSH", "tools_off", {"flushes": 0, "flush_written": False}),
        ("AS-TOOLS-OFF-FLUSH", "tools_off", {"memory_tools_offered": ("memory_search",)}),
        ("AS-FLUSH-TRIGGER", "flush_switches", {"throttled_flushed_at": (0, 5, 10, 16, 21)}),
        ("AS-FLUSH-TRIGGER", "flush_switches", {"never_before_compaction": 0}),
        ("AS-FLUSH-TRIGGER", "flush_switches", {"hooks_off_maintenance": 3}),
        ("AS-ARCHIVE-90", "archive", {"archived_ages": (90, 91, 120)}),  # >= 90, not > 90
        ("AS-ARCHIVE-90", "archive", {"archived_ages": (120,)}),
        ("AS-SOURCE-LINES", "source_lines", {"numbered": 0, "pointing_right": 0}),
        ("AS-SOURCE-LINES", "source_lines", {"pointing_right": 2}),  # a line off by one
        ("AS-CONSOLIDATE-CARRIES", "invented", {"in_memory": False}),
        ("AS-CONSOLIDATE-CARRIES", "invented", {"in_conversation": True}),
        ("AS-INJECT-EDGE", "injection_edge", {"at_cap_whole": False}),  # cut at < the cap
        ("AS-INJECT-EDGE", "injection_edge", {"over_cap_whole": True}),
        ("AS-INJECT-EDGE", "injection_edge", {"over_cap_carried": False}),
    ],
)
def test_each_row_fails_on_a_wrong_measurement(
    measured: MemorySwitches, claim_id: str, part: str, values: dict[str, Any]
) -> None:
    assert statuses(edited(measured, part, **values))[claim_id] == "differs"


@pytest.mark.parametrize(
    ("mutation", "claim_id"),
    [
        ("HOOKS_AFTER_FAILED_CALL", "AS-FLUSH-AFTER-SUCCESS"),
        ("TOOLS_OFF_STOPS_FLUSH", "AS-TOOLS-OFF-FLUSH"),
        ("HOOKS_OFF_KEEPS_MAINTENANCE", "AS-FLUSH-TRIGGER"),
        ("ARCHIVE_AT_90_DAYS", "AS-ARCHIVE-90"),
        ("SOURCE_WITHOUT_LINES", "AS-SOURCE-LINES"),
        ("CONSOLIDATION_SKIPPED", "AS-CONSOLIDATE-CARRIES"),
        ("INJECTION_CAP_8001", "AS-INJECT-EDGE"),
    ],
)
def test_the_catalogue_mutation_flips_the_row(mutation: str, claim_id: str) -> None:
    assert mutation in {m.name for m in _naming(claim_id)}
    with by_name(mutation).apply():
        broken = measure_memory_switches()
    assert statuses(broken)[claim_id] == "differs"


def _naming(claim_id: str) -> list[Any]:
    from experiments.mutations.catalogue import MUTATIONS

    return [m for m in MUTATIONS if claim_id in m.must_flip]
