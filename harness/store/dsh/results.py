"""The tool results on a DeepSeek-Harness session's surface, their content left out.

dsh lets a ``tool/result`` replace one current tool result (a prune) only when it changes
nothing but the result block's content (``assertToolResultRewrite``). The reader checks each
such rewrite against the original's data (:meth:`SurfaceResults.problem`) and the writer
writes a rewrite from it (:meth:`SurfaceResults.rewrite`), so what ctxlab prunes in a dsh file
keeps the original's message id, turn, step and meta. A replace cites every node it shadows and
a shadowed node can never be rewritten, so only the surface's results are kept: the codec's
snapshot state stays the size of the surface's results' envelopes.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from harness.store.dsh.checks import rewrite_problem, without_content

__all__ = ["SurfaceResults"]


class SurfaceResults:
    """The surface's tool results by seq, each its dsh data with the content blanked."""

    def __init__(self, entries: Iterable[tuple[int, Any]] = ()) -> None:
        self.by_seq: dict[int, Any] = {int(seq): data for seq, data in entries}

    def follow(self, type: str, seq: int, shadowed: Iterable[int], data: Any) -> None:
        """Take in event ``seq``: drop the nodes a replace ``shadowed``, keep a tool result."""
        for old in shadowed:
            self.by_seq.pop(old, None)
        if type == "tool/result":
            self.by_seq[seq] = without_content(data)

    def problem(self, record: Mapping[str, Any]) -> str:
        """What dsh refuses in ``record`` as a rewrite of a surface result ("" for nothing)."""
        return rewrite_problem(self.by_seq, record)

    def rewrite(self, seq: int, text: str) -> dict[str, Any] | None:
        """dsh's data for a rewrite of result ``seq`` to ``text``: the original's with only
        its result block's content changed; None when ``seq`` is no result on the surface."""
        original = self.by_seq.get(seq)
        if original is None:
            return None
        out = copy.deepcopy(dict(original))
        out["message"]["content"][0]["content"] = [{"type": "text", "text": text}]
        return out

    def entries(self) -> list[list[Any]]:
        """``[seq, data]`` pairs, for a snapshot."""
        return [[seq, data] for seq, data in self.by_seq.items()]
