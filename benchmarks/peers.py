"""Peers side by side (is ctxlab's framework cost in line with theirs?): the per-turn framework cost
of :mod:`benchmarks.turns` (a question, a tool call, its result, the answer; an instant model, so
what is timed is the framework) for ctxlab and for peer agent frameworks, in the same run, at turn
50 and at turn 2,000 (quick: 300). The peers are in :mod:`benchmarks.peer_sessions` and need the
``peers`` extra (``pip install -c constraints.txt -e '.[peers]'``); without it the section prints
one row saying so and nothing fails.

ctxlab's sessions are :mod:`benchmarks.turns`'s (the state store and the event log with the
AgentScope engine, default durability). Every session, early and late, of every framework is
seeded and given its untimed turn first; then the timed turns go round all of them (ctxlab's
and the peers', early and late, one turn each per round), so a slow moment of the shared machine
falls on every side. The garbage collector stays on. Each turn gives its CPU time (the
framework's work in every thread of the process) and its wall time; bytes written per turn
come from ``/proc/self/io`` (``wchar``). After the timed turns each late session is reopened
from its store (a fresh connection or file read, as a new process would; CPU time, the median
of a few) where the framework has a store on disk. Nothing here is gated: the peers' figures
and the ctxlab ÷ peer ratios are reported only.

``python -m benchmarks.peers --framework NAME --turns N`` runs N turns of one fresh session
and nothing else, for counting durability syscalls with ``strace -f -c -e trace=fsync,fdatasync``
(run it with ``--turns 0`` too and subtract: the count is the whole process's).
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import Row, Spread, cpu_and_wall, spread
from benchmarks.turns import CASES, TURNS_TIMED, _agent, _written
from harness.store.eventlog import EventLog
from harness.store.statefile import JsonStateStore

__all__ = ["missing", "rows"]

SECTION = "peers"
EARLY = 50
REOPENS = 5
CTXLAB = "ctxlab event log"
"""The ctxlab session the ratio rows divide by."""


def missing() -> str | None:
    """The module of the ``peers`` extra that does not import, or None when all do."""
    try:
        import benchmarks.peer_sessions  # noqa: F401
    except ImportError as error:
        return error.name or str(error)
    return None


@dataclass
class _Session:
    turn: Callable[[str], object]
    reopen: Callable[[], object] | None
    close: Callable[[], object] = lambda: None


Factory = Callable[[Path, int], _Session]


def _ctxlab(store: str) -> Factory:
    _, setup, engine = next(c for c in CASES if c[0].startswith(store))

    def make(folder: Path, turn: int) -> _Session:
        agent = _agent(folder, setup, engine, turn)  # seeded, one untimed turn
        if store == "state store":
            return _Session(agent.call, lambda: JsonStateStore(folder / "state").load("s"))
        return _Session(agent.call, lambda: EventLog.open(folder / "s.jsonl", durability="os"))

    return make


def _frameworks() -> list[tuple[str, Factory]]:
    from benchmarks.peer_sessions import PEERS

    def wrap(factory: Callable[[Path, int], Any]) -> Factory:
        def make(folder: Path, turn: int) -> _Session:
            s = factory(folder, turn)
            return _Session(s.turn, s.reopen, s.close)

        return make

    ctxlab = [("ctxlab state store", _ctxlab("state store")), (CTXLAB, _ctxlab("event log"))]
    return [*ctxlab, *((name, wrap(factory)) for name, factory in PEERS)]


@dataclass
class _Taken:
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    written: list[int] = field(default_factory=list)
    reopen: list[float] = field(default_factory=list)


def _turn(session: _Session, text: str, into: _Taken) -> None:
    before = _written()
    cpu, wall = cpu_and_wall(lambda: session.turn(text))
    after = _written()
    into.cpu.append(cpu)
    into.wall.append(wall)
    if before is not None and after is not None:
        into.written.append(after - before)


def _reopen_cpu(reopen: Callable[[], object]) -> float:
    cpu = time.process_time()
    reopen()
    return time.process_time() - cpu


def measure(late: int, timed: int = TURNS_TIMED) -> dict[tuple[str, int], _Taken]:
    """Every framework's sessions at turn :data:`EARLY` and ``late``: ``timed`` turns each, in
    rounds over all of them, then the late sessions' reopens."""
    out: dict[tuple[str, int], _Taken] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sessions: dict[tuple[str, int], _Session] = {}
        for k, (name, make) in enumerate(_frameworks()):
            for turn in (EARLY, late):
                sessions[name, turn] = make(Path(tmp) / f"{k}-{turn}", turn)
                out[name, turn] = _Taken()
        try:
            for i in range(timed):
                for key, session in sessions.items():
                    _turn(session, f"turn {key[1] + i}", out[key])
            for _ in range(REOPENS):
                for (name, turn), session in sessions.items():
                    if turn == late and session.reopen is not None:
                        out[name, turn].reopen.append(_reopen_cpu(session.reopen))
        finally:
            for session in sessions.values():
                session.close()
    return out


def _ms(s: Spread) -> str:
    return f"{s.median * 1e3:.2f} ms"


def _framework_rows(name: str, early: _Taken, late: _Taken, turn: int) -> list[Row]:
    ec, lc, lw = spread(early.cpu), spread(late.cpu), spread(late.wall)
    out = [
        Row(
            SECTION,
            f"{name}: turn {EARLY}, CPU median",
            ec.median * 1e3,
            "ms",
            note=f"min {ec.low * 1e3:.2f} ms, p95 {ec.p95 * 1e3:.2f} ms",
        ),
        Row(
            SECTION,
            f"{name}: turn {turn}, CPU median",
            lc.median * 1e3,
            "ms",
            note=f"min {lc.low * 1e3:.2f} ms, p95 {lc.p95 * 1e3:.2f} ms; "
            f"wall median {lw.median * 1e3:.1f} ms, p95 {lw.p95 * 1e3:.1f} ms",
        ),
        Row(
            SECTION,
            f"{name}: turn {turn} / turn {EARLY}, CPU median",
            lc.median / ec.median,
            note=f"p95 {lc.p95 / ec.p95:.2f}×",
        ),
    ]
    if late.written:
        med = statistics.median(late.written)
        note = (
            f"turn {EARLY}: median {statistics.median(early.written) / 1024:,.1f} KiB; "
            f"worst turn {max(late.written) / 1024:,.1f} KiB"
        )
        out.append(
            Row(
                SECTION,
                f"{name}: bytes written per turn, turn {turn}, median",
                med / 1024,
                "KiB",
                note=note,
            )
        )
    if late.reopen:
        r = late.reopen
        out.append(
            Row(
                SECTION,
                f"{name}: reopen after {turn} turns, CPU median",
                statistics.median(r) * 1e3,
                "ms",
                note=f"min {min(r) * 1e3:.2f} ms, max {max(r) * 1e3:.2f} ms",
            )
        )
    return out


def _ratio(what: str, ours: float, theirs: float, name: str, turn: int, extra: str = "") -> Row:
    value = ours / theirs if theirs > 0 else math.nan
    inverse = f"{name} is {theirs / ours:,.1f}× ctxlab" if ours > 0 and theirs > 0 else ""
    note = "; ".join(s for s in (inverse, extra) if s)
    return Row(SECTION, f"{CTXLAB} ÷ {name}: {what}, turn {turn}", value, note=note)


def _ratio_rows(name: str, taken: dict[tuple[str, int], _Taken], late: int) -> list[Row]:
    ours, theirs = taken[CTXLAB, late], taken[name, late]
    ours_early, theirs_early = taken[CTXLAB, EARLY], taken[name, EARLY]
    early = statistics.median(theirs_early.cpu) / statistics.median(ours_early.cpu)
    out = [
        _ratio(
            "CPU median per turn",
            statistics.median(ours.cpu),
            statistics.median(theirs.cpu),
            name,
            late,
            f"at turn {EARLY}: {name} is {early:,.1f}× ctxlab",
        ),
        _ratio("CPU p95 per turn", spread(ours.cpu).p95, spread(theirs.cpu).p95, name, late),
    ]
    for label, a, b in (
        ("bytes written per turn, median", ours.written, theirs.written),
        ("reopen, CPU median", ours.reopen, theirs.reopen),
    ):
        if a and b:
            out.append(_ratio(label, statistics.median(a), statistics.median(b), name, late))
    return out


def rows(quick: bool, *, late: int | None = None, timed: int = TURNS_TIMED) -> list[Row]:
    """The section's rows (``late`` and ``timed`` override the sizes, for the tests)."""
    if (name := missing()) is not None:
        return [
            Row(
                SECTION,
                "peer frameworks: not installed (the `peers` extra); skipped",
                math.nan,
                "",
                note=f"{name} does not import",
            )
        ]
    late = late if late is not None else (300 if quick else 2_000)
    taken = measure(late, timed)
    names = list(dict.fromkeys(name for name, _ in taken))
    out: list[Row] = []
    for name in names:
        out += _framework_rows(name, taken[name, EARLY], taken[name, late], late)
    for name in names:
        if not name.startswith("ctxlab"):
            out += _ratio_rows(name, taken, late)
    return out


def main(argv: list[str] | None = None) -> None:
    """N turns of one fresh session of one framework (for ``strace -f -c``)."""
    frameworks = dict(_frameworks())
    parser = argparse.ArgumentParser(prog="python -m benchmarks.peers")
    parser.add_argument("--framework", choices=sorted(frameworks), required=True)
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        session = frameworks[args.framework](Path(tmp) / "s", 1)  # and its untimed turn
        for turn in range(args.turns):
            session.turn(f"turn {turn}")
        session.close()


if __name__ == "__main__":
    main()
