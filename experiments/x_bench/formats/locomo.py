"""LoCoMo's JSON (github.com/snap-research/locomo, ``data/locomo10.json``) as X-BENCH
conversations: one per sample, its sessions the turns, each QA a fact.

A sample: ``sample_id``, ``conversation`` (``speaker_a``, ``speaker_b``, ``session_N``: a list
of ``{speaker, dia_id, text}``, ``session_N_date_time``) and ``qa`` (``{question, answer,
evidence: [dia_id], category}``). ``speaker_a`` plays the user, ``speaker_b`` the assistant;
each message is ``Speaker: text`` and each session opens with ``[date time]``. A QA's evidence
is its ``dia_id``s; a QA of LoCoMo's adversarial category 5 (or with no ``answer``: such a QA
carries an ``adversarial_answer`` instead; its premise is not in the conversation) is an
abstention; every other one is ``recall``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from experiments.x_bench.formats.assemble import Asked, Role, Said, assemble
from experiments.x_bench.schema import BenchFileError, Conversation

__all__ = ["FORMAT", "conversation", "looks_like"]

FORMAT = "locomo"
ADVERSARIAL = 5
"""LoCoMo's category of questions whose premise is not in the conversation."""
_SESSION = re.compile(r"^session_(\d+)$")


def looks_like(item: Any) -> bool:
    """Whether ``item`` has LoCoMo's keys."""
    return (
        isinstance(item, Mapping)
        and isinstance(item.get("conversation"), Mapping)
        and "qa" in item
        and "speaker_a" in item["conversation"]
    )


def _messages(talk: Mapping[str, Any], where: str) -> list[Said]:
    numbers = sorted(int(hit.group(1)) for k in talk if (hit := _SESSION.match(str(k))))
    first = talk.get("speaker_a")
    said: list[Said] = []
    for number in numbers:
        session = talk[f"session_{number}"]
        if not isinstance(session, list):
            raise BenchFileError(f"{where}: session_{number} is not a list of messages.")
        date = talk.get(f"session_{number}_date_time")
        for m, message in enumerate(session):
            if not isinstance(message, Mapping) or not isinstance(message.get("text"), str):
                raise BenchFileError(f"{where}: session_{number} message {m} has no text.")
            speaker = str(message.get("speaker", ""))
            text = f"{speaker}: {message['text']}"
            if m == 0 and isinstance(date, str) and date:
                text = f"[{date}] {text}"
            role: Role = "user" if speaker == first else "assistant"
            said.append(Said(role, text, str(message.get("dia_id", f"D{number}:{m + 1}"))))
    return said


def _asked(qa: Any, n: int, where: str) -> Asked:
    if not isinstance(qa, Mapping) or not isinstance(qa.get("question"), str):
        raise BenchFileError(f"{where}: qa {n} has no question.")
    evidence = qa.get("evidence") or []
    if not isinstance(evidence, list):
        raise BenchFileError(f"{where}: qa {n}'s evidence is not a list.")
    if qa.get("answer") is None or qa.get("category") == ADVERSARIAL:
        return Asked(f"qa-{n}", "abstention", qa["question"], [], None)
    # an evidence entry may name several dia_ids ("D8:6; D9:17"), as a few of LoCoMo's do
    keys = [k.strip() for e in evidence for k in re.split(r"[;,]", str(e)) if k.strip()]
    return Asked(f"qa-{n}", "recall", qa["question"], [str(qa["answer"])], keys)


def conversation(item: Any, where: str, source: str) -> Conversation:
    """One LoCoMo sample as a conversation with a fact per QA."""
    if not looks_like(item):
        raise BenchFileError(f"{where} is not a LoCoMo sample (it needs conversation and qa).")
    qas = item["qa"]
    if not isinstance(qas, list):
        raise BenchFileError(f"{where}: 'qa' is not a list.")
    said = _messages(item["conversation"], where)
    asked = [_asked(qa, n, where) for n, qa in enumerate(qas)]
    sample = str(item.get("sample_id", where))
    generator = {"format": FORMAT, "source": source}
    return assemble(f"locomo-{sample}", said, asked, generator, where)
