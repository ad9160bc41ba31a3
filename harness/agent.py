"""The agent: a ReAct loop over a chat model, with tools, hooks and compaction.

One :meth:`Agent.call` takes the user's text and loops: compaction check → model request →
tool calls → tool results → model request … until the model answers without calling a tool.
Compaction runs before **every** model request, so a call with several tool rounds can compact
more than once. The working context is saved after every change; the transcript keeps every
message, including those that compaction later replaces.

Compaction sits behind one seam, :class:`~harness.compaction.engine.CompactionEngine`: the loop
calls ``before_request`` before each request, ``on_overflow`` after a context-length error and
``observe`` after each answer, and reads the engine's overflow-retry properties; it never asks
which engine it has. :func:`~harness.compaction.factory.make_engine` builds one from a config.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.call_cap import DROPPED_KEY, cap_tool_calls
from harness.compaction.agentscope import CompactionRecord
from harness.compaction.engine import CompactionEngine, Turn
from harness.compaction.guards.recall import RecallRecord
from harness.disk_errors import on_disk
from harness.errors import ContextLengthExceededError, StepLimitExceededError
from harness.hooks import AgentHook, CallContext
from harness.messages import Message
from harness.meter.ledger import Ledger, same_message
from harness.meter.pricers import AGENTSCOPE, message_price
from harness.model import ChatModel, ChatRequest, ChatResponse
from harness.replies import ToolCallIds
from harness.results import CallResult, RequestRecord
from harness.store.history import History, StateHistory
from harness.store.statefile import JsonStateStore, Transcript
from harness.tools import LargeResultOffloader, Tool, ToolBox
from harness.validation import count

__all__ = ["Agent"]

logger = logging.getLogger("harness.agent")


class Agent:
    """A tool-using chat agent with a compaction engine.

    ``engine`` is built by :func:`harness.compaction.factory.make_engine` (or is any
    :class:`CompactionEngine`); ``engine=None`` means no compaction, and with it no overflow
    retry.
    """

    def __init__(
        self,
        model: ChatModel,
        system_prompt: str = "",
        tools: Iterable[Tool] = (),
        engine: CompactionEngine | None = None,
        *,
        hooks: Sequence[AgentHook] = (),
        session_id: str = "default",
        state_store: JsonStateStore | None = None,
        transcript: Transcript | None = None,
        history: History | None = None,
        workspace: Path | None = None,
        max_steps: int = 20,
        max_tool_calls_per_reply: int | None = None,
        request_options: Mapping[str, Any] | None = None,
        durable_user_message: bool = False,
    ) -> None:
        self.model = model
        self.system_prompt = system_prompt
        self.toolbox = ToolBox(tools)
        self.hooks = list(hooks)
        self.max_steps = count("max_steps", max_steps)
        self.max_tool_calls_per_reply = _tool_call_cap(self.max_steps, max_tool_calls_per_reply)
        """At most this many tool calls of one reply are run and kept (``max_steps`` unless
        given); the rest are dropped from the stored reply and each uses up one step (see
        :meth:`call`)."""
        self.request_options = dict(request_options or {})
        self.history = history or StateHistory(session_id, state_store, transcript)
        self.offloader = LargeResultOffloader(Path(workspace)) if workspace else None
        self.engine = engine
        # AgentScope's estimate of each request's history, for its record: priced as it grows
        self._estimate: Ledger[Message] = Ledger(
            lambda m: message_price(AGENTSCOPE, m), same_message
        )
        self._call_messages: list[Message] = []
        self.durable_user_message = durable_user_message
        """Commit the user message (:meth:`commit`) before the model is called, not only at
        the turn's end (a ``per-turn`` store then makes two group commits per turn)."""
        self._ids = ToolCallIds()

    def commit(self) -> None:
        """The group commit of the history's appends (a no-op for a history without one;
        see :mod:`harness.store.durability`). :meth:`call` commits at the end of every turn."""
        commit = getattr(self.history, "commit", None)
        if commit is not None:
            commit()

    def _context_length(self) -> int:
        """How many messages the history holds, without copying them where it can say."""
        count = getattr(self.history, "message_count", None)
        return count() if count is not None else len(self.history.messages())

    @property
    def context(self) -> tuple[Message, ...]:
        """The working history (what the model sees after the system prompt)."""
        return tuple(self.history.messages())

    def call(self, user_text: str) -> CallResult:
        """Answer one user message, using tools as the model asks; see the module docstring.

        A call has ``max_steps`` steps. Each model request uses one; so does each tool call
        of a reply past ``max_tool_calls_per_reply`` (``max_steps`` by default), which is
        neither run nor stored: the stored reply keeps the first calls and one note saying how
        many were dropped (:mod:`harness.call_cap`), so the history stays paired and small. The
        calls that run use no step. When the steps are used up and the model still calls
        tools, a :class:`StepLimitExceededError` carries what the call had produced
        (``partial``), every kept call answered: one reply of 10,000 calls under the defaults
        (20 and 20) keeps 20, drops 9,980 and ends the call (1 + 9,980 steps > 20)."""
        call = CallContext(user_text=user_text)
        for hook in self.hooks:
            hook.on_call_start(call)
        context_before = self._context_length()
        self._call_messages = []
        try:
            self._extend([Message.user(user_text)])
            if self.durable_user_message:
                self.commit()
            records: list[RequestRecord] = []
            tool_names: list[str] = []
            steps = 0  # model requests, plus the tool calls past the per-reply cap
            while steps < self.max_steps:
                message = self._step(call, records)
                steps += 1
                if not message.tool_calls:
                    result = self._result(message.content, tool_names, records, context_before)
                    self.commit()  # the turn is on the disk before anyone hears of it
                    for hook in self.hooks:
                        hook.after_call(call, result)
                    return result
                tool_names.extend(c.name for c in message.tool_calls)
                self._extend(self._run_tools(message))
                steps += message.metadata.get(DROPPED_KEY, 0)
            partial = self._result("", tool_names, records, context_before)
            raise StepLimitExceededError(self.max_steps, partial)
        finally:
            self.commit()  # a failed turn keeps what it appended (nothing when committed)

    def _step(self, call: CallContext, records: list[RequestRecord]) -> Message:
        """One model request; its reply enters the history (tool-call ids repaired first,
        the calls past the per-reply cap dropped)."""
        turn, response, record = self._request(call)
        records.append(record)
        # A call without an id, or with a used one, would brick the history: repair first
        # (against the history as the request carried it: nothing was appended since).
        # The calls past the cap are dropped first, so nothing after costs more than the cap.
        message = cap_tool_calls(response.message, self.max_tool_calls_per_reply)
        if DROPPED_KEY in message.metadata:
            logger.warning(
                "A reply asked for %d tool calls; keeping and running the first %d",
                len(response.message.tool_calls),
                len(message.tool_calls),
            )
        message = self._ids.repair(message, turn.request.messages, len(turn.header.messages))
        self._extend([message])
        if self.engine is not None and self.engine.overflow_retries_reset_on_reply:
            call.overflow_retries = 0
        return message

    def _result(
        self, text: str, tool_names: list[str], records: list[RequestRecord], before: int
    ) -> CallResult:
        return CallResult(
            text=text,
            tool_calls=tuple(tool_names),
            requests=tuple(records),
            context_before=before,
            context_after=self._context_length(),
            messages=tuple(self._call_messages),
        )

    def _request(self, call: CallContext) -> tuple[Turn, ChatResponse, RequestRecord]:
        """One model call: the header is built once (after the hooks had their say), the
        engine checks the turn, and the full request is built once and sent as it is (twice
        with an overflow retry)."""
        turn, events, recalled = self._check(call)
        # An event-log history keeps the head, so a later manual DSH compaction can rebuild
        # the same prefix; the state store ignores it.
        self.history.record_request(turn.header)
        try:
            response = self.model.complete(turn.request)
        except ContextLengthExceededError as exc:
            events.extend(self._recover_from_overflow(exc, call, turn))
            turn, more, recalled = self._check(call)
            events.extend(more)
            response = self.model.complete(turn.request)
        reading = None
        if self.engine is not None:
            reading = self.engine.observe(self.history, turn, response.usage)
        record = RequestRecord(
            purpose=turn.header.purpose,
            messages_sent=len(turn.request.messages),
            context_messages=self._context_length(),
            estimated_tokens=self._estimated(turn),
            usage=response.usage,
            compactions=tuple(events),
            meter=reading.meter if reading else "",
            metered_tokens=reading.tokens if reading else None,
            recall=recalled,
        )
        return turn, response, record

    def _check(self, call: CallContext) -> tuple[Turn, list[CompactionRecord], RecallRecord | None]:
        """The hooks, then the request's header, then the engine's check: the turn to send
        (the checked one, or, when a compaction changed the history, the history as it is),
        with what an engine's recall (:mod:`harness.compaction.guards.recall`) put after the
        header for this request."""
        for hook in self.hooks:
            hook.before_request(call)
        call.requests += 1
        header = self._header(call)
        turn = self._turn(header)
        if self.engine is None:
            return turn, [], None
        events = self.engine.before_request(self.history, turn)
        recall = getattr(self.engine, "recall", None)  # an engine that has one (ctxlab's)
        found, recalled = recall(self.history, call.user_text) if recall else (None, None)
        if found is not None:
            header = replace(header, messages=(*header.messages, found))
        return (self._turn(header) if events or found else turn), events, recalled

    def _header(self, call: CallContext) -> ChatRequest:
        """The request without the history: system prompt, reference material, tools."""
        system = "\n\n".join([self.system_prompt, *call.system_suffix]).strip()
        head = (Message.system(system),) if system else ()
        messages = (*head, *call.reference_messages)
        return ChatRequest(messages=messages, tools=self.toolbox.schemas(), **self.request_options)

    def _turn(self, header: ChatRequest) -> Turn:
        return Turn.of_history(header, self.history)

    def _estimated(self, turn: Turn) -> int:
        """AgentScope's estimate of ``turn``'s request: its header priced again (a few messages,
        built for each call), its history from the running ledger."""
        header = sum(message_price(AGENTSCOPE, m) for m in turn.header.messages)
        return header + self._estimate.sync(turn.request.messages, turn.start, turn.source)

    def _recover_from_overflow(
        self, error: ContextLengthExceededError, call: CallContext, turn: Turn
    ) -> list[CompactionRecord]:
        # One forced compaction and one retry (AgentScope: per call; dsh: per assistant reply);
        # past that, or without progress, the provider's error reaches the caller.
        if self.engine is None or call.overflow_retries >= self.engine.max_overflow_retries:
            raise error
        call.overflow_retries += 1
        logger.warning("Context overflow detected, forcing a compaction and one retry")
        events = self.engine.on_overflow(self.history, turn)
        if not events:
            raise error
        return events

    def _run_tools(self, message: Message) -> list[Message]:
        results = []
        for tool_call in message.tool_calls:  # at most the cap: _step dropped the rest
            text = self.toolbox.run(tool_call)
            result = Message.tool(tool_call.id, text, tool_name=tool_call.name)
            results.append(self._offloaded(result))
        return results

    def _offloaded(self, result: Message) -> Message:
        if self.offloader is None:
            return result
        folder = self.offloader.workspace / self.offloader.folder
        with on_disk(folder, "save a large tool result in"):  # a full disk: StorageError
            return self.offloader.apply(result)

    def _extend(self, messages: list[Message]) -> None:
        self.history.append(messages)
        self._call_messages.extend(messages)


def _tool_call_cap(max_steps: int, given: int | None) -> int:
    """The most tool calls of one reply that are run: ``given``, or ``max_steps``."""
    return max_steps if given is None else count("max_tool_calls_per_reply", given)
