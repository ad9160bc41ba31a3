"""ctxlab's source check: the lines of a summary that name an identifier found nowhere in what
was compacted are dropped.

A small model asked to summarise sometimes writes values that were never said. X-BENCH recorded
``qwen2.5-coder-0.5b-instruct`` on a 24K English conversation answering with a made-up
transcript under ``## NEXT STEPS`` (``Human: Pull the job log for batch B3623``, where the
conversation had ``B3621`` and ``B3626``) and log lines with timestamps no tool returned. Kept,
such a line is carried into every later compaction as if it were a fact, and it is the wrong
one of two near-identical ids that a later answer then quotes.

:func:`drop_unsourced` removes, from the model's text, every line holding an identifier (the
gate's shapes: :func:`~harness.compaction.guards.gate_identifiers.extract_identifiers`, read as
what a user or assistant said) that is not, character for character, in any message of the
context being compacted (system, span and tail, tool calls' arguments included). The gate then
sees the summary without those lines, and appends the exact values of the span the summary no
longer holds, so a true value written in another form (``1200`` for ``1,200``) is lost from
the text but kept by the gate. What is left keeps its order and its words; a summary with
nothing left is the empty string (ctxlab's compactor puts :data:`UNSOURCED_ONLY` in its
place). Deterministic, no model call. Off in the seed profiles; on in
:func:`harness.compaction.agentscope.ctxlab_profile` (``CompactionConfig.drop_unsourced``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from harness.compaction.guards.gate_identifiers import extract_identifiers
from harness.messages import Message

__all__ = ["UNSOURCED_ONLY", "Unsourced", "drop_unsourced", "source_text"]

UNSOURCED_ONLY = "(Every line of the summary named a value its span never had; it was left out.)"
"""What replaces a summary whose every line was dropped."""


@dataclass(frozen=True)
class Unsourced:
    """What :func:`drop_unsourced` made of a summary."""

    text: str
    """The summary without the lines naming an unsourced identifier (empty when nothing else
    was in it)."""
    dropped: int
    """Lines removed."""
    values: tuple[str, ...]
    """The unsourced identifiers, in order of first appearance, each once."""


def source_text(messages: Sequence[Message]) -> str:
    """Everything the compacted context says: each message's content and each tool call's
    name and arguments, one per line."""
    parts: list[str] = []
    for message in messages:
        parts.append(message.content)
        parts.extend(f"{call.name}\n{call.arguments}" for call in message.tool_calls)
    return "\n".join(parts)


def drop_unsourced(text: str, source: str) -> Unsourced:
    """``text`` without the lines naming an identifier that ``source`` does not hold (see the
    module docstring)."""
    kept: list[str] = []
    values: dict[str, None] = {}
    dropped = 0
    for line in text.split("\n"):
        missing = [i.text for i in extract_identifiers([(line, True)]) if i.text not in source]
        if missing:
            values.update(dict.fromkeys(missing))
            dropped += 1
        else:
            kept.append(line)
    if not dropped:
        return Unsourced(text, 0, ())
    result = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    return Unsourced(result, dropped, tuple(values))
