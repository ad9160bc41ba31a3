"""What a killed process was doing, and how we check what it left behind.

Each scenario has a *worker* that runs in a real child process until it is killed with SIGKILL;
after every acknowledged write (a flush that returned, a consolidation's input entry, an agent
call that returned) it reports a token to the parent over a pipe *before* it goes on. After the
kill the parent reopens the workspace, runs one more call with a scripted model, and checks:

* every acknowledged token is still on disk (daily ledger or MEMORY.md, event log, transcript);
* the session can be resumed (the extra call works);
* no lock is still held (flock locks of a dead process are free; the manual compaction must not
  answer "busy").
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.compaction.agentscope import CompactionConfig
from harness.compaction.dsh import DshConfig
from harness.compaction.manual import ManualCompaction
from harness.errors import ManualCompactionError
from harness.fs.locks import is_locked
from harness.harness_agent import HarnessAgent
from harness.memory import Consolidator, FlushPolicy, MemoryConfig, MemoryFlusher, MemoryWorkspace
from harness.messages import Message, ToolCall, validate_pairing
from harness.model import ChatRequest
from harness.store.durability import Durability
from harness.store.eventlog import read_events
from harness.testing import FunctionModel, Reply
from harness.tools import Tool

USER = "u1"
SESSION = "s1"
Ack = Callable[[str], None]


@dataclass
class Outcome:
    """What one kill left behind."""

    acked: int = 0
    lost: list[str] = field(default_factory=list)
    unresumable: str | None = None
    stale_locks: list[str] = field(default_factory=list)


# --- models -------------------------------------------------------------------------------


def bullets_of(request: ChatRequest) -> str:
    """A faithful consolidation: every bullet line of its input, once."""
    lines = [line for m in request.messages for line in m.content.splitlines()]
    kept = dict.fromkeys(line.strip() for line in lines if line.strip().startswith("- "))
    return "# Memory\n" + "\n".join(kept)


def agent_model(tools: bool) -> FunctionModel:
    """The scripted model of the agent scenarios: a tool call first when ``tools``, then an
    answer; summaries and flushes answer in kind."""

    def answer(request: ChatRequest) -> Reply:
        # A real provider rejects a history whose tool calls and results do not pair up (400).
        validate_pairing([m for m in request.messages if m.role != "system"])
        if request.purpose == "summary":
            return "Summary of the earlier turns."  # no tokens: it must not mask a lost one
        if request.purpose == "flush":
            return "NO_REPLY"
        last = request.messages[-1]
        if tools and last.role == "user":
            call = ToolCall(f"call-{time.monotonic_ns()}", "probe", "{}")
            return Message.assistant("", tool_calls=(call,))
        return "ok " + "x" * 300

    return FunctionModel(answer)


# --- workers (run in the child) -----------------------------------------------------------


def flush_worker(root: Path, tag: str, ack: Ack) -> None:
    workspace = MemoryWorkspace(root, USER)
    for i in range(10**9):
        token = f"tok-{tag}-{i}"
        flusher = MemoryFlusher(FunctionModel(lambda r, t=token: f"- {t}"), workspace)  # type: ignore[misc]
        flusher.flush([Message.user("remember"), Message.assistant("noted")])
        ack(token)


def consolidation_worker(root: Path, tag: str, ack: Ack) -> None:
    workspace = MemoryWorkspace(root, USER)
    consolidator = Consolidator(FunctionModel(bullets_of), workspace)
    for i in range(10**9):
        token = f"tok-{tag}-{i}"
        workspace.append_entry("Memory Flush", f"- {token}")
        ack(token)
        consolidator.consolidate()


def agent_worker(root: Path, tag: str, store: str, engine: str, tools: bool, ack: Ack) -> None:
    agent = make_agent(root, store, engine, tools, probe=lambda: "probe result " + "y" * 200)
    for i in range(10**9):
        token = f"tok-{tag}-{i}"
        agent.call(f"turn {token} " + "z" * 200)
        ack(token)


def tool_window_worker(root: Path, tag: str, store: str, engine: str, ack: Ack) -> None:
    """Calls whose tool reports itself to the parent and waits to be killed: the crash lands
    between the assistant's tool call and its result."""

    def probe() -> str:
        ack("IN-TOOL")
        time.sleep(30)
        return "never"

    agent = make_agent(root, store, engine, True, probe=probe)
    agent.call(f"turn tok-{tag}-0")


def make_agent(
    root: Path, store: str, engine: str, tools: bool, probe: Callable[[], str]
) -> HarnessAgent:
    compaction: CompactionConfig | DshConfig = CompactionConfig()  # unused when engine == "none"
    if engine == "agentscope":
        compaction = CompactionConfig(
            trigger_messages=6, trigger_tokens=None, keep_messages=2, keep_tokens=0
        )
    elif engine == "dsh":
        compaction = DshConfig(context_window=1_500)
    return HarnessAgent(
        agent_model(tools),
        "You are terse.",
        workspace_root=root,
        user_id=USER,
        session_id=SESSION,
        tools=[Tool.from_function(probe, name="probe")] if tools else [],
        compaction=compaction,
        disable_compaction=engine == "none",
        disable_memory_hooks=True,
        disable_memory_tools=True,  # their schemas would break `ctxlab compact --engine dsh`
        memory=MemoryConfig(flush_policy=FlushPolicy.never(), background_order="flush_first"),
        store="eventlog" if store == "eventlog" else "state",
        durability=DURABILITY[0],
    )


DURABILITY: list[Durability] = ["per-turn"]
"""The setting the children's agents use (the default; a test may set another: the child is
forked, so it sees what the parent set)."""


# --- checks (run in the parent) -----------------------------------------------------------


def stale_locks(base: Path) -> list[str]:
    """flock lock files still held by somebody (the killed child was the only other process)."""
    found = sorted(base.rglob("locks/*.lock")) if base.exists() else []
    return [p.name for p in found if p.stem in ("memory", "consolidation") and is_locked(p)]


def check_memory(root: Path, acked: list[str], consolidate: bool) -> Outcome:
    base = root / USER
    outcome = Outcome(acked=len(acked), stale_locks=stale_locks(base))
    try:
        workspace = MemoryWorkspace(root, USER)
        if consolidate:
            result = Consolidator(FunctionModel(bullets_of), workspace).consolidate()
            if result.status == "failed":
                raise RuntimeError(result.log_line)
            kept = workspace.read_memory()
        else:
            MemoryFlusher(FunctionModel(lambda r: "- after the crash"), workspace).flush(
                [Message.user("one more")]
            )
            kept = "".join(p.read_text(encoding="utf-8") for p in workspace.daily_files())
    except Exception as exc:
        outcome.unresumable = f"{type(exc).__name__}: {exc}"
        return outcome
    outcome.lost = missing_tokens(acked, kept)
    return outcome


def check_agent(root: Path, acked: list[str], store: str, engine: str, tools: bool) -> Outcome:
    base = root / USER
    outcome = Outcome(acked=len(acked), stale_locks=stale_locks(base))
    try:
        agent = make_agent(root, store, engine, tools, probe=lambda: "probe result")
        agent.call("one more call after the crash")
        agent.close()
    except Exception as exc:
        outcome.unresumable = f"{type(exc).__name__}: {exc}"
    kept = session_text(base, store)
    outcome.lost = missing_tokens(acked, kept)
    return outcome


TOKEN = re.compile(r"tok-(?:seed|\d+)-\d+\b")
"""An acknowledged token as the workers write it: ``tok-<kill or seed>-<call>``."""


def missing_tokens(acked: list[str], kept: str) -> list[str]:
    """The acknowledged tokens ``kept`` does not hold. One scan of the text, not one per token:
    a long profile acknowledges thousands of tokens into a session of many megabytes, and a
    search per token made its check quadratic (over 20 minutes for one scenario)."""
    found = set(TOKEN.findall(kept))
    return [t for t in acked if t not in found]


def session_text(base: Path, store: str) -> str:
    """Every message the session's files hold, originals included."""
    if store == "eventlog":
        path = base / "events" / f"{SESSION}.jsonl"
        if not path.exists():
            return ""
        try:
            return json.dumps([e.data for e in read_events(path)], ensure_ascii=False)
        except Exception:
            return path.read_text(encoding="utf-8", errors="replace")
    transcript = base / "sessions" / f"{SESSION}.jsonl"
    return transcript.read_text(encoding="utf-8", errors="replace") if transcript.exists() else ""


def manual_busy(base: Path) -> str | None:
    """The manual compaction's answer when the session is idle: None, or the busy sentence
    (a lock left by the killed ``ctxlab compact``)."""
    model = FunctionModel(lambda r: "Summary of the session.")
    try:
        ManualCompaction(base, SESSION, model).compact("agentscope")
    except ManualCompactionError as exc:
        if exc.code == "busy" and "locked" in str(exc):
            return str(exc)
    return None


def seed_session(root: Path, store: str, turns: int) -> list[str]:
    """A saved session of ``turns`` calls; returns their tokens (acknowledged before any kill)."""
    agent = make_agent(root, store, "none", False, probe=lambda: "")
    tokens = [f"tok-seed-{i}" for i in range(turns)]
    for token in tokens:
        agent.call(f"turn {token} " + "z" * 200)
    agent.close()
    return tokens


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def describe(outcome: Outcome) -> dict[str, Any]:
    return {
        "acked": outcome.acked,
        "lost": outcome.lost,
        "unresumable": outcome.unresumable,
        "stale_locks": outcome.stale_locks,
    }
