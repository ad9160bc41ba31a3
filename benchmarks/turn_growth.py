"""Where a late turn's time goes: a tool-call turn at turn 41-60 against turn 1,981-2,000.

The workload is :mod:`benchmarks.turns`'s (a question, a tool call, its result, the answer; no
compaction; ``per-turn`` durability), with one change: the scripted model serialises every
request body as :meth:`harness.client.ChatClient.complete` does
(:func:`harness.request_body.encoded`) before it answers, as a model behind HTTP would read it.
A turn's CPU time is split three ways, each measured in the same turns:

* **inherent**: serialising the request body (the request carries the whole history: this
  grows with it whatever the harness does; since each message keeps its JSON piece, only the
  join of the pieces and its encoding);
* **garbage collection**: the time inside the collector (``gc.callbacks``), which grows with
  the objects the session keeps alive;
* **the harness's own**: the rest (the store's append and fold, the engine's check, building
  the request, pricing), which should not grow with the history.

``python -m benchmarks.turn_growth`` prints the split for both stores; ``--profile`` adds a
cProfile diff (per function, CPU time per turn, the collector off so that its pauses are not
charged to whatever function ran) of the growing functions. The ``turns`` section reports the
harness's own part's growth (:func:`rows`, report only).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from benchmarks import turns
from benchmarks.common import Row
from harness import request_body
from harness.agent import Agent
from harness.compaction.engine import Turn
from harness.messages import Message
from harness.model import ChatRequest

__all__ = ["Split", "main", "rows"]

EARLY, LATE, TIMED = 40, 1_980, 20
CASES = ("event log + AgentScope", "state store + AgentScope")


@dataclass
class Split:
    """CPU seconds per turn, and how much of it was serialising and collecting."""

    total: list[float] = field(default_factory=list)
    body: list[float] = field(default_factory=list)
    gc: list[float] = field(default_factory=list)

    @property
    def own(self) -> list[float]:
        return [t - b - g for t, b, g in zip(self.total, self.body, self.gc, strict=True)]


class _Clock:
    """CPU time spent serialising bodies and inside the collector, since :meth:`reset`."""

    def __init__(self, with_request: bool = False) -> None:
        self.body = self.gc = 0.0
        self._gc_start = 0.0
        gc.callbacks.append(self._collecting)
        self._of = Turn.__dict__["of"]
        if with_request:  # building the request (one copy of the history) counts as the body
            Turn.of = self._timed(Turn.of)  # type: ignore[method-assign]

    def reset(self) -> None:
        self.body = self.gc = 0.0

    def _collecting(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_start = time.process_time()
        else:
            self.gc += time.process_time() - self._gc_start

    def close(self) -> None:
        gc.callbacks.remove(self._collecting)
        Turn.of = self._of  # type: ignore[method-assign]

    def _timed(self, build: Callable[..., Turn]) -> Callable[..., Turn]:
        def timed(header: ChatRequest, history: Any, **options: Any) -> Turn:
            start, collected = time.process_time(), self.gc
            turn = build(header, history, **options)
            self.body += time.process_time() - start - (self.gc - collected)
            return turn

        return staticmethod(timed)

    def serialising(self, reply: Callable[[ChatRequest], Message]) -> Callable[..., Message]:
        def model(request: ChatRequest) -> Message:
            start, collected = time.process_time(), self.gc
            request_body.encoded("scripted", request, {})  # what ChatClient.complete sends
            self.body += time.process_time() - start - (self.gc - collected)  # not twice
            return reply(request)

        return model


def _agents(folder: Path, case: str, clock: _Clock, late: int) -> list[Agent]:
    _, setup, engine = next(c for c in turns.CASES if c[0] == case)
    real = turns.FunctionModel
    turns.FunctionModel = lambda f: real(clock.serialising(f))  # type: ignore[assignment,misc]
    try:
        return [turns._agent(folder / str(n), setup, engine, n) for n in (EARLY, late)]
    finally:
        turns.FunctionModel = real  # type: ignore[misc]


def measure(
    case: str, late: int = LATE, timed: int = TIMED, with_request: bool = False
) -> tuple[Split, Split]:
    """The split of turns 41-60 and ``late + 1`` on of ``case``, alternated (``with_request``:
    building the request counts with serialising its body)."""
    clock = _Clock(with_request)
    splits = (Split(), Split())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            agents = _agents(Path(tmp), case, clock, late)
            for i in range(timed):
                for agent, split, n in zip(agents, splits, (EARLY, late), strict=True):
                    gc.collect()
                    clock.reset()
                    start = time.process_time()
                    agent.call(f"turn {n + 1 + i}")
                    split.total.append(time.process_time() - start)
                    split.body.append(clock.body)
                    split.gc.append(clock.gc)
    finally:
        clock.close()
    return splits


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


def rows(quick: bool) -> list[Row]:
    """The harness's own part of a late turn against an early one (report only)."""
    late = 280 if quick else LATE
    out = []
    for case in CASES[:1] if quick else CASES:
        early, later = measure(case, late, with_request=True)
        own_e, own_l = _median(early.own), _median(later.own)
        note = (
            f"own {own_e * 1e3:.2f} → {own_l * 1e3:.2f} ms; whole turn "
            f"{_median(early.total) * 1e3:.2f} → {_median(later.total) * 1e3:.2f} ms, of which "
            f"the request, built and serialised {_median(early.body) * 1e3:.2f} → "
            f"{_median(later.body) * 1e3:.2f} ms (inherent), and the collector "
            f"{_median(early.gc) * 1e3:.2f} → {_median(later.gc) * 1e3:.2f} ms (medians)"
        )
        turns_ = f"turn {late + 1}-{late + TIMED} / turn {EARLY + 1}-{EARLY + TIMED}"
        name = f"{case}: the harness's own part, {turns_}, CPU median"
        out.append(Row("agent turn", name, own_l / own_e, note=note + "; report only"))
    return out


def profile(case: str, start: int, timed: int = TIMED) -> dict[str, tuple[float, float]]:
    """Per function: (calls per turn, CPU seconds per turn), the collector off."""
    clock = _Clock()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            _, setup, engine = next(c for c in turns.CASES if c[0] == case)
            real = turns.FunctionModel
            turns.FunctionModel = lambda f: real(clock.serialising(f))  # type: ignore[assignment,misc]
            try:
                agent = turns._agent(Path(tmp) / "a", setup, engine, start)
            finally:
                turns.FunctionModel = real  # type: ignore[misc]
            profiler = cProfile.Profile(time.process_time)
            gc.collect()
            gc.disable()
            try:
                profiler.runcall(lambda: [agent.call(f"t {i}") for i in range(timed)])
            finally:
                gc.enable()
    finally:
        clock.close()
    stats = cast(Any, pstats.Stats(profiler)).stats
    return {
        f"{Path(file).name}:{line}({function})": (calls / timed, own / timed)
        for (file, line, function), (_, calls, own, _, _) in stats.items()
    }


def _print_profile(case: str) -> None:
    early, late = profile(case, EARLY), profile(case, LATE)
    grown = sorted(
        ((late.get(k, (0, 0))[1] - early.get(k, (0, 0))[1], k) for k in set(early) | set(late)),
        reverse=True,
    )
    print(f"\n{case}: functions whose CPU per turn grew the most (the collector off)")
    print("| function | turn 41-60 | turn 1,981-2,000 | calls per turn |")
    print("| --- | --- | --- | --- |")
    for _, key in grown[:15]:
        (ce, te), (cl, tl) = early.get(key, (0, 0)), late.get(key, (0, 0))
        print(f"| `{key}` | {te * 1e6:.0f} µs | {tl * 1e6:.0f} µs | {ce:g} → {cl:g} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.turn_growth")
    parser.add_argument("--profile", action="store_true", help="add a per-function diff")
    args = parser.parse_args(argv)
    print("| case | turns | whole turn | serialising the body | collector | harness's own |")
    print("| --- | --- | --- | --- | --- | --- |")
    for case in CASES:
        for label, split in zip(("41-60", "1,981-2,000"), measure(case), strict=True):
            parts = (split.total, split.body, split.gc, split.own)
            cells = " | ".join(f"{_median(p) * 1e3:.3f} ms" for p in parts)
            print(f"| {case} | {label} | {cells} |")
    if args.profile:
        for case in CASES:
            _print_profile(case)


if __name__ == "__main__":
    main()
