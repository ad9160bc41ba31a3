"""The tool results on a DeepSeek-Harness session's surface, their content left out.

dsh lets a ``tool/result`` replace one current tool result (a prune) only when it changes
nothing but the result block's content (``assertToolResultRewrite``). The reader checks each
such rewrite against the original's data (:meth:`SurfaceResults.problem`) and the writer
writes a rewrite from it (:meth:`SurfaceResults.rewrite`), so what ctxlab prunes in a dsh file
keeps the original's message id, turn, step and meta.

Only the results read or written since the file was last *settled* are held in memory: once
every event so far is in the file (a snapshot was written, or one was restored), the log hands
over a reader of the file's strides (:meth:`SurfaceResults.settle`) and an original is read
back from the file when a rewrite needs it. The codec's snapshot state is then the results
since the last snapshot, not every result on the surface (a 1M-event session's sidecar once
held them all).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from harness import json_depth
from harness.store.dsh.checks import rewrite_problem, without_content

__all__ = ["StrideReader", "SurfaceResults", "result_in_stride"]

StrideReader = Callable[[int], tuple[int, bytes]]
"""``read(seq)``: the first seq and the bytes of the file's lines holding event ``seq``."""


class SurfaceResults:
    """The surface's tool results by seq, each its dsh data with the content blanked: those
    since the file was last settled in :attr:`by_seq`, earlier ones read from the file."""

    def __init__(self, entries: Iterable[tuple[int, Any]] = ()) -> None:
        self.by_seq: dict[int, Any] = {int(seq): data for seq, data in entries}
        self._earlier: StrideReader | None = None
        self._cached: tuple[int, dict[int, Any]] | None = None  # the last stride read

    def follow(self, type: str, seq: int, shadowed: Iterable[int], data: Any) -> None:
        """Take in event ``seq``: drop the nodes a replace ``shadowed``, keep a tool result."""
        for old in shadowed:
            self.by_seq.pop(old, None)
        if type == "tool/result":
            self.by_seq[seq] = without_content(data)

    def settle(self, read: StrideReader) -> None:
        """Every event so far is in the file, where ``read`` finds it: forget the results
        held (a rewrite reads its original back from the file)."""
        self.by_seq.clear()
        self._earlier, self._cached = read, None

    def original(self, seq: int) -> Any | None:
        """The dsh data (content blanked) of tool result ``seq``; None when there is none."""
        found = self.by_seq.get(seq)
        if found is not None or self._earlier is None:
            return found
        try:
            first, raw = self._earlier(seq)
        except ValueError:  # before the file's first event
            return None
        if self._cached is None or self._cached[0] != first:
            self._cached = first, result_in_stride(raw)
        return self._cached[1].get(seq)

    def problem(self, record: Mapping[str, Any]) -> str:
        """What dsh refuses in ``record`` as a rewrite of a surface result ("" for nothing)."""
        op = record.get("surfaceOp")
        if record.get("type") != "tool/result" or not isinstance(op, Mapping):
            return ""  # no rewrite of a result: nothing to read back
        start = op.get("start")
        if not isinstance(start, int) or (found := self.original(start)) is None:
            return ""
        return rewrite_problem({start: found}, record)

    def rewrite(self, seq: int, text: str) -> dict[str, Any] | None:
        """dsh's data for a rewrite of result ``seq`` to ``text``: the original's with only
        its result block's content changed; None when ``seq`` is no result on the surface."""
        original = self.original(seq)
        if original is None:
            return None
        out = copy.deepcopy(dict(original))
        out["message"]["content"][0]["content"] = [{"type": "text", "text": text}]
        return out

    def entries(self) -> list[list[Any]]:
        """``[seq, data]`` pairs held (those since the file was last settled), for a
        snapshot."""
        return [[seq, data] for seq, data in self.by_seq.items()]


def result_in_stride(raw: bytes) -> dict[int, Any]:
    """The tool results in ``raw`` (whole lines of a dsh file) by seq, content blanked;
    lines that do not read are skipped (the reader refused them when they were folded)."""
    found: dict[int, Any] = {}
    for line in raw.split(b"\n"):
        if b'"tool/result"' not in line:  # a storage row or another event: no result
            continue
        try:
            record = json_depth.loads(line)
        except ValueError:  # a line the fold already judged
            continue
        if not isinstance(record, dict) or record.get("type") != "tool/result":
            continue
        if isinstance(seq := record.get("seq"), int):
            found[seq] = without_content(record.get("data"))
    return found
