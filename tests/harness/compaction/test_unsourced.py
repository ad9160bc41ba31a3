"""ctxlab's source check (:mod:`harness.compaction.guards.unsourced`): the lines of a summary
that name an identifier found nowhere in the compacted context are dropped in ctxlab's profile
and kept in the seeds'; what is left keeps its words and its order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.forced_summary import compacted, small_profile, small_seed

from harness.compaction.agentscope import (
    CompactionConfig,
)
from harness.compaction.guards.gate_identifiers import extract_identifiers
from harness.compaction.guards.unsourced import (
    UNSOURCED_ONLY,
    Unsourced,
    drop_unsourced,
    source_text,
)
from harness.messages import Message, ToolCall

# After what X-BENCH recorded from the 0.5B Qwen on en-24k-s01: a request under NEXT STEPS with a
# batch id next to the real ones (B3621, B3626) and a log line no tool returned (the recorded
# one was a copied "Human:" turn, which the echo filter now drops on its own).
INVENTED = """## SUMMARY
Batches B3621 and B3626 were checked; the password is falcon.

## NEXT STEPS
- Pull the job log for batch B3623 and tell me if anything failed.
\\n2026-11-11T10:02 worker-9 queued item 33/171 in 187 ms"""
SPAN = [
    Message.user("Check batches B3621 and B3626. The password is falcon."),
    Message.assistant(
        "",
        tool_calls=[ToolCall(id="c1", name="search_records", arguments='{"query": "B3621"}')],
    ),
    Message.tool("c1", '{"batch": "B3621", "failed": 0}'),
    Message.assistant("Batch B3621 had no failure; B3626 neither."),
] * 3


def test_a_line_naming_a_value_the_span_never_had_is_dropped() -> None:
    unsourced = drop_unsourced(INVENTED, source_text(SPAN))
    assert unsourced.text == (
        "## SUMMARY\nBatches B3621 and B3626 were checked; the password is falcon.\n\n## NEXT STEPS"
    )
    assert unsourced.dropped == 2
    assert unsourced.values == ("B3623", "n2026-11-11T10:02", "worker-9", "171", "187")


def test_a_summary_whose_values_are_all_in_the_span_is_kept_as_written() -> None:
    text = "Batch B3621 is fine (search_records, B3626 too).\n\nNothing else."
    assert drop_unsourced(text, source_text(SPAN)) == Unsourced(text, 0, ())


def test_tool_call_arguments_and_the_system_prompt_count_as_sources() -> None:
    messages = [Message.system("Reports go to /srv/reports/daily.csv."), *SPAN]
    text = "Reports: /srv/reports/daily.csv; searched with query B3621."
    assert drop_unsourced(text, source_text(messages)).dropped == 0
    assert drop_unsourced(text, source_text(SPAN)).values == ("/srv/reports/daily.csv",)


@given(
    st.lists(
        st.sampled_from(["B3621", "B3623", "falcon", "SO-2026-0417", "42", "item 33/171"]),
        min_size=1,
    ),
    st.lists(st.sampled_from(["B3621", "falcon", "Checked.", "SO-2026-0417"]), min_size=1),
)
def test_what_is_left_names_only_sourced_values_and_keeps_its_lines_in_order(
    summary_words: list[str], span_words: list[str]
) -> None:
    source = " ".join(span_words)
    text = "\n".join(f"- {word}" for word in summary_words)
    unsourced = drop_unsourced(text, source)
    left = unsourced.text.split("\n") if unsourced.text else []
    assert all(i.text in source for i in extract_identifiers([(unsourced.text, True)]))
    lines = iter(text.split("\n"))
    assert all(line in lines for line in left)  # a subsequence: order and words kept
    dropped = [line for line in text.split("\n") if line not in left]
    assert unsourced.dropped == len(dropped)
    for line in dropped:  # each held a value the source does not
        assert any(i.text not in source for i in extract_identifiers([(line, True)]))


def test_ctxlab_profile_drops_an_invented_value_and_says_so() -> None:
    event = compacted(small_profile(), SPAN, INVENTED)
    assert "B3623" not in event.summary and "2026-11-11" not in event.summary
    assert "Batches B3621 and B3626 were checked" in event.summary
    assert (
        "Summary named 5 value(s) found nowhere in its span (B3623, n2026-11-11T10:02, "
        "worker-9, …): "
        "2 line(s) dropped"
    ) in event.log_lines


def test_a_summary_of_invented_values_only_is_left_out_and_the_gate_still_keeps_the_span() -> None:
    event = compacted(small_profile(), SPAN, "Batch B3623 failed at 2026-11-11T10:02.")
    assert event.summary.startswith(UNSOURCED_ONLY)
    assert "B3621" in event.summary and "falcon" in event.summary  # the gate's


def test_the_seeds_and_a_switched_off_profile_keep_the_invented_lines() -> None:
    assert "B3623" in compacted(small_profile(drop_unsourced=False), SPAN, INVENTED).summary
    assert compacted(small_seed(), SPAN, INVENTED).summary == INVENTED


def test_drop_unsourced_must_be_a_bool() -> None:
    with pytest.raises(Exception, match="drop_unsourced must be True or False"):
        CompactionConfig(drop_unsourced="yes")  # type: ignore[arg-type]
