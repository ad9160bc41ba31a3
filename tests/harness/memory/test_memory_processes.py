"""Two real processes on one memory workspace.

A slow consolidation (its model waits) and a second writer, each in its own interpreter: a second
consolidation must wait for the first and then merge what the first did not see, and a
``memory_save`` made while a consolidation's model is thinking must survive it (the
consolidation's compare-and-swap refuses to overwrite the newer MEMORY.md and merges again).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from harness.memory import MemoryWorkspace

CHILD = r"""
import sys, time
from pathlib import Path
from harness.memory import Consolidator, MemoryTools, MemoryWorkspace
from harness.testing import FunctionModel

role, root, marker, held = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4] == "held"
go = Path(str(marker) + ".go")
workspace = MemoryWorkspace(root, "u1")
calls = []

def merge(request):
    calls.append(1)
    if len(calls) == 1:
        marker.write_text("in the model call")
        deadline = time.monotonic() + 120
        while held and not go.exists() and time.monotonic() < deadline:  # until the test says go
            time.sleep(0.01)
    lines = [l.strip() for m in request.messages for l in m.content.splitlines()]
    return "# Memory\n" + "\n".join(dict.fromkeys(l for l in lines if l.startswith("- ")))

if role == "consolidate":
    outcome = Consolidator(FunctionModel(merge), workspace).consolidate()
    print(outcome.status, len(calls), outcome.log_line)
else:
    print(MemoryTools(workspace).memory_save(role))
"""


def start(role: str, root: Path, marker: Path, held: bool = False) -> subprocess.Popen[str]:
    """A child process; a ``held`` consolidation writes ``marker`` in its model call and waits
    there until :func:`release` (the event, not a fixed pause, which a loaded machine outran)."""
    args = [sys.executable, "-c", CHILD, role, str(root), str(marker), "held" if held else "-"]
    return subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root
    )


def release(marker: Path) -> None:
    Path(str(marker) + ".go").touch()


def wait_for(path: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def finish(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    return out


def facts(text: str) -> set[str]:
    return set(re.findall(r"fact-[A-Z]", text))


def test_a_second_consolidation_waits_and_merges_what_the_first_did_not_see(
    tmp_path: Path,
) -> None:
    workspace = MemoryWorkspace(tmp_path, "u1")
    workspace.append_entry("Memory Flush", "- fact-A")
    thinking = tmp_path / "slow-is-thinking"
    slow = start("consolidate", tmp_path, thinking, held=True)
    wait_for(thinking)  # the slow one has read MEMORY.md and the entries
    workspace.append_entry("Memory Flush", "- fact-B")
    fast = start("consolidate", tmp_path, tmp_path / "fast-is-thinking")
    release(thinking)  # the fast one waits for its lock, or comes after it: either way it merges
    slow_out, fast_out = finish(slow), finish(fast)

    assert slow_out.startswith("written"), slow_out
    assert fast_out.startswith("written"), fast_out  # it ran after the slow one, with fact-B
    assert facts(workspace.read_memory()) == {"fact-A", "fact-B"}
    assert workspace.read_watermark() == workspace.entries()[-1].instant
    assert workspace.entries(since=workspace.read_watermark()) == []


def test_a_memory_save_during_a_consolidation_is_not_overwritten(tmp_path: Path) -> None:
    workspace = MemoryWorkspace(tmp_path, "u1")
    workspace.append_entry("Memory Flush", "- fact-A")
    thinking = tmp_path / "slow-is-thinking"
    slow = start("consolidate", tmp_path, thinking, held=True)
    wait_for(thinking)
    saver = start("- fact-S", tmp_path, tmp_path / "unused")
    assert "Saved 1 memory" in finish(saver)  # saved while the consolidation's model thinks
    assert "fact-S" in workspace.read_memory()
    release(thinking)  # only now does the consolidation go on (a fixed 2 s pause
    slow_out = finish(slow)  # ended first on a loaded machine, before the save)

    # The compare-and-swap saw MEMORY.md change under it and merged again (a second model call).
    assert slow_out.startswith("written 2"), slow_out
    assert facts(workspace.read_memory()) == {"fact-A", "fact-S"}
