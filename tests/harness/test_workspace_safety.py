"""Nothing is read from or written to outside the workspace.

Planted symlinks (``MEMORY.md``, ``memory/``, ``sessions/``) reach neither the prompt nor
``memory_search`` / ``session_search``, and no write goes through them; a folder swapped for a
symlink while ``read_file`` runs (by another process, in a loop) never yields the outside file;
user and session ids that are paths are refused; temp files a crash left are removed on open and
never listed; ``read_file`` with a limit reads only what it returns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.compaction.manual import ManualCompaction
from harness.errors import ConfigError, PathEscapeError
from harness.harness_agent import HarnessAgent
from harness.memory import Consolidator, MemoryFlusher, MemoryTools, MemoryWorkspace
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.testing import FunctionModel
from harness.tools import ToolBox
from lab.cli import main

SECRET = "OUTSIDE-SECRET-4711"
ENTRY = f"\n## Memory Flush — 2026-01-01T00:00:00.000000000Z\n- {SECRET}\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "MEMORY.md").write_text(f"# Memory\n- {SECRET}\n")
    (folder / "2026-01-01.md").write_text(ENTRY)
    record = {"seq": 0, "type": "message", "message": {"role": "user", "content": SECRET}}
    (folder / "old.jsonl").write_text(json.dumps(record) + "\n")
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def run_tool(workspace: MemoryWorkspace, name: str, **arguments: object) -> str:
    call = ToolCall("call-1", name, json.dumps(arguments))
    return ToolBox(MemoryTools(workspace).tools()).run(call)


def recording_model(seen: list[ChatRequest]) -> FunctionModel:
    def answer(request: ChatRequest) -> str:
        seen.append(request)
        return "NO_REPLY" if request.purpose == "flush" else "# Memory\n- fine"

    return FunctionModel(answer)


# --- planted symlinks ---------------------------------------------------------------------


def linked_workspace(tmp_path: Path, outside: Path, folder: str) -> MemoryWorkspace:
    """User ``u1``'s workspace under ``tmp_path/ws`` whose ``folder`` (an attribute naming one
    of its folders) is a link to ``outside``."""
    workspace = MemoryWorkspace(tmp_path / "ws", "u1")
    workspace.base.mkdir(parents=True)
    os.symlink(outside, getattr(workspace, folder))
    return workspace


def test_a_symlinked_memory_file_reaches_neither_prompt_nor_search_and_is_never_written(
    tmp_path: Path, outside: Path
) -> None:
    before = snapshot(outside)
    (tmp_path / "ws" / "u1").mkdir(parents=True)
    os.symlink(outside / "MEMORY.md", tmp_path / "ws" / "u1" / "MEMORY.md")
    seen: list[ChatRequest] = []
    agent = HarnessAgent(recording_model(seen), workspace_root=tmp_path / "ws", user_id="u1")
    agent.call("hello")
    agent.close()
    workspace = agent.workspace

    assert seen and all(SECRET not in m.content for r in seen for m in r.messages)
    assert run_tool(workspace, "memory_search", query=SECRET).startswith("No matching")
    assert "Saved" in run_tool(workspace, "memory_save", content="- inside fact")
    assert snapshot(outside) == before  # nothing written through the link
    assert not workspace.memory_file.is_symlink()
    assert workspace.read_memory() == "- inside fact\n"


def test_a_symlinked_memory_folder_is_neither_read_nor_written(
    tmp_path: Path, outside: Path
) -> None:
    before = snapshot(outside)
    workspace = linked_workspace(tmp_path, outside, "daily_dir")

    assert workspace.entries() == [] and workspace.daily_files() == []
    assert run_tool(workspace, "memory_search", query=SECRET).startswith("No matching")
    flusher = MemoryFlusher(FunctionModel(lambda r: "- a new fact"), workspace)
    with pytest.raises(PathEscapeError):
        flusher.flush([Message.user("remember this")])
    assert run_tool(workspace, "memory_save", content="- saved fact").startswith("Error:")
    outcome = Consolidator(FunctionModel(lambda r: "# Memory"), workspace).consolidate()
    assert outcome.status == "skipped"
    assert snapshot(outside) == before


def test_a_symlinked_sessions_folder_is_not_searched_and_not_written(
    tmp_path: Path, outside: Path
) -> None:
    before = snapshot(outside)
    workspace = linked_workspace(tmp_path, outside, "sessions_dir")

    assert run_tool(workspace, "session_search", query=SECRET).startswith("No matching")
    with pytest.raises(PathEscapeError, match="not a folder inside the workspace"):
        HarnessAgent(recording_model([]), workspace_root=tmp_path / "ws", user_id="u1")
    assert snapshot(outside) == before


@pytest.mark.parametrize(
    ("store", "name"),
    [
        ("eventlog", "events/s1.jsonl"),
        ("state", "state/s1.json"),
        ("state", "state/s1.journal.jsonl"),
        ("state", "sessions/s1.jsonl"),
    ],
)
def test_a_symlinked_session_file_is_never_opened(
    tmp_path: Path, outside: Path, store: str, name: str
) -> None:
    before = snapshot(outside)
    planted = tmp_path / "ws" / "u1" / name
    planted.parent.mkdir(parents=True)
    os.symlink(outside / "MEMORY.md", planted)
    with pytest.raises(PathEscapeError, match="not a file inside the workspace"):
        HarnessAgent(
            recording_model([]),
            workspace_root=tmp_path / "ws",
            user_id="u1",
            session_id="s1",
            store=store,
        )
    assert snapshot(outside) == before


# --- ids that are paths -------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["../../x", "..", "a/b", "/etc", ""])
def test_user_and_session_ids_that_are_paths_are_refused(tmp_path: Path, bad: str) -> None:
    model = FunctionModel(lambda r: "ok")
    with pytest.raises(ConfigError, match="session id"):
        HarnessAgent(model, workspace_root=tmp_path / "ws", session_id=bad)
    with pytest.raises(ConfigError, match="user id"):
        HarnessAgent(model, workspace_root=tmp_path / "ws", user_id=bad)
    with pytest.raises(ConfigError, match="session id"):
        ManualCompaction(tmp_path / "ws" / "u1", bad, model)
    assert list(tmp_path.iterdir()) == []  # nothing was created anywhere


@pytest.mark.parametrize("flag", ["--user", "--session"])
def test_ctxlab_compact_refuses_path_ids_with_one_sentence(
    tmp_path: Path, flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = {"--user": "u1", "--session": "s1", flag: "../../x"}
    argv = ["compact", "--workspace", str(tmp_path / "ws"), "--undo"]
    assert main(argv + [item for pair in args.items() for item in pair]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'../../x' may hold only letters" in err
    assert list(tmp_path.iterdir()) == []


# --- temp files -----------------------------------------------------------------------------


def test_temp_files_left_by_a_crash_are_removed_on_open_and_never_listed(tmp_path: Path) -> None:
    base = tmp_path / "ws" / "u1"
    for folder in (base, base / "memory", base / "state"):
        folder.mkdir(parents=True, exist_ok=True)
    left = [
        base / ".MEMORY.md.k3j2h1g0.tmp",
        base / "memory" / "..consolidation_state.a1b2c3d4.tmp",
        base / "state" / ".s1.json.zz99yy88.tmp",
    ]
    for path in left:
        path.write_text("half written")
    other_session = base / "state" / ".s2.json.aa11bb22.tmp"
    other_session.write_text("another session's write in flight")

    root = tmp_path / "ws"
    agent = HarnessAgent(recording_model([]), workspace_root=root, user_id="u1", session_id="s1")
    assert [p for p in left if p.exists()] == []
    assert other_session.exists()  # only this session's state temps are its own to remove
    (base / "large_tool_results").mkdir()
    (base / "large_tool_results" / ".x.txt.q1w2e3r4.tmp").write_text("torn offload")
    listing = run_tool(agent.workspace, "list_files", path=".")
    assert ".tmp" not in listing


# --- read_file reads only what it returns ----------------------------------------------------


def bytes_read() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@pytest.mark.parametrize("shape", ["lines", "one long line"])
def test_read_file_with_a_limit_does_not_read_a_100_mb_file_whole(
    tmp_path: Path, shape: str
) -> None:
    workspace = MemoryWorkspace(tmp_path, "u1")
    workspace.base.mkdir(parents=True)
    line = b"x" * 99 + b"\n" if shape == "lines" else b"y" * 100
    with (workspace.base / "big.log").open("wb") as handle:
        for _ in range(1_000):
            handle.write(line * 1_000)  # 100 MB in all
    start = bytes_read()
    text = MemoryTools(workspace).read_file("big.log", offset=3 if shape == "lines" else 1, limit=5)
    used = bytes_read() - start
    assert used < 1_000_000, f"read {used:,} bytes for 5 lines"
    if shape == "lines":
        assert text.splitlines() == [f"{n}|{'x' * 99}" for n in range(3, 8)]
    else:
        assert text == f"1|{'y' * 8_192} … (line cut at 8192 bytes)"


# --- a folder swapped for a symlink while reads run -------------------------------------------

SWAPPER = r"""
import os, sys, time
docs, real, outside, stop = sys.argv[1:5]
while not os.path.exists(stop):
    os.rename(docs, real)
    os.symlink(outside, docs)
    time.sleep(0)
    os.unlink(docs)
    os.rename(real, docs)
"""


def test_read_file_never_returns_an_outside_file_while_a_folder_is_swapped_for_a_symlink(
    tmp_path: Path, outside: Path
) -> None:
    workspace = MemoryWorkspace(tmp_path / "ws", "u1")
    docs = workspace.base / "docs"
    docs.mkdir(parents=True)
    (docs / "note.txt").write_text("inside note\n")
    (outside / "note.txt").write_text(f"{SECRET}\n")
    stop = tmp_path / "stop"
    args = [str(docs), str(workspace.base / "docs-real"), str(outside), str(stop)]
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, *args], cwd=tmp_path)
    tools = MemoryTools(workspace)
    counts = {"inside": 0, "outside": 0, "refused": 0}
    try:
        # Until the swap has been seen both ways often enough (the event), not a fixed count of
        # reads; the deadline only ends a race that never runs (the assertion then says so).
        deadline = time.monotonic() + 60
        while min(counts["inside"], counts["refused"]) < 50 and time.monotonic() < deadline:
            try:
                text = tools.read_file("docs/note.txt")
            except (PathEscapeError, OSError):  # a refusal, or the folder is being swapped
                counts["refused"] += 1
                continue
            key = "outside" if SECRET in text else "inside" if "inside" in text else "refused"
            counts[key] += 1
    finally:
        stop.touch()
        swapper.wait(timeout=30)
    assert counts["outside"] == 0, counts
    assert min(counts["inside"], counts["refused"]) >= 50, f"the race did not run: {counts}"
