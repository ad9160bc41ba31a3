"""The identifier-survival gate: exact values a summary dropped are appended to it.

After a summary of a compacted span is produced, the gate extracts the span's exact
identifiers — URLs, paths, ids with digits, numbers of three or more digits, quoted code words
(backticks, “…”, 「…」, 『…』, ‘…’, and "…" in what was said) — and appends those the summary
does not contain verbatim as a short section. Deterministic, no model call; capped by a token
budget priced with the engine's own meter. Neither seed has it: it is ctxlab's, off in the
article-faithful profiles (``CompactionConfig()``, ``DshConfig()``) and on in ctxlab's own
(:func:`harness.compaction.agentscope.ctxlab_profile`, ``HarnessAgent``'s default).

The output format (frozen: recorded cassettes carry gated summaries)::

    <summary>

    ## Exact values
    Verbatim from the compacted messages; the summary above does not contain them.
    - SO-2026-0417
    - 38650
    - “蓝鲸”

Nothing is appended when every identifier survived or none fits the budget; the gated text
always starts with the summary unchanged. Which identifiers win a tight budget: those of a rare
shape first (``SO-2026-0417`` before the fortieth ``CTN-10##`` of a packing list), then paths,
URLs and code words before ids and numbers, then the earlier; the chosen ones are listed in the
order they first appeared. With definitions on (ctxlab's profile, ``GateConfig.definitions``),
who said a phrase ranks first (:mod:`~harness.compaction.guards.gate_definitions`), the list
is in rank order (so the next compaction, reading it back, keeps its order), an item another
chosen item holds is left out, and a value that was the whole value of a key in a tool's JSON
is listed with its key (``- seal_no: SL-291623``; a later compaction reading the list back
keeps the key). The patterns are in
:mod:`~harness.compaction.guards.gate_identifiers`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from harness.compaction.guards.gate_definitions import Speaker, spoken_definitions
from harness.compaction.guards.gate_identifiers import (
    KIND_RANK,
    Identifier,
    extract_identifiers,
    shape,
    span_texts,
    survives,
)
from harness.errors import ConfigError
from harness.messages import CHECKPOINT_NAME, SUMMARY_NAME, Message
from harness.meter import TokenMeter

__all__ = [
    "GATE_HEADING",
    "GATE_NOTE",
    "GateConfig",
    "GateResult",
    "Identifier",
    "apply_gate",
    "extract_identifiers",
    "gate_checkpoint",
    "gated_summary",
    "span_texts",
    "survives",
]

GATE_HEADING = "## Exact values"
GATE_NOTE = "Verbatim from the compacted messages; the summary above does not contain them."


@dataclass(frozen=True)
class GateConfig:
    """The gate's switch (pass one to ``CompactionConfig.gate`` / ``DshConfig.gate``)."""

    budget_tokens: int = 200
    """The most the appended section (with its heading) may cost, priced by the engine's
    meter."""
    max_item_chars: int = 120
    """Longer identifiers (a URL with a long query, say) are left out."""
    max_family: int = 5
    """An identifier that shares its shape with more than this many in one message (the rows
    of a table: ``CTN-1001`` … ``CTN-1040``) is left out; the summary has to describe a
    table, the gate keeps facts."""
    definitions: bool = False
    """Also keep what no identifier pattern sees
    (:mod:`harness.compaction.guards.gate_definitions`): definitions (``暗号：夜莺``, ``the
    password is falcon``), reasons and rules, verbatim. Off here (recorded cassettes carry the
    gate's output without them); on in ctxlab's profile. With it on, the items are also ranked
    by who said them (:attr:`Identifier.tier`) and listed best first, so the next compaction,
    which reads the list back, keeps its order."""

    def __post_init__(self) -> None:
        if not isinstance(self.definitions, bool):
            raise ConfigError(
                f"invalid GateConfig: definitions must be a bool, not {self.definitions!r}"
            )
        for name in ("budget_tokens", "max_item_chars", "max_family"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(
                    f"invalid GateConfig: {name} must be a whole number of at least 1, "
                    f"not {value!r}"
                )


@dataclass(frozen=True)
class GateResult:
    """What the gate did to one summary; :meth:`to_record` is what the event log keeps."""

    text: str
    """The gated summary: the summary, then the section when anything was added."""
    added: tuple[str, ...]
    """The section's items, as listed."""
    missing: int
    """Identifiers of the span the summary did not contain."""
    found: int
    """Identifiers found in the span."""
    skipped: int
    """Found but not eligible: longer than ``max_item_chars`` or rows of a table."""
    budget_tokens: int
    tokens: int
    """What the appended text costs (0 when nothing was added)."""
    meter: str

    def to_record(self) -> dict[str, object]:
        return {
            "added": list(self.added),
            "found": self.found,
            "skipped": self.skipped,
            "missing": self.missing,
            "left_out": self.missing - len(self.added),
            "budget_tokens": self.budget_tokens,
            "tokens": self.tokens,
            "meter": self.meter,
        }


def _ranked(missing: list[Identifier], shapes: Counter[str]) -> list[Identifier]:
    """The best tier first (who said it: definitions only), then rare shapes (a definition:
    said in fewer texts), then by kind, then the earlier."""
    rare = {i.text: i.family if i.kind == "definition" else shapes[shape(i.text)] for i in missing}
    return sorted(missing, key=lambda i: (i.tier, rare[i.text], KIND_RANK[i.kind], i.position))


def _no_row(item: Identifier, config: GateConfig) -> bool:
    """False for a row of a table (:attr:`GateConfig.max_family`) or a phrase said in too many
    messages; a rule, a reason or the user's own words (tier 0) count however often said."""
    return item.family <= config.max_family or (item.kind == "definition" and item.tier == 0)


def _spoken(span: Sequence[Message]) -> list[tuple[str, Speaker]]:
    """What users and assistants said in ``span``, with who said it (a summary message is a
    user message by role)."""
    summaries = (SUMMARY_NAME, CHECKPOINT_NAME)
    return [
        (m.content, "summary" if m.name in summaries else m.role)
        for m in span
        if m.role in ("user", "assistant")
    ]


_KEYED = re.compile(r"(?P<key>[^\s:]{1,40}): (?P<value>.+)")
"""A gated list's item naming its value's JSON key (``seal_no: SL-291623``)."""


def _with_definitions(found: list[Identifier], span: Sequence[Message]) -> list[Identifier]:
    """``found``, each shown with its JSON key (:func:`_keyed`), and after it the span's
    definitions that are no identifier already."""
    known = {i.text for i in found}
    spoken = spoken_definitions(_spoken(span), GATE_HEADING)
    keys = {m["value"]: m["key"] for d in spoken if d.tier == 1 and (m := _KEYED.fullmatch(d.text))}
    keyed = [_keyed(i, keys.get(i.shown, "")) for i in found]
    listed = {i.shown for i in keyed}
    extra = [d for d in spoken if d.text not in known and d.text not in listed]
    n = len(found)
    made = (
        Identifier(d.text, d.text, "definition", n + d.position, d.count, d.tier) for d in extra
    )
    return [*keyed, *made]


def _keyed(item: Identifier, carried_key: str) -> Identifier:
    """``item`` listed with the JSON key it was the value of (a bare ``SL-291623`` does not say
    what it is; ``seal_no: SL-291623`` does), found in a tool's JSON or in an earlier gated
    list, which the next compaction reads back."""
    key = item.key or carried_key
    return replace(item, shown=f"{key}: {item.shown}", key=key) if key else item


def _text_tokens(meter: TokenMeter) -> Callable[[str], int]:
    empty = meter.price(Message.user(""))
    return lambda text: max(meter.price(Message.user(text)) - empty, 0)


def _section(summary: str, items: Sequence[Identifier]) -> str:
    lines = [GATE_HEADING, GATE_NOTE, *(f"- {i.shown}" for i in items)]
    return ("\n\n" if summary else "") + "\n".join(lines)


def _fit(
    summary: str,
    ranked: list[Identifier],
    budget: int,
    price: Callable[[str], int],
    in_rank_order: bool = False,
) -> list[Identifier]:
    """The ranked items that fit ``budget`` (greedy, in rank order; the section is priced
    whole each time, as it will be listed), listed by first appearance or, when
    ``in_rank_order``, best first with no item that another chosen one holds (``juniper``
    beside ``the password is juniper``)."""
    chosen: list[Identifier] = []
    if price(_section(summary, chosen)) >= budget:
        return chosen
    for item in ranked:
        if in_rank_order:
            if any(item.text in other.text for other in chosen):
                continue
            trial = [*(c for c in chosen if c.text not in item.text), item]
        else:
            trial = _in_order([*chosen, item])
        if price(_section(summary, trial)) <= budget:
            chosen = trial
    return chosen


def _in_order(items: list[Identifier]) -> list[Identifier]:
    return sorted(items, key=lambda i: i.position)


def apply_gate(
    config: GateConfig,
    summary: str,
    span: Sequence[Message],
    meter: TokenMeter,
    budget_tokens: int | None = None,
) -> GateResult:
    """``summary`` with the span's identifiers it lacks appended (see the module docstring).

    ``budget_tokens`` overrides the config's budget when smaller (the DSH engine passes the
    room left below the shadowed span's price)."""
    budget = (
        config.budget_tokens if budget_tokens is None else min(budget_tokens, config.budget_tokens)
    )
    texts = span_texts(span)
    found = extract_identifiers(texts)
    if config.definitions:
        found = _with_definitions(found, span)
    eligible = [i for i in found if len(i.text) <= config.max_item_chars and _no_row(i, config)]
    missing = [i for i in eligible if not survives(i, summary)]
    skipped = len(found) - len(eligible)
    price = _text_tokens(meter)
    shapes = Counter(shape(i.text) for i in found)
    ranked = _ranked(missing, shapes)
    chosen = _fit(summary, ranked, budget, price, config.definitions) if missing else []
    if not chosen:
        return GateResult(summary, (), len(missing), len(found), skipped, budget, 0, meter.name)
    section = _section(summary, chosen)
    added = tuple(i.shown for i in chosen)
    return GateResult(
        summary + section,
        added,
        len(missing),
        len(found),
        skipped,
        budget,
        price(section),
        meter.name,
    )


def gate_checkpoint(
    config: GateConfig,
    summary: str,
    span: Sequence[Message],
    meter: TokenMeter,
    frame: Callable[[str], Message],
    shadowed_tokens: int,
) -> tuple[GateResult, Message]:
    """The DSH engine's gate: the gated summary and its framed checkpoint, which stays strictly
    cheaper than the span it replaces (DSH's own check); when it would not, nothing is added."""
    room = shadowed_tokens - meter.price(frame(summary)) - 1
    result = apply_gate(config, summary, span, meter, max(room, 0))
    checkpoint = frame(result.text)
    if result.added and meter.price(checkpoint) >= shadowed_tokens:
        result = replace(result, text=summary, added=(), tokens=0)
        checkpoint = frame(summary)
    return result, checkpoint


def gated_summary(
    config: GateConfig | None,
    summary: str,
    span: Sequence[Message],
    meter: TokenMeter,
    budget_tokens: int | None = None,
) -> tuple[str, dict[str, object] | None]:
    """The AgentScope engine's gate: the text for the summary message and the record for the
    compaction event; ``(summary, None)`` when the gate is off. ``budget_tokens``: as
    :func:`apply_gate`'s (the room a summary budget leaves)."""
    if config is None:
        return summary, None
    result = apply_gate(config, summary, span, meter, budget_tokens)
    return result.text, result.to_record()
