"""Tests of harness.compaction.summary_check: an answer that is not a summary is a failed
summary in both engines, and every summary answer recorded in the cassettes still passes."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from harness.compaction.agentscope import (
    SUMMARY_UNAVAILABLE,
    CompactionConfig,
    Compactor,
    resolve_thresholds,
)
from harness.compaction.dsh import DshEngine
from harness.compaction.summary_check import checked, not_a_summary
from harness.errors import SummaryError
from harness.messages import CHECKPOINT_NAME, Message, ToolCall
from harness.model import ChatRequest, ChatResponse
from harness.store.eventlog import EventLog
from harness.summary_outcome import SummaryOutcome
from harness.testing import FunctionModel, Reply

CASSETTES = Path(__file__).resolve().parents[3] / "cassettes"
SUMMARY_PROMPTS = (
    "You are a context extraction assistant",  # AgentScope's summary prompt (ours)
    "Write a checkpoint of the conversation so far",  # the DSH directive
    "Extract NEW state",  # X-BENCH's reference prompt
)
FETCH = ToolCall("c9", "fetch", '{"path": "/srv/data"}')

NOT_SUMMARIES: dict[str, tuple[Reply, str]] = {
    "empty": ("", "no"),
    "markup-only": ("```\n```\n---", "no summary text"),
    "tool-call": (Message.assistant("", [FETCH]), "tool call (fetch)"),
    "tool-call-with-a-sentence": (
        Message.assistant("Let me check the folder first.", [FETCH]),
        "tool call (fetch)",
    ),
    "tool-call-as-tags": (
        '<tool_call>\n{"name": "fetch", "arguments": {"path": "/srv"}}\n</tool_call>',
        "tool-call markup",
    ),
    "tool-call-as-json": (
        '```json\n[{"type": "function", "function": {"name": "fetch", "arguments": "{}"}}]\n```',
        "tool-call markup",
    ),
    "dialogue": (
        "User: can you list the files in /srv/data?\nAssistant: Sure, there are 100 files.",
        "continued the conversation",
    ),
    "assistant-answer": ("**Assistant:** There are 100 files in /srv/data.", "speaker's turn"),
    "dialogue-zh": ("用户：列出 /srv/data 里的文件\n助手：好的，一共 100 个。", "speaker's turn"),
}

SUMMARIES = {
    "sections": "## SESSION INTENT\nList /srv/data.\n\n## SUMMARY\nUser: wants the files\n"
    "AI: found 100",
    "labelled-line": "Summary: the user wants the files in /srv/data listed.",
    "none": "None",
    "bullet-quoting-a-turn": "- User: list /srv/data\n- Assistant listed 100 files",
    "state-json": '```json\n{"facts": ["/srv/data holds 100 files"], "name": "listing"}\n```',
    "plain-reply": "Got it.",  # not judged: reads like a terse summary
}


@pytest.mark.parametrize("shape", NOT_SUMMARIES)
def test_a_shape_that_is_not_a_summary_is_refused(shape: str) -> None:
    reply, reason = NOT_SUMMARIES[shape]
    message = reply if isinstance(reply, Message) else Message.assistant(str(reply))
    response = ChatResponse(message)
    outcome = checked(SummaryOutcome(message.content.strip(), response=response))
    if not message.content.strip() and not message.tool_calls:
        outcome = SummaryOutcome("", True, "no text", response)  # usable_text's own refusal
    assert outcome.failed
    assert reason in (outcome.error or "")


@pytest.mark.parametrize("shape", SUMMARIES)
def test_a_real_summary_passes(shape: str) -> None:
    assert not_a_summary(SUMMARIES[shape]) is None


def test_a_sectioned_summary_with_a_stray_tool_call_passes() -> None:
    assert not_a_summary("## SUMMARY\nListed /srv/data: 100 files.", [FETCH]) is None


def test_every_recorded_summary_answer_passes() -> None:
    """The summary answers in the shipped cassettes (what the experiments took as summaries,
    good and poor) are all still accepted, so no report changes."""
    answers = []
    for path in sorted(CASSETTES.rglob("*.json")):
        for interaction in json.loads(path.read_text(encoding="utf-8"))["interactions"]:
            body = interaction["request"].get("body", {}).get("json") or {}
            messages = body.get("messages") or []
            if not messages or not str(messages[-1].get("content")).startswith(SUMMARY_PROMPTS):
                continue
            reply = interaction["response"]["body"]["json"]["choices"][0]["message"]
            calls = [
                ToolCall(c["id"], c["function"]["name"]) for c in reply.get("tool_calls") or []
            ]
            answers.append((path.name, reply.get("content") or "", calls))
    assert len(answers) > 1_000
    refused = [(name, text[:60]) for name, text, calls in answers if not_a_summary(text, calls)]
    assert refused == []


# --- in the AgentScope engine: the failed-summary path --------------------------------------


def agentscope(reply: Reply, policy: str = "fail-open") -> Compactor:
    config = CompactionConfig.count_only(4, 2, summary_policy=policy)
    model = FunctionModel(lambda request: reply)
    return Compactor(config, resolve_thresholds(config, model.model_name), model)


def chat() -> list[Message]:
    return [Message.user("list /srv/data"), Message.assistant("100 files")] * 2


@pytest.mark.parametrize("shape", NOT_SUMMARIES)
def test_agentscope_compacts_with_the_placeholder_instead(
    shape: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="harness.compaction")
    reply, reason = NOT_SUMMARIES[shape]
    result = agentscope(reply).compact_if_needed(chat())
    assert result is not None
    assert result.event.summary_failed
    assert result.event.summary == SUMMARY_UNAVAILABLE
    assert result.messages[0].content.endswith(f"\n\n{SUMMARY_UNAVAILABLE}")
    if shape != "empty":
        assert any(reason in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("shape", NOT_SUMMARIES)
def test_agentscope_fail_closed_raises(shape: str) -> None:
    with pytest.raises(SummaryError):
        agentscope(NOT_SUMMARIES[shape][0], "fail-closed").compact_if_needed(chat())


@pytest.mark.parametrize("shape", SUMMARIES)
def test_agentscope_takes_a_real_summary(shape: str) -> None:
    result = agentscope(SUMMARIES[shape]).compact_if_needed(chat())
    assert result is not None and not result.event.summary_failed


# --- in the DSH engine: the summary failure -------------------------------------------------

HEADER = ChatRequest(
    messages=(Message.system("You are a helper."),),
    tools=({"type": "function", "function": {"name": "fetch", "parameters": {}}},),
)


def dsh_log(tmp_path: Path) -> EventLog:
    log = EventLog(tmp_path / "s.jsonl")
    log.append("session/start", {"session_id": "t"})
    log.append_message(Message.user("Please list the files in /srv/data. " + "x" * 400))
    log.append_message(Message.assistant("", [ToolCall("c1", "fetch", "{}")]))
    log.append_message(Message.tool("c1", "a.txt\n" * 100, tool_name="fetch"))
    log.append_message(Message.assistant("There are 100 files in /srv/data."))
    log.append_message(Message.user("thanks"))
    return log


@pytest.mark.parametrize("shape", NOT_SUMMARIES)
def test_dsh_refuses_the_checkpoint(tmp_path: Path, shape: str) -> None:
    reply, reason = NOT_SUMMARIES[shape]
    log = dsh_log(tmp_path)
    messages = log.messages()
    with pytest.raises(SummaryError, match=r"no text" if shape == "empty" else None) as info:
        DshEngine(log, FunctionModel(lambda request: reply)).compact_now(HEADER)
    if shape != "empty":
        assert reason in str(info.value)
        assert reason in log.events[-1].data["error"]
    assert log.events[-1].type == "compaction/end"
    assert log.messages() == messages


@pytest.mark.parametrize("shape", SUMMARIES)
def test_dsh_commits_a_real_summary(tmp_path: Path, shape: str) -> None:
    log = dsh_log(tmp_path)
    DshEngine(log, FunctionModel(lambda request: SUMMARIES[shape])).compact_now(HEADER)
    assert log.messages()[0].name == CHECKPOINT_NAME
