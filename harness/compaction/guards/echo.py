"""ctxlab's echo filter: the lines of a summary that only repeat its own instructions are dropped.

A small model asked for a sectioned summary often answers with the sections' instructions
themselves: X-BENCH recorded ``qwen2.5-coder-0.5b-instruct`` answering ``## SESSION INTENT`` /
``The user's primary goal.`` / ``## SUMMARY`` / ``Important context, decisions with their
reasons, …`` word for word, with no fact of the span in it, in compaction after compaction.
Kept, such a summary costs a third of the summary budget (:mod:`harness.compaction.guards.budget`)
and carries nothing; the gate's exact values are then what is cut.

:func:`strip_echo` removes, from the model's text:

* every line that is, whitespace and case aside, a line of the prompt's instructions (the
  prompt before the line of its ``{messages}`` placeholder), or the gate's note
  (:data:`~harness.compaction.guards.gate.GATE_NOTE`, which a model copies from an earlier
  summary in its span, often without the items under it);
* then every markdown section left with nothing under its heading but blanks or ``None``.

What is left keeps its order and its words; a heading stays when anything is under it. A
summary with nothing left is the empty string (ctxlab's compactor puts :data:`ECHO_ONLY` in its
place). Deterministic, no model call. Off in the seed profiles; on in
:func:`harness.compaction.agentscope.ctxlab_profile` (``CompactionConfig.strip_echo``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.compaction.guards.gate import GATE_HEADING, GATE_NOTE

__all__ = ["ECHO_ONLY", "Echo", "strip_echo"]

ECHO_ONLY = "(The summary only repeated its instructions; it was left out.)"
"""What replaces a summary that had nothing but echoed lines in it."""

_SPACE = re.compile(r"\s+")
_HEADING = re.compile(r"#{1,6}\s")
_EMPTY_BODY = frozenset({"", "none", "none.", "n/a", "无", "无。"})


@dataclass(frozen=True)
class Echo:
    """What :func:`strip_echo` made of a summary."""

    text: str
    """The summary without its echoed lines (empty when nothing else was in it)."""
    dropped: int
    """Lines removed: echoed instructions and headings left empty."""


def _key(line: str) -> str:
    return _SPACE.sub(" ", line).strip().casefold()


def _is_heading(line: str) -> bool:
    return _HEADING.match(line.lstrip()) is not None


def _instruction_lines(prompt: str) -> frozenset[str]:
    """The prompt's own lines before its ``{messages}`` placeholder (blank lines and the line
    of the placeholder aside), and the gate's note."""
    head = prompt.split("{messages}", 1)[0].splitlines()[:-1] if "{messages}" in prompt else []
    keys = {_key(line) for line in head} | {_key(GATE_HEADING), _key(GATE_NOTE)}
    keys.discard("")
    return frozenset(keys)


def _sections(lines: list[str]) -> list[list[str]]:
    """``lines`` cut before each markdown heading (the first part may have none)."""
    parts: list[list[str]] = [[]]
    for line in lines:
        if _is_heading(line) and parts[-1]:
            parts.append([])
        parts[-1].append(line)
    return parts


def _kept_section(section: list[str], instructions: frozenset[str]) -> list[str]:
    """The section without its echoed lines; nothing when no line but its heading and
    ``None`` is left."""
    heading = section[:1] if _is_heading(section[0]) else []
    body = [line for line in section[len(heading) :] if _key(line) not in instructions]
    if all(_key(line) in _EMPTY_BODY for line in body):
        return []
    return heading + body


def strip_echo(text: str, prompt: str) -> Echo:
    """``text`` without the lines that repeat ``prompt``'s instructions and the sections left
    empty (see the module docstring)."""
    instructions = _instruction_lines(prompt)
    lines = text.strip().split("\n")
    kept = [line for s in _sections(lines) if s for line in _kept_section(s, instructions)]
    result = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    dropped = sum(bool(line.strip()) for line in lines) - sum(
        bool(line.strip()) for line in result.split("\n")
    )
    return Echo(result, dropped)
