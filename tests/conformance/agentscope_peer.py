"""AgentScope Java's own tests as cases of ours: where each comes from, and how one is run.

Each :class:`PeerCase` names the peer's test it translates (file, test name, commit), says in
our words what goes in and what AgentScope expects, and is run by a check written against
ctxlab. A case where ctxlab deliberately does otherwise is marked expected-to-differ
(``xfail``, strict) with its reason: its check still asserts AgentScope's result, so a change
that made ctxlab agree would show as an unexpected pass. No case needs the peer's tree: the
inputs and expectations are restated here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

PEER = "agentscope-ai/agentscope-java"
COMMIT = "c2d43f86e668a21ca4aa0120adf2296251eefa2e"
"""``main`` on 2026-08-22, root ``pom.xml`` revision ``2.0.3-SNAPSHOT``: the snapshot the seed
describes as 2.0.3 (no 2.0.3 tag exists; v2.0.2 is the last)."""
COMPACTOR_TEST = (
    "agentscope-harness/src/test/java/io/agentscope/harness/agent/memory/compaction/"
    "ConversationCompactorTest.java"
)
MIDDLEWARE_TEST = (
    "agentscope-harness/src/test/java/io/agentscope/harness/agent/middleware/"
    "CompactionMiddlewareTest.java"
)
COMPACTOR_SOURCE = (
    "agentscope-harness/src/main/java/io/agentscope/harness/agent/memory/compaction/"
    "ConversationCompactor.java"
)

SEED = "the seed says otherwise"
UNSAFE = "unsafe for our users"


@dataclass(frozen=True)
class PeerCase:
    """One of the peer's tests, restated."""

    file: str
    test: str
    given: str
    """The input, in our words."""
    peer_expects: str
    """AgentScope's result, in our words."""
    check: Callable[[], None]
    """Runs ctxlab on the input and asserts AgentScope's result."""
    deviation: str | None = None
    """Why ctxlab deliberately differs (starting with :data:`SEED` or :data:`UNSAFE`);
    None when it agrees."""
    differs_by: type[BaseException] = AssertionError
    """How a deviation's check fails (the assertion, or what ctxlab raises instead)."""

    @property
    def source(self) -> str:
        return f"{PEER}@{COMMIT[:9]} {self.file.rsplit('/', 1)[-1]}#{self.test}"


def params(cases: Sequence[PeerCase]) -> list[object]:
    """The cases as pytest parameters, a deliberate deviation as a strict ``xfail``."""
    out: list[object] = []
    for case in cases:
        marks = []
        if case.deviation is not None:
            assert case.deviation.startswith((SEED, UNSAFE)), case.deviation
            marks.append(
                pytest.mark.xfail(strict=True, raises=case.differs_by, reason=case.deviation)
            )
        out.append(pytest.param(case, id=case.test, marks=marks))
    return out
