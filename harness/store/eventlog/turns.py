"""The turn and step boundaries DeepSeek-Harness's log has, written by ctxlab's history when
its log is in dsh's format (:class:`TurnMarks`).

dsh's loop writes ``turn/start {turn}`` before the user message of a call, ``step/start {turn,
step}`` before each model request (its ``request/header`` inside the step), ``step/end`` after
the step's reply and tool results, and ``turn/end {turn, reason}`` when the reply calls no tool;
dsh's token meter refuses an ``assistant/message`` outside its step, and dsh's manual compaction
refuses a session whose last turn is open. ctxlab's agent gives its history exactly these
moments (a user message, a request, a reply, a batch of tool results), so the history marks
them. A turn left open by a failed call is closed as ``interrupted`` when the next call starts.
"""

from __future__ import annotations

from harness.messages import Message
from harness.store.eventlog.log import EventLog

__all__ = ["TurnMarks"]


class TurnMarks:
    """Appends dsh's ``turn/*`` and ``step/*`` events around the agent's messages."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        # From the latest events only (both writers number turns upwards): a log reopened
        # from its snapshot is not read back to its start for them.
        started = log.latest("turn/start")
        self.turn = int(started.data["turn"]) if started is not None else 0
        marks = [e for e in map(log.latest, _MARKS) if e is not None]
        last = max(marks, key=lambda e: e.seq, default=None)
        self.open_turn = last is not None and last.type != "turn/end"
        self.step = int(last.data.get("step", 0)) if last is not None else 0
        self.open_step = last is not None and last.type == "step/start"

    def before_messages(self, messages: list[Message]) -> None:
        """Before a batch is appended: a user message (not a summary) opens a turn."""
        if messages and messages[0].role == "user" and not messages[0].is_summary:
            if self.open_turn:
                self._end_turn("interrupted")
            self.turn, self.step, self.open_turn = self.turn + 1, 0, True
            self.log.append("turn/start", {"turn": self.turn})

    def before_request(self) -> None:
        """Before a request (and its header): the previous step ends, the next one starts."""
        if not self.open_turn:
            return
        self._end_step()
        self.step += 1
        self.open_step = True
        self.log.append("step/start", {"turn": self.turn, "step": self.step})

    def after_messages(self, messages: list[Message]) -> None:
        """After a batch: tool results end their step; a reply without calls ends the turn."""
        if not self.open_turn or not messages:
            return
        last = messages[-1]
        if last.role == "tool":
            self._end_step()
        elif last.role == "assistant" and not last.tool_calls:
            self._end_turn("completed")

    def start_turn(self) -> None:
        """Open a turn of its own (an undo's restored messages), closing an open one."""
        if self.open_turn:
            self._end_turn("interrupted")
        self.turn, self.step, self.open_turn = self.turn + 1, 0, True
        self.log.append("turn/start", {"turn": self.turn})

    def before_restored(self, message: Message) -> None:
        """Before a restored message: an assistant message gets a step of its own."""
        if message.role == "assistant":
            self.before_request()

    def end_turn(self) -> None:
        """Close the turn :meth:`start_turn` opened."""
        if self.open_turn:
            self._end_turn("completed")

    def _end_step(self) -> None:
        if self.open_step:
            self.open_step = False
            self.log.append("step/end", {"turn": self.turn, "step": self.step})

    def _end_turn(self, kind: str) -> None:
        self._end_step()
        self.open_turn = False
        self.log.append("turn/end", {"turn": self.turn, "reason": {"kind": kind}})


_MARKS = frozenset({"turn/start", "turn/end", "step/start", "step/end"})
