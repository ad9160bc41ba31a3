"""Configuration values are refused where they are set, naming the field that was set: NaN,
infinities, negatives, zeros, bools and fractions where whole numbers belong."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.agent import Agent
from harness.client import ChatClient, RetryPolicy
from harness.compaction.agentscope import CompactionConfig, resolve_thresholds
from harness.compaction.agentscope.config import PruneConfig, TruncateArgsConfig
from harness.compaction.dsh import DshConfig
from harness.compaction.manual import ManualCompaction
from harness.errors import ConfigError
from harness.memory import (
    Consolidator,
    FlushPolicy,
    MaintenanceSchedule,
    MemoryConfig,
    MemoryWorkspace,
)
from harness.testing import ScriptedModel

NAN, INF = math.nan, math.inf
BAD_COUNTS = [NAN, INF, -INF, -3, 0, 1.5, True, "7"]
BAD_SECONDS = [NAN, INF, -1.0, 0, True, "5"]


def refused(build: Callable[[], object], field: str) -> str:
    with pytest.raises(ConfigError) as info:
        build()
    message = str(info.value)
    assert field in message, message
    assert len(message.splitlines()) == 1
    return message


CASES: list[tuple[str, Callable[[Any], object], list[Any]]] = [
    ("trigger_tokens", lambda v: CompactionConfig(trigger_tokens=v), [NAN, INF, -1, 1.5, True]),
    ("trigger_messages", lambda v: CompactionConfig(trigger_messages=v), [NAN, INF, -1, 2.5]),
    ("reserved", lambda v: CompactionConfig(reserved=v), [NAN, INF, -1, 0.5]),
    ("keep_messages", lambda v: CompactionConfig(keep_messages=v), BAD_COUNTS),
    ("keep_tokens", lambda v: CompactionConfig(keep_tokens=v), [NAN, INF, -1, 1.5, "auto"]),
    ("keep_tokens_min", lambda v: CompactionConfig(keep_tokens_min=v), [NAN, INF, 0, -5]),
    ("keep_tokens_max", lambda v: CompactionConfig(keep_tokens_max=v), [NAN, INF, 1_000]),
    ("keep_tokens_ratio", lambda v: CompactionConfig(keep_tokens_ratio=v), [NAN, INF, 0, -0.5]),
    ("protect_tokens", lambda v: PruneConfig(protect_tokens=v), [NAN, INF, -1]),
    ("max_output_chars", lambda v: PruneConfig(max_output_chars=v), [NAN, 0, -1]),
    ("max_arg_length", lambda v: TruncateArgsConfig(max_arg_length=v), [NAN, INF, 0]),
    ("context_window", lambda v: DshConfig(context_window=v), [NAN, INF, 0, -1, 1e6]),
    ("threshold_ratio", lambda v: DshConfig(threshold_ratio=v), [NAN, INF, 0, 1.5]),
    ("retain_ratio", lambda v: DshConfig(retain_ratio=v), [NAN, INF, 0, -1]),
    ("retain_tokens", lambda v: DshConfig(retain_tokens=v), [NAN, INF, -1, 2.5]),
    ("max_tokens", lambda v: DshConfig(max_tokens=v), [NAN, INF, 0, -1]),
    ("interval_seconds", lambda v: FlushPolicy.throttled(v), BAD_SECONDS),
    ("interval_seconds", lambda v: FlushPolicy("always", v), [NAN, INF, -1.0]),
    ("consolidation_max_tokens", lambda v: MemoryConfig(consolidation_max_tokens=v), BAD_COUNTS),
    ("max_context_tokens", lambda v: MemoryConfig(max_context_tokens=v), BAD_COUNTS),
    ("daily_retention_days", lambda v: MemoryConfig(daily_retention_days=v), [NAN, INF, -1]),
    (
        "consolidation_min_gap_seconds",
        lambda v: MemoryConfig(consolidation_min_gap_seconds=v),
        [NAN, INF, -1.0, "1"],
    ),
    ("injection", lambda v: MemoryConfig(injection=v), ["prompt", None]),
    ("background_order", lambda v: MemoryConfig(background_order=v), ["later"]),
    ("min_gap_seconds", lambda v: MaintenanceSchedule(lambda: 0, v), [NAN, INF, -1.0]),
    ("max_retries", lambda v: RetryPolicy(max_retries=v), [NAN, INF, -1, 1.5]),
    ("initial_delay", lambda v: RetryPolicy(initial_delay=v), [NAN, INF, -1.0]),
    ("max_delay", lambda v: RetryPolicy(max_delay=v), [NAN, INF, -1.0]),
    ("timeout", lambda v: ChatClient(api_key="sk-x", timeout=v), [NAN, INF, -1.0, 0.0]),
    ("max_steps", lambda v: Agent(ScriptedModel([]), max_steps=v), BAD_COUNTS),
]


@pytest.mark.parametrize(
    ("field", "build", "value"),
    [(field, build, value) for field, build, values in CASES for value in values],
    ids=[f"{field}={value!r}" for field, _, values in CASES for value in values],
)
def test_a_bad_value_is_refused_naming_its_field(
    field: str, build: Callable[[Any], object], value: Any
) -> None:
    refused(lambda: build(value), field)


def test_a_bad_consolidation_cap_is_refused_naming_it(tmp_path: Path) -> None:
    workspace = MemoryWorkspace(tmp_path)
    for value in (0, -1, NAN, INF):
        refused(lambda v=value: Consolidator(ScriptedModel([]), workspace, v), "max_tokens")


def test_manual_keep_names_keep_messages_not_trigger_messages(tmp_path: Path) -> None:
    message = refused(lambda: ManualCompaction(tmp_path, "s1", ScriptedModel([]), -3), "keep")
    assert "trigger_messages" not in message
    # The config it used to build: the message still names keep_messages first.
    message = refused(lambda: CompactionConfig(trigger_messages=-2, keep_messages=-3), "keep")
    assert "trigger_messages" not in message


@pytest.mark.parametrize("window", [NAN, INF, -1, 1.5])
def test_a_bad_window_in_the_table_is_refused_naming_the_model(window: Any) -> None:
    message = refused(lambda: resolve_thresholds(CompactionConfig(), "m", {"m": window}), "m")
    assert "context window of m" in message


def test_good_edge_values_are_accepted() -> None:
    MemoryConfig(consolidation_min_gap_seconds=0, daily_retention_days=0)
    FlushPolicy("always", 0.0)
    FlushPolicy.throttled(0.5)
    RetryPolicy(max_retries=0, initial_delay=0)
    DshConfig(context_window=8_192, threshold_ratio=1, retain_tokens=0)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_throttle_is_accepted_only_when_finite_and_positive(value: float) -> None:
    ok = math.isfinite(value) and value > 0
    try:
        FlushPolicy.throttled(value)
    except ConfigError as exc:
        assert not ok and "interval_seconds" in str(exc)
    else:
        assert ok
