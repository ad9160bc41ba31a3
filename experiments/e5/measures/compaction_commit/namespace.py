"""AgentScope's local-mode namespace, run on a scripted HarnessAgent: every file of a user's
session (memory, ledger, state) under ``<workspace>/<userId>/``, nothing at the root."""

from __future__ import annotations

import tempfile
from pathlib import Path

from experiments.e5.common import USER
from experiments.e5.view.compaction_commit import Namespace
from harness import FunctionModel, HarnessAgent, Message, ToolCall
from harness.model import ChatRequest, ChatResponse

__all__ = ["measure_namespace"]


def _saving_model() -> FunctionModel:
    """Calls memory_save once, then answers."""

    def reply(request: ChatRequest) -> ChatResponse:
        if request.purpose == "agent" and request.messages[-1].role == "user":
            call = ToolCall("c1", "memory_save", '{"content": "- the customer code is 42"}')
            return ChatResponse(Message.assistant("", [call]))
        return ChatResponse(Message.assistant("NO_REPLY" if request.purpose != "agent" else "ok"))

    return FunctionModel(reply, model_name="scripted")


def measure_namespace() -> Namespace:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        agent = HarnessAgent(
            _saving_model(), "system", workspace_root=root, user_id=USER,
            disable_compaction=True, disable_memory_hooks=True,
        )  # fmt: skip
        try:
            agent.call("remember the customer code 42")
        finally:
            agent.close()
        memory = sorted(str(p.relative_to(root)) for p in root.rglob("MEMORY.md"))
        return Namespace(
            top_level=tuple(sorted(p.name for p in root.iterdir())), memory_files=tuple(memory)
        )
