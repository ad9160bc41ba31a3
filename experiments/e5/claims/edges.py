"""E5's rows for the seeds' edge cases and for two mutations no other claim caught (the
offload threshold off by one, an interrupted tool call left open), judged on
:class:`~experiments.e5.view.edges.EdgeMechanics` (measured by
:mod:`experiments.e5.measures.edges`):

* **the offload edge**: a tool result of exactly 80,000 characters stays, one of 80,001 is
  offloaded (the seed: 超过 80K, more than);
* **an interrupted call** (ctxlab's own check): a session whose process stopped while its tool
  ran is called again; the next request closes the call with a synthetic result;
* **a failed close** (seed 002): the disk fills once the replace message is written, so
  ``compaction/end`` cannot be; the start stays open and is the lock;
* **an image block** (seed 002): ctxlab's messages hold text only, so no image reaches the DSH
  summarizer; the block is refused where it is read.
"""

from __future__ import annotations

from experiments.e5.common import SOURCE
from experiments.e5.view.edges import EdgeMechanics
from lab import AS_SEED, DEVIATION, DSH_SEED, Claim, ClaimSpec, Verdict, cite, evaluate, yes

__all__ = ["EDGE_SPECS", "edge_claims"]


def edge_claims(data: EdgeMechanics) -> tuple[Claim, ...]:
    """The rows of :data:`EDGE_SPECS` judged on ``data``."""
    return evaluate("E5", EDGE_SPECS, data, SOURCE)


# --- the rows ------------------------------------------------------------------------------


def _offload_row(data: EdgeMechanics) -> Verdict:
    e = data.offload_edge
    return Verdict(
        f"{e.threshold:,} characters: {'offloaded' if e.at_limit_offloaded else 'kept'}; "
        f"{e.threshold + 1:,}: {'offloaded' if e.above_limit_offloaded else 'kept'}",
        not e.at_limit_offloaded and e.above_limit_offloaded,
    )


def _interrupted_row(data: EdgeMechanics) -> Verdict:
    i = data.interrupted
    return Verdict(
        f"{len(i.closed_with)} of {i.open_calls} open calls closed "
        f"({', '.join(i.closed_with) or 'none'}); next call {i.outcome}",
        i.outcome == "answered"
        and len(i.closed_with) == i.open_calls
        and all(code == "TOOL_OUTCOME_UNKNOWN" for code in i.closed_with),
    )


def _failed_close_row(data: EdgeMechanics) -> Verdict:
    c = data.failed_close
    return Verdict(
        f"close failed: {yes(bool(c.error))}; last event {c.last_event}; start open: "
        f"{yes(c.start_open)}; next compaction: {c.next_compaction}",
        bool(c.error)
        and c.last_event != "compaction/end"
        and c.start_open
        and c.next_compaction == "busy",
    )


def _image_row(data: EdgeMechanics) -> Verdict:
    img = data.image
    refused = img.refused_by or "nothing: the image was read"
    return Verdict(
        f"content holds {', '.join(img.message_content_types)} only; an image block is refused "
        f"when read ({refused[:90]}); summarizer code: {img.summarizer_code or 'none'}",
        img.summarizer_code == "UNSUPPORTED_CONTENT",
        differs_note="ctxlab's messages carry text only (Message.content is a string), so no "
        "image ever reaches the DSH summarizer and it has no UNSUPPORTED_CONTENT refusal; an "
        "image block is refused earlier, where content is read (ContentFormatError from "
        "Message.from_wire / the event log's reader), so nothing is dropped silently, but the "
        "seed's summarizer check is not reproduced",
    )


_SCRIPTED = "run on a scripted agent: "
EDGE_SPECS: tuple[ClaimSpec[EdgeMechanics], ...] = (
    ClaimSpec(
        "E5-OFFLOAD-EDGE",
        "Only a tool result of more than 80,000 characters is offloaded: one of exactly "
        "80,000 stays in the history.",
        _offload_row,
        "more than 80K characters → offloaded (exactly 80K stays)",
        cite(AS_SEED, "单条 tool_result 文本超过 80K 字符"),
        kind="article-computed",
        note=_SCRIPTED + "one tool result of 80,000 and one of 80,001 characters; the seed "
        "built no large sample (80K is its reading of the bytecode), so the edge is ours to run",
        differs_note="the threshold is not 'more than 80,000': see E5.json edges.offload_edge",
    ),
    ClaimSpec(
        "E5-INTERRUPTED-CLOSED",
        "A tool call whose process stopped before it returned is closed on resume: the next "
        "request carries a synthetic result (TOOL_OUTCOME_UNKNOWN) and the call is answered.",
        _interrupted_row,
        kind="ctxlab",
        expected="2 of 2 closed, answered",
        note=_SCRIPTED + "a HarnessAgent on an event log whose tool stops the process mid "
        "call (two calls open), then a new agent on the same session; no seed states this "
        "(crash hardening of ctxlab, DeepSeek-Harness's TOOL_OUTCOME_UNKNOWN)",
        differs_note="an open call reached the next request without its result, or the next "
        "call failed; see E5.json edges.interrupted",
    ),
    ClaimSpec(
        "DSH-CLOSE-FAILED",
        "A compaction whose close cannot be written leaves its compaction/start unclosed, so "
        "the lock stays detectable: the next compaction is refused as busy.",
        _failed_close_row,
        "close fails → the start stays unclosed, the lock detectable",
        cite(DSH_SEED, "关不上就留着未闭合的 start，让这把锁保持可检测"),
        note="run on a scripted event log: the disk fills once the replace message is written, "
        "so compaction/end cannot be; the next compaction of the same process must be busy",
        differs_note="the start was closed or forgotten after the failed close, or the next "
        "compaction was not refused as busy; see E5.json edges.failed_close",
    ),
    ClaimSpec(
        "DSH-IMAGE-REFUSED",
        "The DSH summarizer refuses image content (UNSUPPORTED_CONTENT).",
        _image_row,
        "image content → UNSUPPORTED_CONTENT",
        cite(DSH_SEED, "含图像即拒绝（summarizer.ts:220-221 抛 UNSUPPORTED_CONTENT）"),
        note="an image_url block offered as a user message's content",
        reason_class=DEVIATION,
    ),
)
"""Seed 002's rows are article-computed by :mod:`lab.claims.specs`."""
