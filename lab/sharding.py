"""Splitting a grid of work into ``n`` shards, the same way on every machine: a bench's runs
(conversation, condition, model) and a recording's cassettes (experiment, cassette, model)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

__all__ = ["shard_of"]


def shard_of(keys: Sequence[str], n: int) -> int:
    """The shard (1 to ``n``) of the work named by ``keys``: a digest, so it depends on
    nothing but the names (not on the grid's order, nor on which machine asks)."""
    digest = hashlib.sha256("\t".join(keys).encode()).digest()
    return int.from_bytes(digest[:8], "big") % n + 1
