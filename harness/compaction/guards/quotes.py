"""ctxlab's verified quotes: the summary model proposes the lines of the span that matter,
verbatim, and ctxlab keeps only those it finds verbatim in the span, so no quote can be invented.

The summary prompt gains :func:`quote_request` (after its other instructions): copy up to
:attr:`QuoteConfig.count` lines that must not be lost into a section headed
:data:`QUOTE_HEADING`, each starting with ``> ``. :func:`split_quotes` takes that section out
of the model's answer before the other checks read it (the echo filter would drop a line that
copies the transcript, which a quote does on purpose), and :func:`verified` keeps a proposed
line only when

* its text, whitespace collapsed, occurs in the span's text (whitespace collapsed): the
  compacted messages, an earlier summary's verified quotes included, so a quote outlives
  several compactions while nothing newer drops it;
* it holds at least :attr:`QuoteConfig.min_chars` characters (``ok`` is in every span and
  says nothing);
* it is not a repeat of a line already kept.

:func:`quote_section` puts the kept ones back after the summary's text, newest proposals last,
within the room the summary budget left (each line priced; what does not fit is left out and
counted). Every other proposed line is dropped, and one log line says how many of each.

Off (None) in every seed profile and in :func:`~harness.compaction.agentscope.ctxlab_profile`;
X-BENCH measures it as the ``ctxlab+quotes`` condition once recorded.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from harness.errors import ConfigError

logger = logging.getLogger("harness.compaction")

__all__ = [
    "QUOTE_HEADING",
    "QuoteConfig",
    "Quotes",
    "quote_request",
    "quote_section",
    "split_quotes",
    "verified",
    "with_quotes",
]

QUOTE_HEADING = "## Verbatim lines"
_MARK = "> "
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class QuoteConfig:
    """The verified quotes' switch (``CompactionConfig.quotes``)."""

    count: int = 8
    """The most lines the prompt asks for."""
    min_chars: int = 12
    """A shorter proposed line is dropped (it says too little to be worth its tokens)."""

    def __post_init__(self) -> None:
        for name in ("count", "min_chars"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(
                    f"invalid QuoteConfig: {name} must be a whole number of at least 1, "
                    f"not {value!r}"
                )


@dataclass(frozen=True)
class Quotes:
    """What the model proposed and what of it was found verbatim in the span."""

    text: str
    """The model's answer without its quote section."""
    proposed: tuple[str, ...]
    kept: tuple[str, ...]

    @property
    def dropped(self) -> int:
        return len(self.proposed) - len(self.kept)


def quote_request(config: QuoteConfig) -> str:
    """The instruction appended to the summary prompt."""
    return (
        f"\n\nAfter the summary, add a section headed '{QUOTE_HEADING}' and copy into it up to "
        f"{config.count} lines of the conversation that must not be lost (a rule, a decision, "
        "a name, a number, a correction), each exactly as written there, one per line, each "
        f"line starting with '{_MARK}'."
    )


def _collapsed(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def split_quotes(answer: str) -> tuple[str, tuple[str, ...]]:
    """The answer without its quote sections, and their ``> `` lines (their text). A section
    runs from a :data:`QUOTE_HEADING` line to the first line that is neither blank nor a
    ``> `` line (a chunked summary's answers each end with one)."""
    text: list[str] = []
    proposed: list[str] = []
    inside = False
    for line in answer.splitlines():
        bare = line.strip()
        if bare.startswith(QUOTE_HEADING):
            inside = True
        elif inside and bare.startswith(_MARK.strip()):
            proposed.append(bare[1:].strip())
        elif inside and not bare:
            continue
        else:
            inside = False
            text.append(line)
    return "\n".join(text).rstrip(), tuple(proposed)


def verified(answer: str, span_text: str, config: QuoteConfig) -> Quotes:
    """The model's ``answer`` split, and its proposed lines that occur verbatim in
    ``span_text`` (see the module docstring)."""
    text, proposed = split_quotes(answer)
    source = _collapsed(span_text)
    kept: list[str] = []
    for line in proposed:
        quote = _collapsed(line)
        if len(quote) >= config.min_chars and quote in source and quote not in kept:
            kept.append(quote)
    return Quotes(text, proposed, tuple(kept))


def quote_section(
    text: str, quotes: Quotes, room: int | None, price: Callable[[str], int]
) -> tuple[str, tuple[str, ...], int | None]:
    """``text`` with the kept quotes as a section after it, within ``room`` tokens (None: no
    limit), the lines that fitted, and the room left."""
    if not quotes.kept:
        return text, (), room
    base = price(text)
    fitted: list[str] = []
    for quote in quotes.kept:
        trial = _with_section(text, [*fitted, quote])
        if room is not None and price(trial) - base > room:
            continue
        fitted.append(quote)
    if not fitted:
        return text, (), room
    done = _with_section(text, fitted)
    left = None if room is None else max(room - (price(done) - base), 0)
    return done, tuple(fitted), left


def _with_section(text: str, lines: list[str]) -> str:
    body = "\n".join(f"{_MARK}{line}" for line in lines)
    return f"{text}\n\n{QUOTE_HEADING} (checked against the conversation)\n{body}"


def with_quotes(
    text: str, quotes: Quotes | None, room: int | None, price: Callable[[str], int]
) -> tuple[str, tuple[str, ...], int | None]:
    """``text`` with the verified quotes within ``room`` (:func:`quote_section`), the log line
    saying how many were proposed, not found and kept (none when nothing was proposed), and
    the room left."""
    if quotes is None or not quotes.proposed:
        return text, (), room
    text, fitted, room = quote_section(text, quotes, room, price)
    line = (
        f"Quotes: {len(quotes.proposed)} proposed, {quotes.dropped} not found verbatim in the "
        f"span, {len(fitted)} kept"
    )
    logger.info(line)
    return text, (line,), room
