"""ctxlab's echo filter (:mod:`harness.compaction.guards.echo`): a summary's lines that only
repeat its prompt's instructions, and the sections left empty, are dropped in ctxlab's profile
and kept in the seeds'; what is left keeps its words and its order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.forced_summary import compacted, small_profile, small_seed

from harness.compaction.agentscope import DEFAULT_SUMMARY_PROMPT, CompactionConfig
from harness.compaction.agentscope.summary import SUMMARY_PREFIX, TRANSCRIPT_ROLES
from harness.compaction.guards.echo import ECHO_ONLY, strip_echo
from harness.compaction.guards.gate import GATE_HEADING, GATE_NOTE
from harness.compaction.guards.gate_definitions import extract_definitions
from harness.messages import Message

# The four sections of DEFAULT_SUMMARY_PROMPT, each with its own instruction under it: what
# X-BENCH's recorded 0.5B summaries of English spans consist of.
ECHO = """## SESSION INTENT
The user's primary goal.

## SUMMARY
Important context, decisions with their reasons, and options that were rejected. Keep exact \
names, codes, numbers, paths and commands.

## ARTIFACTS
Files or resources created, modified or accessed, with their paths and what changed.

## NEXT STEPS
What remains to be done."""
SPAN = [
    Message.user("The order is SO-2026-0417. The password is falcon. Never touch prod."),
    Message.assistant("Noted."),
] * 4


def test_a_summary_of_instructions_only_is_empty() -> None:
    echo = strip_echo(ECHO, DEFAULT_SUMMARY_PROMPT)
    assert echo.text == "" and echo.dropped == 8


def test_what_a_summary_says_stays_under_its_heading() -> None:
    text = ECHO.replace("What remains to be done.", "Ship SO-2026-0417 on Monday.")
    assert strip_echo(text, DEFAULT_SUMMARY_PROMPT).text == (
        "## NEXT STEPS\nShip SO-2026-0417 on Monday."
    )


def test_whitespace_and_case_do_not_hide_an_echo() -> None:
    text = "## Summary\n  important CONTEXT, decisions with their reasons, and options that were "
    text += "rejected.   Keep exact names, codes, numbers, paths and commands.\nThe rate is 38650."
    assert strip_echo(text, DEFAULT_SUMMARY_PROMPT).text == "## Summary\nThe rate is 38650."


@pytest.mark.parametrize("body", ["None", "none.", "", "N/A", "无"])
def test_a_section_with_nothing_in_it_goes(body: str) -> None:
    text = f"## SESSION INTENT\nMove the depot.\n\n## ARTIFACTS\n{body}\n\n## NEXT STEPS\nNone"
    assert strip_echo(text, DEFAULT_SUMMARY_PROMPT).text == "## SESSION INTENT\nMove the depot."


def test_the_gate_note_a_model_copies_goes_and_its_items_stay() -> None:
    text = f"{GATE_HEADING}\n\n{GATE_HEADING}\n{GATE_NOTE}\n- SO-2026-0417\n- falcon"
    assert (
        strip_echo(text, DEFAULT_SUMMARY_PROMPT).text == f"{GATE_HEADING}\n- SO-2026-0417\n- falcon"
    )


def test_only_the_lines_before_the_transcript_are_instructions() -> None:
    prompt = "Summarise.\nCONVERSATION:\n{messages}\nKeep the summary under 50 words."
    text = "Summarise.\nKeep the summary under 50 words.\nCONVERSATION:"
    assert strip_echo(text, prompt).text == "Keep the summary under 50 words.\nCONVERSATION:"


def test_the_placeholder_gives_the_gate_no_phrase() -> None:
    summary = f"Here is a summary of the conversation to date:\n\n{ECHO_ONLY}"
    assert extract_definitions([summary], GATE_HEADING) == []


_LINE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)
_PROMPT_LINES = [line for line in DEFAULT_SUMMARY_PROMPT.split("{messages}")[0].splitlines()]


@given(st.lists(st.one_of(_LINE, st.sampled_from([*_PROMPT_LINES, "None", "## X"])), max_size=12))
def test_the_filter_only_removes_lines_in_order_and_is_idempotent(lines: list[str]) -> None:
    text = "\n".join(lines)
    echo = strip_echo(text, DEFAULT_SUMMARY_PROMPT)
    kept = iter(line.strip() for line in text.split("\n"))  # the ends of the text aside
    assert all(any(line.strip() == k for k in kept) for line in echo.text.split("\n") if line)
    assert strip_echo(echo.text, DEFAULT_SUMMARY_PROMPT).text == echo.text
    assert echo.dropped >= 0


def test_ctxlab_profile_drops_an_echoed_summary_and_says_so() -> None:
    event = compacted(small_profile(), SPAN, ECHO)
    assert "primary goal" not in event.summary and event.summary.startswith(ECHO_ONLY)
    assert "SO-2026-0417" in event.summary and "falcon" in event.summary  # the gate's
    assert "Summary echoed its instructions: 8 line(s) dropped" in event.log_lines


def test_the_seeds_and_a_switched_off_profile_keep_the_echo() -> None:
    assert ECHO in compacted(small_profile(strip_echo=False), SPAN, ECHO).summary
    assert compacted(small_seed(), SPAN, ECHO).summary == ECHO


def test_strip_echo_must_be_a_bool() -> None:
    with pytest.raises(Exception, match="strip_echo must be True or False"):
        CompactionConfig(strip_echo="yes")  # type: ignore[arg-type]


# What the 0.5B Qwen answered in 28 of its 76 recorded X-BENCH summary calls: the transcript
# copied back, nesting the previous summary in a made-up <messages> block.
COPIED = """Here is a summary of the conversation to date:

## NEXT STEPS

<messages>
Human: Here is a summary of the conversation to date:

## NEXT STEPS
Ship SO-2026-0417 on Monday.

AI: Batch B3363 ran through; 0 step(s) failed.

Tool: [tool_result: search_records] {"batch": "B3363"}
</messages>"""


def test_a_copied_transcript_and_its_wrapper_go_and_what_was_summarised_stays() -> None:
    echo = strip_echo(
        COPIED, DEFAULT_SUMMARY_PROMPT, roles=TRANSCRIPT_ROLES, preface=SUMMARY_PREFIX
    )
    assert echo.text == "## NEXT STEPS\nShip SO-2026-0417 on Monday."
    assert echo.dropped == 7  # preface, both tags, three copied turns, one emptied heading


def test_without_the_roles_a_copied_transcript_stays() -> None:
    echo = strip_echo(COPIED, DEFAULT_SUMMARY_PROMPT)
    assert "Human: Here is a summary" in echo.text and "AI: Batch B3363" in echo.text
    assert "<messages>" not in echo.text  # the prompt's own tags are its wrapper either way


def test_ctxlab_profile_drops_a_copied_transcript() -> None:
    event = compacted(small_profile(), SPAN, COPIED)
    assert "Human:" not in event.summary and "<messages>" not in event.summary
    assert "Ship SO-2026-0417 on Monday." in event.summary
    assert "Human: Here is a summary" in compacted(small_seed(), SPAN, COPIED).summary
