"""The memory pipeline end to end on real files: flush, consolidation, maintenance, injection,
the HarnessAgent switches, background ordering, and an E2-like run with a function model."""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from support.memory_invariants import INSTANT, FakeClock, instant_ns

import harness.fs.files
import harness.fs.root
from harness.compaction.agentscope import CompactionConfig
from harness.errors import ConfigError, ContextLengthExceededError, ServerError
from harness.harness_agent import HarnessAgent
from harness.memory import (
    NO_REPLY,
    BackgroundOrder,
    BackgroundTasks,
    Consolidator,
    FlushPolicy,
    MaintenanceSchedule,
    MemoryConfig,
    MemoryFlusher,
    MemoryTools,
    MemoryWorkspace,
    reference_message,
)
from harness.memory.flush import DEFAULT_FLUSH_PROMPT
from harness.memory.injection import TRUNCATION_NOTE
from harness.messages import CHECKPOINT_NAME, SUMMARY_NAME, Message, ToolCall
from harness.meter.pricers import estimate_text_tokens
from harness.model import ChatRequest, ChatResponse
from harness.testing import FunctionModel, Reply
from harness.tools import Tool

SKIP_LINE = "No fresh daily entries since 1970-01-01T00:00:00Z — skipping consolidation"
MEMORY_TOOLS = {"memory_save", "memory_search", "read_file", "list_files", "session_search"}
CONVERSATION = [Message.user("we always ship through port NORTH-7"), Message.assistant("noted")]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock("2026-03-04T23:59:58.000000000Z")


@pytest.fixture
def workspace(tmp_path: Path, clock: FakeClock) -> MemoryWorkspace:
    return MemoryWorkspace(tmp_path, "u1", clock=clock)


@pytest.fixture
def shanghai_local_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time 8 hours ahead of UTC, so a local date and a UTC date differ near midnight."""
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def replies(**by_purpose: Reply | Callable[[ChatRequest], Reply]) -> FunctionModel:
    """A function model answering each purpose from ``by_purpose`` (a reply or a function)."""

    def answer(request: ChatRequest) -> Reply:
        if request.purpose not in by_purpose:
            raise AssertionError(f"unexpected {request.purpose!r} request")
        reply = by_purpose[request.purpose]
        return reply(request) if callable(reply) else reply

    return FunctionModel(answer)


def bullets_of(request: ChatRequest) -> str:
    """A faithful consolidation: every bullet line of the input, once, under a heading."""
    lines = [line for m in request.messages for line in m.content.splitlines()]
    kept = dict.fromkeys(line.strip() for line in lines if line.strip().startswith("- "))
    return "# Memory\n" + "\n".join(kept)


def purposes(model: FunctionModel) -> list[str]:
    return [r.purpose for r in model.requests]


def daily_text(workspace: MemoryWorkspace) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in workspace.daily_files())


def user_content(request: ChatRequest) -> str:
    return "\n".join(m.content for m in request.messages if m.role == "user")


# --- flush ------------------------------------------------------------------------------------


@pytest.mark.parametrize("reply", ["NO_REPLY", "  NO_REPLY\n", ""])
def test_flush_with_nothing_to_keep_writes_nothing(workspace: MemoryWorkspace, reply: str) -> None:
    model = replies(flush=reply)
    assert MemoryFlusher(model, workspace).flush(CONVERSATION) is None
    assert purposes(model) == ["flush"]
    assert not workspace.daily_dir.exists()
    assert not workspace.memory_file.exists()


@pytest.mark.usefixtures("shanghai_local_time")
def test_flush_appends_a_section_to_the_utc_daily_file_and_leaves_memory_alone(
    workspace: MemoryWorkspace,
) -> None:
    workspace.memory_file.parent.mkdir(parents=True)
    workspace.memory_file.write_text("# Memory\n- old fact\n", encoding="utf-8")
    memory_before = workspace.memory_file.stat()
    model = replies(flush="- ships through port NORTH-7")

    entry = MemoryFlusher(model, workspace).flush(CONVERSATION)

    assert entry is not None
    # 23:59:58 UTC is already the 5th in Shanghai; the file is named by the UTC date.
    path = workspace.daily_dir / "2026-03-04.md"
    assert [p.name for p in workspace.daily_files()] == ["2026-03-04.md"]
    text = path.read_text(encoding="utf-8")
    match = re.fullmatch(r"\n## Memory Flush — (\S+)\n- ships through port NORTH-7\n", text)
    assert match, text
    assert INSTANT.fullmatch(match.group(1))
    assert match.group(1).startswith("2026-03-04T23:59:58.")
    assert instant_ns(match.group(1)) == entry.instant
    assert (entry.file, entry.line) == ("memory/2026-03-04.md", 2)
    after = workspace.memory_file.stat()
    assert (after.st_mtime_ns, after.st_ino) == (memory_before.st_mtime_ns, memory_before.st_ino)
    assert workspace.read_memory() == "# Memory\n- old fact\n"


def test_flush_request_holds_the_conversation_only(workspace: MemoryWorkspace) -> None:
    model = replies(flush=NO_REPLY)
    call = ToolCall("c1", "lookup", '{"port": "NORTH-7"}')
    messages = [
        Message.system("SYSTEM-PROMPT-MARKER"),
        Message.user("SUMMARY-MARKER of earlier turns", name=SUMMARY_NAME),
        Message.user("CHECKPOINT-MARKER of earlier turns", name=CHECKPOINT_NAME),
        reference_message("- REFERENCE-MARKER"),
        Message.user("which port do we use?"),
        Message.assistant("", [call]),
        Message.tool("c1", "NORTH-7 schedule", tool_name="lookup"),
        Message.assistant("we use NORTH-7"),
    ]
    MemoryFlusher(model, workspace).flush(messages)

    (request,) = model.requests
    assert request.purpose == "flush"
    assert [m.role for m in request.messages] == ["system", "user"]
    assert request.messages[0].content == DEFAULT_FLUSH_PROMPT
    body = request.messages[1].content
    assert "[USER]: which port do we use?" in body
    assert '[ASSISTANT]: [tool_call: lookup({"port": "NORTH-7"})]' in body
    assert "[TOOL]: [tool_result: lookup] NORTH-7 schedule" in body
    assert "[ASSISTANT]: we use NORTH-7" in body
    markers = ("SYSTEM-PROMPT-MARKER", "SUMMARY-MARKER", "CHECKPOINT-MARKER", "REFERENCE-MARKER")
    for marker in (*markers, "HARNESS_CONTEXT"):
        assert marker not in body  # a DSH checkpoint is a summary too, never flushed back


def test_flush_of_only_summaries_and_references_makes_no_request(
    workspace: MemoryWorkspace,
) -> None:
    model = replies()
    messages = [Message.system("s"), Message.user("sum", name=SUMMARY_NAME), reference_message("m")]
    assert MemoryFlusher(model, workspace).flush(messages) is None
    assert model.requests == []


def test_agent_flush_request_has_no_system_prompt_and_no_injected_memory(
    tmp_path: Path, clock: FakeClock
) -> None:
    root = tmp_path / "ws"
    (root / "default").mkdir(parents=True)
    (root / "default" / "MEMORY.md").write_text("- MEMORY-MARKER\n", encoding="utf-8")
    model = replies(agent="we use NORTH-7", flush=NO_REPLY, consolidation=bullets_of)
    agent = HarnessAgent(model, "SYSTEM-PROMPT-MARKER", workspace_root=root, clock=clock)
    try:
        agent.call("which port do we use?")
        assert agent.await_quiescence(10)
    finally:
        agent.close()
    assert agent.memory.background.errors == []
    (flush,) = [r for r in model.requests if r.purpose == "flush"]
    body = user_content(flush)
    assert "[USER]: which port do we use?" in body
    assert "[ASSISTANT]: we use NORTH-7" in body
    assert "SYSTEM-PROMPT-MARKER" not in "\n".join(m.content for m in flush.messages)
    assert "<HARNESS_CONTEXT>" not in body
    # MEMORY.md itself is shown once, as read-only context, not as the injected message.
    assert body.count("MEMORY-MARKER") == 1


def test_throttled_flush_skips_inside_the_interval(
    workspace: MemoryWorkspace, clock: FakeClock
) -> None:
    model = replies(flush="- a fact")
    flusher = MemoryFlusher(model, workspace, FlushPolicy.throttled(600))
    assert flusher.after_call(CONVERSATION) is not None
    clock.advance(599)
    assert flusher.after_call(CONVERSATION) is None
    assert len(model.requests) == 1
    clock.advance(2)
    assert flusher.after_call(CONVERSATION) is not None
    assert len(model.requests) == 2
    assert daily_text(workspace).count("## Memory Flush — ") == 2


def test_never_policy_skips_the_after_call_flush_but_not_a_direct_one(
    workspace: MemoryWorkspace,
) -> None:
    model = replies(flush="- a fact")
    flusher = MemoryFlusher(model, workspace, FlushPolicy.never())
    assert flusher.after_call(CONVERSATION) is None
    assert model.requests == []
    assert flusher.flush(CONVERSATION) is not None  # the pre-compaction flush ignores the policy


# --- consolidation ----------------------------------------------------------------------------


def test_consolidation_without_fresh_entries_skips_without_a_request(
    workspace: MemoryWorkspace, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="harness.memory")
    model = replies()
    outcome = Consolidator(model, workspace).consolidate()
    assert outcome.status == "skipped"
    assert outcome.log_line == SKIP_LINE
    assert SKIP_LINE in caplog.messages
    assert model.requests == []
    assert not workspace.memory_file.exists()
    assert not workspace.watermark_file.exists()


def test_consolidation_rewrites_memory_whole_and_advances_the_watermark(
    workspace: MemoryWorkspace,
) -> None:
    workspace.memory_file.parent.mkdir(parents=True)
    workspace.memory_file.write_text("# Old\n- stale line\n", encoding="utf-8")
    workspace.append_entry("Memory Flush", "- port NORTH-7")
    last = workspace.append_entry("Memory Flush", "- customer ALPHA")
    daily_before = {p: p.read_bytes() for p in workspace.daily_files()}
    model = replies(consolidation="# Memory\n- port NORTH-7\n- customer ALPHA\n\n")

    outcome = Consolidator(model, workspace).consolidate()

    assert outcome.status == "written" and outcome.entries == 2
    assert workspace.read_memory() == "# Memory\n- port NORTH-7\n- customer ALPHA\n"
    watermark = workspace.watermark_file.read_bytes()
    assert len(watermark) == 30
    assert watermark.decode() == last.header.split(" — ")[1]
    assert {p: p.read_bytes() for p in workspace.daily_files()} == daily_before
    (request,) = model.requests
    assert "Current MEMORY.md:\n# Old\n- stale line" in user_content(request)
    assert "- port NORTH-7" in user_content(request) and "- customer ALPHA" in user_content(request)
    assert request.max_tokens == 4_000


def _fail_model(request: ChatRequest) -> Reply:
    raise ServerError("503 from the consolidation model", status_code=503)


FAILURES: dict[str, Reply | Callable[[ChatRequest], Reply]] = {
    "model raises": _fail_model,
    "empty reply": "   \n",
    "cut at max_tokens": ChatResponse(Message.assistant("# Memory\n- part"), "length"),
}


@pytest.mark.parametrize("failure", [*FAILURES, "write fails"])
def test_failed_consolidation_keeps_watermark_and_memory_and_redoes_the_batch(
    workspace: MemoryWorkspace, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    workspace.append_entry("Memory Flush", "- first batch")
    assert Consolidator(replies(consolidation=bullets_of), workspace).consolidate().status == (
        "written"
    )
    memory_before = workspace.memory_file.read_bytes()
    watermark_before = workspace.watermark_file.read_bytes()
    workspace.append_entry("Memory Flush", "- second batch A")
    workspace.append_entry("Memory Save", "- second batch B")

    if failure == "write fails":
        real_replace = harness.fs.files.os.replace

        def failing_replace(src: str, dst: str, **kwargs: Any) -> None:
            if Path(dst).name == "MEMORY.md":
                raise OSError(28, "No space left on device")
            real_replace(src, dst, **kwargs)

        monkeypatch.setattr(harness.fs.files.os, "replace", failing_replace)
        failing = replies(consolidation=bullets_of)
    else:
        failing = replies(consolidation=FAILURES[failure])
    outcome = Consolidator(failing, workspace).consolidate()
    monkeypatch.undo()

    assert outcome.status == "failed" and outcome.error
    assert workspace.memory_file.read_bytes() == memory_before
    assert workspace.watermark_file.read_bytes() == watermark_before
    assert [p.name for p in workspace.memory_file.parent.iterdir() if p.name.endswith(".tmp")] == []

    retry = replies(consolidation=bullets_of)
    assert Consolidator(retry, workspace).consolidate().status == "written"
    assert retry.requests[0].messages == failing.requests[0].messages
    assert "- second batch A" in workspace.read_memory()
    assert "- second batch B" in workspace.read_memory()
    assert workspace.watermark_file.read_bytes() > watermark_before


class TornWrite:
    """An append handle that writes only the first ``keep`` bytes and then fails (disk full)."""

    def __init__(self, handle: Any, keep: int, sizes: list[int]) -> None:
        self.handle, self.keep, self.sizes = handle, keep, sizes

    def __enter__(self) -> TornWrite:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def write(self, data: bytes) -> int:
        self.sizes.append(len(data))
        self.handle.write(data[: self.keep])
        self.handle.flush()
        raise OSError(28, "No space left on device")


def torn_flush(workspace: MemoryWorkspace, keep: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """A flush whose append reaches the disk only up to byte ``keep``; returns the full size."""
    real_fdopen = os.fdopen
    sizes: list[int] = []

    def torn_fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_fdopen(fd, mode, *args, **kwargs)
        return TornWrite(handle, keep, sizes) if "a" in mode else handle

    with monkeypatch.context() as patch:
        patch.setattr(harness.fs.root.os, "fdopen", torn_fdopen)
        with pytest.raises(OSError):
            MemoryFlusher(replies(flush="- 暗号是夜莺 fact-0002"), workspace).flush(CONVERSATION)
    return sizes[0]


def torn_append_breaks(root: Path, keep: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """Flush, tear the next flush's append after ``keep`` bytes, flush again, consolidate and
    search; returns the torn append's size and what broke ("" when nothing did)."""
    workspace = MemoryWorkspace(root, "u1", clock=FakeClock())
    MemoryFlusher(replies(flush="- fact-0001"), workspace).flush(CONVERSATION)
    size = torn_flush(workspace, keep, monkeypatch)
    try:
        assert MemoryFlusher(replies(flush="- fact-0003"), workspace).flush(CONVERSATION)
        outcome = Consolidator(replies(consolidation=bullets_of), workspace).consolidate()
        assert outcome.status == "written", outcome.log_line
        memory = workspace.read_memory()
        assert "- fact-0001" in memory and "- fact-0003" in memory
        assert "fact-0003" in MemoryTools(workspace).memory_search("fact-0003")
    except (AssertionError, ValueError) as exc:
        return size, f"{type(exc).__name__}: {exc}"
    return size, ""


HEADER_START = len("\n## Memory Flush — ".encode())


@pytest.mark.parametrize("keep", [0, 1, HEADER_START + 11, HEADER_START + 29, HEADER_START + 31])
def test_a_torn_append_leaves_the_ledger_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: int
) -> None:
    """A crash can leave a prefix of a daily section on disk, e.g. a header cut inside its
    timestamp (``## Memory Flush — 2026-03-01T``). Later flushes, consolidation and search keep
    working, and the acknowledged facts before and after the crash reach MEMORY.md."""
    _, broke = torn_append_breaks(tmp_path, keep, monkeypatch)
    assert broke == ""


def test_a_torn_append_at_any_byte_leaves_the_ledger_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failures: dict[int, str] = {}
    keep, size = 0, 1
    while keep < size:
        size, broke = torn_append_breaks(tmp_path / f"cut-{keep}", keep, monkeypatch)
        if broke:
            failures[keep] = broke
        keep += 1
    assert not failures, f"{len(failures)} of {size} cut points break the ledger: {failures}"


# --- maintenance ------------------------------------------------------------------------------


def test_maintenance_schedule_claims_first_at_once_then_every_30_minutes(
    clock: FakeClock,
) -> None:
    schedule = MaintenanceSchedule(clock)
    assert schedule.try_claim()
    clock.advance(29 * 60 + 59)
    assert not schedule.try_claim()
    clock.advance(1)
    assert schedule.try_claim()
    assert not schedule.try_claim()


def test_archive_moves_daily_files_older_than_90_days(
    workspace: MemoryWorkspace, clock: FakeClock
) -> None:
    today = datetime(2026, 6, 30, 12, tzinfo=UTC)
    names, contents = {}, {}
    for age in (200, 91, 90, 1, 0):
        day = today - timedelta(days=age)
        clock.now = int(day.timestamp()) * 1_000_000_000
        entry = workspace.append_entry("Memory Flush", f"- written {age} days ago")
        names[age] = Path(entry.file).name
        contents[names[age]] = (workspace.base / entry.file).read_bytes()
    clock.now = int(today.timestamp()) * 1_000_000_000

    moved = workspace.archive_old(90)

    old = {names[200], names[91]}
    assert old == {"2025-12-12.md", "2026-03-31.md"}
    assert {p.name for p in moved} == old
    assert {p.name for p in workspace.archive_dir.iterdir()} == old
    kept = {p.name for p in workspace.daily_dir.glob("*.md")}
    assert kept == {names[90], names[1], names[0]}
    for name in old:
        assert (workspace.archive_dir / name).read_bytes() == contents[name]
    # Archived entries are still daily entries for consolidation and search.
    assert len(workspace.entries()) == 5


# --- injection --------------------------------------------------------------------------------


def make_agent(root: Path, model: FunctionModel, clock: FakeClock, **options: Any) -> HarnessAgent:
    return HarnessAgent(
        model, "You are a freight assistant.", workspace_root=root, clock=clock, **options
    )


def write_memory(root: Path, text: str) -> None:
    (root / "default").mkdir(parents=True, exist_ok=True)
    (root / "default" / "MEMORY.md").write_text(text, encoding="utf-8")


def run_once(agent: HarnessAgent, text: str = "which port?", background_errors: int = 0) -> None:
    """One call, then wait for its flush and maintenance (whose errors are otherwise only
    logged)."""
    try:
        agent.call(text)
        assert agent.await_quiescence(10)
    finally:
        agent.close()
    assert len(agent.memory.background.errors) == background_errors, agent.memory.background.errors


def agent_requests(model: FunctionModel) -> list[ChatRequest]:
    return [r for r in model.requests if r.purpose == "agent"]


def test_memory_is_injected_as_a_user_reference_message_not_stored(
    tmp_path: Path, clock: FakeClock
) -> None:
    write_memory(tmp_path, "# Memory\n- customer ALPHA ships via 上海港\n")
    model = replies(agent="ALPHA", flush=NO_REPLY, consolidation=bullets_of)
    agent = make_agent(tmp_path, model, clock)
    run_once(agent)

    (request,) = agent_requests(model)
    system, reference, user = request.messages
    assert system.role == "system" and "ALPHA" not in system.content
    assert (reference.role, reference.name) == ("user", "harness_context")
    assert reference.content.startswith("<HARNESS_CONTEXT>")
    assert "- customer ALPHA ships via 上海港" in reference.content
    assert user == Message.user("which port?")
    assert all(m.name != "harness_context" for m in agent.agent.context)
    state = "".join(  # the state store's checkpoint (if written yet) and its journal
        p.read_text(encoding="utf-8") for p in (tmp_path / "default" / "state").iterdir()
    )
    assert "which port?" in state
    transcript = (tmp_path / "default" / "sessions" / "default.jsonl").read_text(encoding="utf-8")
    assert "HARNESS_CONTEXT" not in state and "HARNESS_CONTEXT" not in transcript


def test_memory_injected_into_the_system_prompt_when_configured(
    tmp_path: Path, clock: FakeClock
) -> None:
    write_memory(tmp_path, "- customer ALPHA\n")
    model = replies(agent="ALPHA", flush=NO_REPLY, consolidation=bullets_of)
    run_once(make_agent(tmp_path, model, clock, memory=MemoryConfig(injection="system")))

    (request,) = agent_requests(model)
    assert [m.role for m in request.messages] == ["system", "user"]
    assert request.messages[0].content.startswith("You are a freight assistant.")
    assert "<HARNESS_CONTEXT>" in request.messages[0].content
    assert "- customer ALPHA" in request.messages[0].content
    assert all(m.name != "harness_context" for m in request.messages)


def injected_memory(request: ChatRequest) -> str:
    match = re.search(
        r'<memory_context source="MEMORY.md">\n(.*)\n</memory_context>',
        request.messages[1].content,
        re.DOTALL,
    )
    assert match
    return match.group(1)


def test_injected_memory_is_cut_at_max_context_tokens(tmp_path: Path, clock: FakeClock) -> None:
    memory = "".join(f"- fact number {n:03d} about port NORTH-{n}\n" for n in range(100))
    write_memory(tmp_path, memory)
    model = replies(agent="ok", flush=NO_REPLY, consolidation=bullets_of)
    run_once(make_agent(tmp_path, model, clock, memory=MemoryConfig(max_context_tokens=40)))

    injected = injected_memory(agent_requests(model)[0])
    head, note = injected.rsplit("\n", 1)
    assert note == TRUNCATION_NOTE
    assert memory.startswith(head) and head.startswith("- fact number 000")
    assert estimate_text_tokens(head) <= 40
    assert "fact number 099" not in injected


def test_small_memory_is_injected_whole(tmp_path: Path, clock: FakeClock) -> None:
    memory = "- fact one\n- fact two"
    write_memory(tmp_path, memory)
    model = replies(agent="ok", flush=NO_REPLY, consolidation=bullets_of)
    run_once(make_agent(tmp_path, model, clock, memory=MemoryConfig(max_context_tokens=40)))
    assert injected_memory(agent_requests(model)[0]) == memory


@pytest.mark.parametrize("tools_enabled", [True, False])
def test_recall_guidance_follows_the_memory_tools(
    tmp_path: Path, clock: FakeClock, tools_enabled: bool
) -> None:
    model = replies(agent="ok", flush=NO_REPLY, consolidation=bullets_of)
    run_once(make_agent(tmp_path, model, clock, disable_memory_tools=not tools_enabled))
    system = agent_requests(model)[0].messages[0].content
    assert ("## Memory Recall" in system) is tools_enabled
    assert ("search memory with memory_search" in system) is tools_enabled


# --- HarnessAgent switches --------------------------------------------------------------------


def test_disable_memory_hooks_stops_flush_and_maintenance(tmp_path: Path, clock: FakeClock) -> None:
    model = replies(agent="ok")
    agent = make_agent(tmp_path, model, clock, disable_memory_hooks=True)
    run_once(agent, "remember port NORTH-7")
    assert purposes(model) == ["agent"]
    assert agent.memory.maintenance_log == []
    assert not (tmp_path / "default" / "memory").exists()
    # The tools stay: only the hooks are off.
    names = {t["function"]["name"] for t in model.requests[0].tools}
    assert names >= MEMORY_TOOLS


def test_disable_memory_tools_removes_tools_but_flush_still_runs(
    tmp_path: Path, clock: FakeClock
) -> None:
    lookup = Tool.from_function(lambda port: f"{port}: daily", name="lookup")
    model = replies(agent="ok", flush="- ships via NORTH-7", consolidation=bullets_of)
    agent = make_agent(tmp_path, model, clock, disable_memory_tools=True, tools=[lookup])
    run_once(agent, "remember port NORTH-7")
    names = {t["function"]["name"] for t in agent_requests(model)[0].tools}
    assert names == {"lookup"}
    assert "flush" in purposes(model)
    assert "- ships via NORTH-7" in daily_text(agent.workspace)


OVERFLOW_CONFIG = CompactionConfig.count_only(CompactionConfig.trigger_messages, 2)


def overflowing_model() -> FunctionModel:
    """Overflows once a request has more than five messages; summarises on request."""

    def answer(request: ChatRequest) -> Reply:
        if request.purpose == "summary":
            return "SUMMARY of the early turns"
        if len(request.messages) > 5:
            raise ContextLengthExceededError("maximum context length exceeded", status_code=400)
        return "ok"

    return FunctionModel(answer)


@pytest.mark.parametrize("disabled", [True, False])
def test_disable_compaction_lets_a_context_overflow_reach_the_caller(
    tmp_path: Path, clock: FakeClock, disabled: bool
) -> None:
    model = overflowing_model()
    agent = make_agent(
        tmp_path,
        model,
        clock,
        compaction=OVERFLOW_CONFIG,
        disable_compaction=disabled,
        disable_memory_hooks=True,
    )
    try:
        agent.call("turn 1")
        agent.call("turn 2")  # system + 3 messages
        if disabled:
            with pytest.raises(ContextLengthExceededError):
                agent.call("turn 3")  # system + 5 messages: too long
            assert "summary" not in purposes(model)
            assert len(agent.agent.context) == 5  # nothing was compacted away
        else:  # the control: with compaction on, the same call recovers
            assert agent.call("turn 3").text == "ok"
            assert "summary" in purposes(model)
    finally:
        agent.close()


# --- background tasks -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("order", "expected"),
    [("flush_first", ["flush", "maintenance"]), ("maintenance_first", ["maintenance", "flush"])],
)
def test_background_order_is_honoured(order: BackgroundOrder, expected: list[str]) -> None:
    tasks = BackgroundTasks(order)
    seen: list[str] = []

    def task(name: str) -> Callable[[], None]:
        def run() -> None:
            time.sleep(0.01 if name == expected[0] else 0)  # a slow first task stays first
            seen.append(name)

        return run

    try:
        for _ in range(3):
            tasks.after_call(task("flush"), task("maintenance"))
            assert tasks.await_quiescence(5)
    finally:
        tasks.close()
    assert seen == expected * 3


def test_an_unknown_background_order_is_refused_by_name() -> None:
    with pytest.raises(ConfigError, match=r"background order must be one of .*, not 'random'"):
        BackgroundTasks("random")  # type: ignore[arg-type]


def test_await_quiescence_times_out_on_a_blocked_task() -> None:
    tasks = BackgroundTasks("concurrent")
    release = threading.Event()
    done: list[str] = []
    try:
        tasks.after_call(lambda: (release.wait(10), done.append("flush")), lambda: None)
        started = time.monotonic()
        assert tasks.await_quiescence(0.1) is False
        assert 0.05 <= time.monotonic() - started < 5
        release.set()
        assert tasks.await_quiescence(5) is True
        assert done == ["flush"]
        assert tasks.await_quiescence(0.01) is True  # nothing pending
    finally:
        release.set()
        tasks.close()


@pytest.mark.parametrize("order", ["flush_first", "maintenance_first"])
def test_a_failing_first_background_task_does_not_stop_the_second(
    tmp_path: Path, clock: FakeClock, order: BackgroundOrder
) -> None:
    def flush(request: ChatRequest) -> Reply:
        if order == "flush_first":
            raise ServerError("503 from the flush model", status_code=503)
        return "- ships via NORTH-7"

    model = replies(agent="ok", flush=flush, consolidation=bullets_of)
    agent = make_agent(tmp_path, model, clock, memory=MemoryConfig(background_order=order))
    if order == "maintenance_first":
        agent.workspace.watermark_file.parent.mkdir(parents=True)
        agent.workspace.watermark_file.write_text("garbage", encoding="utf-8")
    run_once(agent, "remember port NORTH-7", background_errors=1)
    if order == "flush_first":
        assert len(agent.memory.maintenance_log) == 1, "maintenance did not run"
    else:
        assert "- ships via NORTH-7" in daily_text(agent.workspace), "the flush did not run"


# --- E2-like end to end -----------------------------------------------------------------------

E2_USER = "不要调用任何工具，只用一句话回答并确认：我们公司出口固定走上海港，客户代号 ALPHA"
E2_FACTS = "- 公司出口固定走上海港\n- 客户代号 ALPHA"


def e2_model() -> FunctionModel:
    def agent(request: ChatRequest) -> Reply:
        last = request.messages[-1]
        if last.role == "user" and "忘了" in last.content:  # step 4: rebuild through tools
            return Message.assistant("", [ToolCall("s1", "memory_search", '{"query": "上海港"}')])
        if last.role == "tool" and last.tool_call_id == "s1":
            arguments = json.dumps({"content": E2_FACTS}, ensure_ascii=False)
            return Message.assistant("", [ToolCall("s2", "memory_save", arguments)])
        if last.role == "tool":
            return "上海港，客户代号 ALPHA。"
        return "已确认：出口固定走上海港，客户代号 ALPHA。"

    def flush(request: ChatRequest) -> Reply:
        return E2_FACTS if E2_USER in request.messages[1].content else NO_REPLY

    return replies(agent=agent, flush=flush, consolidation=bullets_of)


@pytest.mark.parametrize("order", ["maintenance_first", "flush_first"])
def test_e2_step_one(tmp_path: Path, clock: FakeClock, order: BackgroundOrder) -> None:
    model = e2_model()
    agent = make_agent(tmp_path, model, clock, memory=MemoryConfig(background_order=order))
    run_once(agent, E2_USER)
    ws = agent.workspace
    daily = daily_text(ws)
    assert daily.count("## Memory Flush — ") == 1
    assert "- 公司出口固定走上海港" in daily and "- 客户代号 ALPHA" in daily
    (outcome,) = agent.memory.maintenance_log
    assert outcome is not None
    if order == "maintenance_first":
        assert not ws.memory_file.exists()
        assert outcome.status == "skipped" and outcome.log_line == SKIP_LINE
        assert purposes(model) == ["agent", "flush"]
    else:
        assert outcome.status == "written"
        assert "- 客户代号 ALPHA" in ws.read_memory()
        assert purposes(model) == ["agent", "flush", "consolidation"]


def test_e2_all_steps(tmp_path: Path, clock: FakeClock) -> None:
    model = e2_model()
    schedule = MaintenanceSchedule(clock)  # one gate for the process, as AgentScope's
    config = MemoryConfig(background_order="maintenance_first")

    def session(name: str) -> HarnessAgent:
        return make_agent(tmp_path, model, clock, memory=config, schedule=schedule, session_id=name)

    # Step 1: the flush lands in the daily file; maintenance ran first and skipped.
    first = session("s1")
    try:
        result = first.call(E2_USER)
        assert first.await_quiescence(10)
    finally:
        first.close()
    assert first.memory.background.errors == []
    assert result.tool_calls == ()
    ws = first.workspace
    daily_after_1 = ws.daily_files()[0].read_bytes()
    assert not ws.memory_file.exists()

    # Step 2: consolidation by hand.
    outcome = first.consolidate_now()
    assert outcome.status == "written"
    memory = ws.read_memory()
    assert memory.startswith("# Memory\n") and "- 公司出口固定走上海港" in memory
    assert "- 客户代号 ALPHA" in memory
    assert ws.daily_files()[0].read_bytes() == daily_after_1
    watermark = ws.watermark_file.read_bytes()
    assert len(watermark) == 30

    # Step 3: a new session sees MEMORY.md as reference material.
    asked = len(model.requests)
    run_once(session("s3"), "我们出口走哪个港？客户代号是什么？")
    (request,) = [r for r in model.requests[asked:] if r.purpose == "agent"]
    assert request.messages[1].name == "harness_context"
    assert "- 公司出口固定走上海港" in request.messages[1].content

    # Step 4: MEMORY.md is gone; the model searches the daily file and saves the facts again.
    ws.memory_file.unlink()
    rebuild = session("s4")
    try:
        result = rebuild.call("我忘了，出口港和客户代号是什么？")
        assert rebuild.await_quiescence(10)
    finally:
        rebuild.close()
    assert rebuild.memory.background.errors == []
    assert result.tool_calls == ("memory_search", "memory_save")
    assert result.text == "上海港，客户代号 ALPHA。"
    search_result = next(m for m in result.messages if m.tool_call_id == "s1").content
    assert re.search(
        r"Source: memory/\d{4}-\d{2}-\d{2}\.md#\d+: - 公司出口固定走上海港", search_result
    )
    assert ws.read_memory() == E2_FACTS + "\n"
    daily = ws.daily_files()[0].read_bytes()
    assert daily.startswith(daily_after_1)
    assert b"## Memory Save" in daily[len(daily_after_1) :]
    assert ws.watermark_file.read_bytes() == watermark  # maintenance was not due again
    assert [o for o in rebuild.memory.maintenance_log] == [None]


def test_sessions_of_one_user_share_the_maintenance_schedule(tmp_path: Path) -> None:
    """A new session of the same user does not consolidate again within 30 minutes (AgentScope's
    gate is process-wide); another user has a schedule of their own."""

    def reply(request: ChatRequest) -> str:
        return {"flush": "- fact", "consolidation": "- fact"}.get(request.purpose, "ok")

    def first_call(user: str, session: str) -> object:
        agent = HarnessAgent(
            FunctionModel(reply),
            "system",
            workspace_root=tmp_path,
            user_id=user,
            session_id=session,
            disable_compaction=True,
            memory=MemoryConfig(background_order="flush_first"),
        )
        agent.call("hello")
        agent.close()
        return agent.memory.maintenance_log[0]

    assert first_call("u1", "s1") is not None  # claimed at once
    assert first_call("u1", "s2") is None  # the same user within the gap: not due
    assert first_call("u2", "s1") is not None  # another user's own schedule
