"""X-BENCH's recorded models: one cassette per conversation and condition, its summary calls
first and its probe last.

Replayed as recorded (body matching), each request must be the recorded one. Under order replay
(the mutation matrix, never a reproduction) a mutated harness may compact more or less often
than the recording did, so the summary calls and the probe are served from their own parts of
the cassette (:class:`~lab.recorder.order_replay.OrderPart`): the summary answers in
order, the last one again when more are asked for, and the probe always the recorded probe
answer. The run then goes on to its probe, and its claims are judged on what the mutated
harness made of the recorded answers.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

from experiments.x_bench.grid import Cell
from experiments.x_bench.schema import Conversation
from harness.model import ChatModel, ChatRequest, ChatResponse
from lab import OrderPart, RunSettings

__all__ = ["ByPurpose", "RecordedModels", "cassette_name"]

ID = "X-BENCH"
SUMMARIES = OrderPart((None, -1), repeat_last=True)
PROBE = OrderPart((-1, None))


def cassette_name(conversation: Conversation, condition: str) -> str:
    return f"{conversation.id}--{condition}"


class ByPurpose:
    """A chat model that sends the probe to one model and every other request to another."""

    def __init__(self, summaries: ChatModel, probe: ChatModel) -> None:
        self.model = summaries  # provider_of looks through wrappers by ``model``
        self._probe = probe

    @property
    def model_name(self) -> str:
        return self.model.model_name

    def complete(self, request: ChatRequest) -> ChatResponse:
        return (self._probe if request.purpose == "probe" else self.model).complete(request)


class RecordedModels:
    """The recorded summary model of one conversation and condition, when its cassette exists."""

    def __init__(self, settings: RunSettings, cassette_set: str, stack: ExitStack) -> None:
        self.settings = replace(settings, cassette_set=cassette_set)
        self.folder = Path(settings.cassette_root) / ID / cassette_set
        self.stack = stack

    def recorded(self, conversation: Conversation, condition: str) -> bool:
        """Whether the set holds the cassette of ``conversation`` under ``condition``."""
        return (self.folder / f"{cassette_name(conversation, condition)}.json").is_file()

    def holds(self, cell: Cell) -> bool:
        """Whether the set holds ``cell``'s cassette (a grid's ``select``)."""
        return self.recorded(cell.conversation, cell.condition)

    def __call__(self, conversation: Conversation, condition: str) -> ChatModel | None:
        name = cassette_name(conversation, condition)
        if not self.recorded(conversation, condition):
            return None
        if self.settings.cassette_match != "order":
            return self._client(name, None)
        return ByPurpose(self._client(name, SUMMARIES), self._client(name, PROBE))

    def _client(self, name: str, part: OrderPart | None) -> ChatModel:
        return self.stack.enter_context(self.settings.model(ID, name, part)).client
