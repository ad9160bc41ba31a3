"""Which published format a conversations file is in (``ctxlab bench --format auto``).

A folder or a ``.yaml``/``.yml`` file is CompactBench templates; a JSON file is the format whose
keys every one of its items has (:func:`looks_like` of :mod:`~experiments.x_bench.formats.ctxlab`,
:mod:`~experiments.x_bench.formats.longmemeval` and :mod:`~experiments.x_bench.formats.locomo`).
A file that fits none, or more than one, is refused in one sentence naming the file and the
formats tried: ``--format`` then says which.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from experiments.x_bench.formats import compactbench, ctxlab, locomo, longmemeval
from experiments.x_bench.schema import BenchFileError

__all__ = ["FORMATS", "JSON_FORMATS", "detect"]

JSON_FORMATS = {
    ctxlab.FORMAT: ctxlab.looks_like,
    longmemeval.FORMAT: longmemeval.looks_like,
    locomo.FORMAT: locomo.looks_like,
}
FORMATS = (*JSON_FORMATS, compactbench.FORMAT)
"""Every format ``--format`` takes (and ``auto``)."""


def detect(path: Path, items: Sequence[Any] | None) -> str:
    """The one format ``path`` (its JSON ``items``, None for a folder or YAML) fits."""
    tried = ", ".join(FORMATS)
    if items is None:
        if compactbench.looks_like(path):
            return compactbench.FORMAT
        raise BenchFileError(f"Cannot tell the format of {path} (tried {tried}); pass --format.")
    fits = [name for name, fit in JSON_FORMATS.items() if items and all(map(fit, items))]
    if len(fits) == 1:
        return fits[0]
    if fits:
        raise BenchFileError(
            f"{path} fits more than one of the formats tried ({tried}), {' and '.join(fits)}; "
            "pass --format to say which."
        )
    raise BenchFileError(
        f"{path} is in none of the formats ctxlab bench reads (tried {tried}); pass --format."
    )
