"""Typed chat messages and their OpenAI / DeepSeek wire form.

A history is a list of :class:`Message`. Four roles exist (system, user, assistant, tool); an
assistant message may carry several parallel :class:`ToolCall`, and each call is answered by one
tool message whose ``tool_call_id`` names it. :func:`validate_pairing` checks that shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from harness import compact_json, json_depth
from harness.content_blocks import read_content
from harness.errors import ContentFormatError, PairingError

__all__ = [
    "CHECKPOINT_NAME",
    "SUMMARY_NAME",
    "Message",
    "MessageKind",
    "Role",
    "SummaryKind",
    "ToolCall",
    "validate_pairing",
]

Role = Literal["system", "user", "assistant", "tool"]
MessageKind = Literal["system", "user", "summary", "assistant", "tool_use", "tool_result"]

SummaryKind = Literal["agentscope", "dsh"]
"""Which engine wrote a summary message (:attr:`Message.summary_kind`)."""

SUMMARY_NAME = "__compaction_summary__"
"""The ``name`` of the user message that carries an AgentScope compaction summary
(``<compressed_history>``)."""

CHECKPOINT_NAME = "__compaction_checkpoint__"
"""The ``name`` of the user message that carries a DeepSeek-Harness checkpoint
(``<compacted-summary>``)."""

_SUMMARY_KINDS: dict[str | None, SummaryKind] = {SUMMARY_NAME: "agentscope", CHECKPOINT_NAME: "dsh"}

_ROLES: frozenset[str] = frozenset({"system", "user", "assistant", "tool"})

_new = object.__new__


@dataclass(frozen=True)
class ToolCall:
    """One function call requested by the model."""

    id: str
    """The provider's id for the call; the tool message answering it repeats it."""
    name: str
    """The tool's name."""
    arguments: str = "{}"
    """The arguments as the JSON text the model wrote (it may be invalid JSON)."""

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a dict; raises ``ValueError`` when they are not a JSON object."""
        value = json_depth.loads(self.arguments or "{}")  # depth bounded before parsing
        if not isinstance(value, dict):
            raise ValueError(f"arguments of {self.name} are not a JSON object: {self.arguments}")
        return value

    def to_wire(self) -> dict[str, Any]:
        """The call in the chat-completions ``tool_calls`` form."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ToolCall:
        """Read a call from the chat-completions ``tool_calls`` form."""
        function = data.get("function") or {}
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
        call = _new(cls)  # the frozen dataclass's __init__ is a setattr per field; no checks
        call.__dict__.update(
            id=str(data.get("id", "")), name=str(function.get("name", "")), arguments=arguments
        )
        return call


@dataclass(frozen=True)
class Message:
    """One message of a conversation.

    Build them with the constructors :meth:`system`, :meth:`user`, :meth:`assistant` and
    :meth:`tool` rather than the raw dataclass.
    """

    role: Role
    """Who speaks: system, user, assistant or tool."""
    content: str = ""
    """The text. Assistant messages that only call tools have ``""``."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Assistant only: the calls this message requests, possibly several in parallel."""
    tool_call_id: str | None = None
    """Tool only: the id of the call this message answers."""
    name: str | None = None
    """Optional participant name; a compaction summary is a user message named
    :data:`SUMMARY_NAME` (AgentScope) or :data:`CHECKPOINT_NAME` (DeepSeek-Harness)."""
    reasoning_content: str | None = None
    """Assistant only: DeepSeek's thinking-mode reasoning, kept and passed back as received."""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Harness-side annotations (never sent to the model), e.g. the tool name of a result."""

    def __post_init__(self) -> None:
        if self.role not in _ROLES:
            raise ValueError(f"unknown role {self.role!r}")
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only assistant messages carry tool calls")
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("a tool message needs the id of the call it answers")

    @classmethod
    def system(cls, text: str) -> Message:
        """A system prompt."""
        return _checked_already(cls, "system", text)

    @classmethod
    def user(cls, text: str, *, name: str | None = None) -> Message:
        """A user turn."""
        return _checked_already(cls, "user", text, name=name)

    @classmethod
    def assistant(
        cls,
        text: str = "",
        tool_calls: Iterable[ToolCall] = (),
        *,
        reasoning_content: str | None = None,
    ) -> Message:
        """A model reply: text, tool calls, or both."""
        return _checked_already(
            cls,
            "assistant",
            text,
            tool_calls=tuple(tool_calls),
            reasoning_content=reasoning_content,
        )

    @classmethod
    def tool(cls, tool_call_id: str, text: str, *, tool_name: str | None = None) -> Message:
        """The result of the call ``tool_call_id``."""
        metadata = {"tool_name": tool_name} if tool_name else {}
        return cls(role="tool", content=text, tool_call_id=tool_call_id, metadata=metadata)

    @property
    def summary_kind(self) -> SummaryKind | None:
        """Which engine's compaction summary this is: ``"agentscope"`` (a user message named
        :data:`SUMMARY_NAME`), ``"dsh"`` (named :data:`CHECKPOINT_NAME`), or None."""
        return _SUMMARY_KINDS.get(self.name) if self.role == "user" else None

    @property
    def is_summary(self) -> bool:
        """True for a user message that carries a compaction summary of either engine."""
        return self.summary_kind is not None

    @property
    def kind(self) -> MessageKind:
        """A finer role for reports: summary, tool_use and tool_result are told apart."""
        if self.is_summary:
            return "summary"
        if self.role == "assistant" and self.tool_calls:
            return "tool_use"
        if self.role == "tool":
            return "tool_result"
        return self.role

    def to_wire(self) -> dict[str, Any]:
        """The message as a chat-completions request element.

        An assistant message with tool calls sends ``content: ""`` (some gateways reject null),
        and ``reasoning_content`` is passed back whenever the model produced it.
        """
        wire: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.name is not None:
            wire["name"] = self.name
        if self.tool_calls:
            wire["tool_calls"] = [call.to_wire() for call in self.tool_calls]
        if self.tool_call_id is not None:
            wire["tool_call_id"] = self.tool_call_id
        if self.reasoning_content is not None:
            wire["reasoning_content"] = self.reasoning_content
        return wire

    @cached_property
    def wire_bytes(self) -> bytes:
        """:meth:`to_wire` as compact JSON with non-ASCII kept, in UTF-8: what a request body
        holds for this message (:func:`harness.request_body.encoded`). Worked out once, since a
        message never changes and every later request of its session sends it again."""
        return compact_json.dumps(self.to_wire()).encode()

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Message:
        """Read a message from its chat-completions form (request element or response message).

        ``content`` may be a string, null, or a list of content blocks
        (:mod:`harness.content_blocks`): text, reasoning and tool-call blocks become
        ``content``, ``reasoning_content`` and ``tool_calls`` (after any ``tool_calls`` and
        ``reasoning_content`` fields of their own), a tool message's one tool-result block its
        text; any other block, or a block where the role cannot carry it, raises
        :class:`~harness.errors.ContentFormatError`. Content is never read as ``""`` silently.
        """
        role = data.get("role")
        if role not in _ROLES:
            raise ValueError(f"unknown role {role!r} in {data!r}")
        content = data.get("content")
        if content is None or type(content) is str:  # no blocks: the common case, read directly
            calls = data.get("tool_calls")
            message = _new(cls)  # what cls(...) builds, without a setattr per frozen field
            message.__dict__.update(
                role=role,
                content=content or "",
                tool_calls=tuple(ToolCall.from_wire(c) for c in calls) if calls else (),
                tool_call_id=data.get("tool_call_id"),
                name=data.get("name"),
                reasoning_content=data.get("reasoning_content"),
                metadata={},
            )
            message.__post_init__()  # the same checks
            return message
        return cls._from_blocks(role, data, content)

    @classmethod
    def _from_blocks(cls, role: Role, data: dict[str, Any], content: Any) -> Message:
        """:meth:`from_wire` for a ``content`` that is a list of blocks."""
        blocks = read_content(content)
        calls = [ToolCall.from_wire(c) for c in data.get("tool_calls") or ()]
        calls += [ToolCall(*call) for call in blocks.tool_calls]
        reasoning = data.get("reasoning_content")
        if blocks.reasoning is not None:
            reasoning = (reasoning or "") + blocks.reasoning
        text, tool_call_id = blocks.text, data.get("tool_call_id")
        if blocks.tool_results:
            if role != "tool" or len(blocks.tool_results) != 1 or blocks.text:
                raise ContentFormatError(
                    f"a {role} message with {len(blocks.tool_results)} tool-result block(s) "
                    "cannot be read (a tool message holds exactly one)"
                )
            result = blocks.tool_results[0]
            text, tool_call_id = result.text, tool_call_id or result.tool_call_id
        if blocks.tool_calls and role != "assistant":
            raise ContentFormatError(f"a {role} message cannot carry tool-call blocks")
        if blocks.reasoning is not None and role != "assistant":
            raise ContentFormatError(f"a {role} message cannot carry reasoning blocks")
        return cls(
            role=role,
            content=text,
            tool_calls=tuple(calls),
            tool_call_id=tool_call_id,
            name=data.get("name"),
            reasoning_content=reasoning,
        )

    def to_record(self) -> dict[str, Any]:
        """The wire form plus harness metadata, for state files and transcripts."""
        record = self.to_wire()
        if self.metadata:
            record["metadata"] = dict(self.metadata)
        return record

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Message:
        """Inverse of :meth:`to_record`."""
        message = cls.from_wire(data)
        metadata = data.get("metadata")
        if metadata:
            message.metadata.update(metadata)
        return message


def _checked_already(
    cls: type[Message],
    role: Literal["system", "user", "assistant"],
    content: str,
    *,
    name: str | None = None,
    tool_calls: tuple[ToolCall, ...] = (),
    reasoning_content: str | None = None,
) -> Message:
    """The message the dataclass would build, its fields set directly: the constructors above
    pass only what :meth:`Message.__post_init__` accepts (a known role; tool calls only on an
    assistant reply; no tool role), and the frozen dataclass's ``__init__`` is a setattr per
    field (X-BENCH builds about 100,000 user messages, four times the cost)."""
    message = _new(cls)
    message.__dict__.update(
        role=role,
        content=content,
        tool_calls=tool_calls,
        tool_call_id=None,
        name=name,
        reasoning_content=reasoning_content,
        metadata={},
    )
    return message


def validate_pairing(messages: Sequence[Message]) -> None:
    """Raise :class:`PairingError` unless every tool call and tool result pair up.

    The rules: a tool result must answer a call of an earlier assistant message that has not
    been answered yet; once a message other than a tool result follows, every call of the
    previous assistant message must have had its result. A pending call at the very end (the
    tools are still running) is allowed.
    """
    open_calls: dict[str, int] = {}
    answered: set[str] = set()
    for index, message in enumerate(messages):
        if message.role == "tool":
            call_id = message.tool_call_id or ""
            if call_id not in open_calls:
                why = "answers a call twice" if call_id in answered else "has no earlier call"
                raise PairingError(f"tool result at index {index} ({call_id!r}) {why}", index)
            del open_calls[call_id]
            answered.add(call_id)
            continue
        if open_calls:
            call_id, at = next(iter(open_calls.items()))
            raise PairingError(
                f"tool call {call_id!r} of the assistant message at index {at} has no result "
                f"before the {message.role} message at index {index}",
                at,
            )
        for call in message.tool_calls:
            if call.id in open_calls or call.id in answered:
                raise PairingError(f"tool call id {call.id!r} at index {index} is reused", index)
            open_calls[call.id] = index
