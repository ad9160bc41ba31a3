"""E3's rules over the summaries themselves: what each fills, and whether the old one was merged.

Split from :mod:`experiments.e3.claims` (which holds the table of specs). Both reject a plausible
wrong answer (a row no wrong answer can move is no test): a summary that echoes the prompt's own
description of each section is not filled, and a summary message with one opening whose request
never carried the previous summary dropped it rather than merged it.
"""

from __future__ import annotations

from experiments.e3.view import E3View, RoundRow
from harness.compaction.agentscope import DEFAULT_SUMMARY_PROMPT, SUMMARY_PREFIX
from lab import Verdict, carries_previous, filled_sections, markdown_headings

__all__ = ["SECTIONS", "instructions", "merged", "sections"]

SECTIONS = ("SESSION INTENT", "SUMMARY", "ARTIFACTS", "NEXT STEPS")
STRUCTURAL = "structural: decided by the harness, whatever the model says"
RULE = "judged by judge `e3-rules`; model output as recorded"


def _summaries(view: E3View) -> list[str]:
    return [r.compaction.summary for r in view.rounds if r.compaction]


def instructions(view: E3View) -> list[str]:
    """The lines of the prompt the summariser was sent, before its transcript (``<messages>``):
    a summary line that only repeats one of them says nothing."""
    prompt = view.summary_requests[0] if view.summary_requests else DEFAULT_SUMMARY_PROMPT
    return prompt.split("<messages>", 1)[0].splitlines()


def _describe(filled: list[list[str]]) -> str:
    return "; ".join(", ".join(f) or "none" for f in filled)


def sections(view: E3View) -> Verdict:
    """A section counts only with content: a heading alone, "None" under it, or the prompt's
    own description of the section copied back, is empty."""
    summaries = _summaries(view)
    headed = sum(all(h in markdown_headings(t) for h in SECTIONS) for t in summaries)
    asked = instructions(view)
    filled = [filled_sections(t, SECTIONS, asked) for t in summaries]
    lenient = [filled_sections(t, SECTIONS) for t in summaries]
    complete = sum(len(f) == len(SECTIONS) for f in filled)
    echoed = sum(a != b for a, b in zip(lenient, filled, strict=True))
    total = len(summaries)
    return Verdict(
        f"{complete} of {total}",
        note=f"every section of every summary has content; judged by judge "
        f"`filled_sections`; {RULE}",
        differs_note=f"{headed} of {total} summaries carry the four headings, but only "
        f"{complete} fill all four (filled per summary: {_describe(filled)}); "
        f"{_empty_because(total - headed, echoed)} (the model, {view.source}; see "
        f"E3-SUMMARY-KEEPS); judged by judge `filled_sections`; {RULE}",
    )


def _empty_because(unheaded: int, echoed: int) -> str:
    parts = []
    if unheaded:
        parts.append(f"{unheaded} has no section headings at all")
    if echoed:
        parts.append(
            f"{echoed} only echo the prompt's own description of each section under its "
            "heading (an echoed template is not a filled section)"
        )
    return "; ".join(parts) or "the rest have only 'None' under their headings"


def _summary_message(compacted: RoundRow) -> str:
    """The summary message a compacting round left in the context (opening and body), which
    the next compaction's prefix starts with."""
    return next((m.text for m in compacted.context_after if m.kind == "summary"), "")


def merged(view: E3View) -> Verdict:
    """Each compaction after the first merged the old summary: its summary request carried the
    previous summary's body (a summariser that dropped the old summary leaves it out), and the
    summary message carries the fixed opening once (not nested)."""
    compactions = [r for r in view.rounds if r.compaction]
    openings = [
        sum(m.text.count(SUMMARY_PREFIX) for m in r.context_after if m.kind == "summary")
        for r in compactions
    ]
    requests = view.summary_requests
    carried = [
        i < len(requests) and carries_previous(requests[i], _summary_message(compactions[i - 1]))
        for i in range(1, len(compactions))
    ]
    value = "; ".join(
        f"round {r.round}: {count} opening(s)"
        + ("" if i == 0 else f", previous summary carried: {'yes' if carried[i - 1] else 'no'}")
        for i, (r, count) in enumerate(zip(compactions, openings, strict=True))
    )
    holds = len(openings) >= 2 and all(c == 1 for c in openings) and all(carried)
    return Verdict(
        value or "no compaction",
        holds,
        note="judged on each summary request (it must carry the previous summary message, judge "
        "`carries_previous`) and the context after each compacting round (one opening); "
        f"{STRUCTURAL}",
        differs_note="a summary request lacks the previous summary's body (dropped, not merged), "
        "a summary message nests an earlier one (its opening twice), or fewer than two "
        "compactions ran, so no old summary was there to merge",
    )
