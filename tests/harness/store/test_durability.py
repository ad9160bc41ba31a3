"""The durability setting: how many fsyncs a turn costs in each setting, and
that a ``per-turn`` session commits the turn (and, when asked, the user message before the
model call) in one group commit per file.

Every fsync is counted where it happens (``os.fsync``), over one real agent turn with a tool
call on real files, through :class:`HarnessAgent`, for both stores.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest

from harness.errors import ConfigError
from harness.harness_agent import HarnessAgent
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.replies import ToolCallIds, repair_tool_call_ids
from harness.testing import FunctionModel
from harness.tools import Tool


def _tool_then_answer(request: ChatRequest) -> Message:
    last = request.messages[-1]
    if last.role == "user":
        return Message.assistant("", [ToolCall(f"call_{len(request.messages)}", "probe", "{}")])
    return Message.assistant("done")


def _agent(root: Path, store: str, durability: str, **kwargs: object) -> HarnessAgent:
    return HarnessAgent(
        FunctionModel(_tool_then_answer),
        "terse",
        workspace_root=root,
        tools=[Tool.from_function(lambda: "ok", name="probe")],
        disable_compaction=True,
        disable_memory_hooks=True,
        disable_memory_tools=True,
        store=store,  # type: ignore[arg-type]
        durability=durability,  # type: ignore[arg-type]
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def fsyncs() -> Iterator[list[int]]:
    calls: list[int] = []
    real = os.fsync

    def counted(fd: int) -> None:
        calls.append(fd)
        real(fd)

    with mock.patch("os.fsync", counted):
        yield calls


# (store, setting) -> fsyncs of one turn of four messages (user, call, result, answer)
EXPECTED = {
    ("eventlog", "per-turn"): 1,  # one group commit of the log
    ("state", "per-turn"): 2,  # the journal and the transcript, once each
    ("eventlog", "os"): 0,
    ("state", "os"): 0,
}


@pytest.mark.parametrize(("store", "setting"), list(EXPECTED))
def test_a_turn_costs_one_fsync_per_file_per_turn(
    tmp_path: Path, store: str, setting: str, fsyncs: list[int]
) -> None:
    agent = _agent(tmp_path, store, setting)
    agent.call("warm up")  # the first turn creates the files and folders
    fsyncs.clear()
    agent.call("a turn with a tool call")
    assert len(fsyncs) == EXPECTED[(store, setting)]


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_per_event_fsyncs_every_append(tmp_path: Path, store: str, fsyncs: list[int]) -> None:
    agent = _agent(tmp_path, store, "per-event")
    agent.call("warm up")
    fsyncs.clear()
    agent.call("a turn with a tool call")
    files = 1 if store == "eventlog" else 2
    assert len(fsyncs) >= 4 * files - (1 if store == "state" else 0)


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_the_user_message_is_committed_before_the_model_call_when_asked(
    tmp_path: Path, store: str, fsyncs: list[int]
) -> None:
    seen: list[int] = []

    def model(request: ChatRequest) -> Message:
        seen.append(len(fsyncs))
        return Message.assistant("done")

    agent = HarnessAgent(
        FunctionModel(model), workspace_root=tmp_path, disable_compaction=True,
        disable_memory_hooks=True, disable_memory_tools=True, store=store,  # type: ignore[arg-type]
        durable_user_message=True,
    )  # fmt: skip
    agent.call("warm up")
    fsyncs.clear()
    seen.clear()
    agent.call("must be on the disk before the model hears it")
    files = 1 if store == "eventlog" else 2
    assert seen == [files]  # committed before the model call
    assert len(fsyncs) == 2 * files  # and the turn's end


def test_an_unknown_setting_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="durability 'sometimes' is not a setting"):
        _agent(tmp_path, "state", "sometimes")


def _history(rounds: list[list[str]]) -> list[Message]:
    return [Message.assistant("", [ToolCall(i, "t", "{}") for i in ids]) for ids in rounds]


def test_kept_ids_repair_as_the_whole_history_scan_does() -> None:
    ids = ToolCallIds()
    history = _history([["a"], ["b", "c"]])
    for reply_ids, grow in [(["a"], ["d"]), (["d", ""], ["e"]), (["x", "x"], []), (["e"], [])]:
        reply = _history([reply_ids])[0]
        assert ids.repair(reply, history) == repair_tool_call_ids(reply, history)
        history = [*history, *_history([grow])] if grow else history
    compacted = [Message.user("summary"), *history[-1:]]  # the head replaced: read again
    reply = _history([["a"]])[0]
    assert ids.repair(reply, compacted) == repair_tool_call_ids(reply, compacted) == reply
