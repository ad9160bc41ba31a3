"""ctxlab's own format (``docs/bench.md``, :mod:`experiments.x_bench.schema`) among the readers
of :mod:`experiments.x_bench.formats`: a value said in no turn is refused, as ever (a user
writes this format for X-BENCH, so such a value is a mistake to fix, not a dataset's wording)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from experiments.x_bench.schema import SCHEMA, Conversation, conversation_from_data

__all__ = ["FORMAT", "conversation", "looks_like"]

FORMAT = "ctxlab"


def looks_like(item: Any) -> bool:
    """Whether ``item`` has the format's keys (or says its schema)."""
    return isinstance(item, Mapping) and (
        item.get("schema") == SCHEMA or ("turns" in item and "facts" in item)
    )


def conversation(item: Any, where: str, source: str) -> Conversation:
    """One conversation object, checked as ``ctxlab bench --conversations`` checks it."""
    del source  # the file's own conversations name themselves
    return conversation_from_data(item, where)
