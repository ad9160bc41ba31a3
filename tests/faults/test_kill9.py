"""kill -9 at random points of every durable write, then reopen and run one more call.

Scenarios: the memory flush, consolidation, event-log appends, DSH and AgentScope compaction (on
the event log and on the state store), state writes, and the manual compaction (``ctxlab
compact``). Each test kills a real child process ``kills`` times (4 in the quick profile that
``pytest -q`` runs, 120 with ``CTXLAB_FAULTS_PROFILE=long``) and asserts: lost acknowledged
writes 0, unresumable sessions 0, stale locks 0.

A kill between an assistant tool-call message and its results and a killed
``ctxlab compact`` holding its lock each get a case whose first kill is placed inside
that window. A lost acknowledged write raises ``LostWriteError``, apart from the other checks.
"""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import scenarios as sc
from killer import Run, Worker, run_and_kill
from support.summary_server import SummaryServer

from lab.cli import main  # imported here, so forked children need not import it

pytestmark = pytest.mark.faults


class LostWriteError(Exception):
    """An acknowledged write is gone after a kill (never expected)."""


@dataclass
class Tally:
    kills: int = 0
    acked: int = 0
    lost: list[str] = field(default_factory=list)
    unresumable: list[str] = field(default_factory=list)
    """One per kill after which the parent's extra call failed."""
    worker_errors: list[str] = field(default_factory=list)
    """Children that failed on their own before their kill (resuming the previous kill's
    session, say)."""
    stale: list[str] = field(default_factory=list)

    def add(self, run: Run, outcome: sc.Outcome) -> None:
        self.kills += run.killed
        self.acked = outcome.acked
        self.lost = outcome.lost  # cumulative: every token acknowledged so far is checked
        if run.error:
            self.worker_errors.append(run.error.splitlines()[-1])
        if outcome.unresumable:
            self.unresumable.append(outcome.unresumable)
        self.stale += outcome.stale_locks

    def figures(self) -> dict[str, Any]:
        return {
            "kills": self.kills,
            "acked_writes": self.acked,
            "lost_acked_writes": len(self.lost),
            "unresumable_sessions": len(self.unresumable),
            "stale_locks": len(self.stale),
            "worker_errors": len(self.worker_errors),
            "first_unresumable": self.unresumable[:1],
        }

    def check(self, kills: int) -> None:
        if self.lost:
            raise LostWriteError(f"{len(self.lost)} acknowledged writes lost: {self.lost[:5]}")
        assert self.kills == kills, f"only {self.kills} of {kills} children were killed"
        assert not self.unresumable, f"{len(self.unresumable)} unresumable: {self.unresumable[:3]}"
        assert not self.worker_errors, f"{len(self.worker_errors)}: {self.worker_errors[:3]}"
        assert not self.stale, f"{len(self.stale)} stale locks: {self.stale[:3]}"


Check = Callable[[Path, list[str]], sc.Outcome]
SCENARIOS: dict[str, tuple[Worker, tuple[Any, ...], Check, float]] = {
    "flush": (sc.flush_worker, (), lambda r, a: sc.check_memory(r, a, False), 0.3),
    "consolidation": (sc.consolidation_worker, (), lambda r, a: sc.check_memory(r, a, True), 0.3),
    "eventlog-append": (
        sc.agent_worker,
        ("eventlog", "none", False),
        lambda r, a: sc.check_agent(r, a, "eventlog", "none", False),
        0.3,
    ),
    "dsh-compaction": (
        sc.agent_worker,
        ("eventlog", "dsh", False),
        lambda r, a: sc.check_agent(r, a, "eventlog", "dsh", False),
        0.5,
    ),
    "agentscope-compaction-eventlog": (
        sc.agent_worker,
        ("eventlog", "agentscope", False),
        lambda r, a: sc.check_agent(r, a, "eventlog", "agentscope", False),
        0.4,
    ),
    "agentscope-compaction-state": (
        sc.agent_worker,
        ("state", "agentscope", False),
        lambda r, a: sc.check_agent(r, a, "state", "agentscope", False),
        0.4,
    ),
    "state-writes": (
        sc.agent_worker,
        ("state", "none", False),
        lambda r, a: sc.check_agent(r, a, "state", "none", False),
        0.3,
    ),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_kill9_at_random_points_loses_nothing(
    name: str, tmp_path: Path, kills: int, spread: float, rng: random.Random, report: Any
) -> None:
    worker, extra, check, max_delay = SCENARIOS[name]
    tally, acked = Tally(), []
    for k in range(kills):
        delay = rng.uniform(0, max_delay * spread)
        run = run_and_kill(worker, (tmp_path, str(k), *extra), delay=delay)
        acked += run.acked
        tally.add(run, check(tmp_path, acked))
    report(tally.figures())
    tally.check(kills)


SLOW = pytest.mark.slow
"""A near-copy of a case the default run keeps (the same mechanism on another store or setting):
run by ``pytest -m slow`` (CI runs both; docs/testing.md)."""


@pytest.mark.parametrize(
    ("name", "durability"),
    [
        ("eventlog-append", "os"),
        ("agentscope-compaction-state", "per-event"),
        # each setting and each store is in the default run once, above
        pytest.param("eventlog-append", "per-event", marks=SLOW),
        pytest.param("agentscope-compaction-state", "os", marks=SLOW),
    ],
)
def test_kill9_loses_nothing_in_every_durability_setting(
    name: str,
    durability: Any,
    tmp_path: Path,
    kills: int,
    spread: float,
    rng: random.Random,
    report: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The other tests run the default, ``per-turn``; a killed process must lose nothing
    acknowledged in the other two settings too (they differ only on a power cut)."""
    monkeypatch.setattr(sc, "DURABILITY", [durability])
    worker, extra, check, max_delay = SCENARIOS[name]
    tally, acked = Tally(), []
    for k in range(kills):
        delay = rng.uniform(0, max_delay * spread)
        run = run_and_kill(worker, (tmp_path, str(k), *extra), delay=delay)
        acked += run.acked
        tally.add(run, check(tmp_path, acked))
    report(tally.figures())
    tally.check(kills)


@pytest.mark.parametrize(
    ("store", "engine"),
    [
        ("eventlog", "agentscope"),
        ("state", "agentscope"),
        # both stores are in the default run above, and DSH's compaction is killed at random
        # points by test_kill9_at_random_points_loses_nothing[dsh-compaction]
        pytest.param("eventlog", "dsh", marks=SLOW),
    ],
)
def test_kill9_between_a_tool_call_and_its_result(
    store: str,
    engine: str,
    tmp_path: Path,
    kills: int,
    spread: float,
    rng: random.Random,
    report: Any,
) -> None:
    """The first kill lands inside the tool (the child reports it is there), the rest at random
    points of calls that use a tool."""
    tally, acked = Tally(), []
    for k in range(kills):
        if k == 0:
            worker, extra = sc.tool_window_worker, (store, engine)
            run = run_and_kill(worker, (tmp_path, "0", *extra), delay=0, wait_for="IN-TOOL")
        else:
            extra = (store, engine, True)
            delay = rng.uniform(0, 0.4 * spread)
            run = run_and_kill(sc.agent_worker, (tmp_path, str(k), *extra), delay=delay)
        acked += run.acked
        tally.add(run, sc.check_agent(tmp_path, acked, store, engine, True))
    report(tally.figures())
    tally.check(kills)


# --- manual compaction: ``ctxlab compact`` killed -------------------------------------------


@pytest.fixture
def summary_server() -> Iterator[SummaryServer]:
    with SummaryServer("Summary.") as server:
        yield server


def compact_worker(root: Path, url: str, engine: str, ack: sc.Ack) -> None:
    os.environ["CTXLAB_FAULTS_KEY"] = "sk-faults-0000000000000000"
    args = ["compact", "--workspace", str(root), "--user", sc.USER, "--session", sc.SESSION]
    args += ["--engine", engine, "--provider", "openai-compatible", "--base-url", url]
    main([*args, "--model", "m", "--api-key-env", "CTXLAB_FAULTS_KEY"])


def test_kill9_of_ctxlab_compact(
    tmp_path: Path, summary_server: SummaryServer, kills: int, rng: random.Random, report: Any
) -> None:
    """The first kill lands while the summary request is on the wire (the lock is held), the
    rest at random points; the session's messages, lock and next call are checked after each."""
    acked = sc.seed_session(tmp_path, "eventlog", 8)
    tally = Tally()
    for k in range(kills):
        summary_server.arrived.clear()
        summary_server.hold = 2.0 if k == 0 else rng.uniform(0, 0.05)
        engine = rng.choice(["agentscope", "dsh"])
        run = _kill_compact(tmp_path, summary_server, engine, k, rng)
        busy = sc.manual_busy(tmp_path / sc.USER)
        outcome = sc.check_agent(tmp_path, acked, "eventlog", "none", False)
        outcome.stale_locks += [busy] if busy else []
        tally.add(run, outcome)
    report(tally.figures())
    tally.check(kills)


def _kill_compact(
    root: Path, server: SummaryServer, engine: str, k: int, rng: random.Random
) -> Run:
    url = server.url
    if k == 0:  # wait until the request reached the server: the compaction holds its lock
        waiter = threading.Thread(target=server.arrived.wait, args=(20,))
        waiter.start()
        return run_and_kill(compact_worker, (root, url, engine), delay=0, ready=waiter)
    return run_and_kill(compact_worker, (root, url, engine), delay=rng.uniform(0, 0.4))
