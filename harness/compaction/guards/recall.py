"""ctxlab's recall: the turns a compaction replaced come back, verbatim, when the user asks.

A compaction replaces a span by its summary, but the originals are not gone: the event log and
the state store's transcript keep every message (:meth:`History.originals`), and the engine keeps
the spans it compacted itself (:class:`ShadowedSpans`) for a store that keeps none. Before each
request the recall ranks the **shadowed** originals (those whose text is no longer anywhere in the
context: a pinned or still-kept turn is never recalled) against the newest user message with the
history search's BM25 (:func:`harness.text_search.rank_lines`; no model call), and puts the best
``top_k`` that fit ``budget_tokens`` in one clearly labelled reference message after the system
prompt (never stored in the history). What was recalled is a :class:`RecallRecord`, on the
request's :class:`~harness.results.RequestRecord`.

Off (None) in every seed profile and in :func:`~harness.compaction.agentscope.ctxlab_profile`;
X-BENCH measures it as ``ctxlab-recall``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from harness.errors import ConfigError
from harness.messages import CHECKPOINT_NAME, SUMMARY_NAME, Message
from harness.text_search import LineIndex, SearchHit, SearchLine, rank_lines

__all__ = [
    "RECALL_HEADING",
    "RECALL_NAME",
    "RecallConfig",
    "RecallRecord",
    "ShadowedSpans",
    "candidate_lines",
    "pieces_of",
    "recall",
    "recall_message",
    "said",
    "shadowed",
]

RECALL_NAME = "__recall__"
"""The ``name`` of the reference message holding recalled turns."""
RECALL_HEADING = "Recalled verbatim from earlier in this conversation (newer messages win):"
"""The reference message's first line (short: it is paid at every request that recalls)."""
_ROLES = {"user": "User", "assistant": "Assistant", "tool": "Tool"}


@dataclass(frozen=True)
class RecallConfig:
    """The recall's switch (``CompactionConfig.recall``)."""

    budget_tokens: int = 200
    """The most the reference message may cost, priced by the engine's meter."""
    top_k: int = 3
    """At most this many recalled messages per request."""

    def __post_init__(self) -> None:
        for name in ("budget_tokens", "top_k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(
                    f"invalid RecallConfig: {name} must be a whole number of at least 1, "
                    f"not {value!r}"
                )


@dataclass(frozen=True)
class RecallRecord:
    """What one request recalled (read it on ``RequestRecord.recall``)."""

    query: str
    recalled: tuple[str, ...]
    """The recalled messages' texts, verbatim, in the order shown."""
    shadowed: int
    """How many shadowed originals were searched."""
    budget_tokens: int
    tokens: int
    """What the reference message costs (0 when nothing was recalled)."""

    def to_record(self) -> dict[str, object]:
        return {
            "query": self.query,
            "recalled": list(self.recalled),
            "shadowed": self.shadowed,
            "budget_tokens": self.budget_tokens,
            "tokens": self.tokens,
        }


@dataclass
class ShadowedSpans:
    """The originals of the spans an engine compacted, kept in memory (for a store that keeps
    none: a state history without a transcript)."""

    messages: list[Message] = field(default_factory=list)

    def keep(self, span: Sequence[Message]) -> None:
        self.messages += [m for m in span if m.content and m.name is None]


def said(message: Message) -> bool:
    """A message of the conversation (not a summary, a checkpoint or reference material)."""
    return bool(message.content.strip()) and message.name not in (
        SUMMARY_NAME,
        CHECKPOINT_NAME,
        RECALL_NAME,
    )


_PIECE_END = re.compile(r"(?<=[。！？!?；;\n])|(?<=[.])\s+")
"""Where a too-long original is cut into pieces: sentence punctuation and line ends."""


def shadowed(
    originals: Sequence[Message],
    context: Sequence[Message],
    fits: Callable[[str], bool] = lambda _: True,
) -> list[Message]:
    """The originals whose text is nowhere in ``context`` any more, each text once, in order;
    one that does not ``fit`` the recall's budget whole, as its sentences and lines (each
    verbatim, those still in the context left out)."""
    seen = "\n".join(m.content for m in context)
    texts: dict[str, Message] = {}
    for message in originals:
        if not said(message) or message.content in seen:
            continue
        pieces = [message.content] if fits(message.content) else pieces_of(message.content)
        for piece in pieces:
            if piece not in seen:
                texts.setdefault(piece, replace(message, content=piece))
    return list(texts.values())


def pieces_of(text: str) -> list[str]:
    """The sentences and lines of ``text``, each stripped (a too-long original's pieces)."""
    return [part.strip() for part in _PIECE_END.split(text) if part.strip()]


def _shown(message: Message) -> str:
    return f"[{_ROLES.get(message.role, message.role)}] {message.content}"


def recall_message(items: Sequence[Message]) -> Message:
    """The reference message for ``items``."""
    return Message.user("\n\n".join([RECALL_HEADING, *map(_shown, items)]), name=RECALL_NAME)


def candidate_lines(candidates: Sequence[Message], start: int = 0) -> list[SearchLine]:
    """The candidates as the search ranks them (numbered from ``start``: those after the first
    ``start`` candidates)."""
    return [SearchLine("shadowed", n, m.content) for n, m in enumerate(candidates, start)]


def recall(
    config: RecallConfig,
    candidates: Sequence[Message],
    query: str,
    price: Callable[[Message], int],
    index: LineIndex | None = None,
) -> tuple[Message | None, RecallRecord]:
    """The best ``top_k`` of ``candidates`` (shadowed originals) for ``query`` that fit the
    budget together, as one reference message (None: nothing matched or fitted); ``index``,
    when given, holds the candidates' texts as :func:`candidate_lines` gives them."""
    hits: Iterable[SearchHit]
    if not query.strip():
        hits = []
    elif index is not None:
        hits = index.ranked(query)  # read only as far as the chosen need
    else:
        lines = candidate_lines(candidates)
        hits = rank_lines(lines, query, limit=len(lines))
    chosen: list[Message] = []
    for hit in hits:
        if len(chosen) == config.top_k:
            break
        trial = [*chosen, candidates[hit.line]]
        if price(recall_message(trial)) <= config.budget_tokens:
            chosen = trial
    message = recall_message(chosen) if chosen else None
    tokens = price(message) if message is not None else 0
    texts = tuple(m.content for m in chosen)
    return message, RecallRecord(query, texts, len(candidates), config.budget_tokens, tokens)
