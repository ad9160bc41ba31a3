"""The DSH summary call: the conversation's own prefix plus a directive as the last message.

The summary request is the last agent request's head (system prompt, reference material,
tools) followed by the shadowed messages exactly as real requests carry them, with the
directive appended as the **final user message**. No separate summariser prompt: the request
is a true prefix extension of the conversation, so a provider's prefix (KV) cache is reused and
only the directive and the output are new.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from harness.compaction.guards.gate import GateConfig, gate_checkpoint
from harness.compaction.summary_check import checked
from harness.errors import SummaryError
from harness.messages import CHECKPOINT_NAME, Message
from harness.meter import TokenMeter
from harness.meter.dsh_heuristic import is_empty_assistant, price_message
from harness.model import ChatModel, ChatRequest, ChatResponse
from harness.summary_outcome import SummaryPolicy, request_summary

__all__ = [
    "CHECKPOINT_NAME",
    "DIRECTIVE",
    "build_summary_request",
    "frame_checkpoint",
    "gated_checkpoint",
    "summarize_span",
]

POLICY: SummaryPolicy = "fail-closed"
"""DeepSeek-Harness never commits a failed or truncated checkpoint."""

SECTIONS = (
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code",
    "Errors and Fixes",
    "Pending Jobs",
    "Current Work",
    "Next Step",
    "Critical Context",
)

DIRECTIVE = (
    "Write a checkpoint of the conversation so far; it will replace the messages above. Use "
    "exactly these eight markdown sections, in this order, as terse bullets, writing (none) "
    "for an empty one:\n\n"
    + "\n".join(f"## {section}" for section in SECTIONS)
    + "\n\nRules: write concise English; keep paths, commands, error strings, identifiers, "
    "codes and numbers exactly as they appear; keep the user's corrections; do not mention "
    "this checkpoint; do not call tools. If a <compacted-summary> block is present above, "
    "merge it into one consolidated checkpoint instead of copying it forward."
)

PREAMBLE = (
    "This is a checkpoint of the earlier conversation. Treat it as established background "
    "and continue without acknowledging it."
)


def build_summary_request(
    header: ChatRequest, shadowed: Sequence[Message], max_tokens: int, instructions: str = ""
) -> ChatRequest:
    """``header.messages`` + ``shadowed`` + the directive as the last user message. An assistant
    message with no content is left out, as dsh's ``deriveEventMessage`` derives none from it."""
    transcript = [m for m in shadowed if not is_empty_assistant(m)]
    directive = DIRECTIVE + (f"\n\nAlso: {instructions.strip()}" if instructions.strip() else "")
    return replace(
        header,
        messages=(*header.messages, *transcript, Message.user(directive)),
        max_tokens=max_tokens,
        purpose="summary",
    )


def frame_checkpoint(summary: str) -> Message:
    """The user message that replaces the span: preamble + ``<compacted-summary>`` block."""
    text = f"{PREAMBLE}\n\n<compacted-summary>\n{summary.strip()}\n</compacted-summary>"
    return Message.user(text, name=CHECKPOINT_NAME)


def summarize_span(
    model: ChatModel,
    request: ChatRequest,
    shadowed_tokens: int,
    price: Callable[[Message], int] = price_message,
) -> tuple[str, Message, ChatResponse]:
    """Make the call and check it; fail closed (the engine's policy, see
    :mod:`harness.summary_outcome`).

    Raises :class:`SummaryError` when the call failed, the output was cut at max_tokens, is
    empty or is not a summary (:mod:`harness.compaction.summary_check`), or when the framed
    checkpoint is not strictly smaller than what it replaces.
    """
    outcome = checked(
        request_summary(
            model,
            request,
            cut="the summary was cut off at max_tokens (incomplete checkpoint)",
            empty="the summary call returned no text",
        )
    ).settle(POLICY)
    assert outcome.response is not None  # a successful outcome has its response
    checkpoint = frame_checkpoint(outcome.text)
    if price(checkpoint) >= shadowed_tokens:
        raise SummaryError(
            f"summary is not smaller than the shadowed content "
            f"({price(checkpoint)} ≥ {shadowed_tokens} tokens)"
        )
    return outcome.text, checkpoint, outcome.response


def gated_checkpoint(
    config: GateConfig | None,
    summary: str,
    checkpoint: Message,
    span: Sequence[Message],
    meter: TokenMeter,
    shadowed_tokens: int,
) -> tuple[str, Message, dict[str, object]]:
    """The DSH engine's call: the summary and checkpoint to commit, and what to add to the
    ``compaction/summary`` event's data (``{"gate": record}``; ``{}`` when the gate is off)."""
    if config is None:
        return summary, checkpoint, {}
    result, gated = gate_checkpoint(config, summary, span, meter, frame_checkpoint, shadowed_tokens)
    return result.text, gated, {"gate": result.to_record()}
