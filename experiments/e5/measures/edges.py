"""The edges E5 measures on scripted agents and event logs, judged by
:mod:`experiments.e5.claims.edges`: the offload threshold at exactly 80,000 characters and one
over, a session whose process stopped while its tool ran called again, a DSH compaction whose
``compaction/end`` cannot be written (the disk full), and an image block given as content."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
import typing
from pathlib import Path
from unittest import mock

from experiments.e5.measures.dsh_mechanics import HEADER, SEED_CONFIG, _log, _summariser
from experiments.e5.view.edges import (
    EdgeMechanics,
    FailedClose,
    ImageContent,
    InterruptedCall,
    OffloadEdge,
)
from harness import Agent, CtxlabError, FunctionModel, HarnessAgent, Message, Tool, ToolCall
from harness.compaction.dsh import DshEngine
from harness.errors import CompactionBusyError
from harness.fs import files
from harness.model import ChatRequest
from harness.store.eventlog import Event, EventLog

__all__ = ["OFFLOAD_LIMIT", "measure_edges"]

OFFLOAD_LIMIT = 80_000
"""The offload threshold as the seed reads it (80K characters) and ctxlab sets it."""


def measure_edges() -> EdgeMechanics:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        return EdgeMechanics(
            offload_edge=_offload_edge(root / "offload"),
            interrupted=_interrupted(root / "interrupted"),
            failed_close=_failed_close(root / "close.jsonl"),
            image=_image(),
        )


# --- the offload edge ----------------------------------------------------------------------


def _offloaded(workspace: Path, chars: int) -> bool:
    """One tool result of ``chars`` characters: was it offloaded in the next request?"""
    seen: list[Message] = []

    def reply(request: ChatRequest) -> Message:
        if request.messages[-1].role != "tool":
            return Message.assistant("", [ToolCall("big", "lookup", "{}")])
        seen.append(request.messages[-1])
        return Message.assistant("done")

    big = Tool.from_function(lambda: "r" * chars, name="lookup", description="look up")
    workspace.mkdir(parents=True, exist_ok=True)
    Agent(FunctionModel(reply, model_name="scripted"), "system", [big], workspace=workspace).call(
        "look it up"
    )
    return bool(seen) and "offloaded_to" in seen[0].metadata


def _offload_edge(root: Path) -> OffloadEdge:
    return OffloadEdge(
        threshold=OFFLOAD_LIMIT,
        at_limit_offloaded=_offloaded(root / "at", OFFLOAD_LIMIT),
        above_limit_offloaded=_offloaded(root / "above", OFFLOAD_LIMIT + 1),
    )


# --- a tool call a crash left open ---------------------------------------------------------


class _Stopped(BaseException):
    """The process stopping while the tool runs (what kill -9 does to a real one)."""


def _stop() -> str:
    raise _Stopped


def _interrupted(root: Path) -> InterruptedCall:
    calls = [ToolCall("call-1", "slow", "{}"), ToolCall("call-2", "slow", "{}")]

    def reply(request: ChatRequest) -> Message:
        last = request.messages[-1]
        if last.role == "user" and last.content == "run the slow tool twice":
            return Message.assistant("", calls)
        return Message.assistant("ok")

    def session(model: FunctionModel) -> HarnessAgent:
        return HarnessAgent(
            model, "system", workspace_root=root, user_id="u", session_id="s1",
            tools=[Tool.from_function(_stop, name="slow")], disable_compaction=True,
            disable_memory_hooks=True, disable_memory_tools=True, store="eventlog",
        )  # fmt: skip

    with contextlib.suppress(_Stopped):  # the assistant message is on disk, its results never
        session(FunctionModel(reply, model_name="scripted")).call("run the slow tool twice")
    again = FunctionModel(reply, model_name="scripted")
    try:
        session(again).call("and now?")
        outcome = "answered"
    except CtxlabError as exc:
        outcome = f"{type(exc).__name__}: {exc}"[:120]
    sent = again.requests[0].messages if again.requests else ()
    ids = {c.id for c in calls}
    closed = tuple(
        str(m.metadata.get("interrupted", "none"))
        for m in sent
        if m.role == "tool" and m.tool_call_id in ids
    )
    return InterruptedCall(open_calls=len(calls), closed_with=closed, outcome=outcome)


# --- a DSH compaction whose close fails ----------------------------------------------------


@contextlib.contextmanager
def _full_disk_after_replace(log: EventLog, path: Path) -> typing.Iterator[None]:
    """From ``log``'s first replace on, every append to its file ``path`` raises ENOSPC: the
    disk is full. The log appends through its locked descriptor
    (:func:`harness.fs.files.append_fd`); appends to any other file are written."""
    real, full = files.append_fd, [False]

    def append(fd: int, text: str, sync: bool = True) -> None:
        if full[0] and os.path.samestat(os.fstat(fd), os.stat(path)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, text, sync)

    def fill_after_replace(event: Event) -> None:
        full[0] = full[0] or event.replace_range is not None

    log.listeners.append(fill_after_replace)
    try:
        with mock.patch.object(files, "append_fd", append):
            yield
    finally:
        log.listeners.remove(fill_after_replace)


def _failed_close(path: Path) -> FailedClose:
    log = _log(path)
    try:
        with _full_disk_after_replace(log, path):
            DshEngine(log, _summariser(), SEED_CONFIG).compact_now(HEADER)
        error = ""
    except (CtxlabError, OSError) as exc:
        error = f"{type(exc).__name__}: {exc}"
    start = log.open_compaction()
    try:
        DshEngine(log, _summariser(), SEED_CONFIG).compact_now(HEADER)
        following = "compacted"
    except CompactionBusyError:
        following = "busy"
    except (CtxlabError, OSError) as exc:
        following = f"{type(exc).__name__}"
    return FailedClose(
        error=error,
        last_event=log.events[-1].type,
        start_open=start is not None and start.type == "compaction/start",
        next_compaction=following,
    )


# --- an image block ------------------------------------------------------------------------


def _image() -> ImageContent:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    try:
        Message.from_wire({"role": "user", "content": [image]})
        refused = ""
    except CtxlabError as exc:
        refused = f"{type(exc).__name__}: {exc}"
    hints = typing.get_type_hints(Message)
    return ImageContent(
        message_content_types=(getattr(hints["content"], "__name__", str(hints["content"])),),
        refused_by=refused,
        summarizer_code="",
    )
