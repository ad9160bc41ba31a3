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
from harness.memory.render import render_conversation
from harness.memory.workspace import DailyEntry, MemoryWorkspace
from harness.messages import Message
from harness.model import ChatModel, ChatRequest
from harness.secrets import redact_for_storage
from harness.validation import seconds

__all__ = ["DEFAULT_FLUSH_PROMPT", "NO_REPLY", "FlushPolicy", "MemoryFlusher"]

logger = logging.getLogger("harness.memory")

NO_REPLY = "NO_REPLY"

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
    ) -> None:
        self.model = model
        self.workspace = workspace
        self.policy = policy or FlushPolicy.always()
        self.prompt = prompt
        self._last_flush: int | None = None

    def after_call(self, messages: Sequence[Message]) -> DailyEntry | None:
        """The per-call flush, subject to the policy."""
        if not self._due(self.workspace.clock):
            return None
        return self.flush(messages)

    def flush(self, messages: Sequence[Message]) -> DailyEntry | None:
        """Extract facts from ``messages`` into today's ledger now (pre-compaction flushes
        ignore the policy); None when there was nothing to write."""
        conversation = render_conversation(messages)
        if not conversation:
            return None
        self._last_flush = self.workspace.clock()
        request = ChatRequest(
            messages=(Message.system(self.prompt), Message.user(self._input(conversation))),
            purpose="flush",
        )
        reply = self.model.complete(request).message.content.strip()
        if not reply or reply == NO_REPLY:
            logger.info("Memory flush: nothing worth keeping (NO_REPLY)")
            return None
        # A key the user typed must not reach the ledger: the reply is scanned like a cassette.
        reply = redact_for_storage(reply, "a memory flush")
        return self.workspace.append_entry("Memory Flush", reply)

    def _due(self, clock: NanoClock) -> bool:
        if self.policy.mode == "never":
            return False
        if self.policy.mode == "always" or self._last_flush is None:
            return True
        return clock() - self._last_flush >= self.policy.interval_seconds * 1e9

    def _input(self, conversation: str) -> str:
        parts = []
        memory = self.workspace.read_memory()
        if memory:
            parts.append(f"MEMORY.md (read-only curated memory; do NOT restate):\n{memory}")
        today = [e for e in self.workspace.entries() if e.file == self._today_file()]
        if today:
            ledger = "\n\n".join(f"{e.header}\n{e.text}" for e in today)
            parts.append(f"Today's ledger so far (your output is appended after it):\n{ledger}")
        parts.append(f"Extract NEW memories from this conversation window:\n{conversation}")
        return "\n\n".join(parts)

    def _today_file(self) -> str:
        return f"memory/{utc_date(self.workspace.clock())}.md"
