"""Two real processes on one memory workspace (issue 13 item 3).

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

role, root, marker, pause = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), float(sys.argv[4])
workspace = MemoryWorkspace(root, "u1")
calls = []

def merge(request):
    calls.append(1)
    if len(calls) == 1:
        marker.write_text("in the model call")
        time.sleep(pause)
    lines = [l.strip() for m in request.messages for l in m.content.splitlines()]
    return "# Memory\n" + "\n".join(dict.fromkeys(l for l in lines if l.startswith("- ")))

if role == "consolidate":
    outcome = Consolidator(FunctionModel(merge), workspace).consolidate()
    print(outcome.status, len(calls), outcome.log_line)
else:
    print(MemoryTools(workspace).memory_save(role))
"""


def start(role: str, root: Path, marker: Path, pause: float = 0.0) -> subprocess.Popen[str]:
    args = [sys.executable, "-c", CHILD, role, str(root), str(marker), str(pause)]
    return subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root
    )


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
    slow = start("consolidate", tmp_path, tmp_path / "slow-is-thinking", pause=2.0)
    wait_for(tmp_path / "slow-is-thinking")  # the slow one has read MEMORY.md and the entries
    workspace.append_entry("Memory Flush", "- fact-B")
    fast = start("consolidate", tmp_path, tmp_path / "fast-is-thinking")
    slow_out, fast_out = finish(slow), finish(fast)

    assert slow_out.startswith("written"), slow_out
    assert fast_out.startswith("written"), fast_out  # it ran after the slow one, with fact-B
    assert facts(workspace.read_memory()) == {"fact-A", "fact-B"}
    assert workspace.read_watermark() == workspace.entries()[-1].instant
    assert workspace.entries(since=workspace.read_watermark()) == []


def test_a_memory_save_during_a_consolidation_is_not_overwritten(tmp_path: Path) -> None:
    workspace = MemoryWorkspace(tmp_path, "u1")
    workspace.append_entry("Memory Flush", "- fact-A")
    slow = start("consolidate", tmp_path, tmp_path / "slow-is-thinking", pause=2.0)
    wait_for(tmp_path / "slow-is-thinking")
    saver = start("- fact-S", tmp_path, tmp_path / "unused")
    assert "Saved 1 memory" in finish(saver)
    assert "fact-S" in workspace.read_memory()
    slow_out = finish(slow)

    # The compare-and-swap saw MEMORY.md change under it and merged again (a second model call).
    assert slow_out.startswith("written 2"), slow_out
    assert facts(workspace.read_memory()) == {"fact-A", "fact-S"}
