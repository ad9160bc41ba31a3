"""Saved sessions for tests: a scripted agent with compaction and memory switched off, so the
session on disk holds exactly the turns a test made (user ``u``, session ``s1``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from harness.builder import HarnessAgent
from harness.model import ChatModel

__all__ = ["bare_agent", "run_turns"]


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
