"""Saved sessions for the manual-compaction tests: a few turns answered by a scripted model,
written by a real agent to either store, and a summariser behind a real HTTP server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.messages import Message
from harness.model import ChatRequest
from harness.store.eventlog import EventLog
from harness.store.statefile import JsonStateStore
from harness.testing import FunctionModel
from support.sessions import run_turns
from support.summary_server import SummaryServer

__all__ = ["SUMMARY", "answer", "saved_session", "server", "session_messages"]

SUMMARY = (
    "## SESSION INTENT\nship to Hamburg\n## SUMMARY\ncode ALPHA\n"
    "## ARTIFACTS\nNone\n## NEXT STEPS\nNone"
)


def answer(request: ChatRequest) -> str:
    if request.purpose == "summary":
        return SUMMARY
    return f"answer {len(request.messages)}"


def saved_session(root: Path, store: str = "eventlog", turns: int = 4) -> Path:
    texts = [f"question {n} " + "x" * 200 for n in range(turns)]
    return run_turns(root, FunctionModel(answer), texts, store)


def session_messages(base: Path, store: str) -> list[Message]:
    if store == "eventlog":
        return EventLog.replay(base / "events/s1.jsonl").messages()
    return JsonStateStore(base / "state").load("s1").context


@pytest.fixture
def server() -> Iterator[SummaryServer]:
    with SummaryServer(SUMMARY) as summariser:
        yield summariser
