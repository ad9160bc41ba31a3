"""``python -m benchmarks [--quick] [--write]``: run the suite, print the table, exit 1 when an
enforced gate fails. ``--write`` also puts the table into ``benchmarks/README.md``."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

from benchmarks import (
    big_session,
    check_cost,
    eventlog_bench,
    grid_bench,
    memory_bench,
    memory_scale_bench,
    meter_error,
    peers,
    recall_bench,
    record_bench,
    reopen_bench,
    turn_growth,
    turns,
    wall,
)
from benchmarks.common import Row, settled

ROOT = Path(__file__).resolve().parent.parent
README = Path(__file__).resolve().parent / "README.md"
BEGIN, END = "<!-- table:begin -->", "<!-- table:end -->"
SECTIONS = (
    "meter", "check", "turns", "recall", "peers", "eventlog", "reopen", "big", "memory", "grid",
    "wall",
)  # fmt: skip


def _format(row: Row) -> str:
    if math.isnan(row.value):
        value = "—"
    elif row.unit == "×":
        value = f"{row.value:.2f}×" if abs(row.value) >= 0.01 else f"{row.value:.2g}×"
    elif row.unit == "%":
        value = f"{row.value:.2f} %"
    else:
        value = f"{row.value:.3g} {row.unit}".strip()
    return f"| {row.section} | {row.name} | {value} | {row.verdict()} | {row.note} |"


def table(rows: list[Row]) -> str:
    lines = ["| section | measure | value | gate | note |", "| --- | --- | --- | --- | --- |"]
    return "\n".join([*lines, *(_format(r) for r in rows)])


def _measures(quick: bool) -> dict[str, Callable[[], list[Row]]]:
    """Each section's measurement, by name (in :data:`SECTIONS` order)."""
    return {
        "meter": lambda: meter_error.rows(ROOT / "cassettes"),
        "check": lambda: check_cost.rows(quick),
        "turns": lambda: turns.rows(quick) + turn_growth.rows(quick),
        "recall": lambda: recall_bench.rows(quick),
        "peers": lambda: peers.rows(quick),
        "eventlog": lambda: eventlog_bench.rows(quick),
        "reopen": lambda: reopen_bench.rows(quick),
        "big": lambda: big_session.rows(quick),
        "memory": lambda: memory_bench.rows(quick) + memory_scale_bench.rows(quick),
        "grid": lambda: grid_bench.rows(quick) + record_bench.rows(quick),
        "wall": lambda: wall.rows(quick, ROOT),
    }


def collect(quick: bool, only: list[str]) -> list[Row]:
    """The chosen sections' rows; a section with a gate read close to its limit (or a stall)
    is measured again before it is read (:func:`benchmarks.common.settled`)."""
    measures = _measures(quick)
    rows: list[Row] = []
    for name in only or list(SECTIONS):
        rows += settled(measures[name])
    return rows


def _write(text: str, quick: bool) -> None:
    readme = README.read_text(encoding="utf-8")
    head, _, rest = readme.partition(BEGIN)
    _, _, tail = rest.partition(END)
    mode = "python -m benchmarks --quick" if quick else "python -m benchmarks"
    block = f"{BEGIN}\nLatest run: `{mode}`.\n\n{text}\n{END}"
    README.write_text(head + block + tail, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (CI)")
    parser.add_argument("--write", action="store_true", help="update benchmarks/README.md")
    parser.add_argument("--only", nargs="*", choices=SECTIONS, default=[], help="sections")
    args = parser.parse_args(argv)
    rows = collect(args.quick, args.only)
    text = table(rows)
    print(text)
    if args.write:
        _write(text, args.quick)
    failed = [r for r in rows if r.failed]
    for row in failed:
        print(f"FAIL: {row.section}: {row.name} = {row.value:.2f} > {row.gate}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
