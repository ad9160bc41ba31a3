"""ctxlab's echo filter: the lines of a summary that only repeat its own instructions are dropped.

A small model asked for a sectioned summary often answers with the sections' instructions
themselves: X-BENCH recorded ``qwen2.5-coder-0.5b-instruct`` answering ``## SESSION INTENT`` /
``The user's primary goal.`` / ``## SUMMARY`` / ``Important context, decisions with their
reasons, …`` word for word, with no fact of the span in it, in compaction after compaction.
Kept, such a summary costs a third of the summary budget (:mod:`harness.compaction.guards.budget`)
and carries nothing; the gate's exact values are then what is cut.

:func:`strip_echo` removes, from the model's text:

* every line that is, whitespace and case aside, a line of the prompt's instructions (the
  prompt before the line of its ``{messages}`` placeholder), a markup tag right around the
  placeholder (``<messages>``, ``</messages>``), or the gate's note
  (:data:`~harness.compaction.guards.gate.GATE_NOTE`, which a model copies from an earlier
  summary in its span, often without the items under it);
* every line of the transcript copied as the summariser read it: a line that starts with one
  of the transcript's role prefixes (``Human:``, ``AI:``, ``Tool:``), or is the summary
  message's own preface (``Here is a summary of the conversation to date:``). X-BENCH
  recorded the 0.5B Qwen answering 28 of its 76 summary calls with such copies (a made-up
  ``<messages>`` block nesting the previous summary, whole ``Human:`` / ``AI:`` turns), about
  300 tokens each; the facts in them are the span's, which the gate keeps verbatim;
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


_TAG = re.compile(r"</?[\w-]+>")


def _instruction_lines(prompt: str, preface: str) -> frozenset[str]:
    """The prompt's own lines before its ``{messages}`` placeholder (blank lines and the line
    of the placeholder aside), the markup tags right around the placeholder (``<messages>``,
    ``</messages>``), the gate's note and the summary message's ``preface``."""
    keys = {_key(GATE_HEADING), _key(GATE_NOTE), _key(preface)}
    if "{messages}" in prompt:
        head, tail = prompt.split("{messages}", 1)
        before, after = head.splitlines(), tail.splitlines()
        keys |= {_key(line) for line in before[:-1]}
        around = [line.strip() for line in before[-1:] + [a for a in after if a.strip()][:1]]
        keys |= {_key(line) for line in around if _TAG.fullmatch(line)}
    keys.discard("")
    return frozenset(keys)


def _copied(line: str, roles: tuple[str, ...]) -> bool:
    """True when ``line`` starts like a line of the transcript (``Human: …``)."""
    return line.lstrip().startswith(roles)


def _sections(lines: list[str]) -> list[list[str]]:
    """``lines`` cut before each markdown heading (the first part may have none)."""
    parts: list[list[str]] = [[]]
    for line in lines:
        if _is_heading(line) and parts[-1]:
            parts.append([])
        parts[-1].append(line)
    return parts


def _kept_section(
    section: list[str], instructions: frozenset[str], roles: tuple[str, ...]
) -> list[str]:
    """The section without its echoed lines; nothing when no line but its heading and
    ``None`` is left."""
    heading = section[:1] if _is_heading(section[0]) else []
    body = [
        line
        for line in section[len(heading) :]
        if _key(line) not in instructions and not _copied(line, roles)
    ]
    if all(_key(line) in _EMPTY_BODY for line in body):
        return []
    return heading + body


def strip_echo(text: str, prompt: str, *, roles: tuple[str, ...] = (), preface: str = "") -> Echo:
    """``text`` without the lines that repeat ``prompt``'s instructions or wrapper, copy a
    transcript line (one starting with one of ``roles``) or the summary message's
    ``preface``, and the sections left empty (see the module docstring)."""
    instructions = _instruction_lines(prompt, preface)
    lines = text.strip().split("\n")
    kept = [line for s in _sections(lines) if s for line in _kept_section(s, instructions, roles)]
    result = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    dropped = sum(bool(line.strip()) for line in lines) - sum(
        bool(line.strip()) for line in result.split("\n")
    )
    return Echo(result, dropped)
