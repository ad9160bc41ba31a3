"""memory_search (kept index) against a literal line scan, at 1K/10K/100K memory lines.

The workspace holds MEMORY.md and ten daily files. The literal scan reads every file and keeps
the lines holding the query (case-insensitively), as ``grep -i`` would; ``memory_search`` is the
memory tool itself (its first query builds the index, later ones reuse it). The literal hits of
both must be the same lines. Two queries: a rare term (``夜莺``, one line in 997) and two common
terms (``上海港 booking``, in every line: BM25 then scores every line), each against its own
literal scan, warm and alternated; the first query of a fresh index beside them.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from benchmarks.common import Row, timed
from harness.fs.files import read_lines
from harness.memory.tools import MemoryTools
from harness.memory.workspace import MemoryWorkspace

__all__ = ["rows"]

QUERY = "夜莺"
COMMON = "上海港 booking"
DAILY_FILES = 10


def _line(number: int) -> str:
    if number % 997 == 0:
        return f"- the code word is {QUERY} (entry {number})"
    return f"- customer ALPHA-{number} ships via 上海港, booking BK-{number}, USD {number % 3000}"


def _workspace(root: Path, lines: int) -> MemoryWorkspace:
    workspace = MemoryWorkspace(root, "bench")
    workspace.daily_dir.mkdir(parents=True, exist_ok=True)
    workspace.memory_file.write_text("# Memory\n- 暗号: 夜莺\n", encoding="utf-8")
    per_file = lines // DAILY_FILES
    for day in range(DAILY_FILES):
        body = "".join(_line(day * per_file + i) + "\n" for i in range(per_file))
        (workspace.daily_dir / f"2026-10-{day + 1:02d}.md").write_text(body, encoding="utf-8")
    return workspace


def literal_scan(workspace: MemoryWorkspace, query: str) -> list[tuple[str, int]]:
    needle = query.lower()
    found = []
    for path in [workspace.memory_file, *workspace.daily_files()]:
        for number, text in enumerate(read_lines(path), 1):
            if needle in text.lower():
                found.append((workspace.relative(path), number))
    return found


def _measure(lines: int, query: str = QUERY) -> tuple[float, float, float, bool]:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = _workspace(Path(tmp), lines)
        tools = MemoryTools(workspace)
        first = timed(lambda: tools.memory_search(query))
        warm, scan = [], []
        for _ in range(5):
            warm.append(timed(lambda: tools.memory_search(query)))
            scan.append(timed(lambda: literal_scan(workspace, query)))
        hits = tools.index.search(tools.memory_files(), query)
        indexed = sorted((h.file, h.line) for h in hits if h.literal)
        same = indexed == sorted(literal_scan(workspace, query))
        return first, statistics.median(warm), statistics.median(scan), same


def _common_rows(lines: int) -> list[Row]:
    """The two-common-term query (issue 26's targets, not met: reported, not enforced)."""
    first, warm, scan, _ = _measure(lines, COMMON)
    name = f"{lines:,} lines, '{COMMON}'"
    return [
        Row("memory_search", f"{name}: search / literal scan", warm / scan, gate=2.0,
            enforced=False, note=f"warm {warm * 1e3:.0f} ms, scan {scan * 1e3:.0f} ms"),
        Row("memory_search", f"{name}: first query / literal scan", first / scan, gate=3.0,
            enforced=False, note=f"first {first * 1e3:.0f} ms"),
    ]  # fmt: skip


def rows(quick: bool) -> list[Row]:
    out = []
    for lines in (1_000, 10_000, 100_000):
        first, warm, scan, same = _measure(lines)
        out.append(Row("memory_search", f"{lines:,} lines: first query", first * 1e3, "ms"))
        out.append(Row("memory_search", f"{lines:,} lines: literal scan", scan * 1e3, "ms"))
        out.append(
            Row(
                "memory_search",
                f"{lines:,} lines: search / literal scan",
                warm / scan,
                gate=2.0 if lines == 100_000 else None,
            )
        )
        out.append(
            Row(
                "memory_search",
                f"{lines:,} lines: same literal hits (1 = yes)",
                float(same),
                "",
                gate=None if same else 0.0,
            )
        )
        if not same:
            out[-1] = Row(
                "memory_search", f"{lines:,} lines: literal hits differ", 1.0, "", gate=0.0
            )
    return out + _common_rows(10_000 if quick else 100_000)
