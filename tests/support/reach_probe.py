"""What :func:`lab.mutations.reach.patched_code` finds for a few patches of a probe module, in a
process of its own (``python -m support.reach_probe CASE`` prints it as JSON): a test process
that has run hundreds of other tests holds modules whose namespaces change while a patch is
open, which would make the answer "reaches everything" for reasons that are not the patch's."""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

from lab.mutations.reach import code_key, patched_code


def called() -> int:
    return 1


def never() -> int:
    return 2


class Base:
    def step(self) -> int:
        return 1

    @property
    def size(self) -> int:
        return 3


class Child(Base):
    pass


PROBE = types.ModuleType("ctxlab_reach_probe")
PROBE.run = called  # type: ignore[attr-defined]
sys.modules[PROBE.__name__] = PROBE


@contextmanager
def _by_hand() -> Iterator[None]:
    original = PROBE.run  # type: ignore[attr-defined]
    PROBE.run = never  # type: ignore[attr-defined]
    try:
        yield
    finally:
        PROBE.run = original  # type: ignore[attr-defined]


CASES = {
    "function": (lambda: mock.patch.object(PROBE, "run", never), called.__code__),
    "inherited": (lambda: mock.patch.object(Child, "step", lambda self: 2), Base.step.__code__),
    "property": (
        lambda: mock.patch.object(Base, "size", property(lambda s: 4)),
        Base.size.fget.__code__,  # type: ignore[attr-defined]
    ),
    "by-hand": (_by_hand, called.__code__),
}


def main(case: str) -> None:
    patch, code = CASES[case]
    found = patched_code({"M": patch})["M"]
    print(json.dumps({"found": sorted(found) if found is not None else None,
                      "expected": [code_key(code)]}))  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1])
