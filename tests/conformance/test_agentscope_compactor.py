"""AgentScope's ``ConversationCompactorTest``, restated as cases run against ctxlab's engine.

The peer's fixture compacts at 3 messages keeping the last 2 (count mode, token trigger off,
pruning off, a prompt ``SUMMARY_INPUT:`` + the transcript) with a model that answers
``ROUND_<n>`` to its n-th summary request. The same here: ctxlab's AgentScope engine, a
history that records what the prefix record (AgentScope's offload) receives, a memory flush
that records its input. AgentScope's ``InterruptedException`` is Python's ``KeyboardInterrupt``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from conformance.agentscope_peer import COMPACTOR_TEST, PeerCase, params

from harness.compaction.agentscope import (
    Compaction,
    CompactionConfig,
    Compactor,
    resolve_thresholds,
)
from harness.compaction.agentscope.engine import AgentScopeEngine
from harness.messages import SUMMARY_NAME, Message
from harness.meter import build_meter
from harness.model import ChatRequest
from harness.testing import FunctionModel


def config(flush: bool, offload: bool) -> CompactionConfig:
    return CompactionConfig(
        trigger_messages=3,
        trigger_tokens=None,
        keep_messages=2,
        keep_tokens=0,
        summary_prompt="SUMMARY_INPUT:\n{messages}",
        flush_before_compact=flush,
        offload_before_compact=offload,
        prune=None,
    )


def msg(text: str) -> Message:
    return Message.user(text)


def summary(text: str) -> Message:
    """A summary the compactor wrote earlier: a user message named ``__compaction_summary__``."""
    return Message.user(text, name=SUMMARY_NAME)


class Fixture:
    """The peer's fixture: a recording model, flush and offload."""

    def __init__(self, flush: bool = True, offload: bool = False) -> None:
        self.prompts: list[str] = []
        self.flushed: list[list[str]] = []
        self.offloaded: list[list[str]] = []
        self.config = config(flush, offload)
        self.model = FunctionModel(self._answer)

    def _answer(self, request: ChatRequest) -> str:
        self.prompts.append(request.messages[0].content)
        return f"ROUND_{len(self.prompts)}"

    def flush(self, prefix: Sequence[Message]) -> None:
        self.flushed.append([m.content for m in prefix])

    def offload(self, prefix: Sequence[Message]) -> None:
        self.offloaded.append([m.content for m in prefix])

    def engine(self) -> AgentScopeEngine:
        thresholds = resolve_thresholds(self.config, self.model.model_name)
        meter = build_meter("agentscope-2.0.3")
        return AgentScopeEngine(
            Compactor(self.config, thresholds, self.model, meter=meter), flush=self.flush
        )

    def compact(self, messages: Sequence[Message]) -> list[Message]:
        """Compact ``messages``; the peer's fixture requires that it does."""
        history = History(list(messages), self.offload)
        engine = self.engine()
        events = engine.compact(history, engine.compactor.plan(history.messages()))
        assert len(events) == 1
        return history.messages()


class History:
    """A list history whose prefix record goes to ``offload``."""

    def __init__(self, messages: list[Message], offload: object) -> None:
        self._messages = messages
        self._offload = offload

    def messages(self) -> list[Message]:
        return list(self._messages)

    def append(self, messages: Sequence[Message]) -> None:
        self._messages.extend(messages)

    def apply_compaction(self, compaction: Compaction) -> None:
        self._messages = list(compaction.messages)

    def record_prefix(self, prefix: Sequence[Message]) -> None:
        self._offload(prefix)  # type: ignore[operator]

    def record_request(self, header: ChatRequest) -> None:
        pass


def texts(messages: Sequence[Message]) -> list[str]:
    return [m.content for m in messages]


# --- the cases --------------------------------------------------------------------------------


def prior_summary_is_summarised_not_flushed_nor_kept() -> None:
    fixture = Fixture()
    out = fixture.compact([summary("S1"), msg("M2"), msg("TAIL_1"), msg("TAIL_2")])
    assert "S1" in fixture.prompts[0] and "M2" in fixture.prompts[0]
    assert fixture.flushed == [["M2"]]
    assert len(out) == 3
    assert out[0].name == SUMMARY_NAME and out[0].is_summary
    assert texts(out[1:]) == ["TAIL_1", "TAIL_2"]


def several_prior_summaries_become_one() -> None:
    fixture = Fixture()
    out = fixture.compact(
        [summary("S0"), msg("M1"), summary("S1"), msg("M2"), msg("TAIL_1"), msg("TAIL_2")]
    )
    assert "S0" in fixture.prompts[0] and "S1" in fixture.prompts[0]
    assert fixture.flushed == [["M1", "M2"]]
    assert sum(m.name == SUMMARY_NAME for m in out) == 1


def summary_only_prefix_is_not_empty_history() -> None:
    fixture = Fixture()
    out = fixture.compact([summary("ONLY_OLD_SUMMARY"), msg("TAIL_1"), msg("TAIL_2")])
    assert "ONLY_OLD_SUMMARY" in fixture.prompts[0]
    assert fixture.flushed == [[]]
    assert "ROUND_1" in out[0].content
    assert "No previous conversation history." not in out[0].content


def chained_compaction_builds_on_the_last_summary() -> None:
    fixture = Fixture()
    first = fixture.compact([summary("S1"), msg("M2"), msg("TAIL_1"), msg("TAIL_2")])
    second = fixture.compact([*first, msg("M3"), msg("TAIL_3"), msg("TAIL_4")])
    assert "ROUND_1" in fixture.prompts[1] and "M3" in fixture.prompts[1]
    assert "ROUND_1" not in second[0].content and "ROUND_2" in second[0].content
    assert fixture.flushed[1] == ["TAIL_1", "TAIL_2", "M3"]


def flush_off_still_summarises_the_prior_summary() -> None:
    fixture = Fixture(flush=False)
    fixture.compact([summary("S1"), msg("M2"), msg("TAIL_1"), msg("TAIL_2")])
    assert "S1" in fixture.prompts[0] and "M2" in fixture.prompts[0]
    assert fixture.flushed == []


def interrupted_flush_propagates() -> None:
    fixture = Fixture(flush=True)

    def flush(prefix: Sequence[Message]) -> None:
        raise KeyboardInterrupt("interrupted while flushing")

    fixture.flush = flush  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        fixture.compact([msg("M1"), msg("M2"), msg("TAIL_1"), msg("TAIL_2")])
    assert fixture.prompts == []  # no summary call after the interrupt


def wrapped_interrupt_in_offload_propagates() -> None:
    fixture = Fixture(flush=False, offload=True)

    def offload(prefix: Sequence[Message]) -> None:
        try:
            raise KeyboardInterrupt("interrupted while offloading")
        except KeyboardInterrupt as interrupt:
            raise RuntimeError("offload wrapper") from interrupt

    fixture.offload = offload  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="offload wrapper") as info:
        fixture.compact([msg("M1"), msg("M2"), msg("TAIL_1"), msg("TAIL_2")])
    assert isinstance(info.value.__cause__, KeyboardInterrupt)
    assert fixture.prompts == []


CASES = [
    PeerCase(
        COMPACTOR_TEST,
        "compactIfNeeded_routesPriorSummaryToSummaryInputButNotFlushOrTail",
        "an earlier summary S1, M2, then TAIL_1 and TAIL_2; compact at 3, keep 2",
        "S1 and M2 are in the summary prompt, only M2 is flushed, the result is the new "
        "summary (named __compaction_summary__) then TAIL_1, TAIL_2",
        prior_summary_is_summarised_not_flushed_nor_kept,
    ),
    PeerCase(
        COMPACTOR_TEST,
        "compactIfNeeded_mergesMultiplePriorSummariesIntoOneReplacement",
        "summaries S0 and S1 interleaved with M1, M2, then two tail messages",
        "both summaries are in the prompt, M1 and M2 are flushed, one summary in the result",
        several_prior_summaries_become_one,
    ),
    PeerCase(
        COMPACTOR_TEST,
        "compactIfNeeded_summaryOnlyPrefixDoesNotBecomeEmptyHistory",
        "a prefix that is only an earlier summary",
        "the old summary is summarised (not 'No previous conversation history.'); the flush "
        "gets an empty list",
        summary_only_prefix_is_not_empty_history,
    ),
    PeerCase(
        COMPACTOR_TEST,
        "compactIfNeeded_chainedCompactionUsesPreviousSummaryAndNewPrefix",
        "compact, append M3, TAIL_3, TAIL_4, compact again",
        "the second prompt holds ROUND_1 and M3; the new summary is ROUND_2 alone; the second "
        "flush gets TAIL_1, TAIL_2, M3",
        chained_compaction_builds_on_the_last_summary,
    ),
    PeerCase(
        COMPACTOR_TEST,
        "compactIfNeeded_skipsFlushWhenDisabledAndStillUsesPriorSummary",
        "the first case's input with the memory flush off",
        "no flush call; the prompt still holds S1 and M2",
        flush_off_still_summarises_the_prior_summary,
    ),
    PeerCase(
        COMPACTOR_TEST,
        "compactIfNeeded_propagatesInterruptedMemoryFlush",
        "the memory flush is interrupted",
        "the interrupt reaches the caller (the flush is best effort for errors only)",
        interrupted_flush_propagates,
    ),
    PeerCase(
        COMPACTOR_TEST,
        "compactIfNeeded_propagatesInterruptedMessageOffload",
        "the prefix record (offload) raises an error caused by an interrupt",
        "that error reaches the caller, its cause the interrupt",
        wrapped_interrupt_in_offload_propagates,
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_conversation_compactor_case(case: PeerCase) -> None:
    case.check()
