"""ctxlab's pin: what the user said in a compacted span is kept verbatim, by role and recency.

The identifier gate (:mod:`harness.compaction.guards.gate`) keeps values of a known shape, and
its definitions look for how a fact is worded; the pin looks at neither. It keeps the user's own
turns (rules, decisions, names: whatever they said), whole and verbatim, in a section of the
summary message, within a share of the compaction's room (:func:`pin_budget`):

* **candidates** — the user turns of the span (a summary message is not one; a turn longer than
  :attr:`PinConfig.max_item_tokens`, as its sentences, split at punctuation) and the items of an
  earlier pinned section the span holds (a later compaction reads them back, so a pinned turn
  stays pinned while nothing replaces it);
* **supersession** — mechanical, no model: a candidate is superseded when a later user turn
  (of the span or of the kept tail) holds at least :attr:`PinConfig.overlap` of its content
  words; the newest says what holds now. Content words are :func:`~harness.text_search.tokenize`'s
  tokens less those found in at least half of the user turns seen (the conversation's own
  function words, counted, not listed);
* **ranking** — the live candidates, the most content words per token first (a short turn that
  says something keeps more per token), weighed up to twice for the newest; superseded ones
  are never pinned, nor one with no content word, nor one longer than
  :attr:`PinConfig.max_item_tokens`. The chosen ones are listed oldest first, each on its own
  ``- `` line (a turn's further lines indented by two spaces), so the text is the user's.

Off (None) in every seed profile and in :func:`~harness.compaction.agentscope.ctxlab_profile`
(recorded cassettes carry summaries without it); X-BENCH measures it as ``ctxlab-pin``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.errors import ConfigError
from harness.messages import CHECKPOINT_NAME, SUMMARY_NAME, Message
from harness.text_search import tokenize

__all__ = [
    "PIN_HEADING",
    "PIN_NOTE",
    "PinConfig",
    "PinResult",
    "Pinned",
    "pin_budget",
    "pin_section",
    "pinned_items",
    "rank_pins",
]

PIN_HEADING = "## The user's own words"
PIN_NOTE = "(verbatim, oldest first; what a later turn replaced is left out)"
"""Said on the heading's own line (short: it is paid in every summary that pins)."""
_INDENT = "  "


@dataclass(frozen=True)
class PinConfig:
    """The pin's switch (``CompactionConfig.pin``)."""

    share: float = 0.25
    """The most the pinned section may cost, as a share of the compaction's room (the trigger
    less the kept tail, :func:`pin_budget`)."""
    max_item_tokens: int = 120
    """A user turn costing more than this is not pinned whole: its sentences are the candidates
    (each verbatim; one still longer, a pasted log's line, is left to the gate and the
    recall)."""
    overlap: float = 0.5
    """A later user turn holding at least this share of a turn's content words replaces it."""

    def __post_init__(self) -> None:
        for name in ("share", "overlap"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
                raise ConfigError(f"invalid PinConfig: {name} must be in (0, 1], not {value!r}")
        tokens = self.max_item_tokens
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
            raise ConfigError(
                f"invalid PinConfig: max_item_tokens must be a whole number of at least 1, "
                f"not {tokens!r}"
            )


@dataclass(frozen=True)
class Pinned:
    """One candidate: a user turn's text, where it came, and whether a later turn replaced it."""

    text: str
    position: int
    superseded: bool = False
    words: int = 1
    """Its content words (what no other turn repeats in half the turns); 0: nothing to pin."""


@dataclass(frozen=True)
class PinResult:
    """What the pin did in one compaction; :meth:`to_record` goes on the compaction event."""

    text: str
    pinned: tuple[str, ...]
    candidates: int
    superseded: int
    budget_tokens: int
    tokens: int

    def to_record(self) -> dict[str, object]:
        return {
            "pinned": list(self.pinned),
            "candidates": self.candidates,
            "superseded": self.superseded,
            "budget_tokens": self.budget_tokens,
            "tokens": self.tokens,
        }


def pin_budget(config: PinConfig, trigger_tokens: int | None, keep_tokens: int) -> int:
    """The most the pinned section may cost: ``share`` of the room between the tail and the
    trigger (0 without a token trigger or without room)."""
    if not trigger_tokens or trigger_tokens <= keep_tokens:
        return 0
    return int(config.share * (trigger_tokens - keep_tokens))


def pinned_items(text: str) -> list[str]:
    """The items of a pinned section in ``text`` (an earlier summary), each as it was said."""
    if PIN_HEADING not in text:
        return []
    items: list[str] = []
    for line in text.split(PIN_HEADING, 1)[1].split("\n")[1:]:
        if line.startswith("- "):
            items.append(line[2:])
        elif line.startswith(_INDENT) and items:
            items[-1] += "\n" + line[len(_INDENT) :]
        elif line.startswith("#") or (not line.strip() and items):
            break
    return items


Fits = Callable[[str], bool]
"""Whether a text may be pinned whole (it costs at most ``max_item_tokens``)."""


def _user_texts(span: Sequence[Message], fits: Fits) -> list[str]:
    """The span's candidates in order: an earlier summary's pinned items, then user turns (a
    turn too long to pin whole, as its sentences)."""
    texts: list[str] = []
    for message in span:
        if message.role != "user" or not message.content.strip():
            continue
        if message.name in (SUMMARY_NAME, CHECKPOINT_NAME):
            texts += pinned_items(message.content)
        else:
            texts += _units(message.content, fits)
    return texts


_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])|(?<=[.])\s+")
"""Where a sentence ends: punctuation, not wording."""


def _units(text: str, fits: Fits) -> list[str]:
    """``text`` whole when it fits, else its sentences (each verbatim)."""
    if fits(text):
        return [text]
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def _content_words(texts: Sequence[str]) -> list[set[str]]:
    """Each text's tokens less those in at least half of ``texts`` (from four texts on)."""
    bags = [set(tokenize(t)) for t in texts]
    frequency = Counter(token for bag in bags for token in bag)
    common = {t for t, n in frequency.items() if len(bags) >= 4 and n * 2 >= len(bags)}
    return [bag - common for bag in bags]


def rank_pins(
    span: Sequence[Message],
    later: Sequence[Message],
    overlap: float,
    fits: Fits = lambda _: True,
) -> list[Pinned]:
    """The span's user turns (and carried items; a turn that does not ``fit`` as its sentences)
    with their supersession marked: a later one, or a user turn of ``later`` (the kept tail),
    holding ``overlap`` of its content words replaces it; an identical text said again counts
    once, at its newest place."""
    texts = _user_texts(span, fits)
    users = [m.content for m in later if m.role == "user" and m.name is None]
    after = [unit for text in users for unit in _units(text, fits)]
    words = _content_words([*texts, *after])
    pins = []
    for index, text in enumerate(texts):
        mine = words[index]
        replaced = any(
            text == other or (mine and len(mine & words[j]) >= overlap * len(mine))
            for j, other in enumerate([*texts, *after])
            if j > index
        )
        pins.append(Pinned(text, index, replaced, len(mine)))
    return pins


def _shown(text: str) -> str:
    first, *rest = text.split("\n")
    return "\n".join([f"- {first}", *(_INDENT + line for line in rest)])


def pin_section(items: Sequence[Pinned]) -> str:
    return "\n".join([f"{PIN_HEADING} {PIN_NOTE}", *(_shown(p.text) for p in items)])


def choose_pins(
    pins: Sequence[Pinned], config: PinConfig, budget: int, price: Callable[[str], int]
) -> list[Pinned]:
    """The live pins that fit ``budget`` with the section's heading, best first: content words
    per token (a short turn that says something), weighed up to twice for the newest; listed
    oldest first."""
    live = [
        p for p in pins if not p.superseded and p.words and price(p.text) <= config.max_item_tokens
    ]
    newest = max((p.position for p in pins), default=0) + 1

    def value(pin: Pinned) -> float:  # content words per token, up to twice that for the newest
        return pin.words / max(price(pin.text), 1) * (1 + pin.position / newest)

    order = sorted(live, key=lambda p: (-value(p), -p.position))
    chosen: list[Pinned] = []
    for pin in order:
        trial = sorted([*chosen, pin], key=lambda p: p.position)
        if price("\n\n" + pin_section(trial)) <= budget:
            chosen = trial
    return chosen


def apply_pin(
    config: PinConfig,
    summary: str,
    span: Sequence[Message],
    tail: Sequence[Message],
    budget: int,
    price: Callable[[str], int],
) -> PinResult:
    """``summary`` with the pinned section appended (unchanged when nothing fits)."""
    pins = rank_pins(span, tail, config.overlap, lambda text: price(text) <= config.max_item_tokens)
    chosen = choose_pins(pins, config, budget, price)
    superseded = sum(p.superseded for p in pins)
    if not chosen:
        return PinResult(summary, (), len(pins), superseded, budget, 0)
    section = ("\n\n" if summary else "") + pin_section(chosen)
    texts = tuple(p.text for p in chosen)
    return PinResult(summary + section, texts, len(pins), superseded, budget, price(section))
