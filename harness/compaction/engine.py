"""Compaction engines as the agent loop sees them: a check before every model request, and a
recovery step after a context-length error.

* :class:`~harness.compaction.agentscope.engine.AgentScopeEngine` — AgentScope 2.0.3's
  semantics (:mod:`harness.compaction.agentscope`) over any
  :class:`harness.store.history.History`: the compactor's plan, then the **memory flush** and
  the prefix record, then the summary, at one call site;
* :class:`~harness.compaction.dsh.engine.DshEngine` — DeepSeek-Harness's
  (:mod:`harness.compaction.dsh`), which needs the event-log history because a compaction is a
  transaction on the log; it implements :class:`CompactionEngine` itself.

The loop gives an engine one :class:`Turn` per model call: the request's header (system prompt,
reference material, tools), built once, and the full request, built from it and the history's
messages once, to be sent (httpx's "build once, send as-is").

Build either with :func:`harness.compaction.factory.make_engine`, which refuses the
combinations an engine cannot honour. This module imports neither engine, so that importing
the protocol never loads one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Protocol

from harness.compaction.record import CompactionRecord
from harness.messages import Message
from harness.meter import Reading, TokenMeter
from harness.model import ChatRequest, Usage
from harness.store.history import History

__all__ = ["CompactionEngine", "Turn"]


@dataclass(frozen=True)
class Turn:
    """One model call as the engines see it, built once by the loop."""

    header: ChatRequest
    """The request without the history: system prompt, reference material, tools, options."""
    request: ChatRequest
    """The whole request (the header's messages, then the history's), sent as it is."""
    source: Sequence[Message] | None = field(default=None, compare=False, repr=False)
    """The store's live list the history was read from, when it promises to only grow at its
    end, every other change giving a new list (``message_view``, :mod:`harness.store.protocol`);
    None otherwise. The engines' ledgers then know in O(1) that the history only grew
    (:class:`harness.meter.Ledger`). Not part of the turn's value: two turns with the same
    header and request are equal wherever their history was read from."""

    @classmethod
    def of(
        cls,
        header: ChatRequest,
        history: Iterable[Message],
        *,
        source: Sequence[Message] | None = None,
    ) -> Turn:
        """The turn of ``history`` under ``header``: the history is copied once, into the
        request (a long history's every copy touches each message, and again when freed).
        ``source``: the live list ``history`` is, if it only grows (see :attr:`source`)."""
        messages = (*header.messages, *history)
        if type(header) is not ChatRequest:
            return cls(header, replace(header, messages=messages), source)
        request = object.__new__(ChatRequest)  # what ``replace`` gives (no __post_init__),
        request.__dict__.update(header.__dict__, messages=messages)  # without its field walk
        return cls(header, request, source)

    @classmethod
    def of_history(cls, header: ChatRequest, history: History) -> Turn:
        """The turn the agent loop builds: from the store's live list when it offers one
        (``message_view``, the turn's :attr:`source`), else from a copy of its messages."""
        view = getattr(history, "message_view", None)
        if view is None:
            return cls.of(header, history.messages())
        live = view()  # read at once; it only grows, or is a new list (harness.store.protocol)
        return cls.of(header, live, source=live)

    @property
    def start(self) -> int:
        """Where the history starts in ``request.messages``."""
        return len(self.header.messages)

    @cached_property
    def messages(self) -> tuple[Message, ...]:
        """The history's messages, in order (copied out of the request when first asked for:
        an engine reads ``request.messages`` from :attr:`start` instead)."""
        return self.request.messages[self.start :]

    @property
    def history(self) -> Sequence[Message]:
        """The history's messages without a copy where the turn has its :attr:`source` (the
        store's live list: read it at once, never keep or change it), else :attr:`messages`."""
        return self.source if self.source is not None else self.messages


class CompactionEngine(Protocol):
    """What the agent asks of a compaction engine."""

    def before_request(self, history: History, turn: Turn) -> list[CompactionRecord]:
        """Compact if needed before ``turn`` (built from the current history) is sent."""
        ...

    def on_overflow(self, history: History, turn: Turn) -> list[CompactionRecord]:
        """Compact after the server said ``turn``'s request was too long; [] means no
        progress."""
        ...

    def observe(self, history: History, turn: Turn, usage: Usage | None) -> Reading:
        """``turn`` was answered with ``usage``: anchor the meter on it; returns the meter's
        reading of the request."""
        ...

    @property
    def meter(self) -> TokenMeter:
        """The token meter that prices this engine's checks and events."""
        ...

    @property
    def max_overflow_retries(self) -> int:
        """How many overflow retries are allowed before the count starts again."""
        ...

    @property
    def overflow_retries_reset_on_reply(self) -> bool:
        """True when the count starts again once an assistant message lands (dsh); False when
        it holds for the whole call (AgentScope's one retry per execution)."""
        ...
