"""X-BENCH's grid: every conversation under every condition, in one fixed order, and how
``ctxlab bench --shard i/n`` splits it.

The order is the tables' order whatever ran first: conversation by conversation, ``full`` first
(the other conditions' net tokens are counted against it), then the conditions as asked. A shard
takes the runs whose (conversation, condition, model) digest falls to it, so the split depends
on nothing but the run itself: the same run is in the same shard on every machine, in every
rerun, and in a grid that grew.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from experiments.x_bench.schema import Conversation
from harness import ConfigError
from lab import sharding

__all__ = ["Cell", "Shard", "grid_cells", "in_shard", "parse_shard", "shard_of"]

Shard = tuple[int, int]
"""Shard ``i`` of ``n`` (1 ≤ i ≤ n)."""


@dataclass(frozen=True)
class Cell:
    """One run of the grid: a conversation under a condition."""

    conversation: Conversation
    condition: str


def grid_cells(conversations: Sequence[Conversation], conditions: Sequence[str]) -> list[Cell]:
    """Every run, in the grid's order."""
    order = ["full", *[c for c in conditions if c != "full"]]
    return [Cell(c, name) for c in conversations for name in order if name in conditions]


def parse_shard(text: str) -> Shard:
    """``2/4`` → (2, 4); anything else is a one-sentence ConfigError."""
    first, _, second = text.partition("/")
    try:
        i, n = int(first), int(second)
    except ValueError:
        i = n = 0
    if not 1 <= i <= n:
        raise ConfigError(f"--shard takes i/n with 1 ≤ i ≤ n (2/4: the second of four), not "
                          f"{text!r}.")  # fmt: skip
    return i, n


def shard_of(conversation: str, condition: str, model: str, n: int) -> int:
    """The shard (1 to ``n``) that plays ``conversation`` under ``condition`` with ``model``."""
    return sharding.shard_of((conversation, condition, model), n)


def in_shard(cell: Cell, model: str, shard: Shard | None) -> bool:
    if shard is None:
        return True
    return shard_of(cell.conversation.id, cell.condition, model, shard[1]) == shard[0]
