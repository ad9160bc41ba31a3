"""memory_search (kept index) against a literal line scan, at 1K/10K/100K memory lines.

The workspace holds MEMORY.md and ten daily files. The literal scan reads every file and keeps
the lines holding the query (case-insensitively), as ``grep -i`` would; ``memory_search`` is the
memory tool itself (its first query builds the index, later ones reuse it). The literal hits of
both must be the same lines. Two queries: a rare term (``夜莺``, one line in 997) and two common
terms (``上海港 booking``, in every line: BM25 then scores every line), each against its own
literal scan, warm and alternated. For the common terms also: the first query of a fresh
process (a subprocess, timed inside it after its imports; it reads the index cache the first
build wrote) against the first literal scan of another fresh process, and the query right after
a one-line append to a daily file (it tokenises that line only) against scans beside it; each
as median and p95.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import Row, spread, timed
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


_FRESH_PROCESS = """
import sys, time
from pathlib import Path
from benchmarks.memory_bench import literal_scan
from harness.memory.tools import MemoryTools
from harness.memory.workspace import MemoryWorkspace
tools = MemoryTools(MemoryWorkspace(Path(sys.argv[1]), "bench"))
start = time.perf_counter()
if sys.argv[3] == "scan":
    literal_scan(tools.workspace, sys.argv[2])
else:
    tools.memory_search(sys.argv[2])
index = tools.index
print(time.perf_counter() - start, getattr(index, "loaded", 0), getattr(index, "tokenised", 0))
"""


def _fresh_process(root: Path, query: str, what: str) -> tuple[float, int, int]:
    """The first memory_search (``what``: or literal scan) of a new process, timed inside it
    after its imports: the seconds, how many file indexes it took from the cache, how many
    lines it tokenised."""
    done = subprocess.run(
        [sys.executable, "-c", _FRESH_PROCESS, str(root), query, what],
        check=True, capture_output=True, text=True, cwd=Path(__file__).parent.parent,
    )  # fmt: skip
    seconds, loaded, tokenised = done.stdout.split()
    return float(seconds), int(loaded), int(tokenised)


def _ms(values: list[float]) -> str:
    found = spread(values)
    return f"median {found.median * 1e3:.1f} ms, p95 {found.p95 * 1e3:.1f} ms"


def _common_rows(lines: int, samples: int = 7) -> list[Row]:
    """The two-common-term query (the hard case: BM25 scores every line): warm, the
    first query of a fresh process (the index cache on disk), right after a one-line append;
    each against literal scans timed alternately with it."""
    name = f"{lines:,} lines, '{COMMON}'"
    with tempfile.TemporaryDirectory() as tmp:
        workspace = _workspace(Path(tmp), lines)
        tools = MemoryTools(workspace)
        build = timed(lambda: tools.memory_search(COMMON))  # no cache yet: tokenises all
        warm, scan = [], []
        for _ in range(samples):
            warm.append(timed(lambda: tools.memory_search(COMMON)))
            scan.append(timed(lambda: literal_scan(workspace, COMMON)))
        first, first_scan, loaded, tokenised = [], [], 0, 0
        for _ in range(samples):
            seconds, loaded, tokenised = _fresh_process(Path(tmp), COMMON, "search")
            first.append(seconds)
            first_scan.append(_fresh_process(Path(tmp), COMMON, "scan")[0])
        appended, append_scan, retokenised = [], [], []
        daily = workspace.relative(workspace.daily_files()[-1])
        for n in range(samples):
            workspace.fs.append(daily, f"- appended {n}: 上海港 booking\n", sync=False)
            before = tools.index.tokenised
            appended.append(timed(lambda: tools.memory_search(COMMON)))
            retokenised.append(tools.index.tokenised - before)
            append_scan.append(timed(lambda: literal_scan(workspace, COMMON)))
    scan_median = statistics.median(scan)
    return [
        Row("memory_search", f"{name}: literal scan", scan_median * 1e3, "ms", note=_ms(scan)),
        Row("memory_search", f"{name}: first build (no cache)", build * 1e3, "ms",
            note=f"{build / scan_median:.1f}× the scan; once per workspace"),
        Row("memory_search", f"{name}: warm search / literal scan", statistics.median(warm)
            / scan_median, gate=2.0, note=_ms(warm)),
        Row("memory_search", f"{name}: first query of a fresh process / literal scan",
            statistics.median(first) / statistics.median(first_scan), gate=3.0,
            note=f"{_ms(first)}; {loaded} file indexes from the cache, {tokenised} lines "
            f"tokenised; the first scan of a fresh process {_ms(first_scan)}"),
        Row("memory_search", f"{name}: after a one-line append / literal scan",
            statistics.median(appended) / statistics.median(append_scan), gate=2.0,
            note=f"{_ms(appended)}; scan {_ms(append_scan)}"),
        Row("memory_search", f"{name}: lines tokenised after a one-line append",
            float(max(retokenised)), "", gate=1.0, note="the appended line only"),
    ]  # fmt: skip


def rows(quick: bool) -> list[Row]:
    out = []
    for lines in (1_000, 10_000, 100_000):
        first, warm, scan, same = _measure(lines)
        out.append(
            Row("memory_search", f"{lines:,} lines: first query (no cache)", first * 1e3, "ms")
        )
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
    return out + _common_rows(100_000, samples=5 if quick else 9)
