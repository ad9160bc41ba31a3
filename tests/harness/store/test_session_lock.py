"""One writer per session: an agent call holds ``locks/<session>.lock`` for its
whole turn, a second caller waits and is served after it or is refused with SessionBusyError,
manual compaction and undo hold the same lock, and a reader never waits.

The two-process test runs ``tests/support/session_writer.py`` twice (real processes) on both stores:
``CTXLAB_SESSION_ROUNDS`` rounds per store (8 by default, 50 in CI), each round a
fresh session that both processes call at once.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support.paths import TESTS

from harness.compaction.manual import ManualCompaction
from harness.errors import ManualCompactionError, SessionBusyError
from harness.fs.root import SafeRoot
from harness.harness_agent import HarnessAgent
from harness.messages import Message, ToolCall, validate_pairing
from harness.model import ChatRequest
from harness.store.session_lock import holder, session_lock
from harness.store.sessions import open_saved
from harness.store.statefile import AgentState, JsonStateStore
from harness.testing import FunctionModel
from harness.tools import Tool

WRITER = TESTS / "support" / "session_writer.py"
ROUNDS = int(os.environ.get("CTXLAB_SESSION_ROUNDS", "8"))
"""Rounds per store: 8 by default (a few seconds), 50 in CI (`.ci/run` sets 50)."""


def _writers(root: Path, store: str, rounds: int, env: dict[str, str]) -> list[str]:
    procs = [
        subprocess.Popen(
            [sys.executable, str(WRITER), str(root), store, role, str(rounds)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for role in ("a", "b")
    ]
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
        outs.append(out)
    return outs[1].split()


def _turns(messages: list[Message]) -> list[list[str]]:
    """The conversation as turns: the contents of each turn's messages, from its user
    message to the next."""
    turns: list[list[str]] = []
    for message in messages:
        if message.role == "user":
            turns.append([])
        turns[-1].append(message.content or "call")
    return turns


def _bricked(folder: Path) -> str | None:
    """Why the session in ``folder`` cannot go on, or None: it must pair every call with its
    result, and a next call on it must send a request that does too."""
    history = open_saved(SafeRoot(folder / "u"), "s1")
    assert history is not None
    try:
        validate_pairing(history.messages())
    except Exception as exc:  # the defect under test
        return f"unpaired: {exc}"
    seen: list[ChatRequest] = []

    def answer(request: ChatRequest) -> str:
        seen.append(request)
        return "next"

    agent = HarnessAgent(
        FunctionModel(answer), workspace_root=folder, user_id="u", session_id="s1",
        store="eventlog" if (folder / "u/events/s1.jsonl").exists() else "state",
        disable_memory_hooks=True,
    )  # fmt: skip
    agent.call("next")
    try:
        validate_pairing(seen[-1].messages)
    except Exception as exc:
        return f"next request unpaired: {exc}"
    return None


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_two_processes_on_one_session_never_brick_it(tmp_path: Path, store: str) -> None:
    outcomes = _writers(tmp_path, store, ROUNDS, dict(os.environ))
    assert outcomes == ["served" if r % 2 == 0 else "refused" for r in range(ROUNDS)]
    bricked = {r: why for r in range(ROUNDS) if (why := _bricked(tmp_path / f"r{r}"))}
    assert bricked == {}
    for r in range(ROUNDS):
        history = open_saved(SafeRoot(tmp_path / f"r{r}/u"), "s1")
        assert history is not None
        turns = _turns(history.messages())
        first = [f"a {r}", "call", "a held", "a done"]
        second = [f"b {r}", "call", "b held", "b done"]
        expected = [first, second] if r % 2 == 0 else [first]
        assert turns[: len(expected)] == expected  # whole turns, one after the other


def test_without_the_lock_the_two_processes_brick_the_session(tmp_path: Path) -> None:
    """The fault injected: the lock replaced by a no-op; the same run then fails (so the test
    above can fail)."""
    env = {**os.environ, "CTXLAB_SESSION_LOCK_OFF": "1"}
    outcomes = _writers(tmp_path, "eventlog", 2, env)
    broken = [r for r in range(2) if _bricked(tmp_path / f"r{r}")]
    assert outcomes != ["served", "refused"] or broken


# --- in one process: a holding turn, a second caller, manual compaction, a reader ----------


class HeldTurn:
    """A HarnessAgent call (in a thread) whose tool holds the turn until released."""

    def __init__(self, root: Path, store: str) -> None:
        self.inside, self.release = threading.Event(), threading.Event()
        self.root, self.store = root, store

        def hold() -> str:
            """Hold the turn."""
            self.inside.set()
            assert self.release.wait(60)
            return "held"

        def answer(request: ChatRequest) -> Message:
            if request.messages[-1].role == "tool":
                return Message.assistant("done")
            return Message.assistant("", [ToolCall("h1", "hold", "{}")])

        self.agent = self.make(FunctionModel(answer), tools=[Tool.from_function(hold)])
        self.thread = threading.Thread(target=self.agent.call, args=("hold it",))

    def make(self, model: FunctionModel, **options: object) -> HarnessAgent:
        return HarnessAgent(
            model, workspace_root=self.root, user_id="u", session_id="s1",
            store=self.store, disable_memory_hooks=True, **options,  # type: ignore[arg-type]
        )  # fmt: skip

    def __enter__(self) -> HeldTurn:
        self.thread.start()
        assert self.inside.wait(60)
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.thread.join(60)


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_a_second_caller_is_refused_with_the_holder_named_and_nothing_written(
    tmp_path: Path, store: str
) -> None:
    with HeldTurn(tmp_path, store) as held:
        other = held.make(FunctionModel(lambda r: "never asked"), busy_timeout=0.05)
        before = list(other.agent.context)
        with pytest.raises(SessionBusyError) as caught:
            other.call("me too")
        assert caught.value.holder["pid"] == os.getpid()
        assert caught.value.holder["action"] == "call"
        assert f"pid {os.getpid()}" in str(caught.value)
        assert list(other.agent.context) == before  # nothing written
        assert holder(tmp_path / "u/locks/s1.lock")["action"] == "call"  # type: ignore[index]
    assert not (tmp_path / "u/locks/s1.lock").exists()  # released and removed


def test_a_waiting_caller_is_served_after_the_turn_with_what_it_wrote(tmp_path: Path) -> None:
    outcome: list[object] = []
    with HeldTurn(tmp_path, "state") as held:
        other = held.make(FunctionModel(lambda r: "second"), busy_timeout=60)
        waiter = threading.Thread(target=lambda: outcome.append(other.call("second turn")))
        waiter.start()
        held.release.set()
    waiter.join(60)
    assert [getattr(o, "text", o) for o in outcome] == ["second"]
    history = open_saved(SafeRoot(tmp_path / "u"), "s1")
    assert history is not None
    assert [m.content for m in history.messages()] == [
        "hold it", "", "held", "done", "second turn", "second",
    ]  # fmt: skip


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_manual_compaction_and_undo_wait_for_no_turn(tmp_path: Path, store: str) -> None:
    with HeldTurn(tmp_path, store):
        manual = ManualCompaction(tmp_path / "u", "s1", FunctionModel(lambda r: "summary"))
        with pytest.raises(ManualCompactionError) as caught:
            manual.compact()
        assert caught.value.code == "busy"
        with pytest.raises(ManualCompactionError) as caught:
            manual.undo()
        assert caught.value.code == "busy"


def test_an_agent_call_is_refused_while_a_manual_compaction_holds_the_session(
    tmp_path: Path,
) -> None:
    agent = HarnessAgent(
        FunctionModel(lambda r: "hi"), workspace_root=tmp_path, user_id="u", session_id="s1",
        disable_memory_hooks=True, busy_timeout=0,
    )  # fmt: skip
    with session_lock(tmp_path / "u/locks/s1.lock", "compact"), pytest.raises(SessionBusyError):
        agent.call("hello")
    assert agent.call("hello").text == "hi"  # free again


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_a_reader_never_waits_for_a_turn(tmp_path: Path, store: str) -> None:
    with HeldTurn(tmp_path, store) as held:
        reader = held.make(FunctionModel(lambda r: "unused"), busy_timeout=0)
        assert [m.content for m in reader.agent.context][:1] == ["hold it"]
        assert reader.history.search("hold")  # session_search's reading


def test_a_turn_that_ends_while_a_second_writer_reads_the_session_is_not_closed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race behind the probe two-writers-one-session[state] (a tool result answering its call
    twice): a second writer opened the session unlocked, reading it while the first one's tool
    ran, and the first turn ended before the reader noted what it had read. Its resume (or its
    first call) then took the finished turn's call for one a crash had left open and closed it
    again. The fault is injected by ending the held turn inside the second writer's read."""
    real_load = JsonStateStore.load
    held = HeldTurn(tmp_path, "state")

    def load_then_the_turn_ends(store: JsonStateStore, session_id: str) -> AgentState:
        state = real_load(store, session_id)
        if held.thread.is_alive():  # read mid-turn: the call h1 has no result yet
            assert [m.role for m in state.context] == ["user", "assistant"]
            held.release.set()
            held.thread.join(60)
        return state

    with held:
        monkeypatch.setattr(JsonStateStore, "load", load_then_the_turn_ends)
        other = held.make(FunctionModel(lambda r: "second"), busy_timeout=60)
    other.call("second turn")
    history = open_saved(SafeRoot(tmp_path / "u"), "s1")
    assert history is not None
    validate_pairing(history.messages())
    assert [m.content for m in history.messages()] == [
        "hold it", "", "held", "done", "second turn", "second",
    ]  # fmt: skip
