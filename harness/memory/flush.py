"""The memory flush: after a call, a model extracts facts worth keeping into today's ledger.

It needs no tool call from the main model and never touches MEMORY.md. A reply of exactly
``NO_REPLY`` (or nothing) writes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from harness.errors import ConfigError
from harness.memory.clock import NanoClock, utc_date
from harness.memory.injection import cut_memory
from harness.memory.render import clip_tail, render_chunks, render_conversation
from harness.memory.workspace import DailyEntry, MemoryWorkspace
from harness.messages import Message
from harness.meter.pricers import CHARS_PER_TOKEN
from harness.model import ChatModel, ChatRequest
from harness.secrets import redact_for_storage
from harness.validation import count, seconds

__all__ = ["DEFAULT_FLUSH_PROMPT", "NO_REPLY", "FlushPolicy", "MemoryFlusher"]

logger = logging.getLogger("harness.memory")

NO_REPLY = "NO_REPLY"
WINDOW_HEAD = "Extract NEW memories from this conversation window:\n"
LEDGER_CUT = "... (older entries of today's ledger left out) ..."
MIN_CHUNK_CHARS = 2_000
"""A conversation chunk is never smaller, however much MEMORY.md and the ledger take."""

DEFAULT_FLUSH_PROMPT = """\
You extract long-term memories from a conversation window. Write a markdown bullet list of \
concise, self-contained facts worth remembering in later sessions: the user's preferences and \
standing rules, personal or company information, decisions with their reasons, commitments and \
deadlines, who works on what. Keep names, codes, numbers and places exactly as written. Leave out \
greetings, tool noise and status chatter, and do not invent anything the conversation does not say.

Your output is appended to today's append-only ledger, not to MEMORY.md. Do not restate what \
MEMORY.md or today's ledger already hold.

If nothing in the window is worth keeping, answer exactly NO_REPLY."""


@dataclass(frozen=True)
class FlushPolicy:
    """When the after-call flush runs: ``always`` (default), ``never``, or ``throttled``."""

    mode: Literal["always", "never", "throttled"] = "always"
    interval_seconds: float = 0.0
    """With ``throttled``: at least this long between two flushes."""

    def __post_init__(self) -> None:
        if self.mode not in ("always", "never", "throttled"):
            raise ConfigError(f"unknown flush policy {self.mode!r}")
        throttled = self.mode == "throttled"
        try:
            seconds("FlushPolicy interval_seconds", self.interval_seconds, allow_zero=not throttled)
        except ConfigError as exc:
            why = "a throttled flush needs a positive interval: " if throttled else ""
            raise ConfigError(f"{why}{exc}") from None

    @classmethod
    def always(cls) -> FlushPolicy:
        return cls("always")

    @classmethod
    def never(cls) -> FlushPolicy:
        return cls("never")

    @classmethod
    def throttled(cls, interval_seconds: float) -> FlushPolicy:
        return cls("throttled", interval_seconds)


class MemoryFlusher:
    """Runs flushes for one workspace, applying the policy to after-call flushes."""

    def __init__(
        self,
        model: ChatModel,
        workspace: MemoryWorkspace,
        policy: FlushPolicy | None = None,
        prompt: str = DEFAULT_FLUSH_PROMPT,
        *,
        memory_tokens: int = 8_000,
        max_request_tokens: int = 20_000,
    ) -> None:
        self.model = model
        self.workspace = workspace
        self.policy = policy or FlushPolicy.always()
        self.prompt = prompt
        self.memory_tokens = count("flush memory_tokens", memory_tokens)
        """MEMORY.md and today's ledger are each cut to this in a flush request."""
        self.max_request_tokens = count("flush max_request_tokens", max_request_tokens)
        """No flush request is larger (estimated); a longer conversation goes in chunks."""
        self._last_flush: int | None = None

    def after_call(self, messages: Sequence[Message]) -> DailyEntry | None:
        """The per-call flush, subject to the policy."""
        if not self._due(self.workspace.clock):
            return None
        return self.flush(messages)

    def flush(self, messages: Sequence[Message]) -> DailyEntry | None:
        """Extract facts from ``messages`` into today's ledger now (pre-compaction flushes
        ignore the policy); None when there was nothing to write.

        Every request stays within ``max_request_tokens``: MEMORY.md in it is cut at
        ``memory_tokens`` as injection cuts it, today's ledger keeps its newest part, and a
        conversation too long for what is left goes in consecutive chunks, one request (and
        one ledger entry) each, oldest first; a backlog is never sent whole."""
        if not render_conversation(messages):
            return None
        self._last_flush = self.workspace.clock()
        context = self._context()
        fixed = len(self.prompt) + len(context) + len(WINDOW_HEAD) + 2
        room = int(self.max_request_tokens * CHARS_PER_TOKEN) - fixed
        written = None
        for chunk in render_chunks(messages, max(room, MIN_CHUNK_CHARS)):
            written = self._flush_chunk(context, chunk) or written
        return written

    def _flush_chunk(self, context: str, conversation: str) -> DailyEntry | None:
        window = f"{WINDOW_HEAD}{conversation}"
        request = ChatRequest(
            messages=(
                Message.system(self.prompt),
                Message.user("\n\n".join(p for p in (context, window) if p)),
            ),
            purpose="flush",
        )
        reply = self.model.complete(request).message.content.strip()
        if not reply or reply == NO_REPLY:
            logger.info("Memory flush: nothing worth keeping (NO_REPLY)")
            return None
        # A key the user typed must not reach the ledger: the reply is scanned like a cassette.
        reply = redact_for_storage(reply, "a memory flush")
        # A reply that copies a tool result verbatim is written with its header-like lines and
        # memory-frame tags escaped (the workspace does it for every writer).
        return self.workspace.append_entry("Memory Flush", reply)

    def _due(self, clock: NanoClock) -> bool:
        if self.policy.mode == "never":
            return False
        if self.policy.mode == "always" or self._last_flush is None:
            return True
        return clock() - self._last_flush >= self.policy.interval_seconds * 1e9

    def _context(self) -> str:
        """MEMORY.md (cut as injection cuts it) and today's ledger (its newest part)."""
        parts = []
        memory = self.workspace.read_memory()
        if memory:
            memory = cut_memory(memory, self.memory_tokens)
            parts.append(f"MEMORY.md (read-only curated memory; do NOT restate):\n{memory}")
        today = [e for e in self.workspace.entries() if e.file == self._today_file()]
        if today:
            ledger = "\n\n".join(f"{e.header}\n{e.text}" for e in today)
            ledger = clip_tail(ledger, int(self.memory_tokens * CHARS_PER_TOKEN), LEDGER_CUT)
            parts.append(f"Today's ledger so far (your output is appended after it):\n{ledger}")
        return "\n\n".join(parts)

    def _today_file(self) -> str:
        return f"memory/{utc_date(self.workspace.clock())}.md"
