"""The peers' sessions for :mod:`benchmarks.peers`: the workload of :mod:`benchmarks.turns` (a
question, an assistant reply calling ``lookup``, its result, the final answer) through each peer
agent framework, on an instant fake model and the framework's own session store.

* **LangChain** ``create_agent`` with ``SummarizationMiddleware`` (its trigger far away, so every
  turn still counts the tokens of the whole history, as ctxlab's engines check theirs) and
  LangGraph's ``InMemorySaver`` (``create_agent`` keeps no conversation without a
  checkpointer); the model is LangChain's own ``GenericFakeChatModel``, with ``bind_tools``
  returning itself (the class raises ``NotImplementedError`` there).
* **LangGraph**: a ``StateGraph`` over ``MessagesState`` (model node, the prebuilt ``ToolNode``
  and ``tools_condition``) compiled with ``SqliteSaver`` on a file, the same fake model.
* **OpenAI Agents SDK**: ``Runner.run`` with ``SQLiteSession`` on a file, tracing off, on a
  minimal :class:`agents.models.interface.Model` (the SDK ships no fake model); the runs share
  one event loop.

Each session is seeded with ``turn - 1`` turns (the same messages as ctxlab's, from
:func:`benchmarks.turns.tool_turns`) through the store's public interface (LangGraph's
``update_state``, the SDK's ``add_items``), then runs one untimed turn. Imported only when the
``peers`` extra is installed.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import Agent as OpenAIAgent
from agents import ModelSettings, RunConfig, Runner, SQLiteSession, function_tool
from agents.items import ModelResponse, TResponseInputItem
from agents.models.interface import Model as OpenAIModel
from agents.usage import Usage
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from benchmarks.turns import tool_turns
from harness.messages import Message

__all__ = ["PEERS", "PeerSession"]

ANSWER = "confirmed, 已确认"
ARGS = '{"booking": "BK-1"}'


@dataclass
class PeerSession:
    """One seeded session: ``turn`` runs one turn; ``reopen`` loads the session from its store
    as a new process would (None: the store is in memory); ``close`` releases it."""

    turn: Callable[[str], object]
    reopen: Callable[[], object] | None
    close: Callable[[], object]


def lookup_result(booking: str) -> str:
    return f"{booking}: confirmed"


# --- LangChain and LangGraph -------------------------------------------------------------


class _ToolFakeModel(GenericFakeChatModel):
    """``GenericFakeChatModel`` that accepts tools (its replies are scripted anyway)."""

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self


def _scripted_replies() -> Iterator[AIMessage]:
    """Per turn: a ``lookup`` call (a fresh id), then the answer."""
    for n in itertools.count():
        call = {"name": "lookup", "args": json.loads(ARGS), "id": f"call_{n}", "type": "tool_call"}
        yield AIMessage(content="", tool_calls=[call])
        yield AIMessage(content=ANSWER)


def _fake_model() -> _ToolFakeModel:
    return _ToolFakeModel(messages=_scripted_replies())


def _lc_messages(seed: list[Message]) -> list[AnyMessage]:
    out: list[AnyMessage] = []
    for m in seed:
        if m.role == "user":
            out.append(HumanMessage(content=m.content))
        elif m.role == "tool":
            out.append(ToolMessage(content=m.content, tool_call_id=m.tool_call_id or ""))
        else:
            calls = [
                {"name": c.name, "args": json.loads(c.arguments), "id": c.id, "type": "tool_call"}
                for c in m.tool_calls
            ]
            out.append(AIMessage(content=m.content, tool_calls=calls))
    return out


@tool("lookup")
def _lc_lookup(booking: str) -> str:
    """Look a booking up."""
    return lookup_result(booking)


def _graph_session(
    graph: Any,
    turn: int,
    reopen: Callable[[], object] | None,
    close: Callable[[], object],
    seed_node: str,
) -> PeerSession:
    config: Any = {"configurable": {"thread_id": "s"}}
    if turn > 1:
        graph.update_state(
            config, {"messages": _lc_messages(tool_turns(turn - 1))}, as_node=seed_node
        )

    def run(text: str) -> object:
        return graph.invoke({"messages": [HumanMessage(content=text)]}, config)

    run("warm up")
    return PeerSession(run, reopen, close)


def langchain_session(folder: Path, turn: int) -> PeerSession:
    """``create_agent`` + ``SummarizationMiddleware`` (trigger at 10¹² tokens) +
    ``InMemorySaver``."""
    model = _fake_model()
    middleware = SummarizationMiddleware(model, trigger=("tokens", 10**12))
    agent = create_agent(
        model,
        [_lc_lookup],
        system_prompt="system",
        middleware=[middleware],
        checkpointer=InMemorySaver(),
    )
    return _graph_session(agent, turn, None, lambda: None, "model")


def _langgraph(model: _ToolFakeModel, checkpointer: Any) -> Any:
    bound = model.bind_tools([_lc_lookup])

    def call_model(state: MessagesState) -> dict[str, list[AnyMessage]]:
        return {"messages": [bound.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model)
    builder.add_node("tools", ToolNode([_lc_lookup]))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    return builder.compile(checkpointer=checkpointer)


def langgraph_session(folder: Path, turn: int) -> PeerSession:
    """A model/tools ``StateGraph`` with ``SqliteSaver`` on ``folder/checkpoints.sqlite``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "checkpoints.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    graph = _langgraph(_fake_model(), SqliteSaver(conn))

    def reopen() -> object:
        fresh = sqlite3.connect(path, check_same_thread=False)
        try:
            state = _langgraph(_fake_model(), SqliteSaver(fresh)).get_state(
                {"configurable": {"thread_id": "s"}}
            )
            return len(state.values["messages"])
        finally:
            fresh.close()

    return _graph_session(graph, turn, reopen, conn.close, "model")


# --- OpenAI Agents SDK --------------------------------------------------------------------


class _InstantModel(OpenAIModel):
    """A ``Model`` answering at once: a ``lookup`` call after the user's message, the answer
    after the tool's result (as :func:`benchmarks.turns._reply` does)."""

    def __init__(self) -> None:
        self.calls = itertools.count()

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        *args: Any,
        **kwargs: Any,
    ) -> ModelResponse:
        last: Any = input if isinstance(input, str) else input[-1]
        n = next(self.calls)
        item: Any
        if isinstance(last, str) or last.get("role") == "user":
            item = ResponseFunctionToolCall(
                type="function_call",
                call_id=f"call_{n}",
                name="lookup",
                arguments=ARGS,
                id=f"fc_{n}",
            )
        else:
            text = ResponseOutputText(type="output_text", text=ANSWER, annotations=[])
            item = ResponseOutputMessage(
                id=f"msg_{n}", type="message", role="assistant", status="completed", content=[text]
            )
        return ModelResponse(output=[item], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def _openai_items(seed: list[Message]) -> list[TResponseInputItem]:
    out: list[Any] = []
    for m in seed:
        if m.role == "user":
            out.append({"role": "user", "content": m.content})
        elif m.role == "tool":
            out.append(
                {"type": "function_call_output", "call_id": m.tool_call_id, "output": m.content}
            )
        elif m.tool_calls:
            out += [
                {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments}
                for c in m.tool_calls
            ]
        else:
            out.append({"role": "assistant", "content": m.content})
    return out


@function_tool(name_override="lookup")
def _oa_lookup(booking: str) -> str:
    """Look a booking up."""
    return lookup_result(booking)


def openai_session(folder: Path, turn: int) -> PeerSession:
    """``Runner.run`` + ``SQLiteSession`` on ``folder/session.sqlite``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "session.sqlite"
    loop = asyncio.new_event_loop()
    session = SQLiteSession("s", path)
    agent = OpenAIAgent(
        name="bench",
        instructions="system",
        model=_InstantModel(),
        tools=[_oa_lookup],
        model_settings=ModelSettings(),
    )
    config = RunConfig(tracing_disabled=True)
    if turn > 1:
        loop.run_until_complete(session.add_items(_openai_items(tool_turns(turn - 1))))

    def run(text: str) -> object:
        return loop.run_until_complete(Runner.run(agent, text, session=session, run_config=config))

    def reopen() -> object:
        fresh = SQLiteSession("s", path)
        try:
            return len(loop.run_until_complete(fresh.get_items()))
        finally:
            fresh.close()

    def close() -> None:
        session.close()
        loop.close()

    run("warm up")
    return PeerSession(run, reopen, close)


Factory = Callable[[Path, int], PeerSession]
PEERS: list[tuple[str, Factory]] = [
    # LangChain: create_agent + SummarizationMiddleware + InMemorySaver
    ("LangChain agent + summarization", langchain_session),
    ("LangGraph + SqliteSaver", langgraph_session),
    ("OpenAI Agents + SQLiteSession", openai_session),
]
