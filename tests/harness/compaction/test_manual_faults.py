"""Manual compaction under faults, with real processes: a ``ctxlab compact`` killed (kill -9)
or terminated (SIGTERM) mid-summary leaves no lock that bricks the session and no snapshot
undo could pick up, and its attempt is on the audit; ``--engine dsh`` works on a saved
session whose requests offered tools."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.manual_sessions import (  # noqa: F401  (server is a fixture)
    answer,
    saved_session,
    server,
    session_messages,
)
from support.summary_server import KEY_ENV, SummaryServer, compact_args

from harness.compaction.manual import ManualCompaction
from harness.errors import ManualCompactionError
from harness.harness_agent import HarnessAgent
from harness.store.eventlog import EventLog
from harness.testing import FunctionModel
from lab.cli import main

SLOW_COMPACT = """
import sys, time
from pathlib import Path
from lab.cli import sigterm_as_interrupt
from harness.compaction.manual import ManualCompaction
from harness.testing import FunctionModel

def slow(request):
    Path(sys.argv[2]).touch()  # the summary call has started: the attempt is under way
    time.sleep(60)
    return "never"

sigterm_as_interrupt()
ManualCompaction(Path(sys.argv[1]), "s1", FunctionModel(slow)).compact("agentscope")
"""


def _kill_mid_summary(base: Path, tmp_path: Path, sig: int) -> None:
    flag = tmp_path / "summarising"
    child = subprocess.Popen(
        [sys.executable, "-c", SLOW_COMPACT, str(base), str(flag)], stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while not flag.exists():
        assert child.poll() is None, child.stderr.read() if child.stderr else ""
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child.send_signal(sig)
    child.wait(timeout=30)


@pytest.mark.parametrize("store", ["eventlog", "state"])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "sigterm"])
def test_a_killed_compact_leaves_no_lock_and_nothing_to_undo(
    tmp_path: Path, store: str, sig: int
) -> None:
    base = saved_session(tmp_path, store)
    before = session_messages(base, store)
    _kill_mid_summary(base, tmp_path, sig)
    manual = ManualCompaction(base, "s1", FunctionModel(answer))
    audit = manual.audit_log()
    assert audit[0]["outcome"] == "started" and audit[0]["pid"] != 0
    if sig == signal.SIGTERM:  # the handler turned it into a cancel: audited, cleaned up
        assert audit[-1]["outcome"] == "cancelled"
        assert not (base / "locks/s1.lock").exists()
    with pytest.raises(ManualCompactionError, match="Nothing to undo"):
        manual.undo()  # the killed attempt's snapshot (if any) is never picked up
    assert session_messages(base, store) == before
    record = manual.compact("agentscope")  # not "busy": the dead holder's lock is broken
    assert record.outcome == "compacted"
    left = sorted(str(p) for p in (base / "snapshots").rglob("*.json"))
    assert left == ([record.snapshot] if store == "state" else [])  # the orphan is gone
    kinds = [(a["action"], a["outcome"]) for a in manual.audit_log()]
    if sig == signal.SIGKILL:
        broken = next(a for a in manual.audit_log() if a["outcome"] == "broken")
        assert broken["action"] == "lock" and broken["holder"]["pid"] == audit[0]["pid"]
    assert kinds[-1] == ("compact", "compacted")
    manual.undo()
    assert session_messages(base, store) == before


def test_ctxlab_compact_engine_dsh_on_a_session_that_used_tools(
    tmp_path: Path,
    server: SummaryServer,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    agent = HarnessAgent(
        FunctionModel(answer),
        "system",
        workspace_root=tmp_path,
        user_id="u",
        session_id="s1",
        disable_compaction=True,
        disable_memory_hooks=True,
        store="eventlog",
    )  # the memory tools are on: every request offers them
    for n in range(4):
        agent.call(f"question {n} " + "x" * 400)
    agent.close()
    header = EventLog.replay(tmp_path / "u/events/s1.jsonl").latest("request/header")
    assert header is not None and header.data["tools"]
    monkeypatch.setenv(KEY_ENV, "sk-test-000000000000000000")
    assert main([*compact_args(tmp_path, server.url), "--engine", "dsh"]) == 0
    assert "Compacted s1 with dsh" in capsys.readouterr().out
    sent = server.bodies[-1]
    assert json.dumps(sent["tools"]) and len(sent["tools"]) == len(header.data["tools"])
