"""AgentScope's ``CompactionMiddlewareTest``, restated as cases run against ctxlab's agent loop.

The peer drives ``CompactionMiddleware.onReasoning`` with two user messages ("previous
context", "latest request") and counts the calls of ``next`` (the reasoning request after
compaction). Here an :class:`~harness.agent.Agent` with the AgentScope engine holds "previous
context" and is asked "latest request"; ``next`` is the agent model's request. The peer's config
(token trigger 1, keep 1 token, no flush, no offload, no pruning) is one ctxlab refuses (keep
≥ trigger, :data:`KEEP_NOT_BELOW_TRIGGER`), so the cases run the nearest one it accepts: trigger
at 2 tokens, keep 1 (both messages cost more than that, so the same cutoff: one summary and the
last message). A provider's failure of the summary stream is a :class:`ServerError`; the peer's
``InterruptedException`` is ``KeyboardInterrupt``.

Not translated: ``modelStreamInterruptProducesOneCallAndInterruptedTerminalReason`` and
``interruptingOneSessionDoesNotCancelConcurrentSession`` interrupt a running ReActAgent through
its ``interrupt(context)`` call and read its ``GenerateReason``; ctxlab's agent has no such
call (an interrupt is the process's Ctrl-C).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conformance.agentscope_peer import MIDDLEWARE_TEST, SEED, UNSAFE, PeerCase, params

from harness.agent import Agent
from harness.compaction.agentscope import SUMMARY_UNAVAILABLE, CompactionConfig
from harness.compaction.factory import make_engine
from harness.errors import APIConnectionError, ConfigError, ServerError
from harness.messages import Message
from harness.model import ChatRequest
from harness.store.history import StateHistory
from harness.testing import FunctionModel, Reply, ScriptedModel

NEAREST = {
    "trigger_tokens": 2,
    "keep_tokens": 1,
    "flush_before_compact": False,
    "offload_before_compact": False,
    "prune": None,
}
KEEP_NOT_BELOW_TRIGGER = (
    f"{UNSAFE}: a tail budget at or above the trigger (tokens or messages) lets the kept "
    "tail fire the trigger again, so once compaction starts every request makes a summary "
    "call and re-summarises the last summary, losing detail turn after turn; ctxlab refuses "
    "it at construction, naming both fields"
)
NOT_A_PROVIDER_ERROR = (
    f"{UNSAFE}: only a provider's error (ModelError) degrades to the failed-summary text, "
    "as the seed's 'failed summary call'; any other exception is a bug in the summariser or "
    "its adapter and reaches the caller with the history untouched. Failing open on a bug "
    "would replace the prefix with the placeholder at every compaction, behind a log warning"
)
FAILURE_TEXT = (
    f"{SEED}: it reads 2.0.3 as compacting with '(Summary unavailable)' plus the error; the "
    "snapshot writes '(Summarization failed: <message>)'. ctxlab writes "
    "'(Summary unavailable) The summary call failed: <Type>: <message>'"
)


class Run:
    """One session: an agent holding "previous context", asked "latest request"."""

    def __init__(
        self,
        summary: Callable[[ChatRequest], Reply],
        answer: Reply = "reply",
        config: dict[str, object] | None = None,
        first: str = "previous context",
        latest: str = "latest request",
    ) -> None:
        self.summary_model = FunctionModel(summary)
        self.model = ScriptedModel([answer])
        history = StateHistory("session")
        history.append([Message.user(first)])
        engine = make_engine(
            CompactionConfig(**(config or NEAREST)),  # type: ignore[arg-type]
            self.model,
            summary_model=self.summary_model,
        )
        self.agent = Agent(self.model, engine=engine, history=history)
        self.latest = latest

    def call(self) -> None:
        self.agent.call(self.latest)

    @property
    def next_calls(self) -> int:
        """How often the reasoning request (the peer's ``next``) was made."""
        return len(self.model.requests)

    def next_messages(self) -> list[Message]:
        (request,) = self.model.requests
        return list(request.messages)


def fails(error: BaseException) -> Callable[[ChatRequest], Reply]:
    return lambda request: error


def wrapped(outer: Exception, inner: BaseException) -> Exception:
    """``outer`` raised from ``inner``, as a library that caught ``inner`` would."""
    outer.__cause__ = inner
    return outer


# --- the cases --------------------------------------------------------------------------------


def a_failing_summariser_falls_back_to_the_original_input() -> None:
    # The peer's model throws before its stream starts; the middleware skips compaction.
    run = Run(fails(RuntimeError("summary provider unavailable")))
    run.call()
    assert run.next_calls == 1
    assert [m.content for m in run.next_messages()] == ["previous context", "latest request"]


def a_failed_summary_compacts_with_the_failure_text() -> None:
    run = Run(fails(ServerError("summary provider unavailable", status_code=503)))
    run.call()
    assert run.next_calls == 1
    first, last = run.next_messages()
    assert first.is_summary and SUMMARY_UNAVAILABLE in first.content
    assert "summary provider unavailable" in first.content
    assert last.content == "latest request"


def the_failure_text_says_summarization_failed() -> None:
    run = Run(fails(ServerError("summary provider unavailable", status_code=503)))
    run.call()
    assert "Summarization failed" in run.next_messages()[0].content


def a_summary_stream_failing_with_any_error_compacts() -> None:
    run = Run(fails(RuntimeError("summary provider unavailable")))
    run.call()
    first, _ = run.next_messages()
    assert first.is_summary and "summary provider unavailable" in first.content


def an_interrupted_summary_propagates() -> None:
    run = Run(fails(KeyboardInterrupt("interrupted while compacting")))
    with pytest.raises(KeyboardInterrupt):
        run.call()
    assert run.next_calls == 0


def an_interrupt_during_the_call_propagates() -> None:
    # In flight, the interrupt reaches the client, which reports it as its own error.
    interrupt = KeyboardInterrupt("interrupted while compacting")
    run = Run(fails(wrapped(APIConnectionError("connection aborted"), interrupt)))
    with pytest.raises(APIConnectionError) as info:
        run.call()
    assert info.value.__cause__ is interrupt
    assert run.next_calls == 0


def a_wrapped_interrupt_propagates() -> None:
    interrupt = KeyboardInterrupt("interrupted while compacting")
    run = Run(fails(wrapped(RuntimeError("compaction wrapper"), interrupt)))
    with pytest.raises(RuntimeError, match="compaction wrapper") as info:
        run.call()
    assert isinstance(info.value.__cause__, KeyboardInterrupt)
    assert run.next_calls == 0


def a_cyclic_cause_chain_still_compacts() -> None:
    error = ServerError("cyclic", status_code=500)
    error.__cause__ = error
    run = Run(fails(error))
    run.call()
    assert run.next_calls == 1
    assert run.next_messages()[0].is_summary


def an_interrupted_reasoning_request_is_not_retried() -> None:
    run = Run(lambda request: "summary", answer=KeyboardInterrupt("interrupted while reasoning"))
    with pytest.raises(KeyboardInterrupt):
        run.call()
    assert run.next_calls == 1


def one_session_interrupted_leaves_the_other_compacting() -> None:
    compacted: list[str] = []

    def per_session(request: ChatRequest) -> Reply:
        text = request.messages[0].content
        if "session-a" in text:
            compacted.append("session-a")
            return KeyboardInterrupt("interrupted session-a")
        compacted.append("session-b")
        return "summary"

    a = Run(per_session, first="session-a previous", latest="session-a latest")
    b = Run(per_session, first="session-b previous", latest="session-b latest")
    with pytest.raises(KeyboardInterrupt):
        a.call()
    b.call()
    assert compacted == ["session-a", "session-b"]
    assert (a.next_calls, b.next_calls) == (0, 1)


def the_peer_fixed_config_is_accepted() -> None:
    CompactionConfig(
        trigger_tokens=1,
        keep_tokens=1,
        flush_before_compact=False,
        offload_before_compact=False,
        prune=None,
    )


def the_no_compaction_config_never_compacts() -> None:
    config = {"trigger_messages": 0, "trigger_tokens": 2**31 - 1, "keep_tokens": 0}
    run = Run(fails(AssertionError("no summary call expected")), config=config)
    run.call()
    assert [m.content for m in run.next_messages()] == ["previous context", "latest request"]


CASES = [
    PeerCase(
        MIDDLEWARE_TEST,
        "ordinaryCompactionFailureFallsBackToOriginalInputOnce",
        "the summary model throws an ordinary error as it is called",
        "no compaction; reasoning runs once on the original two messages",
        a_failing_summariser_falls_back_to_the_original_input,
        deviation=NOT_A_PROVIDER_ERROR,
        differs_by=RuntimeError,
    ),
    PeerCase(
        MIDDLEWARE_TEST,
        "ordinarySummaryFailureContinuesWithCompactedInput",
        "the summary provider fails",
        "compaction goes on with the failure text as the summary; reasoning runs once on "
        "[summary, latest request]",
        a_failed_summary_compacts_with_the_failure_text,
    ),
    PeerCase(
        MIDDLEWARE_TEST,
        "ordinarySummaryFailureContinuesWithCompactedInput[text]",
        "the summary provider fails",
        "the summary message says 'Summarization failed'",
        the_failure_text_says_summarization_failed,
        deviation=FAILURE_TEXT,
    ),
    PeerCase(
        MIDDLEWARE_TEST,
        "ordinarySummaryFailureContinuesWithCompactedInput[any error]",
        "the summary model's stream fails with an error that is not a provider's",
        "compaction goes on with the failure text as the summary",
        a_summary_stream_failing_with_any_error_compacts,
        deviation=NOT_A_PROVIDER_ERROR,
        differs_by=RuntimeError,
    ),
    PeerCase(
        MIDDLEWARE_TEST,
        "interruptedSummaryCompactionPropagatesWithoutCallingNext",
        "the summary call is interrupted",
        "the interrupt reaches the caller; no reasoning request",
        an_interrupted_summary_propagates,
    ),
    PeerCase(
        MIDDLEWARE_TEST,
        "asynchronousInterruptedSummaryCompactionPropagatesWithoutCallingNext",
        "the summary call is interrupted while in flight (the client reports it as its own "
        "connection error, caused by the interrupt)",
        "the interrupt reaches the caller; no reasoning request",
        an_interrupt_during_the_call_propagates,
    ),
    PeerCase(
        MIDDLEWARE_TEST,
        "wrappedInterruptedCompactionPropagatesWithoutCallingNext",
        "the summary model raises an error caused by an interrupt",
        "that error reaches the caller; no reasoning request",
        a_wrapped_interrupt_propagates,
    ),
    PeerCase(
        MIDDLEWARE_TEST,
        "cyclicCompactionFailureCauseFallsBackWithoutLooping",
        "the summary fails with an error that is its own cause",
        "the cause walk ends; reasoning runs once",
        a_cyclic_cause_chain_still_compacts,
    ),
    PeerCase(
        MIDDLEWARE_TEST,
        "interruptedDownstreamPropagatesWithoutRetryingNext",
        "compaction succeeds, the reasoning request is interrupted",
        "the interrupt reaches the caller; reasoning ran once, no retry",
        an_interrupted_reasoning_request_is_not_retried,
    ),
    PeerCase(
        MIDDLEWARE_TEST,
        "concurrentSessionInterruptDoesNotAffectOtherSession",
        "two sessions share a summary model; session a's summary is interrupted (run one after "
        "the other here: ctxlab's agent is synchronous)",
        "both were summarised; a never reasons, b reasons once",
        one_session_interrupted_leaves_the_other_compacting,
    ),
    PeerCase(
        MIDDLEWARE_TEST,
        "fixedConfig",
        "token trigger 1, keep 1 token (the config of the cases above)",
        "accepted: every request with a message compacts all but the last one",
        the_peer_fixed_config_is_accepted,
        deviation=KEEP_NOT_BELOW_TRIGGER,
        differs_by=ConfigError,
    ),
    PeerCase(
        MIDDLEWARE_TEST,
        "noCompactionConfig",
        "message trigger off, token trigger 2^31-1, count mode",
        "accepted; nothing compacts",
        the_no_compaction_config_never_compacts,
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_compaction_middleware_case(case: PeerCase) -> None:
    case.check()
