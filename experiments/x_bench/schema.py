"""The X-BENCH conversation format: one scripted conversation and the facts planted in it.

The generator (:mod:`experiments.x_bench.corpus`) writes it, ``ctxlab bench --conversations FILE``
reads it, and users may bring their own conversations in it. The format is documented in
``docs/bench.md`` and, as a JSON Schema, in ``docs/bench-conversation.schema.json`` (a test keeps
the two in step with these classes). :func:`load_conversations` checks a file and says, in one
sentence, what is wrong with it.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from experiments.x_bench.limits import MAX_CONVERSATIONS, MAX_FACTS, MAX_FILE_BYTES, MAX_TURNS
from harness import json_depth
from lab import ExperimentError

__all__ = [
    "FACT_KINDS",
    "SCHEMA",
    "BenchFileError",
    "Conversation",
    "Fact",
    "ToolStep",
    "Turn",
    "conversation_from_data",
    "dump_conversation",
    "items_of",
    "load_conversations",
    "read_json",
    "unique_ids",
]

SCHEMA = "ctxlab-bench-conversation/1"
"""The ``schema`` field every conversation carries."""

FactKind = Literal[
    "identifier",
    "name",
    "code_word",
    "decision",
    "constraint",
    "update",
    "near_duplicate",
    "tool_only",
    "abstention",
    "recall",
]
FACT_KINDS: tuple[str, ...] = get_args(FactKind)
"""Every kind of planted fact, in report order (``recall``: a question of an imported corpus,
:mod:`experiments.x_bench.formats`; the generator plants none)."""

Where = Literal["user", "assistant", "tool", "nowhere"]
Phase = Literal["conversation", "continuation"]


class BenchFileError(ExperimentError):
    """A conversations file that cannot be read as X-BENCH conversations (one sentence)."""


@dataclass(frozen=True)
class ToolStep:
    """The one tool call of a turn: the agent calls ``name`` with ``arguments``; the tool
    returns ``result`` verbatim."""

    name: str
    arguments: dict[str, str]
    result: str


@dataclass(frozen=True)
class Turn:
    """One user turn and what the scripted agent does with it: an optional tool call, then a
    reply."""

    index: int
    user: str
    assistant: str
    tool: ToolStep | None = None
    phase: Phase = "conversation"
    """``continuation``: the short turns after the planted part (nothing is planted there)."""


@dataclass(frozen=True)
class Fact:
    """One planted fact and how it is scored."""

    id: str
    kind: FactKind
    question: str
    """Asked in the probe, numbered with the others."""
    values: list[str]
    """Exact strings that must all be in the context for the fact to survive (empty for an
    abstention probe)."""
    expect: list[str]
    """The answer is correct when it contains every one of these (normalised)..."""
    reject: list[str]
    """...and none of these (an update's old value, a near-duplicate's distractor)."""
    turn: int | None
    """The turn that plants it (for an update, the turn with the newer value); None for an
    abstention probe."""
    where: Where
    depth: float | None
    """Estimated tokens before the planting turn over the planted part's tokens (0 = first
    turn); None for an abstention probe."""
    band: str
    """``early`` (depth < 1/3), ``middle``, ``late`` (depth ≥ 2/3) or ``none``."""
    shape: str = ""
    """For identifiers: ``id``, ``path``, ``url`` or ``amount``."""
    earlier_turn: int | None = None
    """An update's first (stale) value's turn."""
    unanchored: str = ""
    """Why an imported fact is not scored (its answer occurs verbatim in none of its evidence
    turns); its ``values`` are then empty and it counts in no survival share nor answer share.
    Empty for every fact that is scored."""


@dataclass(frozen=True)
class Conversation:
    """A scripted conversation with its planted facts."""

    id: str
    lang: Literal["zh", "en"]
    size: str
    """``2k``, ``8k``, ``24k`` or ``custom``."""
    seed: int | None
    system: str
    tool_description: str
    turns: list[Turn]
    facts: list[Fact]
    tokens: int
    """The turns' messages priced with the harness's estimator (:mod:`harness.meter.pricers`)."""
    abstain_markers: list[str]
    """Phrases that say "not known"; an abstention answer must contain one."""
    schema: str = SCHEMA
    generator: dict[str, Any] = field(default_factory=dict)
    """Who wrote it (``experiments.x_bench.corpus`` and its version, or the user's own)."""


def dump_conversation(conversation: Conversation) -> str:
    """Deterministic JSON (UTF-8 kept, keys in field order, a final newline); a fact's
    ``unanchored`` only where it says something, so a conversation without one dumps as before
    the field existed (the journal's keys and the corpus digests hold)."""
    data = asdict(conversation)
    for fact in data["facts"]:
        if not fact["unanchored"]:
            del fact["unanchored"]
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _need(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise BenchFileError(f"{where} has no {key!r}.")
    value = data[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise BenchFileError(f"{where}: {key!r} has the wrong type ({type(value).__name__}).")
    return value


def _optional(data: Mapping[str, Any], key: str, kind: type, default: Any, where: str) -> Any:
    """``data[key]`` when it is there and not null (checked as :func:`_need` does), else
    ``default``."""
    if data.get(key) is None:
        return default
    return _need(data, key, kind, where)


def _index(data: Mapping[str, Any], key: str, turns: int, where: str) -> int | None:
    """A turn index of ``turns`` turns, or None (absent or null)."""
    value = data.get(key)
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < turns
    ):
        raise BenchFileError(f"{where}: {key!r} must be a turn index or null.")
    return value


def _strings(value: Any, key: str, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BenchFileError(f"{where}: {key!r} must be a list of strings.")
    return list(value)


def _tool(data: Any, where: str) -> ToolStep | None:
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise BenchFileError(f"{where}: 'tool' must be an object or null.")
    arguments = _need(data, "arguments", dict, f"{where} tool")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in arguments.items()):
        raise BenchFileError(f"{where}: the tool's arguments must map strings to strings.")
    return ToolStep(
        _need(data, "name", str, f"{where} tool"),
        dict(arguments),
        _need(data, "result", str, f"{where} tool"),
    )


def _turn(data: Any, position: int, where: str) -> Turn:
    here = f"{where} turn {position}"
    if not isinstance(data, Mapping):
        raise BenchFileError(f"{here} is not an object.")
    phase = data.get("phase", "conversation")
    if phase not in get_args(Phase):
        raise BenchFileError(f"{here}: phase must be 'conversation' or 'continuation'.")
    index = _need(data, "index", int, here)
    if index != position:
        raise BenchFileError(f"{here}: 'index' is {index}, expected {position}.")
    return Turn(
        index,
        _need(data, "user", str, here),
        _need(data, "assistant", str, here),
        _tool(data.get("tool"), here),
        phase,
    )


def _fact(data: Any, turns: int, where: str) -> Fact:
    if not isinstance(data, Mapping):
        raise BenchFileError(f"{where}: a fact is not an object.")
    here = f"{where} fact {data.get('id', '?')!r}"
    kind = _need(data, "kind", str, here)
    if kind not in FACT_KINDS:
        raise BenchFileError(f"{here}: kind {kind!r} is not one of {', '.join(FACT_KINDS)}.")
    values = _strings(_need(data, "values", list, here), "values", here)
    unanchored = _optional(data, "unanchored", str, "", here)
    if unanchored and values:
        raise BenchFileError(f"{here}: an unanchored fact is not scored, so it takes no values.")
    if kind != "abstention" and not unanchored and (not values or not all(values)):
        raise BenchFileError(f"{here}: a fact needs at least one value, none of them empty.")
    turn = _index(data, "turn", turns, here)
    depth = data.get("depth")
    if depth is not None and (
        isinstance(depth, bool) or not isinstance(depth, int | float) or not math.isfinite(depth)
    ):
        raise BenchFileError(f"{here}: 'depth' must be a number or null.")
    spoken = _optional(data, "where", str, "user", here)
    if spoken not in get_args(Where):
        raise BenchFileError(f"{here}: 'where' must be one of {', '.join(get_args(Where))}.")
    return Fact(
        _need(data, "id", str, here),
        kind,
        _need(data, "question", str, here),
        values,
        _strings(_need(data, "expect", list, here), "expect", here),
        _strings(_need(data, "reject", list, here), "reject", here),
        turn,
        spoken,
        None if depth is None else float(depth),
        _optional(data, "band", str, "none", here),
        _optional(data, "shape", str, "", here),
        _index(data, "earlier_turn", turns, here),
        unanchored,
    )


def conversation_from_data(data: Any, where: str = "the conversation") -> Conversation:
    """A :class:`Conversation` from its JSON data; :class:`BenchFileError` naming what is
    wrong."""
    if not isinstance(data, Mapping):
        raise BenchFileError(f"{where} is not a JSON object.")
    schema = data.get("schema", SCHEMA)
    if schema != SCHEMA:
        raise BenchFileError(f"{where} has schema {schema!r}; ctxlab reads {SCHEMA!r}.")
    where = f"{where} (id {data['id']!r})" if "id" in data else where
    raw_turns = _need(data, "turns", list, where)
    if not raw_turns:
        raise BenchFileError(f"{where} has no turns.")
    raw_facts = _need(data, "facts", list, where)
    _at_most(len(raw_turns), MAX_TURNS, "turns", where)
    _at_most(len(raw_facts), MAX_FACTS, "facts", where)
    turns = [_turn(t, i, where) for i, t in enumerate(raw_turns)]
    facts = [_fact(f, len(turns), where) for f in raw_facts]
    if not facts:
        raise BenchFileError(f"{where} has no facts to score.")
    _unique_fact_ids(facts, where)
    _values_said(turns, facts, where)
    lang = _need(data, "lang", str, where)
    if lang not in ("zh", "en"):
        raise BenchFileError(f"{where}: lang must be 'zh' or 'en', not {lang!r}.")
    tokens = _optional(data, "tokens", int, None, where)
    if tokens is not None and tokens < 0:
        raise BenchFileError(f"{where}: 'tokens' must be at least 0, not {tokens}.")
    return Conversation(
        id=_need(data, "id", str, where),
        lang=lang,
        size=_optional(data, "size", str, "custom", where),
        seed=_optional(data, "seed", int, None, where),
        system=_optional(data, "system", str, "", where),
        tool_description=_optional(data, "tool_description", str, "Look a record up.", where),
        turns=turns,
        facts=facts,
        tokens=tokens or 0,
        abstain_markers=_strings(data.get("abstain_markers", []), "abstain_markers", where),
        generator=dict(_optional(data, "generator", dict, {}, where)),
    )


def _unique_fact_ids(facts: list[Fact], where: str) -> None:
    ids = Counter(f.id for f in facts)
    if twice := [i for i, n in ids.items() if n > 1]:
        raise BenchFileError(f"{where}: the fact id {twice[0]!r} is used more than once.")


def _values_said(turns: list[Turn], facts: list[Fact], where: str) -> None:
    """Every value a fact is scored by occurs verbatim in some turn (what the user says, the
    tool returns or the agent replies): one that occurs nowhere could never survive, and its
    fact would count as lost whatever the condition."""
    said = "\n".join(
        text for turn in turns for text in (turn.user, turn.assistant, *_tool_texts(turn.tool))
    )
    for fact in facts:
        if missing := next((v for v in fact.values if v not in said), None):
            raise BenchFileError(
                f"{where}: fact {fact.id!r}'s value {missing!r} occurs in no turn, so it could "
                "never survive; use the turn's exact text."
            )


def _tool_texts(tool: ToolStep | None) -> list[str]:
    return [] if tool is None else [tool.result, *tool.arguments.values()]


def _at_most(count: int, limit: int, what: str, where: str) -> None:
    """One sentence naming the limit (:mod:`experiments.x_bench.limits`) ``count`` exceeds."""
    if count > limit:
        raise BenchFileError(
            f"{where} holds {count:,} {what}; ctxlab bench reads at most {limit:,}."
        )


def _read_text(path: Path) -> str:
    """The file's text, refused before it is read whole when it is over MAX_FILE_BYTES."""
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_FILE_BYTES + 1)  # a FIFO or a device stops here too
    except FileNotFoundError:
        raise BenchFileError(f"The conversations file {path} does not exist.") from None
    except OSError as exc:
        raise BenchFileError(f"The conversations file {path} cannot be read ({exc}).") from None
    if len(raw) > MAX_FILE_BYTES:
        raise BenchFileError(
            f"The conversations file {path} is larger than {MAX_FILE_BYTES:,} bytes, the most "
            "ctxlab bench reads."
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BenchFileError(f"The conversations file {path} cannot be read ({exc}).") from None


def read_json(path: Path) -> Any:
    """The JSON in ``path``; too large, not UTF-8, not JSON or too deep: one sentence."""
    text = _read_text(path)
    try:
        return json_depth.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchFileError(
            f"The conversations file {path} is not JSON (line {exc.lineno}: {exc.msg})."
        ) from None
    except json_depth.JsonTooDeepError as exc:  # its parser would raise RecursionError
        raise BenchFileError(f"The conversations file {path} cannot be read: {exc}.") from None


def items_of(data: Any, path: Path) -> Sequence[Any]:
    """A file's items (one object, or a list of them), at most MAX_CONVERSATIONS."""
    items: Sequence[Any] = data if isinstance(data, list) else [data]
    if not items:
        raise BenchFileError(f"The conversations file {path} holds no conversation.")
    _at_most(len(items), MAX_CONVERSATIONS, "conversations", f"The conversations file {path}")
    return items


def unique_ids(conversations: Sequence[Conversation], name: str) -> list[Conversation]:
    """``conversations``, refused in one sentence when two share an id."""
    seen: dict[str, int] = {}
    for n, conversation in enumerate(conversations):
        if conversation.id in seen:
            raise BenchFileError(
                f"{name} items {seen[conversation.id]} and {n} have the same id "
                f"{conversation.id!r}; each conversation needs its own."
            )
        seen[conversation.id] = n
    return list(conversations)


def load_conversations(path: Path) -> list[Conversation]:
    """The conversations in ``path``: one conversation object, or a list of them."""
    items = items_of(read_json(path), path)
    conversations = [
        conversation_from_data(item, f"{path.name} item {n}") for n, item in enumerate(items)
    ]
    return unique_ids(conversations, path.name)
