"""The patches of :mod:`experiments.mutations.catalogue_judges`: each breaks one behaviour
of the harness in the way a lenient judge let through, for the life of a ``with``
block, from the suite; nothing in ``harness/`` knows about them."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

__all__ = [
    "chain_cites_kept",
    "cut_refused_as_empty",
    "placeholder_without_error",
    "sources_cite_kept",
    "summary_drops_previous",
]


def summary_drops_previous(original: Any) -> Any:
    """The AgentScope summariser leaves the old summary out of the prefix it summarises (it
    drops it instead of merging it): the new summary message still has one opening."""

    def summarize(model: Any, prefix: Sequence[Any], *args: Any, **kw: Any) -> Any:
        return original(model, [m for m in prefix if not m.is_summary], *args, **kw)

    return summarize


def placeholder_without_error(original: Any) -> Any:
    """A failed summary call gives the bare ``(Summary unavailable)``: the error is dropped."""
    from harness.compaction.agentscope import SUMMARY_UNAVAILABLE

    def summarize(*args: Any, **kw: Any) -> Any:
        outcome = original(*args, **kw)
        if outcome.failed and outcome.text.startswith(SUMMARY_UNAVAILABLE):
            return dataclasses.replace(outcome, text=SUMMARY_UNAVAILABLE)
        return outcome

    return summarize


def cut_refused_as_empty(original: Any) -> Any:
    """A DSH summary cut off at max_tokens is refused, but as if it were empty: the error no
    longer names max_tokens or the incomplete checkpoint."""
    from harness.errors import SummaryError

    def summarize_span(*args: Any, **kw: Any) -> Any:
        try:
            return original(*args, **kw)
        except SummaryError as exc:
            if "max_tokens" in str(exc):
                raise SummaryError("the summary call returned no text") from exc
            raise

    return summarize_span


def chain_cites_kept(original: Any) -> Any:
    """The DSH summary event's ``shadowed_seqs`` also name the first node the compaction keeps
    (paired with :func:`sources_cite_kept`: both records agree with each other, not with the
    log, whose surface still shows that node)."""

    def summary_data(self: Any, *args: Any, **kw: Any) -> dict[str, object]:
        data: dict[str, object] = original(self, *args, **kw)
        seqs = data["shadowed_seqs"]
        assert isinstance(seqs, list)
        nodes = list(self.log.node_seqs)
        kept = nodes[nodes.index(seqs[-1]) + 1 :][:1]
        return {**data, "shadowed_seqs": [*kept, *seqs]}

    return summary_data


def sources_cite_kept(original: Any) -> Any:
    """The replace message's ``sourceEventSeqs`` cite the first kept node as if shadowed."""

    def replace_seqs(
        self: Any, start: int, end: int, message: Any, *, extra_sources: Sequence[int] = ()
    ) -> Any:
        nodes = list(self.node_seqs)
        kept = nodes[nodes.index(end) + 1 :][:1]
        return original(self, start, end, message, extra_sources=(*extra_sources, *kept))

    return replace_seqs
