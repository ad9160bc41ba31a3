"""The summary call (step 6) and the summary message that replaces the prefix (step 7)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from harness.errors import ModelError
from harness.messages import SUMMARY_NAME, Message
from harness.model import ChatModel, ChatRequest

__all__ = [
    "DEFAULT_SUMMARY_PROMPT",
    "SUMMARY_PREFIX",
    "SUMMARY_UNAVAILABLE",
    "SummaryResult",
    "build_summary_message",
    "render_transcript",
    "summarize",
]

logger = logging.getLogger("harness.compaction")

SUMMARY_PREFIX = "Here is a summary of the conversation to date:"
SUMMARY_UNAVAILABLE = "(Summary unavailable)"
SUMMARY_SECTIONS = ("SESSION INTENT", "SUMMARY", "ARTIFACTS", "NEXT STEPS")

DEFAULT_SUMMARY_PROMPT = """\
You are a context extraction assistant. The conversation below has grown close to the model's \
input limit, and what you write will replace it: anything you leave out is gone from the \
working history. Keep only what matters most for the user's overall goal, and do not repeat \
actions that are already complete.

Answer with exactly these four markdown sections, each filled in or written as "None":

## SESSION INTENT
The user's primary goal.

## SUMMARY
Important context, decisions with their reasons, and options that were rejected. Keep exact \
names, codes, numbers, paths and commands.

## ARTIFACTS
Files or resources created, modified or accessed, with their paths and what changed.

## NEXT STEPS
What remains to be done.

If the transcript starts with an earlier summary, merge its content into these four sections \
instead of quoting it. Respond only with the extracted context.

<messages>
{messages}
</messages>"""

TOOL_RESULT_PREVIEW_CHARS = 500
TOOL_ARGUMENT_PREVIEW_CHARS = 200


def render_transcript(messages: Sequence[Message]) -> str:
    """The prefix as the summariser reads it: ``Human:`` / ``AI:`` / ``Tool:`` lines."""
    call_names = {call.id: call.name for m in messages for call in m.tool_calls}
    lines = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "user":
            lines.append(f"Human: {message.content}")
        elif message.role == "assistant":
            lines.append("AI: " + _render_assistant(message))
        else:
            # A tool message always names its call (Message checks it), so the "" never applies.
            call_name = call_names.get(message.tool_call_id or "", "tool")
            name = message.metadata.get("tool_name") or call_name
            text = _clip(message.content, TOOL_RESULT_PREVIEW_CHARS)
            lines.append(f"Tool: [tool_result: {name}] {text}")
    return "\n\n".join(lines)


def _render_assistant(message: Message) -> str:
    parts = [message.content] if message.content else []
    for call in message.tool_calls:
        parts.append(
            f"[tool_call: {call.name}({_clip(call.arguments, TOOL_ARGUMENT_PREVIEW_CHARS)})]"
        )
    return " ".join(parts)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


@dataclass(frozen=True)
class SummaryResult:
    """The text of a summary and whether the call behind it failed."""

    text: str
    """The summary, or the ``(Summary unavailable)`` placeholder."""
    failed: bool = False
    """True when the call failed or returned nothing."""
    error: str | None = None
    """What went wrong, when something did."""


def summarize(
    model: ChatModel, prefix: Sequence[Message], prompt: str | None = None
) -> SummaryResult:
    """Ask ``model`` for a summary of ``prefix`` in one user message (no system, no tools).

    A failed call or a blank answer never stops compaction: the summary becomes
    ``(Summary unavailable)``, followed by the error when there was one.
    """
    if not any(m.role != "system" for m in prefix):
        return SummaryResult("No previous conversation history.")
    text = (prompt or DEFAULT_SUMMARY_PROMPT).replace("{messages}", render_transcript(prefix))
    request = ChatRequest(messages=(Message.user(text),), purpose="summary")
    try:
        reply = model.complete(request).message.content.strip()
    except ModelError as exc:
        error = f"{type(exc).__name__}: {exc}"
        logger.warning("Summarization LLM call failed: %s", error)
        return SummaryResult(f"{SUMMARY_UNAVAILABLE} The summary call failed: {error}", True, error)
    if not reply:
        return SummaryResult(SUMMARY_UNAVAILABLE, True, "the model returned an empty summary")
    return SummaryResult(_strip_prefix(reply))


def _strip_prefix(text: str) -> str:
    # A model that echoes our own framing would otherwise nest it on every compaction.
    while text.startswith(SUMMARY_PREFIX):
        text = text[len(SUMMARY_PREFIX) :].lstrip()
    return text


def build_summary_message(summary: str) -> Message:
    """The user message named ``__compaction_summary__`` that replaces the prefix."""
    return Message.user(f"{SUMMARY_PREFIX}\n\n{summary}", name=SUMMARY_NAME)
