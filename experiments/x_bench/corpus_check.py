"""What every generated X-BENCH conversation must satisfy, whichever split wrote it
(:mod:`experiments.x_bench.corpus` for ``tune``, :mod:`experiments.x_bench.heldout` for
``heldout``): the sizes, the error, and :func:`check_conversation` (each planted value only in its
own turn(s), the size within 10 % of its target).

A module of its own so the held-out package can use it without importing the corpus module,
which dispatches to that package (no import cycle).
"""

from __future__ import annotations

from experiments.x_bench.schema import Conversation
from experiments.x_bench.turns import conversation_text
from lab import ExperimentError

__all__ = ["LANGS", "SIZES", "CorpusError", "check_conversation"]

SIZES: dict[str, int] = {"2k": 2_000, "8k": 8_000, "24k": 24_000}
"""Target tokens of a conversation, per size (the generated one lands within 10 %)."""
LANGS: tuple[str, ...] = ("zh", "en")


class CorpusError(ExperimentError):
    """A conversation that cannot be generated as asked (an unknown size, a collision)."""


def check_conversation(conversation: Conversation) -> None:
    """Every planted value occurs in its own turn(s) only; the size is within 10 %."""
    texts = conversation_text(conversation.turns)
    for fact in conversation.facts:
        own = {fact.turn, fact.earlier_turn} - {None}
        for value in [*fact.values, *fact.reject]:
            at = {n for n, text in enumerate(texts) if value in text}
            if not at or not at <= own:
                raise CorpusError(
                    f"{conversation.id}: the value {value!r} of {fact.id} occurs in turns "
                    f"{sorted(at)}, not only in its own {sorted(own)}."  # type: ignore[type-var]
                )
    target = SIZES[conversation.size]
    if abs(conversation.tokens - target) > target / 10:
        raise CorpusError(f"{conversation.id}: {conversation.tokens} tokens, not about {target}.")
