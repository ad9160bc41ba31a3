"""``ctxlab bench``'s run journal: every finished run, one JSON line each, so that a bench that
was stopped (Ctrl-C, a lost connection, ``kill -9``) starts again where it stopped.

A live bench can take hours and costs model calls; its CSV and Markdown are written only at the
end. So each run (one conversation under one condition) is appended to
``<out>/bench-runs.jsonl`` as soon as it is scored, flushed to disk, and a later bench with the
same ``--out`` keeps every run whose key matches instead of playing it again. The key is what
decides the run's outcome: the conversation's bytes (a SHA-256 of its JSON), the condition, the
model (provider, base URL and name) and ctxlab's version; change any of them and the run is
played again.

The journal is held under an exclusive ``flock`` for the whole bench, so a second bench writing
to the same folder is refused at once, in one sentence, instead of interleaving its lines. A
line cut short by a kill is skipped (its run plays again) and terminated, never truncated away,
so the next line starts on a line of its own. A line that is whole JSON but not a run this
format holds (a string where a count belongs, not an object, nested too deep) was not written by
a bench: it is refused, naming the file and line, rather than kept as a finished run (it would
break the tables) or skipped (its neighbours could be damaged too). ``--fresh`` replaces the
journal with an empty one (under the lock) without reading it: the earlier runs are played
again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from pathlib import Path
from types import TracebackType

from experiments.x_bench.schema import BenchFileError, Conversation, dump_conversation
from experiments.x_bench.view import RunRecord
from harness import json_depth
from harness.fs.files import append_fd
from harness.fs.locks import try_exclusive
from lab import ShapeError, ctxlab_version, from_data

__all__ = ["JOURNAL_NAME", "BenchBusyError", "DamagedJournalError", "RunJournal"]

JOURNAL_NAME = "bench-runs.jsonl"
VERSION = 1
"""The journal line format's version (a line of another version is played again)."""


class BenchBusyError(BenchFileError):
    """Another ``ctxlab bench`` holds the journal of the same ``--out`` folder."""


class DamagedJournalError(BenchFileError):
    """A journal line that is whole JSON but not a run a bench wrote (one sentence naming the
    file and line; the journal is left as it is)."""


class RunJournal:
    """The journal of one ``--out`` folder, held for a bench's whole run (a context manager)."""

    def __init__(self, folder: Path, model: str = "none", fresh: bool = False) -> None:
        self.path = folder / JOURNAL_NAME
        self.model = model
        """Provider, base URL and model name (``none`` without a provider): part of each key;
        set before the first run is looked up."""
        self.fresh = fresh
        self.version = ctxlab_version()
        self.kept: dict[str, RunRecord] = {}
        self.discarded = 0
        """Lines of an earlier journal that ``fresh`` discarded (unread)."""
        self.torn = 0
        """Lines that could not be read (cut short by a kill): their runs play again."""
        self._fd: int | None = None
        self._made: list[Path] = []
        """What ``__enter__`` created: the folders, innermost first, then the journal."""

    def __enter__(self) -> RunJournal:
        made = [p for p in (self.path.parent, *self.path.parent.parents) if not p.exists()]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._made = [*made, self.path] if not self.path.exists() else made
        fd = try_exclusive(self.path)
        if fd is None:
            raise BenchBusyError(
                f"Another ctxlab bench is writing to {self.path.parent} (it holds "
                f"{JOURNAL_NAME}); wait for it to end or pass another --out."
            )
        self._fd = fd
        text = _read_fd(fd)  # through the locked descriptor: the path is not walked again
        if self.fresh:  # asked for: the earlier lines are counted and said, never parsed
            self.discarded = sum(1 for line in text.splitlines() if line.strip())
            os.ftruncate(fd, 0)
            os.fsync(fd)
            return self
        try:
            for number, line in enumerate(text.splitlines(), 1):
                self._read(number, line)
        except DamagedJournalError:
            self._fd = None
            os.close(fd)  # the lock goes with it; nothing was written
            raise
        if text and not text.endswith("\n"):
            append_fd(self._fd, "\n")  # the torn line stays, on a line of its own
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._fd is None:
            return
        if self._made and self._made[-1] == self.path and not os.fstat(self._fd).st_size:
            # a bench that stopped before its first run (no key, no server) leaves nothing
            # behind: the journal it made (unlinked while still locked) and its new folders
            self.path.unlink()
            for folder in self._made[:-1]:  # innermost first
                with contextlib.suppress(OSError):
                    folder.rmdir()
        os.close(self._fd)
        self._fd = None

    def key(self, conversation: Conversation, condition: str) -> str:
        digest = hashlib.sha256(dump_conversation(conversation).encode("utf-8")).hexdigest()
        return f"{digest[:32]} {condition} {self.model} ctxlab-{self.version}"

    def cached(self, conversation: Conversation, condition: str) -> RunRecord | None:
        """The run of ``conversation`` under ``condition`` an earlier bench finished, if any."""
        return self.kept.get(self.key(conversation, condition))

    def add(self, conversation: Conversation, record: RunRecord) -> None:
        """Append ``record`` (one line, flushed to disk before the bench goes on)."""
        assert self._fd is not None, "the journal is used inside its with block"
        key = self.key(conversation, record.condition)
        line = {"v": VERSION, "key": key, "run": dataclasses.asdict(record)}
        append_fd(self._fd, json.dumps(line, ensure_ascii=False) + "\n")
        self.kept[key] = record

    def _read(self, number: int, line: str) -> None:
        if not line.strip():
            return
        try:
            data = json_depth.loads(line)
        except json_depth.JsonTooDeepError as exc:
            raise self._damaged(number, str(exc)) from None
        except ValueError:  # not whole JSON: cut short by a kill
            self.torn += 1
            return
        if not isinstance(data, dict):
            raise self._damaged(number, f"a JSON {type(data).__name__}, not an object")
        if data.get("v") != VERSION:
            return  # another format's line: its run plays again
        if not isinstance(data.get("key"), str):
            raise self._damaged(number, "no key")
        try:
            self.kept[data["key"]] = from_data(RunRecord, data.get("run"))
        except ShapeError as exc:
            raise self._damaged(number, str(exc)) from None

    def _damaged(self, number: int, what: str) -> DamagedJournalError:
        return DamagedJournalError(
            f"{self.path}:{number} is not a run ctxlab bench wrote ({what}); fix or remove "
            "that line, or pass --fresh to play every run again."
        )


def _read_fd(fd: int) -> str:
    """The whole file open as ``fd``, from its start (UTF-8; a byte cut short by a kill reads as
    a replacement character, on a torn line that is skipped)."""
    chunks = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")
