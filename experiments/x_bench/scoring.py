"""X-BENCH's scores: deterministic, string-based, no model judge.

* **survival** — every one of the fact's ``values`` is in the context the model sees (exact,
  case-sensitive substring of :func:`~experiments.x_bench.replay.context_text`);
* **answer** — the probe's numbered line for the fact, normalised (:func:`normalise`), contains
  every ``expect`` and no ``reject`` (an update's old value, a distractor); for an abstention
  probe it contains an abstain marker and no identifier-shaped value;
* **invented identifiers** — identifier-shaped values (ctxlab's gate extractor) in a summary that
  occur nowhere in the conversation (its turns and system prompt);
* **carried tokens** — the context's estimate right after each compaction; the **compression
  ratio** — tokens before over tokens after;
* **net tokens** — what the condition's agent requests saved against the full context's, minus
  what its summary calls cost (prompt + completion, estimator tokens), over the whole
  conversation and over the continuation only.

:func:`bootstrap` gives a seeded percentile interval of the mean over conversations (numpy's
``default_rng``, so the same values give the same interval); :func:`paired` the interval of the
difference of two conditions over the same conversations.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from experiments.x_bench.corpus import conversation_text
from experiments.x_bench.replay import CompactionSeen, ConversationRun
from experiments.x_bench.schema import Conversation, Fact
from harness.compaction.guards.gate import extract_identifiers

__all__ = [
    "FactScore",
    "RunScore",
    "bootstrap",
    "invented_identifiers",
    "normalise",
    "paired",
    "parse_answers",
    "score_run",
    "survived",
]

_DROP = re.compile(r"[\s,，`'\"“”‘’「」『』]+")
_NUMBERED = re.compile(r"^\s*\**\s*(\d{1,2})\s*[.)、:：．]\s*", re.MULTILINE)
BOOTSTRAP_SAMPLES = 2_000
BOOTSTRAP_SEED = 23


def normalise(text: str) -> str:
    """NFKC, case-folded, without whitespace, commas and quotes."""
    return _DROP.sub("", unicodedata.normalize("NFKC", text).casefold())


def survived(fact: Fact, context: str) -> bool | None:
    """Whether every value of ``fact`` is in ``context``; None for an abstention probe."""
    if not fact.values:
        return None
    return all(value in context for value in fact.values)


def parse_answers(text: str, count: int) -> dict[int, str]:
    """The probe answer's numbered lines: number → the text up to the next number."""
    marks = [m for m in _NUMBERED.finditer(text) if 1 <= int(m.group(1)) <= count]
    answers: dict[int, str] = {}
    for mark, following in zip(marks, [*marks[1:], None], strict=False):
        end = following.start() if following else len(text)
        answers.setdefault(int(mark.group(1)), text[mark.end() : end].strip())
    return answers


def correct(fact: Fact, answer: str, markers: Sequence[str]) -> bool:
    said = normalise(answer)
    if fact.kind == "abstention":
        abstains = any(normalise(m) in said for m in markers)
        invented = extract_identifiers([(answer, True)])
        return abstains and not invented
    has = all(normalise(e) in said for e in fact.expect)
    return bool(said) and has and not any(normalise(r) in said for r in fact.reject)


def invented_identifiers(summary: str, conversation: Conversation) -> list[str]:
    """Identifier-shaped values in ``summary`` found nowhere in the conversation."""
    known = _known_text(conversation)
    found = extract_identifiers([(summary, True)])
    return [i.text for i in found if i.text not in known]


KNOWN_REMEMBERED = 64
"""Conversations whose whole text :func:`_known_text` keeps (then it starts over)."""
_KNOWN: dict[int, tuple[Conversation, str]] = {}


def _known_text(conversation: Conversation) -> str:
    """Every text of ``conversation`` as one string, built once per conversation object: every
    compaction of every run of it is checked against it (X-BENCH joined it 1,890 times, each
    turn's tool arguments serialised again each time)."""
    kept = _KNOWN.get(id(conversation))
    if kept is not None and kept[0] is conversation:
        return kept[1]
    if len(_KNOWN) >= KNOWN_REMEMBERED:
        _KNOWN.clear()
    known = "\n".join([conversation.system, *conversation_text(conversation.turns)])
    _KNOWN[id(conversation)] = (conversation, known)
    return known


@dataclass(frozen=True)
class FactScore:
    fact: str
    kind: str
    band: str
    survived: bool | None
    """None for an abstention probe."""
    correct: bool | None
    """None when no model answered the probe."""


@dataclass(frozen=True)
class RunScore:
    """One conversation under one condition, scored."""

    conversation: str
    condition: str
    facts: list[FactScore]
    compactions: int
    carried_tokens: list[int]
    """The context's estimate right after each compaction."""
    compression: list[float]
    final_tokens: int
    invented: list[str]
    agent_prompt_tokens: int
    continuation_prompt_tokens: int
    summary_calls: int
    summary_tokens: int
    """Prompt + completion estimator tokens of every summary call."""
    oversized: int
    """Compactions after which the context was no smaller: the summary cost at least the span
    it replaced (the tail is the same on both sides)."""
    turns_after_last_compaction: int
    answered: bool

    @property
    def survival(self) -> float:
        marks = [f.survived for f in self.facts if f.survived is not None]
        return sum(marks) / len(marks) if marks else 0.0


def _no_smaller(compaction: CompactionSeen) -> bool:
    """The context was no smaller right after ``compaction``: its summary cost at least the
    span it replaced."""
    before, after = compaction.tokens_before, compaction.tokens_after
    return before is not None and after is not None and after >= before


def _fact_scores(
    conversation: Conversation, context: str, answers: dict[int, str] | None
) -> list[FactScore]:
    facts = []
    for number, fact in enumerate(conversation.facts, 1):
        right = None
        if answers is not None and not fact.unanchored:  # an unanchored fact is not judged
            right = correct(fact, answers.get(number, ""), conversation.abstain_markers)
        facts.append(FactScore(fact.id, fact.kind, fact.band, survived(fact, context), right))
    return facts


def score_run(conversation: Conversation, run: ConversationRun) -> RunScore:
    answers = (
        parse_answers(run.probe_answer, len(conversation.facts))
        if run.probe_answer is not None
        else None
    )
    facts = _fact_scores(conversation, run.text, answers)
    summaries = {c.summary for c in run.compactions}  # a placeholder summary, read once
    invented = sorted({i for s in summaries for i in invented_identifiers(s, conversation)})
    played = len(run.agent_prompt_tokens)  # fewer than the turns when a guard stopped it
    continuation = [
        t.index for t in conversation.turns if t.phase == "continuation" and t.index < played
    ]
    last = max((c.turn for c in run.compactions), default=-1)
    return RunScore(
        conversation=conversation.id,
        condition=run.condition,
        facts=facts,
        compactions=len(run.compactions),
        carried_tokens=[c.tokens_after or 0 for c in run.compactions],
        compression=[
            round(c.tokens_before / c.tokens_after, 2)
            for c in run.compactions
            if c.tokens_before and c.tokens_after
        ],
        final_tokens=run.final_tokens,
        invented=invented,
        agent_prompt_tokens=sum(run.agent_prompt_tokens),
        continuation_prompt_tokens=sum(run.agent_prompt_tokens[i] for i in continuation),
        summary_calls=len(run.summary_calls),
        summary_tokens=sum(c.prompt_tokens + c.completion_tokens for c in run.summary_calls),
        oversized=sum(_no_smaller(c) for c in run.compactions),
        turns_after_last_compaction=played - 1 - last,
        answered=answers is not None,
    )


def bootstrap(
    values: Sequence[float], samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED
) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean and its 95 % percentile interval over resampled
    ``values`` (one per conversation); seeded, so the same values give the same interval."""
    return _interval(values, lambda picked: sum(picked) / len(picked), samples, seed)


def paired(
    a: Sequence[float],
    b: Sequence[float],
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float, float]:
    """The mean of ``a - b`` (paired by conversation) and its 95 % bootstrap interval."""
    if len(a) != len(b):
        raise ValueError("paired bootstrap needs one value per conversation on both sides")
    return bootstrap([x - y for x, y in zip(a, b, strict=True)], samples, seed)


def _interval(
    values: Sequence[float], stat: Callable[[list[float]], float], samples: int, seed: int
) -> tuple[float, float, float]:
    if not values:
        return (0.0, 0.0, 0.0)
    import numpy as np  # on first use: a ``ctxlab bench`` refused before it played imports none

    data = np.asarray(values, dtype=float)
    picks = np.random.default_rng(seed).integers(0, len(data), size=(samples, len(data)))
    stats = np.sort(data[picks].mean(axis=1))
    low = float(stats[int(0.025 * samples)])
    high = float(stats[min(int(0.975 * samples), samples - 1)])
    return (round(stat(list(values)), 4), round(low, 4), round(high, 4))
