"""DeepSeek-Harness's own test cases, as data, for ctxlab's conformance tests.

Each ``data/dsh/<suite>.json`` holds one suite: the peer version it was translated from and its
cases. A case names its source (file and test name in dsh's tree at that tag), its input, what
dsh's test expects (``dsh``), and, for a deliberate deviation, why ctxlab differs
(``deviation``): such a case must still differ, or it fails. The cases are written in our own
words and data from the tests' descriptions; no test needs dsh's tree.

Session-shaped inputs are lists of lines: a JSON object is written as one compact line, a
string is written as it is (a corrupt line). :func:`session_file` puts dsh's header first.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data" / "dsh"
PEER = "DeepSeek-Harness"
TAG = "dsh-v0.1.1-rc.2"
COMMIT = "b150a551b8d465e31e418e1b2eaf5e79bbb7d28e"
HEADER = {"type": "session", "version": 0, "id": "conf", "createdAt": 1, "delegationDepth": 0}


@dataclass(frozen=True)
class Case:
    """One of dsh's test cases (see the module docstring)."""

    id: str
    file: str
    test: str
    input: Any
    dsh: Any
    deviation: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def source(self) -> str:
        return f"{PEER} {TAG} {self.file}: {self.test!r}"


def load(suite: str) -> list[Case]:
    """The cases of ``data/dsh/<suite>.json``; the file must name the peer version above."""
    raw = json.loads((DATA / f"{suite}.json").read_text(encoding="utf-8"))
    assert (raw["peer"], raw["tag"], raw["commit"]) == (PEER, TAG, COMMIT), suite
    known = {"id", "file", "test", "input", "dsh", "deviation"}
    return [
        Case(
            c["id"], c.get("file", raw["file"]), c["test"], c.get("input"), c["dsh"],
            c.get("deviation", ""), {k: v for k, v in c.items() if k not in known},
        )
        for c in raw["cases"]
    ]  # fmt: skip


def params(suite: str) -> list[Any]:
    """The suite's cases as pytest params, ids from the data."""
    return [pytest.param(case, id=case.id) for case in load(suite)]


def conform(case: Case, agrees: Callable[[], bool]) -> None:
    """Assert ctxlab agrees with dsh on ``case``, or, for a deliberate deviation, that it
    still differs (a deviation that stopped differing must lose its mark)."""
    if case.deviation:
        assert not agrees(), f"{case.id} agrees with dsh now: drop its deviation ({case.source})"
        return
    assert agrees(), f"{case.id}: ctxlab differs from dsh ({case.source})"


def line(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def session_file(folder: Path, lines: list[Any], header: Any = None, end: str = "\n") -> Path:
    """A dsh session file in ``folder``: the header (dsh's default one unless given), then
    ``lines``, each ending in a newline except that ``end`` ends the last."""
    body = [line(HEADER if header is None else header), *map(line, lines)]
    path = folder / "session.jsonl"
    path.write_text("\n".join(body) + end, encoding="utf-8")
    return path
