"""One outcome for every model call that rewrites context: :class:`SummaryOutcome`.

Three calls ask a model to condense text: the AgentScope compaction summary, the DeepSeek-Harness
checkpoint and memory consolidation (MEMORY.md). All three go through :func:`request_summary`,
which never raises for a failed call (:class:`~harness.errors.ModelError`) or an unusable answer
(:class:`~harness.errors.ModelOutputError`: cut off at max_tokens, or empty); it returns a
failed outcome instead. What a failure then means is the caller's **policy**, not a different
mechanism (:meth:`SummaryOutcome.settle`):

* ``fail-open`` — AgentScope 2.0.3's automatic compaction: a placeholder summary, compaction
  goes on;
* ``fail-closed`` — the DSH engine and manual compaction: :class:`~harness.errors.SummaryError`,
  nothing is written;
* consolidation keeps the outcome as its own (``ConsolidationOutcome.status == "failed"``): the
  watermark stays, the next run redoes the batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from harness.errors import ModelError, ModelOutputError, SummaryError
from harness.model import ChatModel, ChatRequest, ChatResponse

__all__ = ["SummaryOutcome", "SummaryPolicy", "request_summary", "usable_text"]

SummaryPolicy = Literal["fail-open", "fail-closed"]
"""What a failed summary does: ``fail-open`` keeps going with a placeholder, ``fail-closed``
raises :class:`SummaryError`."""


@dataclass(frozen=True)
class SummaryOutcome:
    """The text of a summary, or why there is none."""

    text: str
    """The summary (stripped); on a failure whatever the engine puts in its place (often "")."""
    failed: bool = False
    """True when the call failed or its answer could not be used."""
    error: str | None = None
    """What went wrong, in one sentence, when something did."""
    response: ChatResponse | None = field(default=None, compare=False, repr=False)
    """The model's response when there was one (the DSH log records its raw output and usage)."""
    cause: Exception | None = field(default=None, compare=False, repr=False)
    """The exception behind a failure (a ModelError or ModelOutputError), chained by
    :meth:`settle`."""

    def settle(self, policy: SummaryPolicy) -> SummaryOutcome:
        """Apply an engine's policy: a failed outcome raises :class:`SummaryError` (with
        :attr:`error`) under ``fail-closed``; anything else is returned as it is."""
        if self.failed and policy == "fail-closed":
            raise SummaryError(self.error or "the summary failed") from self.cause
        return self


def usable_text(response: ChatResponse, *, cut: str | None, empty: str) -> str:
    """The answer's stripped text. Raises :class:`ModelOutputError` with ``cut`` when the model
    stopped at max_tokens (unless ``cut`` is None: the caller takes a truncated answer) and with
    ``empty`` when it wrote nothing."""
    if cut is not None and response.finish_reason == "length":
        raise ModelOutputError(cut)
    text = response.message.content.strip()
    if not text:
        raise ModelOutputError(empty)
    return text


def request_summary(
    model: ChatModel,
    request: ChatRequest,
    *,
    cut: str | None,
    empty: str,
    call: str = "the summary call",
) -> SummaryOutcome:
    """Make the call and read its answer (:func:`usable_text`) into an outcome; a failed call
    is ``"<call> failed: <Type>: <message>"``."""
    try:
        response = model.complete(request)
    except ModelError as exc:
        return SummaryOutcome("", True, f"{call} failed: {type(exc).__name__}: {exc}", cause=exc)
    try:
        text = usable_text(response, cut=cut, empty=empty)
    except ModelOutputError as exc:
        return SummaryOutcome("", True, str(exc), response, exc)
    return SummaryOutcome(text, response=response)
