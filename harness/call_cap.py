"""The per-reply tool-call cap: what of a reply that asks for too many calls is kept.

A reply may ask for any number of tool calls (a hostile or broken model: 100,000 in one
reply). Answering each call past the cap with its own error result kept the pairing valid but
stored one message per call, so one reply made the session, and every later request, as large
as the reply was long. :func:`cap_tool_calls` keeps the first ``cap`` calls in the assistant
message that is stored and drops the rest from it, and says so in that message's text (one
note naming how many were asked for and dropped, so the model can ask again) and in its
``metadata["dropped_tool_calls"]``. Each kept call gets its result as usual, so the history
stays paired in every store and format, and what is stored is bounded by the cap, not by the
reply.
"""

from __future__ import annotations

import dataclasses

from harness.messages import Message

__all__ = ["DROPPED_KEY", "cap_tool_calls", "dropped_note"]

DROPPED_KEY = "dropped_tool_calls"
"""The assistant message's metadata key: how many of its reply's tool calls were dropped."""


def dropped_note(asked: int, cap: int) -> str:
    """The note a capped reply carries in its text."""
    return (
        f"[ctxlab: this reply asked for {asked} tool calls; at most {cap} are run per reply, so "
        f"the other {asked - cap} were dropped, neither run nor kept; ask again for the ones "
        "still needed.]"
    )


def cap_tool_calls(message: Message, cap: int) -> Message:
    """``message`` with at most ``cap`` tool calls (the first ones) and, when some were
    dropped, :func:`dropped_note` after its text; ``message`` itself when none were."""
    asked = len(message.tool_calls)
    if asked <= cap:
        return message
    note = dropped_note(asked, cap)
    text = f"{message.content}\n\n{note}" if message.content else note
    metadata = {**message.metadata, DROPPED_KEY: asked - cap}
    return dataclasses.replace(
        message, content=text, tool_calls=message.tool_calls[:cap], metadata=metadata
    )
