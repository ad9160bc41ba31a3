"""The token meter both engines use: a pricer, and optionally an anchor on provider usage.

A :class:`TokenMeter` prices a request as ``header + history`` with its pricer (the estimate).
An *anchored* meter also remembers the last request the provider counted (its estimate and its
real ``usage.prompt_tokens``) and reads a new request as that real count plus the estimated
change since (signed, so a compaction lowers it at once), as DeepSeek-Harness's token meter
does. Before any usage is known it falls back to the estimate. Every :class:`Reading` names
the meter that produced it, and the records that carry a reading repeat that name.

Profiles (the ``meter`` setting of :class:`~harness.compaction.CompactionConfig` and
:class:`~harness.compaction.dsh.DshConfig`):

* ``ctxlab-anchored`` (ctxlab's default): ctxlab's CJK-aware heuristic, tool schemas counted,
  anchored on the last usage;
* ``agentscope-2.0.3``: AgentScope 2.0.3's 2.5-characters estimate over the working history
  only, never anchored — what the article's numbers were computed with; the experiments that
  reproduce them use it;
* ``dsh``: DeepSeek-Harness's meter — its 4-characters heuristic, anchored only while the
  request envelope (system prompt, tools) is unchanged and the provider's count is not below
  the estimate;
* ``tokenizer-anchored``: the exact DeepSeek-V4 tokenizer where it is installed
  (:mod:`harness.meter.tokenizer`), anchored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from harness.errors import ConfigError
from harness.messages import Message
from harness.meter.pricers import AGENTSCOPE, CTXLAB, DSH, Pricer, message_price, tools_json
from harness.model import ToolSchema, Usage

__all__ = ["METERS", "Anchor", "Reading", "TokenMeter", "build_meter"]

Baseline = Literal["estimate", "usage"]


@dataclass(frozen=True)
class Reading:
    """A priced request."""

    meter: str
    """The meter's name (goes into every record priced with this reading)."""
    tokens: int
    """The meter's answer: the anchored figure when ``baseline == "usage"``, else ``estimate``."""
    estimate: int
    """The pricer's estimate of the whole request."""
    baseline: Baseline
    envelope: str = ""
    """What the header looked like (system prompt, tools), for the dsh anchoring rule."""


@dataclass(frozen=True)
class Anchor:
    """The last request the provider counted."""

    prompt_tokens: int
    estimate: int
    envelope: str


class TokenMeter:
    """Prices requests with ``pricer``; see the module docstring for ``anchored`` and
    ``same_envelope``."""

    def __init__(
        self,
        name: str,
        pricer: Pricer,
        *,
        anchored: bool,
        same_envelope: bool = False,
        count_header: bool = True,
    ) -> None:
        self.name = name
        self.pricer = pricer
        self.anchored = anchored
        self.same_envelope = same_envelope
        self.count_header = count_header
        self.anchor: Anchor | None = None
        self._header_key: tuple[object, ...] | None = None
        self._header_price = (0, "")
        self._tools: tuple[ToolSchema, ...] = ()
        self._tools_json = tools_json(())

    def price(self, message: Message) -> int:
        """One history message (cached on the message)."""
        return message_price(self.pricer, message)

    def price_all(self, messages: Sequence[Message]) -> int:
        return sum(message_price(self.pricer, m) for m in messages)

    def header(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> tuple[int, str]:
        """The header's price and its envelope key; the last header's price is reused."""
        key = (tuple((m.role, m.name, m.content) for m in messages), self._json_of(tools))
        if key != self._header_key:
            price = self.pricer.header(messages, tools) if self.count_header else 0
            envelope = hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).hexdigest()[:16]
            self._header_key, self._header_price = key, (price, envelope)
        return self._header_price

    def _json_of(self, tools: Sequence[ToolSchema]) -> str:
        """:func:`tools_json` of ``tools``, serialised again only when a schema object changed
        (an agent sends the same schemas with every request)."""
        if len(tools) != len(self._tools) or any(
            new is not old for new, old in zip(tools, self._tools, strict=True)
        ):
            self._tools, self._tools_json = tuple(tools), tools_json(tools)
        return self._tools_json

    def read(self, estimate: int, envelope: str = "") -> Reading:
        """The meter's figure for a request whose estimate is ``estimate``."""
        anchor = self.anchor
        if anchor is None or (self.same_envelope and anchor.envelope != envelope):
            return Reading(self.name, estimate, estimate, "estimate", envelope)
        tokens = anchor.prompt_tokens + estimate - anchor.estimate
        return Reading(self.name, max(tokens, 0), estimate, "usage", envelope)

    def observe(self, sent: Reading, usage: Usage | None) -> None:
        """The provider counted the request ``sent`` was read for; anchor on it."""
        if not self.anchored or usage is None or usage.prompt_tokens <= 0:
            return
        if self.same_envelope and usage.prompt_tokens < sent.estimate:
            self.anchor = None  # dsh: a provider count below the estimate is not trusted
            return
        self.anchor = Anchor(usage.prompt_tokens, sent.estimate, sent.envelope)


def _tokenizer_meter() -> TokenMeter:
    from harness.meter.tokenizer import load_tokenizer_pricer

    return TokenMeter("tokenizer-anchored", load_tokenizer_pricer(), anchored=True)


METERS = ("ctxlab-anchored", "agentscope-2.0.3", "dsh", "tokenizer-anchored")
"""The meter profiles :func:`build_meter` knows."""


def build_meter(name: str) -> TokenMeter:
    """A fresh meter of the named profile; ConfigError for an unknown name."""
    if name == "ctxlab-anchored":
        return TokenMeter(name, CTXLAB, anchored=True)
    if name == "agentscope-2.0.3":
        return TokenMeter(name, AGENTSCOPE, anchored=False, count_header=False)
    if name == "dsh":
        return TokenMeter(name, DSH, anchored=True, same_envelope=True)
    if name == "tokenizer-anchored":
        return _tokenizer_meter()
    raise ConfigError(f"unknown token meter {name!r}; choose one of {', '.join(METERS)}")
