"""E3's claims, a table of specs judged from what :mod:`experiments.e3` measured (model output as
recorded), read from its :class:`~experiments.e3.view.E3View`.

Structural claims (when compaction fires, what it keeps) follow from the harness and must match;
what the model says is judged by the rules in :mod:`lab.claims.judges` and below. Every
row cites the AgentScope seed (:data:`~lab.claims.AS_SEED`)."""

from __future__ import annotations

import re

from experiments.e3 import summary_rules
from experiments.e3.summary_rules import SECTIONS
from experiments.e3.view import E3View
from harness.compaction.agentscope import SUMMARY_PREFIX
from lab import AS_SEED, MODEL, Claim, ClaimSpec, Verdict, cite, evaluate, recall_route

__all__ = ["CODE_WORD", "SECTIONS", "SPECS", "claims"]

CODE_WORD = "夜莺"
REVERSED = "莺夜"
STRUCTURAL = "structural: decided by the harness, whatever the model says"
ARTICLE_SUMMARY_CHARS = (698, 874, 168)
ARTICLE_SUMMARIES = len(ARTICLE_SUMMARY_CHARS)
"""The seed's run compacted three times (rounds 3, 4, 5): three summaries."""
# Round 4 "admits the round-1 wording is gone" when the answer says so in one of these ways.
WORDING_GONE = re.compile(
    r"不在|已不|不再|已经没有|没有保留|无法(还原|复述|看到|确认)|看不到|只(剩|有)[^。]*摘要"
    r"|no longer|not (in|available)|only (a|the) summary",
    re.IGNORECASE,
)
RULE = "judged by judge `e3-rules`; model output as recorded"


def claims(view: E3View) -> tuple[Claim, ...]:
    """E3's claims: :data:`SPECS` judged on ``view``."""
    return evaluate("E3", SPECS, view, view.source)


def _summaries(view: E3View) -> list[str]:
    return [r.compaction.summary for r in view.rounds if r.compaction]


def _first(view: E3View) -> Verdict:
    compacted = view.compacted_rounds
    return Verdict(str(compacted[0]) if compacted else "none")


def _every(view: E3View) -> Verdict:
    return Verdict(
        "; ".join(
            f"round {r.round}: total={c.total_messages}, cutoff={c.cutoff}, "
            f"keeping={c.keeping}, after={c.messages_after}"
            for r in view.rounds
            if (c := r.compaction)
        )
    )


def _visible(view: E3View) -> Verdict:
    return Verdict(
        "; ".join(
            f"round {r.round}: {r.visible_before} → {r.visible_after}" for r in view.rounds[2:]
        )
    )


def _summary_message(view: E3View) -> Verdict:
    summary = view.final_summary_message
    role, name = (summary.role, summary.name) if summary else (None, None)
    opening = summary is not None and summary.text.startswith(SUMMARY_PREFIX)
    value = f"{role} {name}" + (", starts with the fixed opening" if opening else "")
    if summary is not None and not summary.text.removeprefix(SUMMARY_PREFIX).strip():
        value += ", but nothing after it (an empty summary)"  # a summary must summarise
    return Verdict(value)


def _final_messages(view: E3View) -> Verdict:
    return Verdict(str(len(view.rounds[-1].context_after)))


def _final_tokens(view: E3View) -> Verdict:
    source = view.source
    return Verdict(
        str(view.rounds[-1].estimated_tokens_after),
        differs_note="the estimate prices the summary and the answers, which are model "
        f"output ({source}, not the article's deepseek-flash); same estimator as "
        "compaction (harness.meter.pricers)",
    )


def _routes(view: E3View) -> dict[int, str]:
    """How the code word reached rounds 4 and 5's requests (see :func:`recall_route`)."""
    routes = {}
    for n in (4, 5):
        context = view.round(n).request_context
        summaries = [m.text for m in context if m.kind == "summary"]
        tail = [m.text for m in context if m.kind != "summary"]
        routes[n] = recall_route(CODE_WORD, summaries, tail)
    return routes


def _route_text(view: E3View) -> str:
    return "; ".join(f"round {n}: {route}" for n, route in _routes(view).items())


def _recall(view: E3View) -> Verdict:
    source = view.source
    recall = [n for n in (4, 5) if CODE_WORD in view.round(n).answer]
    routes = _route_text(view)
    return Verdict(
        "rounds " + ", ".join(map(str, recall)) if recall else "neither",
        note=f"the word reached the requests through: {routes} (see E3-RECALL-ROUTE); {RULE}",
        differs_note=f"the model ({source}) did not name 夜莺 in every round; "
        f"the word reached the requests through: {routes}; {RULE}",
    )


def _recall_route(view: E3View) -> Verdict:
    summaries = _summaries(view)
    keeps_word = sum(CODE_WORD in text for text in summaries)
    return Verdict(
        _route_text(view),
        all("summary" in route for route in _routes(view).values()),
        note=f"the summary carried the word into both requests; {RULE}",
        differs_note=f"the word was in {keeps_word} of {len(summaries)} summaries: it reached "
        "the requests only because the kept tail (the previous answer) still held it, so the "
        f"recall says nothing about what compaction preserves; {RULE}",
    )


def _summary_keeps(view: E3View) -> Verdict:
    source = view.source
    summaries = _summaries(view)
    keeps_word = sum(CODE_WORD in text for text in summaries)
    return Verdict(
        f"{keeps_word} of {len(summaries)} summaries",
        bool(summaries) and keeps_word == len(summaries),
        note=f"every summary must hold the word; {RULE}",
        differs_note=f"the model ({source}) wrote summaries without the code word "
        f"(the first: {summaries[0][:80]!r}); {RULE}"
        if summaries
        else f"no summaries; {RULE}",
    )


def _at_compaction(view: E3View) -> Verdict:
    """Round 3's context at the compaction: the summary, A2 (round 2's answer), U3."""
    if len(view.rounds) < 3:
        return Verdict("fewer than 3 rounds", False)
    third, second = view.rounds[2], view.rounds[1]
    head = third.context_after[:3]
    names = []
    for message in head:
        if message.kind == "summary":
            names.append("summary")
        elif message.role == "assistant" and message.text == second.answer:
            names.append("A2")
        elif message.role == "user" and message.text == third.user:
            names.append("U3")
        else:
            names.append(f"{message.role} (other)")
    return Verdict(", ".join(names), note=f"read from the context after round 3; {STRUCTURAL}")


def _reverse(view: E3View) -> Verdict:
    source = view.source
    answer = view.round(3).answer
    return Verdict(
        REVERSED if REVERSED in answer else answer[:40],
        note=RULE,
        differs_note=f"the model ({source}) did not reverse the word; {RULE}",
    )


def _wording(view: E3View) -> Verdict:
    answer = view.round(4).answer
    return Verdict(
        "says it is gone" if WORDING_GONE.search(answer) else "does not say so",
        note=RULE,
        differs_note=f"round 4 answer: {answer[:120]!r}; {RULE}",
    )


def _log_keeps(view: E3View) -> Verdict:
    """Round 1's message stays in the session log after compaction took it out of the context
    (a summary quoting it is not the message)."""
    first = view.round(1).user
    in_log = first in view.session_log_users
    final = view.rounds[-1].context_after
    in_context = any(m.kind != "summary" and m.text == first for m in final)
    compactions = len(view.compacted_rounds)
    return Verdict(
        f"round 1's message in the session log: {'yes' if in_log else 'no'}; in the context "
        f"after round {view.rounds[-1].round}: {'yes' if in_context else 'no'} "
        f"({compactions} compactions)",
        in_log and not in_context and compactions > 0,
        note="read from the session's transcript (the session log the history appends every "
        f"message to) and the final context; {STRUCTURAL}",
        differs_note="the session log lost round 1's message, or the context still holds it "
        "(no compaction took it out)",
    )


def _summary_lengths(view: E3View) -> Verdict:
    source = view.source
    return Verdict(
        " / ".join(str(len(s)) for s in _summaries(view)),
        differs_note=f"summary text is model output: {source} is not the article's "
        "deepseek-flash, so lengths differ; reported for comparison, not tuned",
    )


SPECS: tuple[ClaimSpec[E3View], ...] = (
    ClaimSpec(
        "E3-FIRST",
        "Compaction first fires in round 3 (the round's user message is in "
        "the context before the pre-request hook).",
        _first,
        "3",
        cite(AS_SEED, "实测第 3 轮"),
        note=STRUCTURAL,
    ),
    ClaimSpec(
        "E3-EVERY",
        "Rounds 3, 4 and 5 each compact: total=5 msgs, cutoff=3, "
        "keeping=2, and 3 messages right after.",
        _every,
        "; ".join(f"round {n}: total=5, cutoff=3, keeping=2, after=3" for n in (3, 4, 5)),
        cite(
            AS_SEED,
            "三次日志都是 total=5 msgs / cutoff=3 / keeping=2，"
            "Compacted to 3 messages before reasoning",
        ),
        note=STRUCTURAL,
    ),
    ClaimSpec(
        "E3-VISIBLE",
        "The context shows 4 messages before and 4 after a call in rounds 3–5.",
        _visible,
        "; ".join(f"round {n}: 4 → 4" for n in (3, 4, 5)),
        cite(AS_SEED, '页面上"调用前 4、调用后 4"'),
        note=STRUCTURAL,
    ),
    ClaimSpec(
        "E3-SUMMARY-MSG",
        "The summary is a USER message named __compaction_summary__.",
        _summary_message,
        "user __compaction_summary__, starts with the fixed opening",
        cite(
            AS_SEED,
            "role=USER、name=__compaction_summary__ 的消息，正文以 Here is a summary of the "
            "conversation to date: 开头",
        ),
        note=STRUCTURAL,
    ),
    ClaimSpec(
        "E3-AT-COMPACTION",
        "At round 3's compaction the context is the summary plus a tail of 2: the summary, A2 "
        "(round 2's answer) and U3 (round 3's user message, not the previous answer).",
        _at_compaction,
        "summary, A2, U3",
        cite(AS_SEED, "那 3 条是摘要、A2、U3"),
    ),
    ClaimSpec(
        "E3-SUMMARY-MERGED",
        "The old summary is recognised by its name and merged into the new one, not nested: "
        "every summary message carries the fixed opening once.",
        summary_rules.merged,
        "merged, not nested",
        cite(AS_SEED, "起名是为了下次压缩能认出旧摘要，把它合并进新摘要，不至于层层套娃"),
        kind="article-computed",  # the seed's reading of why the message is named, not a run
    ),
    ClaimSpec(
        "E3-FINAL-MSGS",
        "After round 5 the context holds 4 messages.",
        _final_messages,
        "4",
        cite(AS_SEED, "终态 4 条、624 token 估算"),
        note=STRUCTURAL,
    ),
    ClaimSpec(
        "E3-FINAL-TOKENS",
        "After round 5 the 4 messages are estimated at 624 tokens.",
        _final_tokens,
        "624",
        cite(AS_SEED, "终态 4 条、624 token 估算"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E3-SUMMARY",
        "Each summary fills the four sections SESSION INTENT / SUMMARY / ARTIFACTS / NEXT STEPS "
        "(a heading alone, or 'None' under it, is an empty section).",
        summary_rules.sections,
        f"{ARTICLE_SUMMARIES} of {ARTICLE_SUMMARIES}",  # the seed's 3 summaries, each sectioned
        cite(
            AS_SEED,
            "四段各有分工。按我的理解，INTENT 和 SUMMARY 保结论，ARTIFACTS 保文件，NEXT STEPS "
            "保没做完的动作",
        ),
        kind="article-computed",  # the seed's reading of the four sections over its 3 summaries
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E3-RECALL",
        "Rounds 4 and 5 still name the code word 夜莺.",
        _recall,
        "rounds 4, 5",
        cite(AS_SEED, "第 5 轮再问暗号，它仍答“夜莺”"),
    ),
    ClaimSpec(
        "E3-RECALL-ROUTE",
        "The seed infers from the answers (从回答看) that the code word reaches rounds 4 and 5 "
        "through the compaction summary (the conclusion survives compaction); we trace the "
        "route in the requests.",
        _recall_route,
        "through the summary (read from the answers)",
        cite(AS_SEED, "从回答看，摘要保住了“夜莺”和“倒过来念”这条规矩"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E3-SUMMARY-KEEPS",
        "The summaries keep the code word 夜莺 (the conclusion survives, not the wording): the "
        "seed infers it from the answers and shows no summary text; we read the three "
        "summaries themselves.",
        _summary_keeps,
        "the summary keeps 夜莺 (read from the answers)",
        cite(AS_SEED, "从回答看，摘要保住了“夜莺”"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E3-REVERSE",
        "Round 3 says the code word backwards: 莺夜.",
        _reverse,
        "莺夜",
        cite(AS_SEED, "第 3 轮它把“夜莺”倒过来念成“莺夜”"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E3-WORDING",
        "Round 4 says the round-1 wording is no longer in the context.",
        _wording,
        "says it is gone",
        cite(AS_SEED, "但第一轮的原话已经不在上下文里了"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E3-LOG-KEEPS",
        "Compaction replaces the working history, not the full history: round 1's message is "
        "gone from the context but still in the session log.",
        _log_keeps,
        "in the session log, not in the context",
        cite(AS_SEED, "session log 里第一轮的原话还在，只是模型这一轮看不见了"),
    ),
    ClaimSpec(
        "E3-SUMMARY-LEN",
        "Summary lengths in characters across the three compactions.",
        _summary_lengths,
        " / ".join(map(str, ARTICLE_SUMMARY_CHARS)),
        cite(AS_SEED, "摘要长度 698 → 874 → 168 字符"),
        reason_class=MODEL,
    ),
)
