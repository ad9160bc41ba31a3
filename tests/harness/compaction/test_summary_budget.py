"""ctxlab's summary budget (:mod:`harness.compaction.guards.budget`): the summary message costs
at most its share of the room between the tail and the trigger, the call asks for no more, the
gate keeps its reserve, and the seeds' configuration has none of it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.compaction.agentscope import (
    CTXLAB_SUMMARY_BUDGET,
    CompactionConfig,
    Compactor,
    build_summary_message,
    ctxlab_profile,
    resolve_thresholds,
)
from harness.compaction.guards.budget import (
    MAX_SUMMARY_CALL_TOKENS,
    budget_prompt,
    fit_lines,
    summary_budget,
)
from harness.compaction.guards.gate import GateConfig
from harness.errors import ConfigError
from harness.messages import Message
from harness.meter import build_meter
from harness.model import ChatRequest
from harness.testing import FunctionModel

METER = "agentscope-2.0.3"
LONG = "## Summary\n" + "\n".join(
    f"point {i}: the talk went on about nothing much" for i in range(90)
)
SPAN = [
    Message.user("The order is SO-2026-0417 and the amount is 38650 USD."),
    Message.assistant("Noted."),
    Message.user("The password is falcon. Never touch prod."),
    Message.assistant("Understood."),
] * 3


def _config(**changes: object) -> CompactionConfig:
    fields: dict[str, object] = {
        "trigger_messages": 0,
        "trigger_tokens": 400,
        "keep_tokens": 40,
        "prune": None,
        "flush_before_compact": False,
        "offload_before_compact": False,
        "meter": METER,
    }
    return CompactionConfig(**(fields | changes))  # type: ignore[arg-type]


def _compact(config: CompactionConfig, summary: str) -> tuple[Message, list[ChatRequest]]:
    requests: list[ChatRequest] = []

    def reply(request: ChatRequest) -> str:
        requests.append(request)
        return summary

    compactor = Compactor(config, resolve_thresholds(config, "m"), FunctionModel(reply))
    compaction = compactor.force([*SPAN, Message.user("next?")])
    assert compaction is not None
    return compaction.messages[0], requests


def test_the_budget_is_a_share_of_the_room_under_the_trigger() -> None:
    assert summary_budget(0.5, 1_000, 300) == 350
    assert summary_budget(0.5, 1_000, 0) == 500  # count mode: no token tail
    assert summary_budget(None, 1_000, 300) is None  # the seeds'
    assert summary_budget(0.5, None, 300) is None and summary_budget(0.5, 0, 300) is None
    assert summary_budget(0.5, 300, 300) is None  # no room: the thrash guard's case


@pytest.mark.parametrize("share", [0, -0.1, 1.5, True, "half", float("nan")])
def test_a_bad_share_is_refused(share: object) -> None:
    with pytest.raises(ConfigError, match="summary_budget"):
        CompactionConfig(summary_budget=share)  # type: ignore[arg-type]


def test_ctxlab_profile_has_a_budget_and_the_seed_config_none() -> None:
    assert ctxlab_profile().summary_budget == CTXLAB_SUMMARY_BUDGET
    assert CompactionConfig().summary_budget is None


def test_a_long_summary_is_cut_to_the_budget_and_the_gate_keeps_its_values() -> None:
    config = _config(summary_budget=0.5, gate=GateConfig(definitions=True, budget_tokens=320))
    message, (request,) = _compact(config, LONG)
    budget = summary_budget(0.5, 400, 40)
    assert budget == 180
    assert build_meter(METER).price(message) <= budget + 4
    assert request.max_tokens == budget
    text_part = budget - int(budget * 2 / 3)  # the gate's reserve: two thirds
    assert request.messages[0].content.endswith(
        f"Keep the summary under {int(text_part * 0.75)} words."
    )
    for value in ("SO-2026-0417", "38650", "falcon"):
        assert value in message.content  # the gate's reserve held
    model_part = message.content.split("\n\n", 1)[1].split("\n\n## Exact values")[0]
    assert LONG.startswith(model_part) and model_part.endswith("nothing much")  # whole lines
    assert model_part.count("point ") < 90


def test_a_summary_within_the_budget_is_kept_whole() -> None:
    short = "Order SO-2026-0417, 38650 USD; password falcon; never touch prod."
    message, _ = _compact(_config(summary_budget=0.5), short)
    assert message.content.endswith(short)


def test_without_a_budget_the_request_and_the_summary_are_the_seeds() -> None:
    message, (request,) = _compact(_config(), LONG)
    assert (
        request.max_tokens is None and "Keep the summary under" not in request.messages[0].content
    )
    assert message == build_summary_message(LONG)


def test_the_call_never_asks_for_more_than_providers_allow() -> None:
    config = _config(trigger_tokens=100_000, keep_tokens=10, summary_budget=0.5)
    _, (request,) = _compact(config, "short")
    assert request.max_tokens == MAX_SUMMARY_CALL_TOKENS


def test_the_prompt_names_the_length() -> None:
    assert budget_prompt("Summarise:\n{messages}", 400) == (
        "Summarise:\n{messages}\n\nKeep the summary under 300 words."
    )


@given(
    st.lists(st.text(alphabet="ab ", max_size=30), max_size=12).map("\n".join), st.integers(0, 120)
)
def test_fit_lines_keeps_the_longest_fitting_run_of_whole_lines(text: str, limit: int) -> None:
    fitted = fit_lines(text, limit, len)
    assert len(fitted) <= limit or fitted == ""
    if len(text) <= limit:
        assert fitted == text
        return
    assert text.startswith(fitted)
    lines = text.split("\n")
    whole = [n for n in range(1, len(lines) + 1) if len("\n".join(lines[:n])) <= limit]
    if whole:  # the most whole lines that fit (trailing blanks trimmed)
        assert fitted == "\n".join(lines[: max(whole)]).rstrip()
    else:  # not even the first: as much of it as fits
        assert fitted == lines[0][:limit].rstrip()


def test_profile_budget_applies_to_the_harness_default() -> None:
    config = replace(ctxlab_profile(), trigger_tokens=1_000, keep_tokens=300, meter=METER)
    compactor = Compactor(config, resolve_thresholds(config, "m"), FunctionModel(lambda _: "x"))
    assert compactor.budget == 280


def test_a_summary_cap_is_sent_without_a_budget_and_the_smaller_with_one() -> None:
    message, (request,) = _compact(_config(summary_max_tokens=2_048), LONG)
    assert request.max_tokens == 2_048
    assert "Keep the summary under" not in request.messages[0].content
    assert message == build_summary_message(LONG)  # a cap alone cuts nothing itself
    _, (capped,) = _compact(_config(summary_budget=0.5, summary_max_tokens=100), LONG)
    assert capped.max_tokens == 100  # under the budget's 180
    _, (budgeted,) = _compact(_config(summary_budget=0.5, summary_max_tokens=2_048), LONG)
    assert budgeted.max_tokens == 180


@pytest.mark.parametrize("cap", [0, -1, 1.5, True, "2048"])
def test_a_bad_summary_cap_is_refused(cap: object) -> None:
    with pytest.raises(ConfigError, match="summary_max_tokens"):
        CompactionConfig(summary_max_tokens=cap)  # type: ignore[arg-type]
