"""Tests of harness.compaction.agentscope.config: defaults, validation, and resolving dynamic
thresholds."""

from __future__ import annotations

from typing import Any

import pytest

from harness.compaction.agentscope import (
    DYNAMIC,
    FALLBACK_TRIGGER_TOKENS,
    CompactionConfig,
    PruneConfig,
    TruncateArgsConfig,
    resolve_thresholds,
)
from harness.errors import ConfigError
from harness.meter.windows import (
    AGENTSCOPE_2_0_3_WINDOWS,
    CTXLAB_WINDOWS,
    RESERVED_TOKENS,
    WINDOW_PROFILES,
)


def test_defaults_are_agentscope_2_0_3() -> None:
    config = CompactionConfig()
    assert config.trigger_messages == 50
    assert config.trigger_tokens == 0  # dynamic
    assert config.keep_messages == 20
    assert config.keep_tokens == DYNAMIC == "dynamic"
    assert config.reserved == 20_000 == RESERVED_TOKENS
    assert config.prune == PruneConfig()
    assert config.prune is not None
    assert (
        config.prune.protect_tokens,
        config.prune.minimum_tokens,
        config.prune.max_output_chars,
    ) == (40_000, 20_000, 2_000)
    assert config.prune.excluded_tools == {
        "read_file",
        "memory_search",
        "memory_get",
        "session_search",
    }
    assert config.truncate_args is None
    assert config.flush_before_compact is True
    assert config.offload_before_compact is True
    assert config.summary_prompt is None
    assert not config.count_mode


def test_truncate_args_defaults() -> None:
    truncate = TruncateArgsConfig()
    assert (truncate.trigger_messages, truncate.trigger_tokens, truncate.keep_messages) == (
        25,
        40_000,
        20,
    )
    assert truncate.max_arg_length == 2_000
    assert truncate.truncation_text == "...(argument truncated)"


def test_count_mode() -> None:
    assert CompactionConfig(keep_tokens=0).count_mode
    assert not CompactionConfig(keep_tokens=500).count_mode


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"trigger_messages": -1}, "trigger_messages"),
        ({"trigger_tokens": -1}, "trigger_tokens"),
        ({"trigger_messages": 0, "trigger_tokens": None}, "trigger"),
        ({"keep_messages": 0}, "keep_messages"),  # dynamic keep falls back to messages
        ({"keep_messages": 0, "keep_tokens": 0, "trigger_messages": 5}, "keep_messages"),
        ({"keep_messages": -3}, "keep_messages"),
        ({"keep_tokens": -1}, "keep_tokens"),
        ({"keep_tokens": "auto"}, "keep_tokens"),
        ({"keep_tokens": 1.5}, "keep_tokens"),
        ({"trigger_messages": 5, "keep_messages": 5, "keep_tokens": 0}, "keep_messages"),
        ({"trigger_messages": 5, "keep_messages": 9, "keep_tokens": 0}, "keep_messages"),
        ({"trigger_tokens": 4_000, "keep_tokens": 4_000}, "keep_tokens"),
        ({"trigger_tokens": 4_000, "keep_tokens": 6_000}, "keep_tokens"),
        ({"reserved": -1}, "reserved"),
        ({"keep_tokens_min": 0}, "keep_tokens_min"),
        ({"keep_tokens_min": 9_000, "keep_tokens_max": 8_000}, "keep_tokens_max"),
        ({"keep_tokens_ratio": 0}, "keep_tokens_ratio"),
        ({"keep_tokens_ratio": 1.5}, "keep_tokens_ratio"),
        ({"summary_prompt": "Summarise this."}, "summary_prompt"),
    ],
)
def test_invalid_configs_raise_config_error_naming_the_field(
    kwargs: dict[str, Any], field: str
) -> None:
    with pytest.raises(ConfigError, match=field):
        CompactionConfig(**kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"trigger_messages": 0, "trigger_tokens": 10_000},  # message trigger off
        {"trigger_messages": 50, "trigger_tokens": None},  # token trigger off
        {"trigger_messages": 3, "keep_messages": 2, "keep_tokens": 0},
        {"trigger_messages": 0, "trigger_tokens": 5_000, "keep_messages": 80, "keep_tokens": 0},
        {"trigger_tokens": 5_000, "keep_tokens": 4_999},
        {"keep_tokens_ratio": 1.0},
        {"summary_prompt": "SUMMARY_INPUT:\n{messages}"},
        {"reserved": 0},
        # the tail is counted in tokens: keep_messages is never used, 0 is accepted (AgentScope)
        {"keep_messages": 0, "keep_tokens": 500, "trigger_tokens": 1_000},
    ],
)
def test_valid_edge_configs(kwargs: dict[str, Any]) -> None:
    CompactionConfig(**kwargs)


def test_config_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        CompactionConfig(keep_messages=0)


# --- resolve_thresholds -----------------------------------------------------------------------


def test_article_chain_with_agentscope_profile() -> None:
    """deepseek-flash is unknown to 2.0.3 → window 0 → 160,000 and 20 messages."""
    thresholds = resolve_thresholds(
        CompactionConfig(), "deepseek-flash", WINDOW_PROFILES["agentscope-2.0.3"]
    )
    assert thresholds.context_window == 0
    assert thresholds.trigger_tokens == FALLBACK_TRIGGER_TOKENS == 160_000
    assert thresholds.keep_tokens == 0  # count mode
    assert thresholds.keep_messages == 20
    assert thresholds.trigger_messages == 50
    assert thresholds.model == "deepseek-flash"
    assert "160,000" in thresholds.explanation
    assert "20 messages" in thresholds.explanation


def test_ctxlab_table_knows_deepseek_flash() -> None:
    config = CompactionConfig()
    thresholds = resolve_thresholds(config, "deepseek-flash", CTXLAB_WINDOWS)
    window = 1_000_000
    assert thresholds.context_window == window
    assert thresholds.trigger_tokens == window - config.reserved == 980_000
    # ratio × (window − reserved) = 245,000, clamped to the 8,000 maximum.
    assert thresholds.keep_tokens == config.keep_tokens_max == 8_000
    assert resolve_thresholds(config, "deepseek-flash") == thresholds  # ctxlab is the default


def test_small_window_clamps_trigger_to_half_the_window() -> None:
    config = CompactionConfig()
    thresholds = resolve_thresholds(config, "moonshot-v1-8k", AGENTSCOPE_2_0_3_WINDOWS)
    assert thresholds.context_window == 8_192
    assert thresholds.trigger_tokens == 8_192 // 2 == 4_096
    # (8,192 − 20,000) × 0.25 is negative: clamped up to the 2,000 minimum.
    assert thresholds.keep_tokens == 2_000


@pytest.mark.parametrize("window", [25_000, 32_768, 40_000, 128_000])
def test_dynamic_values_follow_the_formula(window: int) -> None:
    config = CompactionConfig()
    thresholds = resolve_thresholds(config, "m", {"m": window})
    assert thresholds.trigger_tokens == window - 20_000
    expected_keep = int(min(8_000, max(2_000, (window - 20_000) * 0.25)))
    assert thresholds.keep_tokens == expected_keep


def test_upstream_worked_examples() -> None:
    table = {"w128": 128_000, "w200": 200_000, "w32": 32_768}
    config = CompactionConfig()
    got = {m: resolve_thresholds(config, m, table) for m in table}
    assert (got["w128"].trigger_tokens, got["w128"].keep_tokens) == (108_000, 8_000)
    assert (got["w200"].trigger_tokens, got["w200"].keep_tokens) == (180_000, 8_000)
    assert (got["w32"].trigger_tokens, got["w32"].keep_tokens) == (12_768, 3_192)


def test_window_equal_to_reserved_is_clamped() -> None:
    thresholds = resolve_thresholds(CompactionConfig(), "m", {"m": 20_000})
    assert thresholds.trigger_tokens == 10_000


def test_static_values_are_used_as_given() -> None:
    config = CompactionConfig(trigger_tokens=12_345, keep_tokens=3_000)
    for table in (CTXLAB_WINDOWS, AGENTSCOPE_2_0_3_WINDOWS):
        thresholds = resolve_thresholds(config, "deepseek-flash", table)
        assert thresholds.trigger_tokens == 12_345
        assert thresholds.keep_tokens == 3_000


def test_static_count_mode_keeps_messages_whatever_the_window() -> None:
    config = CompactionConfig(keep_tokens=0, keep_messages=7)
    thresholds = resolve_thresholds(config, "deepseek-flash", CTXLAB_WINDOWS)
    assert thresholds.keep_tokens == 0
    assert thresholds.keep_messages == 7


def test_trigger_off() -> None:
    config = CompactionConfig(trigger_tokens=None)
    thresholds = resolve_thresholds(config, "deepseek-flash", CTXLAB_WINDOWS)
    assert thresholds.trigger_tokens is None
    assert thresholds.trigger_messages == 50
    assert "off" in thresholds.explanation


def test_count_only_is_count_mode_without_side_effects() -> None:
    config = CompactionConfig.count_only(5, 2)
    assert (config.trigger_messages, config.keep_messages, config.count_mode) == (5, 2, True)
    assert config.trigger_tokens is None and config.prune is None
    assert not config.flush_before_compact and not config.offload_before_compact
    assert config.meter == CompactionConfig().meter
    assert CompactionConfig.count_only(5, 2, meter="dsh").meter == "dsh"
    with pytest.raises(ConfigError):
        CompactionConfig.count_only(5, -1)
