"""The E5 rows that check what the seeds state (experiments/e5/measures/seed_memory.py and
dsh_mechanics.py): measured from the harness, judged by rules that fail on other
measurements."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from experiments.e5.claims.dsh_mechanics import dsh_mechanics_claims
from experiments.e5.claims.seed_memory import seed_memory_claims
from experiments.e5.measures.dsh_mechanics import measure_dsh_mechanics
from experiments.e5.measures.seed_memory import measure_seed_memory
from experiments.e5.view.dsh_mechanics import DshMechanics
from experiments.e5.view.seed_memory import SeedMemory


@pytest.fixture(scope="module")
def memory() -> SeedMemory:
    return measure_seed_memory()


def edited(record: Any, path: tuple[str, str], value: object) -> Any:
    """``record`` with ``record.<path[0]>.<path[1]>`` set to ``value``."""
    part = getattr(record, path[0])
    return replace(record, **{path[0]: replace(part, **{path[1]: value})})


@pytest.fixture(scope="module")
def dsh() -> DshMechanics:
    return measure_dsh_mechanics()


def statuses(claims: list[Any]) -> dict[str, str]:
    return {c.claim_id: c.status for c in claims}


def test_agentscope_rows_on_the_harness(memory: SeedMemory) -> None:
    found = statuses(seed_memory_claims(memory))
    assert found == {
        "AS-DEFAULTS": "match",
        "AS-DEFAULT-RESERVE": "match",
        "AS-PRUNE-DEFAULTS": "match",
        "AS-OFFLOAD-PATH": "match",
        "AS-OFFLOAD-EXCLUDED": "differs",  # nine tools, documented
        "AS-INJECT": "match",
        "AS-FLUSH-NO-REPLY": "match",
        "AS-MEMORY-SAVE": "match",
        "AS-CONSOLIDATE-CADENCE": "match",
        "AS-CONSOLIDATE-FRESHNESS": "differs",  # per entry, documented
        "AS-MEMORY-CAP": "match",
    }
    assert memory.offload.path.startswith("large_tool_results/")
    assert memory.injection.roles == ("user",)


@pytest.mark.parametrize(
    ("claim_id", "path", "value"),
    [
        ("AS-OFFLOAD-PATH", ("offload", "path"), "large_tool_results/agent/call_1-0123.txt"),
        ("AS-INJECT", ("injection", "roles"), ("system",)),
        ("AS-FLUSH-NO-REPLY", ("no_reply", "entry"), True),
        ("AS-MEMORY-SAVE", ("memory_save", "daily_save_section"), False),
        ("AS-CONSOLIDATE-CADENCE", ("cadence", "granted_minutes"), (0, 10, 30, 45)),
        ("AS-MEMORY-CAP", ("consolidation_cap", "request_max_tokens"), 8_000),
        ("AS-PRUNE-DEFAULTS", ("prune", "messages_after"), 20),
        ("AS-DEFAULTS", ("defaults", "keep_messages"), 2),
    ],
)
def test_agentscope_rows_fail_on_other_measurements(
    memory: SeedMemory, claim_id: str, path: tuple[str, str], value: object
) -> None:
    changed = edited(memory, path, value)
    assert statuses(seed_memory_claims(changed))[claim_id] == "differs"


def test_freshness_row_matches_a_per_file_run(memory: SeedMemory) -> None:
    assert memory.freshness.second_run_sends == ("third-fact",)
    sends = ("first-fact", "second-fact", "third-fact")
    changed = edited(memory, ("freshness", "second_run_sends"), sends)
    assert statuses(seed_memory_claims(changed))["AS-CONSOLIDATE-FRESHNESS"] == "match"


def test_dsh_rows_on_the_harness(dsh: DshMechanics) -> None:
    assert statuses(dsh_mechanics_claims(dsh)) == {
        "DSH-PRESSURE": "match",
        "DSH-OVERFLOW": "match",
        "DSH-RANGE-BACKOFF": "match",
        "DSH-SMALLER": "match",
        "DSH-TRUNCATED": "match",
        "DSH-LOCK": "match",
        "DSH-LOCK-STALE": "differs",  # follows upstream dsh: a dead process's start is stale
        "DSH-MANUAL-ERRORS": "match",
    }


@pytest.mark.parametrize(
    ("claim_id", "path", "value"),
    [
        ("DSH-PRESSURE", ("pressure", "below_calls"), 1),
        ("DSH-OVERFLOW", ("overflow", "uncompactable_events"), 1),
        ("DSH-RANGE-BACKOFF", ("backoff", "impossible"), False),
        ("DSH-SMALLER", ("smaller", "surface_unchanged"), False),
        ("DSH-TRUNCATED", ("truncated", "error"), ""),
        # any error text is not the refusal the seed names (MAX_TOKENS, incomplete checkpoint)
        ("DSH-TRUNCATED", ("truncated", "error"), "the summary call returned no text"),
        ("DSH-LOCK", ("lock", "busy"), ("manual",)),
        ("DSH-LOCK-STALE", ("stale", "busy"), False),
        ("DSH-MANUAL-ERRORS", ("manual_errors", "interrupted"), "none"),
    ],
)
def test_dsh_rows_fail_on_other_measurements(
    dsh: DshMechanics, claim_id: str, path: tuple[str, str], value: object
) -> None:
    if path[0] == "manual_errors":
        changed = replace(dsh, manual_errors=dsh.manual_errors | {path[1]: str(value)})
    else:
        changed = edited(dsh, path, value)
    assert statuses(dsh_mechanics_claims(changed))[claim_id] == "differs"


def test_the_stale_row_matches_when_a_crash_left_start_blocks(dsh: DshMechanics) -> None:
    changed = edited(dsh, ("stale", "busy"), True)
    assert statuses(dsh_mechanics_claims(changed))["DSH-LOCK-STALE"] == "match"
