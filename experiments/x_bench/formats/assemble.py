"""An imported transcript and its questions, assembled into X-BENCH's conversation format.

Each reader of :mod:`experiments.x_bench.formats` turns its dataset's shape into messages
(:class:`Said`) and questions (:class:`Asked`); :func:`assemble` pairs the messages into turns
(consecutive messages of one role are joined; a user message after a reply starts a turn) and
anchors each question: its answer must occur verbatim (up to letter case, the turn's own text
then kept) in one of its evidence turns. A question whose answer does not is kept, marked
``unanchored`` with the reason, and scored by nothing (:class:`Fact.unanchored`). The result
goes through :func:`~experiments.x_bench.schema.conversation_from_data`, so an imported
conversation meets every check (and limit) a file of the ``ctxlab`` format meets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from experiments.x_bench.schema import SCHEMA, Conversation, conversation_from_data
from experiments.x_bench.texts import TEXTS

__all__ = ["Asked", "Role", "Said", "assemble", "language_of"]

Role = Literal["user", "assistant"]
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Said:
    """One message of an imported transcript."""

    role: Role
    text: str
    key: str = ""
    """The dataset's own name of the message (LoCoMo's ``dia_id``), which evidence names."""


@dataclass(frozen=True)
class Asked:
    """One question of an imported dataset about its transcript."""

    id: str
    kind: str
    question: str
    answers: Sequence[str]
    """What a correct answer contains; each must occur verbatim in an evidence turn to be
    scored (empty: an abstention, the answer is not in the conversation)."""
    evidence: Sequence[str] | None
    """The keys of the messages that hold the answer; None: any message."""
    reject: Sequence[str] = ()
    expect: Sequence[str] | None = None
    """What a correct answer contains, when not ``answers`` (a rule's answer holds none of
    its words: CompactBench's ``forbidden_absent``)."""


def language_of(texts: Sequence[str]) -> Literal["zh", "en"]:
    """``zh`` when more than a fifth of the letters are CJK ideographs, else ``en``."""
    sample = "".join(texts)[:200_000]
    letters = sum(ch.isalpha() for ch in sample)
    return "zh" if letters and len(_CJK.findall(sample)) * 5 > letters else "en"


def _turns(said: Sequence[Said]) -> tuple[list[dict[str, Any]], list[int]]:
    """Turns (``index``, ``user``, ``assistant``) and the turn each message landed in."""
    turns: list[dict[str, list[str]]] = []
    landed: list[int] = []
    for message in said:
        if not turns or (message.role == "user" and turns[-1]["assistant"]):
            turns.append({"user": [], "assistant": []})
        turns[-1][message.role].append(message.text)
        landed.append(len(turns) - 1)
    joined = [
        {"index": i, "user": "\n\n".join(t["user"]), "assistant": "\n\n".join(t["assistant"])}
        for i, t in enumerate(turns)
    ]
    return joined, landed


def _find(answer: str, text: str) -> str | None:
    """``answer`` as ``text`` spells it: verbatim, else the first match ignoring letter case."""
    if answer in text:
        return answer
    found = re.search(re.escape(answer), text, re.IGNORECASE)
    return found.group(0) if found else None


def _anchor(asked: Asked, said: Sequence[Said], landed: list[int], count: int) -> dict[str, Any]:
    """The fact of ``asked``: its values found in its evidence, or why it is unanchored."""
    named = set(asked.evidence) if asked.evidence is not None else None
    where = [(m, t) for m, t in zip(said, landed, strict=True) if named is None or m.key in named]
    fact: dict[str, Any] = {
        "id": asked.id,
        "kind": asked.kind,
        "question": asked.question,
        "values": [],
        "expect": list(asked.answers if asked.expect is None else asked.expect),
        "reject": list(asked.reject),
        "where": "nowhere",
        "band": "none",
    }
    if not asked.answers:
        return fact
    if not where or not all(a.strip() for a in asked.answers):
        fact["unanchored"] = "the dataset names no evidence message for it, or an empty answer"
        return fact
    hits = [next(((m, t, v) for m, t in where if (v := _find(a, m.text))), None)
            for a in asked.answers]  # fmt: skip
    if missing := next((a for a, h in zip(asked.answers, hits, strict=True) if h is None), None):
        fact["unanchored"] = f"{missing!r} occurs verbatim in none of its evidence turns"
        fact["unanchored"] += f" ({_named(asked.evidence)})" if asked.evidence else ""
        return fact
    for message, turn, value in filter(None, hits):  # the fact's turn: its last value's
        depth = round(turn / count, 4)
        band = "early" if depth < 1 / 3 else "late" if depth >= 2 / 3 else "middle"
        fact["values"].append(value)
        fact.update(turn=turn, where=message.role, depth=depth, band=band)
    return fact


def _named(keys: Sequence[str]) -> str:
    return ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")


def assemble(
    cid: str,
    said: Sequence[Said],
    asked: Sequence[Asked],
    generator: dict[str, Any],
    where: str,
    system: str = "",
) -> Conversation:
    """A checked :class:`Conversation` of ``said`` with a fact per question of ``asked``."""
    lang = language_of([m.text for m in said])
    turns, landed = _turns(said)
    data = {
        "schema": SCHEMA,
        "id": cid,
        "lang": lang,
        "size": "custom",
        "system": system,
        "turns": turns,
        "facts": [_anchor(a, said, landed, len(turns)) for a in asked],
        "abstain_markers": list(TEXTS[lang]["abstain_markers"]),
        "generator": generator,
    }
    return conversation_from_data(data, where)
