"""Saved sessions for tests: a scripted agent with compaction and memory switched off, so the
session on disk holds exactly the turns a test made (user ``u``, session ``s1``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from harness.harness_agent import HarnessAgent
from harness.model import ChatModel
from harness.testing import FunctionModel
from support.memory_invariants import FakeClock

__all__ = ["CODE_WORD_TURN", "bare_agent", "code_word_session", "run_turns"]

CODE_WORD_TURN = "记住暗号是夜莺，只回复收到"
"""The one user turn of :func:`code_word_session`."""


def bare_agent(root: Path, model: ChatModel, store: str = "eventlog", **extra: Any) -> HarnessAgent:
    """User ``u``'s session ``s1`` under ``root``, with no compaction and no memory work."""
    return HarnessAgent(
        model,
        "system",
        workspace_root=root,
        user_id="u",
        session_id="s1",
        disable_compaction=True,
        disable_memory_hooks=True,
        disable_memory_tools=True,
        store=store,
        **extra,
    )


def run_turns(root: Path, model: ChatModel, texts: Iterable[str], store: str = "eventlog") -> Path:
    """Make one call per text on :func:`bare_agent`, close it, and return the user's folder."""
    agent = bare_agent(root, model, store)
    for text in texts:
        agent.call(text)
    agent.close()
    return root / "u"


def code_word_session(root: Path, store: str = "state") -> HarnessAgent:
    """Session ``chat1`` under ``root`` in which the user said :data:`CODE_WORD_TURN` once and
    the model answered ``收到`` (memory hooks off, fake clock); the agent is closed."""
    model = FunctionModel(lambda r: "收到" if r.purpose == "agent" else "NO_REPLY")
    agent = HarnessAgent(
        model,
        workspace_root=root,
        session_id="chat1",
        clock=FakeClock(),
        disable_memory_hooks=True,
        store=store,
    )
    try:
        agent.call(CODE_WORD_TURN)
    finally:
        agent.close()
    return agent
