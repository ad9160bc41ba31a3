"""The agent: a ReAct loop over a chat model, with tools, hooks and compaction.

One :meth:`Agent.call` takes the user's text and loops: compaction check → model request →
tool calls → tool results → model request … until the model answers without calling a tool.
Compaction runs before **every** model request, so a call with several tool rounds can compact
more than once. The working context is saved after every change; the transcript keeps every
message, including those that compaction later replaces.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.compaction.agentscope import (
    CompactionConfig,
    CompactionEvent,
    Compactor,
    PrefixHook,
    resolve_thresholds,
)
from harness.compaction.dsh.config import DshConfig
from harness.compaction.dsh.engine import DshEngine
from harness.compaction.engine import (
    AgentScopeEngine,
    CompactionEngine,
    DshAgentEngine,
    request_header,
)
from harness.errors import ConfigError, ContextLengthExceededError, StepLimitExceededError
from harness.hooks import AgentHook, CallContext
from harness.messages import Message
from harness.meter.ledger import Ledger, same_message
from harness.meter.pricers import AGENTSCOPE, message_price
from harness.model import ChatModel, ChatRequest, ChatResponse, Usage
from harness.replies import repair_tool_call_ids
from harness.store.history import History, StateHistory
from harness.store.statefile import JsonStateStore, Transcript
from harness.tokens import CTXLAB_WINDOWS
from harness.tool_offload import LargeResultOffloader
from harness.tools import Tool, ToolBox
from harness.validation import count

__all__ = ["Agent", "CallResult", "RequestRecord"]

logger = logging.getLogger("harness.agent")


@dataclass(frozen=True)
class RequestRecord:
    """One model request of a call."""

    purpose: str
    messages_sent: int
    """Messages in the request, system prompt and reference material included."""
    context_messages: int
    """Messages of the working history in the request."""
    estimated_tokens: int
    usage: Usage | None
    compactions: tuple[CompactionEvent, ...] = ()
    """The compactions that ran for this request: the one before it, and a forced one when
    the server said the context was too long."""
    meter: str = ""
    """The compaction engine's token meter (empty without compaction)."""
    metered_tokens: int | None = None
    """That meter's reading of this request, before its usage was known (None without
    compaction)."""

    @property
    def compaction(self) -> CompactionEvent | None:
        """The first compaction of this request, if any."""
        return self.compactions[0] if self.compactions else None


@dataclass(frozen=True)
class CallResult:
    """What one call produced."""

    text: str
    """The model's final answer."""
    tool_calls: tuple[str, ...]
    """Names of the tools the model called, in order."""
    requests: tuple[RequestRecord, ...]
    context_before: int
    """History size when the call started (before the user's message)."""
    context_after: int
    """History size when the call ended."""
    messages: tuple[Message, ...] = ()
    """The messages this call added (user, replies, tool results), even if compacted away."""

    @property
    def usage(self) -> tuple[Usage | None, ...]:
        """Usage per model request."""
        return tuple(r.usage for r in self.requests)

    @property
    def compactions(self) -> tuple[CompactionEvent, ...]:
        """The compactions of this call, in order."""
        return tuple(event for r in self.requests for event in r.compactions)


class Agent:
    """A tool-using chat agent with AgentScope-style compaction.

    ``compaction=None`` disables compaction, and with it the overflow retry.
    """

    def __init__(
        self,
        model: ChatModel,
        system_prompt: str = "",
        tools: Iterable[Tool] = (),
        compaction: CompactionConfig | DshConfig | CompactionEngine | None = None,
        *,
        summary_model: ChatModel | None = None,
        hooks: Sequence[AgentHook] = (),
        session_id: str = "default",
        state_store: JsonStateStore | None = None,
        transcript: Transcript | None = None,
        history: History | None = None,
        workspace: Path | None = None,
        flush_prefix: PrefixHook | None = None,
        windows: Mapping[str, int] = CTXLAB_WINDOWS,
        max_steps: int = 20,
        request_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.system_prompt = system_prompt
        self.toolbox = ToolBox(tools)
        self.hooks = list(hooks)
        self.max_steps = count("max_steps", max_steps)
        self.request_options = dict(request_options or {})
        self.history = history or StateHistory(session_id, state_store, transcript)
        self.offloader = LargeResultOffloader(Path(workspace)) if workspace else None
        self.engine = self._build_engine(compaction, summary_model, flush_prefix, windows)
        # AgentScope's estimate of each request, for its record: priced as the request grows
        self._estimate: Ledger[Message] = Ledger(
            lambda m: message_price(AGENTSCOPE, m), same_message
        )
        self._call_messages: list[Message] = []

    def _build_engine(
        self,
        config: CompactionConfig | DshConfig | CompactionEngine | None,
        summary_model: ChatModel | None,
        flush_prefix: PrefixHook | None,
        windows: Mapping[str, int],
    ) -> CompactionEngine | None:
        if config is None or isinstance(config, (AgentScopeEngine, DshAgentEngine)):
            return config
        if isinstance(config, DshConfig):
            log = getattr(self.history, "log", None)
            if log is None:
                raise ConfigError("the DSH engine needs history=EventLogHistory(log)")
            return DshAgentEngine(DshEngine(log, summary_model or self.model, config))
        if not isinstance(config, CompactionConfig):
            return config  # any other CompactionEngine
        thresholds = resolve_thresholds(config, self.model.model_name, windows)
        compactor = Compactor(
            config,
            thresholds,
            summary_model or self.model,
            flush_prefix=flush_prefix,
            offload_prefix=self.history.record_prefix,
        )
        return AgentScopeEngine(compactor)

    @property
    def context(self) -> tuple[Message, ...]:
        """The working history (what the model sees after the system prompt)."""
        return tuple(self.history.messages())

    def call(self, user_text: str) -> CallResult:
        """Answer one user message, using tools as the model asks; see the module docstring."""
        call = CallContext(agent=self, user_text=user_text)
        for hook in self.hooks:
            hook.on_call_start(call)
        context_before = len(self.context)
        self._call_messages = []
        self._extend([Message.user(user_text)])
        records: list[RequestRecord] = []
        tool_names: list[str] = []
        while len(records) < self.max_steps:
            response, record = self._request(call)
            records.append(record)
            # A call without an id, or with a used one, would brick the history: repair first.
            message = repair_tool_call_ids(response.message, self.history.messages())
            self._extend([message])
            if getattr(self.engine, "overflow_retries_reset_on_reply", False):
                call.overflow_retries = 0
            if not message.tool_calls:
                result = CallResult(
                    text=message.content,
                    tool_calls=tuple(tool_names),
                    requests=tuple(records),
                    context_before=context_before,
                    context_after=len(self.context),
                    messages=tuple(self._call_messages),
                )
                for hook in self.hooks:
                    hook.after_call(call, result)
                return result
            tool_names.extend(c.name for c in message.tool_calls)
            self._extend(self._run_tools(message))
        raise StepLimitExceededError(self.max_steps)

    def _request(self, call: CallContext) -> tuple[ChatResponse, RequestRecord]:
        events = self._before_request(call)
        request = self._build_request(call)
        self._record_header(request)
        try:
            response = self.model.complete(request)
        except ContextLengthExceededError as exc:
            events.extend(self._recover_from_overflow(exc, call))
            events.extend(self._before_request(call))
            request = self._build_request(call)
            response = self.model.complete(request)
        reading = None
        if self.engine is not None:
            reading = self.engine.observe(self.history, request, response.usage)
        record = RequestRecord(
            purpose=request.purpose,
            messages_sent=len(request.messages),
            context_messages=len(self.context),
            estimated_tokens=self._estimate.sync(request.messages),
            usage=response.usage,
            compactions=tuple(events),
            meter=reading.meter if reading else "",
            metered_tokens=reading.tokens if reading else None,
        )
        return response, record

    def _record_header(self, request: ChatRequest) -> None:
        # An event-log history keeps the request's head, so a later manual DSH compaction can
        # rebuild the same prefix; other histories have no use for it.
        record = getattr(self.history, "record_request", None)
        if record is not None:
            record(request_header(self.history, request))

    def _before_request(self, call: CallContext) -> list[CompactionEvent]:
        for hook in self.hooks:
            hook.before_request(call)
        call.requests += 1
        if self.engine is None:
            return []
        return self.engine.before_request(self.history, self._build_request(call))

    def _build_request(self, call: CallContext) -> ChatRequest:
        system = "\n\n".join([self.system_prompt, *call.system_suffix]).strip()
        head = [Message.system(system)] if system else []
        messages = (*head, *call.reference_messages, *self.history.messages())
        return ChatRequest(messages=messages, tools=self.toolbox.schemas(), **self.request_options)

    def _recover_from_overflow(
        self, error: ContextLengthExceededError, call: CallContext
    ) -> list[CompactionEvent]:
        # One forced compaction and one retry (AgentScope: per call; dsh: per assistant reply);
        # past that, or without progress, the provider's error reaches the caller.
        allowed = getattr(self.engine, "max_overflow_retries", 1)
        if self.engine is None or call.overflow_retries >= allowed:
            raise error
        call.overflow_retries += 1
        logger.warning("Context overflow detected, forcing a compaction and one retry")
        events = self.engine.on_overflow(self.history, self._build_request(call))
        if not events:
            raise error
        return events

    def _run_tools(self, message: Message) -> list[Message]:
        results = []
        for tool_call in message.tool_calls:
            text = self.toolbox.run(tool_call)
            result = Message.tool(tool_call.id, text, tool_name=tool_call.name)
            results.append(self.offloader.apply(result) if self.offloader else result)
        return results

    def _extend(self, messages: list[Message]) -> None:
        self.history.append(messages)
        self._call_messages.extend(messages)


def _agentscope_price(message: Message) -> int:
    return message_price(AGENTSCOPE, message)
