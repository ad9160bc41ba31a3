"""Verified quotes: a proposed line is kept only when it is in the span verbatim, so a model's
paraphrase or invention never reaches the summary as a quote; what is kept fits the room and
survives a later compaction."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.compaction.agentscope import CompactionConfig, Compactor, resolve_thresholds
from harness.compaction.guards.quotes import (
    QUOTE_HEADING,
    QuoteConfig,
    quote_section,
    split_quotes,
    verified,
)
from harness.errors import ConfigError
from harness.messages import Message
from harness.meter import build_meter
from harness.testing import FunctionModel

METER = build_meter("agentscope-2.0.3")
CONFIG = QuoteConfig()
SPAN = "Carol: the freeze starts Friday at noon.\nBob: never deploy   on the release train."


def answer(*quotes: str, text: str = "We talked about the release.") -> str:
    return "\n".join([text, "", QUOTE_HEADING, *(f"> {q}" for q in quotes)])


def test_only_lines_found_verbatim_in_the_span_are_kept() -> None:
    quotes = verified(
        answer(
            "Carol: the freeze starts Friday at noon.",  # verbatim
            "Bob: never deploy on the release train.",  # verbatim but for spacing: kept
            "Carol: the freeze starts Monday at noon.",  # one word changed: invented
            "Dave: ship it on Sunday.",  # nowhere in the span
            "the freeze",  # in the span but too short to say anything
            "Carol: the freeze starts Friday at noon.",  # a repeat
        ),
        SPAN,
        CONFIG,
    )
    assert quotes.text == "We talked about the release."
    assert quotes.kept == (
        "Carol: the freeze starts Friday at noon.",
        "Bob: never deploy on the release train.",
    )
    assert quotes.dropped == 4


@given(st.text(min_size=1, max_size=60), st.text(max_size=200))
def test_no_kept_quote_is_ever_absent_from_the_span(line: str, span: str) -> None:
    for quote in verified(answer(line), span, CONFIG).kept:
        assert quote in " ".join(span.split())


def test_sections_of_a_chunked_answer_are_each_taken_out() -> None:
    two = answer("first line that matters", text="Part one.") + "\nPart two.\n" + answer("x" * 20)
    text, proposed = split_quotes(two)
    assert text.splitlines()[0] == "Part one." and "Part two." in text and "We talked" in text
    assert proposed == ("first line that matters", "x" * 20) and QUOTE_HEADING not in text


def test_the_section_stays_within_the_room_and_says_what_fitted() -> None:
    quotes = verified(answer(*SPAN.split("\n")), SPAN, CONFIG)

    def price(text: str) -> int:
        return len(text.split())

    text, fitted, room = quote_section("Summary.", quotes, 16, price)  # heading 7, line 8
    assert fitted == ("Carol: the freeze starts Friday at noon.",)
    assert room == 1 and price(text) - price("Summary.") == 15
    assert quote_section("Summary.", quotes, 0, price) == ("Summary.", (), 0)


@pytest.mark.parametrize("field", ["count", "min_chars"])
@pytest.mark.parametrize("value", [0, -1, 2.5, True, "8"])
def test_a_bad_setting_is_refused_naming_it(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=f"invalid QuoteConfig: {field}"):
        QuoteConfig(**{field: value})  # type: ignore[arg-type]


def _compactor(reply: str, **changes: object) -> tuple[Compactor, list[str]]:
    prompts: list[str] = []

    def summary(request: object) -> str:
        prompts.append(request.messages[0].content)  # type: ignore[attr-defined]
        return reply

    config = CompactionConfig.count_only(4, 1, quotes=QuoteConfig(), **changes)  # type: ignore[arg-type]
    model = FunctionModel(summary, model_name="scripted")
    return Compactor(config, resolve_thresholds(config, "scripted"), model, meter=METER), prompts


def _history() -> list[Message]:
    return [
        Message.user("Remember: the code word is juniper."),
        Message.assistant("Noted."),
        Message.user("And never touch prod on Fridays."),
        Message.assistant("Understood."),
        Message.user("Next?"),
    ]


def test_the_compactor_asks_for_quotes_and_keeps_only_the_verbatim_ones() -> None:
    reply = answer("Remember: the code word is juniper.", "The code word is falcon now.")
    compactor, prompts = _compactor(reply, strip_echo=True)
    compaction = compactor.compact_if_needed(_history())
    assert compaction is not None
    assert QUOTE_HEADING in prompts[0] and "exactly as written" in prompts[0]
    summary = compaction.messages[0].content
    assert "> Remember: the code word is juniper." in summary  # the echo filter left it
    assert "falcon" not in summary
    assert "Quotes: 2 proposed, 1 not found verbatim in the span, 1 kept" in (
        compaction.event.log_lines
    )


def test_a_quote_outlives_the_next_compaction_while_the_model_proposes_it_again() -> None:
    reply = answer("Remember: the code word is juniper.")
    compactor, _ = _compactor(reply)
    first = compactor.compact_if_needed(_history())
    assert first is not None
    later = [*first.messages, Message.assistant("Sure."), Message.user("More?"),
             Message.assistant("Yes."), Message.user("Done?")]  # fmt: skip
    second = compactor.compact_if_needed(later)
    assert second is not None
    assert "> Remember: the code word is juniper." in second.messages[0].content


def test_quotes_are_off_by_default_and_the_prompt_unchanged() -> None:
    assert CompactionConfig().quotes is None
    config = CompactionConfig.count_only(4, 1)
    prompts: list[str] = []
    model = FunctionModel(lambda r: prompts.append(r.messages[0].content) or "ok", model_name="m")  # type: ignore[attr-defined, func-returns-value]
    Compactor(config, resolve_thresholds(config, "m"), model, meter=METER).compact_if_needed(
        _history()
    )
    assert prompts and QUOTE_HEADING not in prompts[0]
