"""How a conversation's turns become messages and where planted turns go.

:func:`turn_messages` builds the messages the agent loop builds for a turn (the corpus prices them
with the harness's estimator; the replay's scripted agent produces the same);
:func:`merge_plants` inserts the planted turns among the fillers at their target depths and
:func:`place_facts` records the depth each fact landed at.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from experiments.x_bench.schema import Conversation, Fact, Turn
from harness import Message, ToolCall
from harness.meter.pricers import estimate_tokens

__all__ = [
    "BANDS",
    "Plant",
    "call_id",
    "conversation_text",
    "merge_plants",
    "place_facts",
    "planted_at",
    "priced",
    "turn_messages",
    "turn_tokens",
]

BANDS = ("early", "middle", "late")


def call_id(turn: Turn) -> str:
    """The tool call id the scripted agent gives the call of ``turn``."""
    return f"call_{turn.index:03d}"


def turn_messages(turn: Turn) -> list[Message]:
    """The messages the agent loop builds for ``turn``: user, [tool call, result,] reply."""
    messages = [Message.user(turn.user)]
    if turn.tool is not None:
        arguments = json.dumps(turn.tool.arguments, ensure_ascii=False)
        call = ToolCall(call_id(turn), turn.tool.name, arguments)
        messages += [
            Message.assistant("", [call]),
            Message.tool(call.id, turn.tool.result, tool_name=turn.tool.name),
        ]
    messages.append(Message.assistant(turn.assistant))
    return messages


def turn_tokens(turn: Turn) -> int:
    return estimate_tokens(turn_messages(turn))


def priced(conversation: Conversation) -> Conversation:
    """``conversation`` with its ``tokens`` counted as the generator counts them, when its file
    left them out (0)."""
    if conversation.tokens:
        return conversation
    return replace(conversation, tokens=sum(turn_tokens(t) for t in conversation.turns))


@dataclass(frozen=True)
class Plant:
    """A fact's turn before it has an index: the turn, where in it, and its target depth."""

    key: str
    turn: Turn
    fraction: float


def merge_plants(fillers: list[Turn], total: int, plants: list[Plant]) -> list[Turn]:
    """The fillers with each planted turn inserted where the tokens before it reach its target
    depth."""
    out: list[Turn] = []
    before = 0
    queue = list(plants)
    for filler in fillers:
        while queue and before >= queue[0].fraction * total:
            out.append(replace(queue.pop(0).turn, index=-1 - len(out)))
        out.append(filler)
        before += turn_tokens(filler)
    out += [replace(p.turn, index=-1) for p in queue]
    return out


def planted_at(turns: Sequence[Turn], plants: Sequence[Plant]) -> dict[int, str]:
    """Turn index → plant key (planted turns are the ones equal to a plant's turn)."""
    found: dict[int, str] = {}
    for plant in plants:
        for turn in turns:
            same = turn.user == plant.turn.user and turn.assistant == plant.turn.assistant
            if same and turn.index not in found:
                found[turn.index] = plant.key
                break
    return found


def place_facts(facts: list[Fact], turns: Sequence[Turn], planted: dict[str, int]) -> list[Fact]:
    """The facts with their turn and measured depth."""
    body = [t for t in turns if t.phase == "conversation"]
    total = sum(turn_tokens(t) for t in body)
    starts, running = [], 0
    for turn in body:
        starts.append(running)
        running += turn_tokens(turn)
    placed = []
    for fact in facts:
        if fact.kind == "abstention":
            placed.append(fact)
            continue
        index = planted[fact.id]
        depth = round(starts[index] / total, 4)
        band = BANDS[min(int(depth * len(BANDS)), len(BANDS) - 1)]
        earlier = planted.get("update-old") if fact.kind == "update" else None
        placed.append(replace(fact, turn=index, depth=depth, band=band, earlier_turn=earlier))
    return placed


def conversation_text(turns: Sequence[Turn]) -> list[str]:
    """Every text of each turn (user, tool arguments and result, reply), one string per turn."""
    out = []
    for turn in turns:
        parts = [turn.user, turn.assistant]
        if turn.tool is not None:
            parts += [json.dumps(turn.tool.arguments, ensure_ascii=False), turn.tool.result]
        out.append("\n".join(parts))
    return out
