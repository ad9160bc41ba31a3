"""Shared pieces of the memory tests: a fake clock, a write-fault injector, and the invariants
the memory store must keep, checked against a simple model of what was written.

The invariants read the files with their own small parser (not ``MemoryWorkspace``'s), so a bug
in the workspace's parser cannot hide a bug in what it wrote.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock

import harness.fs.files

__all__ = [
    "FACT",
    "FakeClock",
    "StoreModel",
    "WriteFaults",
    "check_daily_files_only_grow",
    "check_memory_never_half_written",
    "check_no_fact_lost",
    "check_watermark",
    "daily_entries",
    "facts_in",
    "instant_ns",
    "memory_text",
    "read_watermark",
    "snapshot_daily",
]

FACT = re.compile(r"fact-\d{4}")
"""A fact is a unique token ``fact-NNNN``."""

_HEADER = re.compile(r"^## (Memory Flush|Memory Save) — (\S+)$", re.MULTILINE)
_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{9})Z$")
INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z")


def instant_ns(stamp: str) -> int:
    """Our own reading of ``YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`` (nine digits, as written)."""
    match = _STAMP.match(stamp)
    assert match, f"not a nine-digit UTC instant: {stamp!r}"
    moment = datetime.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    return int(moment.timestamp()) * 1_000_000_000 + int(match.group(2))


class FakeClock:
    """Nanoseconds since the epoch that we control; every reading moves on by ``tick``."""

    def __init__(self, start: str = "2026-03-01T09:00:00.000000000Z", tick: int = 1_000_003):
        self.now = instant_ns(start)
        self.tick = tick
        self._lock = threading.Lock()

    def __call__(self) -> int:
        with self._lock:
            self.now += self.tick
            return self.now

    def peek(self) -> int:
        """The last reading, without moving on (``harness.memory.clock.peek``)."""
        with self._lock:
            return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += int(seconds * 1_000_000_000)


class WriteFaults:
    """Makes the ``fail_at``-th write point of ``harness.fs.files`` raise ``OSError``.

    Write points, in the order a write meets them: the handle's ``write`` (write_atomic's temp
    file and append_text's file), ``os.fsync`` (the file's, and the folder's after a rename,
    whose failure write_atomic ignores), and ``os.replace``. A failing ``write`` writes nothing,
    or with ``tear`` (0–1) that fraction of its characters first, as a full disk can.
    Tears fall on character boundaries: a tear inside a UTF-8 sequence is a known bug with its
    own test (test_memory_pipeline).
    """

    def __init__(self, fail_at: int | None, tear: float | None = None) -> None:
        self.fail_at = fail_at
        self.tear = tear
        self.points: list[str] = []
        self.failed: str | None = None

    def hit(self, what: str) -> None:
        self.points.append(what)
        if len(self.points) == self.fail_at:
            self.failed = what
            raise OSError(28, f"injected crash at write point #{self.fail_at} ({what})")

    def describe(self) -> str:
        """The failed point, for hypothesis events: ``none``, ``fsync``, ``write ... (torn)``."""
        if self.failed is None:
            return "none"
        torn = self.tear is not None and self.failed.startswith("write")
        return f"{self.failed} (torn)" if torn else self.failed

    @contextlib.contextmanager
    def installed(self) -> Iterator[WriteFaults]:
        real_replace, real_fsync, real_fdopen = os.replace, os.fsync, os.fdopen
        real_open = pathlib.Path.open
        faults = self

        def replace(src: Any, dst: Any, **kwargs: Any) -> None:
            faults.hit(f"replace {Path(dst).name}")
            real_replace(src, dst, **kwargs)

        def fsync(fd: int) -> None:
            faults.hit("fsync")
            real_fsync(fd)

        def fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            name = "appended file" if "a" in mode else "temp file"
            return _Handle(real_fdopen(fd, mode, *args, **kwargs), faults, name)

        def path_open(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            handle = real_open(self, mode, *args, **kwargs)
            return _Handle(handle, faults, "appended file") if "a" in mode else handle

        files_os = harness.fs.files.os
        with (
            mock.patch.object(files_os, "replace", replace),
            mock.patch.object(files_os, "fsync", fsync),
            mock.patch.object(files_os, "fdopen", fdopen),
            mock.patch.object(pathlib.Path, "open", path_open),
        ):
            yield self


class _Handle:
    def __init__(self, real: Any, faults: WriteFaults, name: str) -> None:
        self._real, self._faults, self._name = real, faults, name

    def write(self, data: bytes) -> int:
        try:
            self._faults.hit(f"write {self._name}")
        except OSError:
            if self._faults.tear is not None:
                text = data.decode("utf-8")
                self._real.write(text[: int(len(text) * self._faults.tear)].encode("utf-8"))
                self._real.flush()
            raise
        return self._real.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def __enter__(self) -> _Handle:
        self._real.__enter__()
        return self

    def __exit__(self, *exc: object) -> Any:
        return self._real.__exit__(*exc)


@dataclass
class StoreModel:
    """What the test knows was written, independent of the code under test."""

    facts: set[str] = field(default_factory=set)
    """Every fact that ever reached disk (acknowledged writes, and crashed writes that landed)."""
    memory_texts: set[str] = field(default_factory=set)
    """Every full text ever handed to the MEMORY.md write."""
    daily: dict[str, bytes] = field(default_factory=dict)
    """Daily file name → its bytes when last seen."""
    watermark: int = 0
    """The watermark when last seen (0 = none yet)."""


def facts_in(text: str) -> set[str]:
    return set(FACT.findall(text))


@dataclass(frozen=True)
class Entry:
    instant: int
    text: str


def daily_paths(base: Path) -> dict[str, Path]:
    """Daily files by name, wherever they are (``memory/`` or ``memory/archive/``)."""
    folder = base / "memory"
    if not folder.exists():
        return {}
    found = {}
    for path in folder.rglob("*.md"):
        assert path.name not in found, f"two daily files named {path.name}"
        found[path.name] = path
    return found


def daily_entries(base: Path) -> list[Entry]:
    entries = []
    for path in daily_paths(base).values():
        text = path.read_text(encoding="utf-8")
        # A header cut short by a torn append is not a header (its timestamp is incomplete).
        heads = [h for h in _HEADER.finditer(text) if _STAMP.match(h.group(2))]
        for n, head in enumerate(heads):
            end = heads[n + 1].start() if n + 1 < len(heads) else len(text)
            entries.append(Entry(instant_ns(head.group(2)), text[head.end() : end]))
    return entries


def read_watermark(base: Path) -> int | None:
    path = base / "memory" / ".consolidation_state"
    return instant_ns(path.read_text(encoding="utf-8")) if path.exists() else None


def memory_text(base: Path) -> str | None:
    path = base / "MEMORY.md"
    return path.read_text(encoding="utf-8") if path.exists() else None


def snapshot_daily(base: Path) -> dict[str, bytes]:
    return {name: path.read_bytes() for name, path in daily_paths(base).items()}


# --- invariants -----------------------------------------------------------------------------


def check_no_fact_lost(model: StoreModel, base: Path) -> None:
    """Every fact ever written is in MEMORY.md or in a daily entry newer than the watermark
    (so the next consolidation will merge it)."""
    memory = memory_text(base) or ""
    watermark = read_watermark(base) or 0
    pending = set()
    for entry in daily_entries(base):
        if entry.instant > watermark:
            pending |= facts_in(entry.text)
    lost = model.facts - facts_in(memory) - pending
    assert not lost, f"facts lost: {sorted(lost)}"


def check_watermark(model: StoreModel, base: Path) -> None:
    """The watermark file is 30 bytes, never moves backwards, and never passes an entry whose
    facts are not in MEMORY.md."""
    path = base / "memory" / ".consolidation_state"
    if not path.exists():
        assert model.watermark == 0, "the watermark file disappeared"
        return
    size = len(path.read_bytes())
    assert size == 30, f"watermark file is {size} bytes: {path.read_bytes()!r}"
    watermark = read_watermark(base)
    assert watermark is not None
    assert watermark >= model.watermark, "the watermark moved backwards"
    model.watermark = watermark
    in_memory = facts_in(memory_text(base) or "")
    for entry in daily_entries(base):
        if entry.instant <= watermark:
            missing = facts_in(entry.text) - in_memory
            assert not missing, f"watermark passed unconsolidated facts {sorted(missing)}"


def check_memory_never_half_written(model: StoreModel, base: Path) -> None:
    """MEMORY.md is absent or holds exactly one of the full texts ever meant for it."""
    text = memory_text(base)
    assert text is None or text in model.memory_texts, f"MEMORY.md is not a full text: {text!r}"


def check_daily_files_only_grow(model: StoreModel, base: Path) -> None:
    """No daily file disappears, shrinks, or changes a byte it already had."""
    now = snapshot_daily(base)
    for name, before in model.daily.items():
        assert name in now, f"daily file {name} disappeared"
        assert now[name].startswith(before), f"daily file {name} changed its earlier bytes"
    model.daily = now
