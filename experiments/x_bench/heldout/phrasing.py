"""The shapes the held-out split's words come in: a :class:`Phrasing` (who says a fact, how, and
the probe's question for it), a language's :class:`Filler` (the talk around the facts) and its
:class:`Language` (everything one language's conversations are written from).

Written apart from ctxlab's profile and gate, as people talk: facts said in passing inside a
sentence about something else, by the user or the assistant, corrections, roles instead of
labels. Nothing in ``harness/`` or the profile's tests reads this package (a layout test checks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = ["Decision", "Filler", "Language", "Phrasing", "Rule"]

Speaker = Literal["user", "assistant"]


@dataclass(frozen=True)
class Phrasing:
    """One way to say a fact: ``text`` has ``{value}`` (and the kind's other slots), ``speaker``
    says it, ``question`` asks for it in the probe (it may name ``{area}`` or ``{subject}``)."""

    speaker: Speaker
    text: str
    question: str = ""


@dataclass(frozen=True)
class Decision:
    """A choice between two options, with its reason; ``key`` is the reason's words a correct
    answer must hold (they occur verbatim in ``reason``)."""

    area: str
    choice: str
    alt: str
    reason: str
    key: str


@dataclass(frozen=True)
class Rule:
    """Something that must not be done: ``action`` is said verbatim in every phrasing (what must
    survive), ``key`` its word a correct answer holds."""

    action: str
    key: str


@dataclass(frozen=True)
class Filler:
    """The talk between the facts: chat (asks about topics, answers from sentences), tool
    lookups of open tickets (tools shape only), and the continuation's short exchanges."""

    topics: tuple[str, ...]
    asks: tuple[str, ...]
    openers: tuple[str, ...]
    sentences: tuple[str, ...]
    acks: tuple[str, ...]
    components: tuple[str, ...]
    ticket_titles: tuple[str, ...]
    ticket_states: tuple[str, ...]
    owners: tuple[str, ...]
    tool_asks: tuple[str, ...]
    tool_replies: tuple[str, ...]
    continuation: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Language:
    """Everything one language's held-out conversations are written from."""

    joiner: str
    system: str
    chat_system: str
    """The system prompt of a ``chat`` conversation (no tool to name)."""
    tool_description: str
    abstain_markers: tuple[str, ...]
    facts: Mapping[str, tuple[Phrasing, ...]]
    """Per fact family: ``id``, ``path``, ``url``, ``amount``, ``name``, ``code_word``,
    ``decision``, ``constraint``, ``update_old``, ``update``, ``near_duplicate``, and
    ``tool_only`` (the records a tool returns, ``{subject}`` and ``{value}`` in them)."""
    names: tuple[str, ...]
    code_words: tuple[str, ...]
    rooms: tuple[str, ...]
    decisions: tuple[Decision, ...]
    rules: tuple[Rule, ...]
    abstentions: tuple[str, ...]
    tool_requests: tuple[str, ...]
    tool_replies: tuple[str, ...]
    filler: Filler
