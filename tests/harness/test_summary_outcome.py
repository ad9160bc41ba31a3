"""One summary outcome for the three summary-like calls; fail-open or fail-closed is a policy."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.memory_invariants import FakeClock

from harness.compaction.agentscope import CompactionConfig, Compactor, resolve_thresholds
from harness.compaction.agentscope.summary import SUMMARY_UNAVAILABLE, summarize
from harness.compaction.dsh import summarize_span
from harness.errors import (
    ConfigError,
    CtxlabError,
    ModelError,
    ModelOutputError,
    ServerError,
    SummaryError,
)
from harness.memory import Consolidator, MemoryWorkspace
from harness.messages import Message
from harness.model import ChatRequest, ChatResponse
from harness.summary_outcome import SummaryOutcome, request_summary, usable_text
from harness.testing import FunctionModel

REQUEST = ChatRequest(messages=(Message.user("condense this"),), purpose="summary")
PREFIX = [Message.user("a question"), Message.assistant("an answer")]


def answering(text: str, finish: str = "stop") -> FunctionModel:
    return FunctionModel(lambda r: ChatResponse(Message.assistant(text), finish))


def failing() -> FunctionModel:
    def fail(request: ChatRequest) -> str:
        raise ServerError("backend down", status_code=503)

    return FunctionModel(fail)


def test_model_output_error_is_its_own_branch_of_the_tree() -> None:
    assert issubclass(ModelOutputError, CtxlabError)
    assert not issubclass(ModelOutputError, (ModelError, ValueError))


def test_usable_text_refuses_a_cut_or_empty_answer() -> None:
    cut = ChatResponse(Message.assistant(" half "), "length")
    with pytest.raises(ModelOutputError, match="was cut"):
        usable_text(cut, cut="it was cut", empty="none")
    assert usable_text(cut, cut=None, empty="none") == "half"  # a caller may take it
    with pytest.raises(ModelOutputError, match="none"):
        usable_text(ChatResponse(Message.assistant(" \n"), "stop"), cut="cut", empty="none")


def test_request_summary_never_raises_for_a_failed_call_or_answer() -> None:
    down = request_summary(failing(), REQUEST, cut="cut", empty="empty", call="the x call")
    assert (down.failed, down.error, down.response) == (
        True,
        "the x call failed: ServerError: backend down",
        None,
    )
    assert isinstance(down.cause, ServerError)
    cut = request_summary(answering("half", "length"), REQUEST, cut="cut", empty="empty")
    assert (cut.failed, cut.error) == (True, "cut")
    assert isinstance(cut.cause, ModelOutputError) and cut.response is not None
    ok = request_summary(answering(" fine "), REQUEST, cut="cut", empty="empty")
    assert ok == SummaryOutcome("fine") and ok.response is not None


def test_the_policy_decides_what_a_failure_does() -> None:
    failed = SummaryOutcome("", True, "it broke", cause=ServerError("x", status_code=500))
    assert failed.settle("fail-open") is failed
    with pytest.raises(SummaryError, match="it broke") as info:
        failed.settle("fail-closed")
    assert isinstance(info.value.__cause__, ServerError)
    assert SummaryOutcome("fine").settle("fail-closed") == SummaryOutcome("fine")


def test_agentscope_summary_fails_open_by_default_and_closed_on_request() -> None:
    outcome = summarize(failing(), PREFIX)
    assert outcome.failed
    assert (
        outcome.text == f"{SUMMARY_UNAVAILABLE} The summary call failed: ServerError: backend down"
    )
    assert summarize(answering("  "), PREFIX).text == SUMMARY_UNAVAILABLE
    with pytest.raises(SummaryError, match="backend down"):
        summarize(failing(), PREFIX, policy="fail-closed")
    with pytest.raises(SummaryError, match="empty summary"):
        summarize(answering(""), PREFIX, policy="fail-closed")


def test_a_fail_closed_compactor_raises_instead_of_compacting_a_placeholder() -> None:
    config = CompactionConfig(
        trigger_messages=3, trigger_tokens=None, keep_messages=1, summary_policy="fail-closed"
    )
    compactor = Compactor(config, resolve_thresholds(config, "m"), failing())
    with pytest.raises(SummaryError):
        compactor.force([*PREFIX, Message.user("more"), Message.assistant("more")])
    with pytest.raises(ConfigError, match="summary_policy"):
        CompactionConfig(summary_policy="sometimes")  # type: ignore[arg-type]


def test_dsh_summary_fails_closed_with_the_same_mechanism() -> None:
    request = ChatRequest(messages=(Message.user("x"),), purpose="summary")
    with pytest.raises(SummaryError, match="incomplete checkpoint") as info:
        summarize_span(answering("## half", "length"), request, 10_000)
    assert isinstance(info.value.__cause__, ModelOutputError)


def test_consolidation_reports_a_cut_answer_as_an_outcome_not_a_value_error(
    tmp_path: Path,
) -> None:
    workspace = MemoryWorkspace(tmp_path / "ws", clock=FakeClock())
    workspace.append_entry("Memory Flush", "- a fact")
    outcome = Consolidator(answering("# Memory\n- part", "length"), workspace).consolidate()
    assert outcome.status == "failed"
    assert outcome.error == "the model's MEMORY.md was cut off at max_tokens; not written"
    down = Consolidator(failing(), workspace).consolidate()
    assert down.error == "the consolidation call failed: ServerError: backend down"
