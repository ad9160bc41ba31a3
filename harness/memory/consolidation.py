"""Consolidation: MEMORY.md is rewritten whole from itself plus the fresh daily entries.

The watermark says up to which instant daily entries were consolidated. It advances only after
MEMORY.md was written, and only to the newest entry that went into the rewrite, so an entry
appended while the model was thinking is picked up by the next run. A failed model call, a
truncated answer or a failed write leaves the watermark where it was: the next run redoes the
same batch (nothing lost, one extra call).

Freshness is decided **per entry**, not per file: an entry is fresh when the instant in its
``## Memory Flush — <instant>`` header is after the watermark. AgentScope (and the seed: "只读
水位之后被改过的日记账") decides per daily file by its modification time, so one new line
re-sends the whole day's file to the model. Per entry sends only what is new and does not
depend on file times (which copying or restoring a workspace changes); it is why entry headers
carry nanoseconds (see :mod:`harness.memory.clock`). The claim row AS-CONSOLIDATE-FRESHNESS
reports the difference.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from dataclasses import dataclass
from typing import ClassVar, Literal

from harness.errors import LockTimeoutError, MemoryStoreError
from harness.memory.clock import EPOCH, NanoClock, format_instant
from harness.memory.injection import cut_memory
from harness.memory.workspace import DailyEntry, MemoryWorkspace
from harness.messages import Message
from harness.meter.pricers import CHARS_PER_TOKEN
from harness.model import ChatModel, ChatRequest
from harness.secrets import redact_for_storage
from harness.summary_outcome import SummaryOutcome, request_summary
from harness.validation import count, seconds

__all__ = [
    "DEFAULT_CONSOLIDATION_PROMPT",
    "ConsolidationOutcome",
    "Consolidator",
    "MaintenanceSchedule",
]

logger = logging.getLogger("harness.memory")

ENTRY_CUT = "\n... (entry cut: longer than a consolidation request may carry) ..."
CONFLICT = "compare-and-swap refused: MEMORY.md or the watermark changed during the run"

DEFAULT_CONSOLIDATION_PROMPT = """\
You maintain MEMORY.md, the single curated long-term memory of an assistant. Merge the new \
daily ledger entries into the current MEMORY.md: drop duplicates, group related facts under \
section headers, update or remove facts that newer entries supersede, and keep names, codes, \
numbers and places exactly as written. Do not add anything the inputs do not say. Stay within \
{max_tokens} tokens (about {max_chars} characters), favouring recent and often used facts.

Output the complete new MEMORY.md in markdown, not a diff, and nothing else."""


@dataclass(frozen=True)
class ConsolidationOutcome:
    """What one consolidation run did."""

    status: Literal["skipped", "written", "failed"]
    watermark_before: str
    watermark_after: str
    entries: int
    """Daily entries that went into the rewrite."""
    memory_chars: int
    """Size of MEMORY.md after the run."""
    log_line: str
    error: str | None = None


class Consolidator:
    """Rewrites one workspace's MEMORY.md from the daily entries newer than the watermark."""

    def __init__(
        self,
        model: ChatModel,
        workspace: MemoryWorkspace,
        max_tokens: int = 4_000,
        prompt: str = DEFAULT_CONSOLIDATION_PROMPT,
        *,
        memory_tokens: int = 8_000,
        max_request_tokens: int = 20_000,
    ) -> None:
        self.model = model
        self.workspace = workspace
        self.max_tokens = count("consolidation max_tokens", max_tokens)
        self.prompt = prompt
        self.memory_tokens = count("consolidation memory_tokens", memory_tokens)
        """MEMORY.md is cut to this in the request, as injection cuts it (the seed's 8,000)."""
        self.max_request_tokens = count("consolidation max_request_tokens", max_request_tokens)
        """No consolidation request is larger (estimated): fresh entries go in batches."""
        self.attempts = 2
        self._left = 0
        """Fresh entries the last batch left for the next (the request budget was full)."""
        """Runs of the model when the compare-and-swap finds MEMORY.md changed meanwhile."""

    def consolidate(self) -> ConsolidationOutcome:
        """Run once: skip without a model call when nothing is fresh.

        Consolidations of one workspace run one at a time, across processes (the workspace's
        consolidation lock), and the write of MEMORY.md plus the watermark is a compare-and-swap:
        if either changed since this run read them (a ``memory_save``, another writer), nothing
        is written and the batch is merged again from the new state, at most ``attempts`` times.
        """
        try:
            with self.workspace.consolidation_lock():
                outcome = self._batch()
                # a backlog, batch by batch: each advances the watermark, so this ends
                while outcome.status == "written" and self._left:
                    outcome = _merged(outcome, self._batch())
                return outcome
        except LockTimeoutError as exc:
            line = f"Memory consolidation did not run: {exc}"
            logger.warning(line)
            watermark = self.workspace.read_watermark()
            return self._outcome("failed", watermark, watermark, 0, line, str(exc))

    def _batch(self) -> ConsolidationOutcome:
        for _ in range(self.attempts - 1):
            outcome = self._attempt()
            if outcome.error != CONFLICT:
                return outcome
        return self._attempt()

    def _attempt(self) -> ConsolidationOutcome:
        self._left = 0
        watermark = self.workspace.clamp_watermark()  # one past the ledger would freeze it
        memory = self.workspace.read_memory()
        every = self.workspace.entries(since=watermark)
        if not every:
            line = f"No fresh daily entries since {_show(watermark)} — skipping consolidation"
            logger.info(line)
            return self._outcome("skipped", watermark, watermark, 0, line)
        shown = cut_memory(memory, self.memory_tokens)  # as injection cuts it (the seed's cap)
        fresh = self._fitting(every, self._room(shown, watermark))
        rewrite = self._rewrite(shown, fresh, watermark)
        if rewrite.failed:
            return self._failed(watermark, fresh, rewrite.error or "the rewrite failed")
        # Scanned like a cassette before it is written: no key reaches MEMORY.md.
        # Its memory-frame tags are escaped when it is written (MemoryWorkspace.write_memory).
        text = redact_for_storage(rewrite.text, "MEMORY.md") + "\n"
        outcome = self._commit(memory, watermark, text, fresh, cut=shown != memory)
        self._left = len(every) - len(fresh) if outcome.status == "written" else 0
        return outcome

    def _fitting(self, fresh: list[DailyEntry], room: int) -> list[DailyEntry]:
        """The oldest fresh entries whose text fits in ``room`` characters (at least one; the
        rest wait for the next batch, the watermark stopping before them)."""
        taken: list[DailyEntry] = []
        size = 0
        for entry in fresh:
            size += len(_entry_text(entry)) + 2
            if taken and size > room:
                break
            taken.append(entry)
        return taken

    def _commit(
        self, memory: str, watermark: int, text: str, fresh: list[DailyEntry], cut: bool = False
    ) -> ConsolidationOutcome:
        """Compare-and-swap MEMORY.md and the watermark under the workspace's memory lock.

        ``cut``: the model saw only MEMORY.md's head, so the whole old file is kept in
        ``memory/archive/`` before the rewrite replaces it (nothing of it is lost)."""
        newest = fresh[-1].instant
        with self.workspace.memory_lock():
            if not self.workspace.holds(memory, watermark):
                line = f"MEMORY.md or the watermark changed meanwhile; nothing written ({CONFLICT})"
                logger.warning(line)
                return self._outcome("failed", watermark, watermark, len(fresh), line, CONFLICT)
            try:
                if cut:
                    self._keep_whole(memory)
                self.workspace.write_memory(text)  # the lock is reentrant
            except (OSError, MemoryStoreError) as exc:
                return self._failed(watermark, fresh, str(exc))
            try:
                self.workspace.write_watermark(newest)
            except (OSError, MemoryStoreError) as exc:
                # MEMORY.md already holds the batch; the next run merges it again, losing nothing.
                line = f"Watermark write failed, it stays at {_show(watermark)}: {exc}"
                logger.warning(line)
                return self._outcome("failed", watermark, watermark, len(fresh), line, str(exc))
        line = f"MEMORY.md consolidated ({len(text)} chars), watermark advanced to {_show(newest)}"
        logger.info(line)
        return self._outcome("written", watermark, newest, len(fresh), line)

    def _keep_whole(self, memory: str) -> None:
        relative = f"memory/archive/MEMORY-{format_instant(self.workspace.clock())}.md"
        self.workspace.fs.write_atomic(relative.replace(":", ""), memory)
        logger.warning(
            "MEMORY.md (%d chars) was longer than the consolidation request may carry; the "
            "model saw its first %d tokens, and the whole file is kept as %s",
            len(memory), self.memory_tokens, relative.replace(":", ""),
        )  # fmt: skip

    def _failed(self, watermark: int, fresh: list[DailyEntry], error: str) -> ConsolidationOutcome:
        line = f"Memory consolidation failed, watermark stays at {_show(watermark)}: {error}"
        logger.warning(line)
        return self._outcome("failed", watermark, watermark, len(fresh), line, error)

    def _rewrite(self, memory: str, fresh: list[DailyEntry], watermark: int) -> SummaryOutcome:
        """The model's new MEMORY.md, or why there is none (a failed call, a truncated or empty
        answer: the watermark stays, the next run redoes the batch)."""
        ledger = "\n\n".join(_entry_text(e) for e in fresh)
        room = self._room(memory, watermark)
        if len(ledger) > room:  # one entry larger than a request may carry: its head goes
            ledger = ledger[: max(room - len(ENTRY_CUT), 2_000)] + ENTRY_CUT
        user = self._user_head(memory, watermark) + ledger
        request = ChatRequest(
            messages=(Message.system(self._system()), Message.user(user)),
            max_tokens=self.max_tokens,
            purpose="consolidation",
        )
        return request_summary(
            self.model,
            request,
            cut="the model's MEMORY.md was cut off at max_tokens; not written",
            empty="the model returned an empty MEMORY.md; not written",
            call="the consolidation call",
        )

    def _system(self) -> str:
        return self.prompt.format(max_tokens=self.max_tokens, max_chars=self.max_tokens * 4)

    @staticmethod
    def _user_head(memory: str, watermark: int) -> str:
        since = f" (since {_show(watermark)})" if watermark != EPOCH else ""
        return f"Current MEMORY.md:\n{memory or '(empty)'}\n\nNew daily ledger entries{since}:\n"

    def _room(self, memory: str, watermark: int) -> int:
        """Characters left for the ledger in a request beside ``memory``."""
        fixed = len(self._system()) + len(self._user_head(memory, watermark))
        return int(self.max_request_tokens * CHARS_PER_TOKEN) - fixed

    def _outcome(
        self,
        status: Literal["skipped", "written", "failed"],
        before: int,
        after: int,
        entries: int,
        line: str,
        error: str | None = None,
    ) -> ConsolidationOutcome:
        chars = len(self.workspace.read_memory())
        return ConsolidationOutcome(
            status, format_instant(before), format_instant(after), entries, chars, line, error
        )


def _entry_text(entry: DailyEntry) -> str:
    return f"### {entry.file}\n{entry.header}\n{entry.text}"


def _merged(first: ConsolidationOutcome, later: ConsolidationOutcome) -> ConsolidationOutcome:
    """Two batches of one run as one outcome: from the first's watermark to the later's."""
    return dataclasses.replace(
        later,
        watermark_before=first.watermark_before,
        entries=first.entries + later.entries,
        status="written" if later.status == "skipped" else later.status,
    )


def _show(instant: int) -> str:
    # The article's log line shows the epoch as 1970-01-01T00:00:00Z.
    return "1970-01-01T00:00:00Z" if instant == EPOCH else format_instant(instant)


class MaintenanceSchedule:
    """Lets maintenance run at once the first time, then at most every ``min_gap_seconds``.

    A claim is used up even when the consolidation it allowed skipped or failed. Claims are
    thread-safe. :meth:`shared` gives every agent of one workspace user in this process the same
    schedule, as AgentScope's process-wide gate does, so a new session does not consolidate again
    within the gap.
    """

    _shared: ClassVar[dict[str, MaintenanceSchedule]] = {}
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, clock: NanoClock, min_gap_seconds: float = 30 * 60) -> None:
        self.clock = clock
        self.min_gap_ns = int(seconds("min_gap_seconds", min_gap_seconds, allow_zero=True) * 1e9)
        self._last_claim: int | None = None
        self._lock = threading.Lock()

    @classmethod
    def shared(
        cls, key: str, clock: NanoClock, min_gap_seconds: float = 30 * 60
    ) -> MaintenanceSchedule:
        """The process-wide schedule for ``key`` (a workspace user's folder), made on first use."""
        with cls._shared_lock:
            if key not in cls._shared:
                cls._shared[key] = cls(clock, min_gap_seconds)
            return cls._shared[key]

    def try_claim(self) -> bool:
        with self._lock:
            now = self.clock()
            if self._last_claim is not None and now - self._last_claim < self.min_gap_ns:
                return False
            self._last_claim = now
            return True
