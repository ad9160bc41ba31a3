"""A backlog summarised in chunks that fit the window (ctxlab's own; neither seed has it).

AgentScope 2.0.3 sends the whole prefix in one summary call. A reopened session of 100,000
messages makes that one request of millions of characters, which no model accepts; the call
fails, fail-open compacts with the ``(Summary unavailable)`` placeholder, and the backlog
leaves the context with no summary at all. With ``CompactionConfig.summary_chunk_tokens`` set
(ctxlab's profile sets it), a prefix whose transcript is longer is summarised in consecutive
chunks, oldest first, each call carrying the running summary (as an earlier summary the prompt
merges) and the next chunk. A chunk whose call fails stops the compaction with a
:class:`~harness.errors.SummaryError`, whatever the summary policy, so the history stays as it
was: a backlog is never dropped without its summary.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence

from harness.compaction.agentscope.summary import build_summary_message, render_transcript
from harness.compaction.agentscope.summary import summarize as summarize_once
from harness.messages import Message
from harness.meter.pricers import CHARS_PER_TOKEN
from harness.model import ChatModel
from harness.summary_outcome import SummaryOutcome

__all__ = ["needs_chunks", "prefix_chunks", "summarize_in_chunks"]

logger = logging.getLogger("harness.compaction")

CUT_NOTE = "... (message cut: longer than one summary request may carry)"


def needs_chunks(prefix: Sequence[Message], chunk_tokens: int | None) -> bool:
    """Whether ``prefix`` is too long for one summary call of ``chunk_tokens``."""
    return chunk_tokens is not None and len(render_transcript(prefix)) > _chars(chunk_tokens)


def prefix_chunks(prefix: Sequence[Message], chunk_tokens: int) -> list[list[Message]]:
    """``prefix`` in consecutive runs whose transcript fits ``chunk_tokens``; a message too long
    on its own is cut to fit (its head kept). Every message is in exactly one run."""
    limit = _chars(chunk_tokens)
    chunks: list[list[Message]] = []
    current: list[Message] = []
    size = 0
    for message in prefix:
        length = len(render_transcript([message]))
        if length > limit:
            keep = max(1, limit - len(CUT_NOTE) - 16)
            message = dataclasses.replace(message, content=message.content[:keep] + CUT_NOTE)
            length = len(render_transcript([message]))
        if current and size + 2 + length > limit:
            chunks.append(current)
            current, size = [], 0
        current.append(message)
        size += length + 2
    if current:
        chunks.append(current)
    return chunks


def summarize_in_chunks(
    model: ChatModel,
    prefix: Sequence[Message],
    prompt: str | None,
    chunk_tokens: int,
    max_tokens: int | None = None,
) -> SummaryOutcome:
    """One summary of ``prefix`` from a rolling summary over its chunks (see the module
    docstring), each call sending ``max_tokens`` when given; raises SummaryError when a chunk's
    call fails."""
    chunks = prefix_chunks(prefix, chunk_tokens)
    logger.info("Summarising a backlog of %d messages in %d chunks", len(prefix), len(chunks))
    running: SummaryOutcome | None = None
    for chunk in chunks:
        carried = [build_summary_message(running.text)] if running is not None else []
        messages = [*carried, *chunk]
        running = summarize_once(model, messages, prompt, "fail-closed", max_tokens=max_tokens)
    assert running is not None  # a prefix to compact is never empty
    return running


def _chars(tokens: int) -> int:
    return int(tokens * CHARS_PER_TOKEN)
