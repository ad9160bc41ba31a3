"""The summary call (step 6) and the summary message that replaces the prefix (step 7)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from harness.compaction.interrupts import carries_interrupt
from harness.compaction.summary_check import checked
from harness.messages import SUMMARY_NAME, Message
from harness.model import ChatModel, ChatRequest
from harness.summary_outcome import SummaryOutcome, SummaryPolicy, request_summary

__all__ = [
    "DEFAULT_SUMMARY_PROMPT",
    "SUMMARY_PREFIX",
    "SUMMARY_UNAVAILABLE",
    "TRANSCRIPT_ROLES",
    "build_summary_message",
    "render_transcript",
    "summarize",
]

logger = logging.getLogger("harness.compaction")

SUMMARY_PREFIX = "Here is a summary of the conversation to date:"
TRANSCRIPT_ROLES = ("Human: ", "AI: ", "Tool: ")
"""How each line of :func:`render_transcript` starts (a user's, an assistant's, a tool's)."""
SUMMARY_UNAVAILABLE = "(Summary unavailable)"
CALL = "The summary call"
"""How a failed call reads after the placeholder: ``(Summary unavailable) The summary call
failed: <Type>: <message>``."""

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


def summarize(
    model: ChatModel,
    prefix: Sequence[Message],
    prompt: str | None = None,
    policy: SummaryPolicy = "fail-open",
    max_tokens: int | None = None,
) -> SummaryOutcome:
    """Ask ``model`` for a summary of ``prefix`` in one user message (no system, no tools);
    ``max_tokens`` caps the answer (ctxlab's summary budget; an answer cut there is taken).

    ``fail-open`` (AgentScope 2.0.3): a failed call or a blank answer never stops compaction;
    the summary becomes ``(Summary unavailable)``, followed by the error when the call failed.
    An answer that is not a summary (:mod:`harness.compaction.summary_check`) is a failed one.
    ``fail-closed`` (manual compaction): either raises :class:`~harness.errors.SummaryError`.
    """
    if not any(m.role != "system" for m in prefix):
        return SummaryOutcome("No previous conversation history.")
    text = (prompt or DEFAULT_SUMMARY_PROMPT).replace("{messages}", render_transcript(prefix))
    request = ChatRequest(messages=(Message.user(text),), max_tokens=max_tokens, purpose="summary")
    outcome = checked(_call(model, request))
    if not outcome.failed:
        return SummaryOutcome(_strip_prefix(outcome.text), response=outcome.response)
    if outcome.response is None:  # the call itself failed: the placeholder names the error
        logger.warning("Summarization LLM call failed: %s", outcome.error)
        placeholder = f"{SUMMARY_UNAVAILABLE} {outcome.error}"
    else:
        logger.warning("Summary refused: %s", outcome.error)
        placeholder = SUMMARY_UNAVAILABLE
    return replace(outcome, text=placeholder).settle(policy)


def _call(model: ChatModel, request: ChatRequest) -> SummaryOutcome:
    """The summary call's outcome. A provider's error (:class:`~harness.errors.ModelError`) is a
    failed outcome; any other exception is a bug in the summariser and is raised, with the
    history untouched (a deliberate deviation from AgentScope, which degrades any error the
    summary model's stream raises: failing open on a bug would replace the prefix with the
    placeholder at every compaction). A user's interrupt inside a provider's error is raised."""
    outcome = request_summary(
        model, request, cut=None, empty="the model returned an empty summary", call=CALL
    )
    if outcome.cause is not None and carries_interrupt(outcome.cause):
        raise outcome.cause
    return outcome


def _strip_prefix(text: str) -> str:
    # A model that echoes our own framing would otherwise nest it on every compaction.
    while text.startswith(SUMMARY_PREFIX):
        text = text[len(SUMMARY_PREFIX) :].lstrip()
    return text


def build_summary_message(summary: str) -> Message:
    """The user message named ``__compaction_summary__`` that replaces the prefix."""
    return Message.user(f"{SUMMARY_PREFIX}\n\n{summary}", name=SUMMARY_NAME)
