"""Test doubles at the model boundary: a scripted model and a function model.

Both are real :class:`harness.model.ChatModel` implementations, named as such wherever they
produce a result (reports say ``scripted``), and both record every request they receive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType

from harness.errors import ScriptError
from harness.messages import Message
from harness.model import ChatRequest, ChatResponse

__all__ = ["FunctionModel", "ScriptedModel", "Step"]

Reply = str | Message | ChatResponse | BaseException


@dataclass(frozen=True)
class Step:
    """One scripted reply, optionally only for requests of one ``purpose``."""

    reply: Reply
    """Text, an assistant message, a full response, or an exception to raise."""
    purpose: str | None = None
    """When set, the request must have this purpose (``agent``, ``summary``, ...)."""


def _as_response(reply: Reply, model_name: str) -> ChatResponse:
    if isinstance(reply, BaseException):
        raise reply
    if isinstance(reply, ChatResponse):
        return reply
    message = reply if isinstance(reply, Message) else Message.assistant(reply)
    finish = "tool_calls" if message.tool_calls else "stop"
    return ChatResponse(message=message, finish_reason=finish, model=model_name)


class _RecordingModel:
    """What both doubles share: a model name, the ``scripted`` provider, and the requests."""

    def __init__(self, model_name: str) -> None:
        self._model_name = model_name
        self.requests: list[ChatRequest] = []
        """Every request received, in order."""

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def provider(self) -> str:
        return "scripted"


class ScriptedModel(_RecordingModel):
    """Answers requests from a script, in order; strict about surprises.

    A request after the script ran out, or of the wrong purpose, raises :class:`ScriptError`;
    :meth:`assert_used` (called on leaving a ``with`` block) fails when steps were never used.
    """

    def __init__(self, steps: Iterable[Step | Reply], model_name: str = "scripted") -> None:
        super().__init__(model_name)
        self._steps = [s if isinstance(s, Step) else Step(s) for s in steps]

    @property
    def remaining(self) -> int:
        return len(self._steps) - len(self.requests)

    def complete(self, request: ChatRequest) -> ChatResponse:
        number = len(self.requests)
        self.requests.append(request)
        if number >= len(self._steps):
            raise ScriptError(
                f"unexpected request #{number + 1} ({request.purpose}): "
                f"the script has only {len(self._steps)} steps"
            )
        step = self._steps[number]
        if step.purpose is not None and step.purpose != request.purpose:
            raise ScriptError(
                f"request #{number + 1} is a {request.purpose!r} request, "
                f"the script expected {step.purpose!r}"
            )
        return _as_response(step.reply, self._model_name)

    def assert_used(self) -> None:
        if self.remaining > 0:
            raise ScriptError(f"{self.remaining} scripted steps were never requested")

    def __enter__(self) -> ScriptedModel:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.assert_used()


class FunctionModel(_RecordingModel):
    """Answers each request by calling ``function(request)``; records the requests."""

    def __init__(
        self, function: Callable[[ChatRequest], Reply], model_name: str = "function"
    ) -> None:
        super().__init__(model_name)
        self.function = function

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        return _as_response(self.function(request), self._model_name)
