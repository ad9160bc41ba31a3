"""LongMemEval's JSON (github.com/xiaowu0162/LongMemEval, ``longmemeval_s``/``_m``/``_oracle``)
as X-BENCH conversations: one per item, its haystack the turns, its question the one fact.

An item: ``question_id``, ``question_type``, ``question``, ``answer``, ``haystack_sessions``
(lists of ``{role, content, has_answer?}``), ``haystack_session_ids``, ``answer_session_ids``
and ``haystack_dates``. The sessions are played in order, each opened by its date
(``[date] `` before its first message, so a temporal question has it); the evidence is the
messages marked ``has_answer``, or, where none is, every message of the answer sessions. A
question id ending in ``_abs`` is an abstention (its premise is not in the haystack);
``knowledge-update`` questions are ``update`` facts, every other type ``recall``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from experiments.x_bench.formats.assemble import Asked, Said, assemble
from experiments.x_bench.schema import BenchFileError, Conversation

__all__ = ["FORMAT", "conversation", "looks_like"]

FORMAT = "longmemeval"
_KEYS = ("question_id", "question", "answer", "haystack_sessions")


def looks_like(item: Any) -> bool:
    """Whether ``item`` has LongMemEval's keys."""
    return isinstance(item, Mapping) and all(k in item for k in _KEYS)


def _need(item: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = item.get(key)
    if not isinstance(value, kind):
        raise BenchFileError(f"{where}: {key!r} is missing or not a {kind.__name__}.")
    return value


def _messages(item: Mapping[str, Any], where: str) -> tuple[list[Said], set[str]]:
    """The haystack's messages (each keyed by its session and position) and the keys of those
    holding the answer."""
    sessions = _need(item, "haystack_sessions", list, where)
    ids = item.get("haystack_session_ids") or [str(n) for n in range(len(sessions))]
    dates = item.get("haystack_dates") or [""] * len(sessions)
    answer_sessions = {str(s) for s in item.get("answer_session_ids") or []}
    said: list[Said] = []
    marked: set[str] = set()
    in_answer_sessions: set[str] = set()
    for n, session in enumerate(sessions):
        if not isinstance(session, list):
            raise BenchFileError(f"{where}: haystack session {n} is not a list of messages.")
        sid, date = str(ids[n]) if n < len(ids) else str(n), dates[n] if n < len(dates) else ""
        for m, message in enumerate(session):
            said.append(_said(message, f"{sid}:{m}", date if m == 0 else "", f"{where} {sid}"))
            if isinstance(message, Mapping) and message.get("has_answer"):
                marked.add(said[-1].key)
            if sid in answer_sessions:
                in_answer_sessions.add(said[-1].key)
    return said, marked or in_answer_sessions


def _said(message: Any, key: str, date: str, where: str) -> Said:
    if not isinstance(message, Mapping):
        raise BenchFileError(f"{where}: a message is not an object.")
    role, text = message.get("role"), message.get("content")
    if role not in ("user", "assistant") or not isinstance(text, str):
        raise BenchFileError(f"{where}: a message needs role user|assistant and string content.")
    return Said(role, f"[{date}] {text}" if date else text, key)


def conversation(item: Any, where: str, source: str) -> Conversation:
    """One LongMemEval item as a conversation with one fact."""
    if not looks_like(item):
        raise BenchFileError(f"{where} is not a LongMemEval item (it needs {', '.join(_KEYS)}).")
    qid = str(item["question_id"])
    said, evidence = _messages(item, where)
    abstains = qid.endswith("_abs")
    answer = item["answer"]
    answers: Sequence[str] = [] if abstains else [str(answer)]
    kind = "abstention" if abstains else (
        "update" if item.get("question_type") == "knowledge-update" else "recall"
    )  # fmt: skip
    asked = Asked(qid, kind, _need(item, "question", str, where), answers, sorted(evidence))
    generator = {"format": FORMAT, "source": source, "question_type": item.get("question_type")}
    return assemble(f"lme-{qid}", said, [asked], generator, where)
