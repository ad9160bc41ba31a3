"""E3: compaction in a real agent, trigger 5 / keep 2, over the article's five code-word rounds.

A real model answers (replayed from the cassette ``cassettes/E3/rounds.json``); memory is off,
no tools are offered, the token trigger is off, and the prefix flush/offload are off, as in the
article. Structural claims (when compaction fires, what it keeps) follow from the harness and
must match; what the model says is reported as it came out and judged by the rules below.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from experiments.base import ARTICLE_METER, ExperimentResult, RunSettings
from experiments.claims import AS_SEED, Claim, cite
from experiments.judges import filled_sections, markdown_headings, recall_route
from harness.agent import Agent, CallResult
from harness.compaction.agentscope import SUMMARY_PREFIX, CompactionConfig
from harness.tokens import estimate_tokens

__all__ = ["CONFIG", "ROUNDS", "SYSTEM_PROMPT", "run"]

SYSTEM_PROMPT = "你是压缩实验的对话助手。回答保持简洁，不要调用任何工具。"

ROUNDS = (
    "记住暗号：夜莺。只回复“收到”。",
    "暗号是什么？",
    "把暗号倒过来念。",
    "第一轮定的暗号是什么？第一轮原话还在你的上下文里吗？",
    "再说一次暗号。",
)

CONFIG = CompactionConfig(
    trigger_messages=5,
    trigger_tokens=None,
    keep_messages=2,
    keep_tokens=0,
    flush_before_compact=False,
    offload_before_compact=False,
    meter=ARTICLE_METER,
)

CODE_WORD = "夜莺"
REVERSED = "莺夜"
STRUCTURAL = "structural: decided by the harness, whatever the model says"
SECTIONS = ("SESSION INTENT", "SUMMARY", "ARTIFACTS", "NEXT STEPS")
ARTICLE_SUMMARY_CHARS = (698, 874, 168)
# Round 4 "admits the round-1 wording is gone" when the answer says so in one of these ways.
WORDING_GONE = re.compile(
    r"不在|已不|不再|已经没有|没有保留|无法(还原|复述|看到|确认)|看不到|只(剩|有)[^。]*摘要"
    r"|no longer|not (in|available)|only (a|the) summary",
    re.IGNORECASE,
)


def _round_record(number: int, user: str, result: CallResult, agent: Agent) -> dict[str, Any]:
    request = result.requests[0]
    event = request.compaction
    return {
        "round": number,
        "user": user,
        "answer": result.text,
        "visible_before": result.context_before,
        "visible_after": result.context_after,
        "context_at_request": request.context_messages,
        "estimated_tokens_after": estimate_tokens(agent.context),
        "usage": request.usage.to_dict() if request.usage else None,
        "compaction": event.to_dict() if event else None,
        "context_after": [
            {"role": m.role, "kind": m.kind, "name": m.name, "text": m.content}
            for m in agent.context
        ],
    }


def measure(settings: RunSettings) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """Play the five rounds; returns the measurements, the source and the cassette provenance."""
    with settings.model("E3", "rounds") as cassette:
        agent = Agent(cassette.client, SYSTEM_PROMPT, compaction=settings.configure(CONFIG))
        rounds = []
        for number, user in enumerate(ROUNDS, start=1):
            result = agent.call(user)
            rounds.append(_round_record(number, user, result, agent))
            if settings.mode == "record":
                settings.progress(f"    round {number}: {len(agent.context)} messages in context")
    provenance = dataclasses.asdict(cassette.provenance)
    source = cassette.provenance.source
    summary_message = next((m for m in agent.context if m.is_summary), None)
    data = {
        "experiment": "E3",
        "source": source,
        "provenance": provenance,
        "system_prompt": SYSTEM_PROMPT,
        "config": {
            "trigger_messages": 5,
            "trigger_tokens": None,
            "keep_messages": 2,
            "keep_tokens": 0,
            "memory": "off",
            "tools": "none",
        },
        "rounds": rounds,
        "final_summary_message": (
            {
                "role": summary_message.role,
                "name": summary_message.name,
                "text": summary_message.content,
            }
            if summary_message
            else None
        ),
    }
    return data, source, provenance


def run(settings: RunSettings) -> ExperimentResult:
    data, source, provenance = measure(settings)
    return ExperimentResult("E3", _claims(data, source), data, source, (provenance,))


def _compacted_rounds(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in data["rounds"] if r["compaction"]]


def _claims(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    return (*_structural_claims(data, source), *_model_claims(data, source))


def _structural_claims(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    rounds = data["rounds"]
    compacted = _compacted_rounds(data)
    first = compacted[0]["round"] if compacted else "none"
    every = "; ".join(
        f"round {r['round']}: total={r['compaction']['total_messages']}, "
        f"cutoff={r['compaction']['cutoff']}, keeping={r['compaction']['keeping']}, "
        f"after={r['compaction']['messages_after']}"
        for r in compacted
    )
    article_every = "; ".join(
        f"round {n}: total=5, cutoff=3, keeping=2, after=3" for n in (3, 4, 5)
    )
    visible = "; ".join(
        f"round {r['round']}: {r['visible_before']} → {r['visible_after']}" for r in rounds[2:]
    )
    article_visible = "; ".join(f"round {n}: 4 → 4" for n in (3, 4, 5))
    summary = data["final_summary_message"] or {}
    identity = (
        f"{summary.get('role')} {summary.get('name')}, starts with the fixed opening"
        if (summary.get("text", "").startswith(SUMMARY_PREFIX))
        else f"{summary.get('role')} {summary.get('name')}"
    )
    final = rounds[-1]
    c = Claim.compare
    return (
        c(
            "E3",
            "E3-FIRST",
            "Compaction first fires in round 3 (the round's user message is in "
            "the context before the pre-request hook).",
            3,
            first,
            source,
            note=STRUCTURAL,
            article_source=cite(AS_SEED, "实测第 3 轮"),
        ),
        c(
            "E3",
            "E3-EVERY",
            "Rounds 3, 4 and 5 each compact: total=5 msgs, cutoff=3, "
            "keeping=2, and 3 messages right after.",
            article_every,
            every,
            source,
            note=STRUCTURAL,
            article_source=cite(
                AS_SEED,
                "三次日志都是 total=5 msgs / cutoff=3 / keeping=2，"
                "Compacted to 3 messages before reasoning",
            ),
        ),
        c(
            "E3",
            "E3-VISIBLE",
            "The context shows 4 messages before and 4 after a call in rounds 3–5.",
            article_visible,
            visible,
            source,
            note=STRUCTURAL,
            article_source=cite(AS_SEED, '页面上"调用前 4、调用后 4"'),
        ),
        c(
            "E3",
            "E3-SUMMARY-MSG",
            "The summary is a USER message named __compaction_summary__.",
            "user __compaction_summary__, starts with the fixed opening",
            identity,
            source,
            note=STRUCTURAL,
            article_source=cite(
                AS_SEED,
                "role=USER、name=__compaction_summary__ 的消息，正文以 Here is a summary of the "
                "conversation to date: 开头",
            ),
        ),
        c(
            "E3",
            "E3-FINAL-MSGS",
            "After round 5 the context holds 4 messages.",
            4,
            len(final["context_after"]),
            source,
            note=STRUCTURAL,
            article_source=cite(AS_SEED, "终态 4 条、624 token 估算"),
        ),
        c(
            "E3",
            "E3-FINAL-TOKENS",
            "After round 5 the 4 messages are estimated at 624 tokens.",
            624,
            final["estimated_tokens_after"],
            source,
            differs_note="the estimate prices the summary and the answers, which are model "
            f"output ({source}, not the article's deepseek-flash); same estimator as "
            "compaction (harness/tokens.py)",
            article_source=cite(AS_SEED, "终态 4 条、624 token 估算"),
        ),
    )


def _request_context(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages the round's request carried: the context after it, less the answer."""
    return record["context_after"][:-1]


def _routes(rounds: dict[int, dict[str, Any]]) -> dict[int, str]:
    """How the code word reached rounds 4 and 5's requests (see :func:`recall_route`)."""
    routes = {}
    for n in (4, 5):
        context = _request_context(rounds[n])
        summaries = [m["text"] for m in context if m["kind"] == "summary"]
        tail = [m["text"] for m in context if m["kind"] != "summary"]
        routes[n] = recall_route(CODE_WORD, summaries, tail)
    return routes


def _model_claims(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    rounds = {r["round"]: r for r in data["rounds"]}
    compacted = _compacted_rounds(data)
    summaries = [r["compaction"]["summary"] for r in compacted]
    rule = "judged by a rule in experiments/e3.py; model output as recorded"
    return (
        _sections_claim(summaries, source, rule),
        *_recall_claims(rounds, summaries, source, rule),
        *_wording_claims(rounds, summaries, source, rule),
    )


def _sections_claim(summaries: list[str], source: str, rule: str) -> Claim:
    """A section counts only with content: a heading alone, or "None" under it, is empty."""
    headed = sum(all(h in markdown_headings(t) for h in SECTIONS) for t in summaries)
    filled = [filled_sections(t, SECTIONS) for t in summaries]
    complete = sum(len(f) == len(SECTIONS) for f in filled)
    total = len(summaries)
    return Claim.compare(
        "E3",
        "E3-SUMMARY",
        "Each summary fills the four sections SESSION INTENT / SUMMARY / ARTIFACTS / NEXT STEPS "
        "(a heading alone, or 'None' under it, is an empty section).",
        f"{total} of {total}",
        f"{complete} of {total}",
        source,
        note=f"every section of every summary has content; {rule}",
        differs_note=f"{headed} of {total} summaries carry the four headings, but only "
        f"{complete} fill all four (filled per summary: "
        f"{'; '.join(', '.join(f) or 'none' for f in filled)}); the rest is only 'None' "
        f"(the model, {source}, summarised nothing; see E3-SUMMARY-KEEPS); "
        f"judged by experiments/judges.py:filled_sections; {rule}",
        article_source=cite(AS_SEED, "后面四段：SESSION INTENT、SUMMARY、ARTIFACTS、NEXT STEPS"),
    )


def _recall_claims(
    rounds: dict[int, dict[str, Any]], summaries: list[str], source: str, rule: str
) -> tuple[Claim, ...]:
    recall = [n for n in (4, 5) if CODE_WORD in rounds[n]["answer"]]
    routes = _routes(rounds)
    route_text = "; ".join(f"round {n}: {routes[n]}" for n in (4, 5))
    keeps_word = sum(CODE_WORD in text for text in summaries)
    via_summary = all("summary" in routes[n] for n in (4, 5))
    c = Claim.compare
    return (
        c(
            "E3",
            "E3-RECALL",
            "Rounds 4 and 5 still name the code word 夜莺.",
            "rounds 4, 5",
            "rounds " + ", ".join(map(str, recall)) if recall else "neither",
            source,
            note=f"the word reached the requests through: {route_text} (see E3-RECALL-ROUTE); "
            f"{rule}",
            differs_note=f"the model ({source}) did not name 夜莺 in every round; "
            f"the word reached the requests through: {route_text}; {rule}",
            article_source=cite(AS_SEED, "第 5 轮再问暗号，它仍答“夜莺”"),
        ),
        Claim(
            "E3",
            "E3-RECALL-ROUTE",
            "The code word reaches rounds 4 and 5 through the compaction summary (the "
            "conclusion survives compaction).",
            "round 4: summary; round 5: summary",
            route_text,
            "match" if via_summary else "differs",
            source,
            f"the summary carried the word into both requests; {rule}"
            if via_summary
            else f"the word was in {keeps_word} of {len(summaries)} summaries: it reached the "
            "requests only because the kept tail (the previous answer) still held it, so the "
            f"recall says nothing about what compaction preserves; {rule}",
            article_source=cite(AS_SEED, "摘要保住了“夜莺”和“倒过来念”这条规矩"),
        ),
        c(
            "E3",
            "E3-SUMMARY-KEEPS",
            "The summaries keep the code word 夜莺 (the conclusion survives, not the wording).",
            f"{len(summaries)} of {len(summaries)}",
            f"{keeps_word} of {len(summaries)}",
            source,
            note=rule,
            differs_note=f"the model ({source}) wrote summaries without the code word "
            f"(the first: {summaries[0][:80]!r}); {rule}"
            if summaries
            else f"no summaries; {rule}",
            article_source=cite(AS_SEED, "摘要保住了“夜莺”"),
        ),
    )


def _wording_claims(
    rounds: dict[int, dict[str, Any]], summaries: list[str], source: str, rule: str
) -> tuple[Claim, ...]:
    wording = bool(WORDING_GONE.search(rounds[4]["answer"]))
    lengths = " / ".join(str(len(s)) for s in summaries)
    reversed_ok = REVERSED in rounds[3]["answer"]
    c = Claim.compare
    return (
        c(
            "E3",
            "E3-REVERSE",
            "Round 3 says the code word backwards: 莺夜.",
            "莺夜",
            REVERSED if reversed_ok else rounds[3]["answer"][:40],
            source,
            note=rule,
            differs_note=f"the model ({source}) did not reverse the word; {rule}",
            article_source=cite(AS_SEED, "第 3 轮它把“夜莺”倒过来念成“莺夜”"),
        ),
        c(
            "E3",
            "E3-WORDING",
            "Round 4 says the round-1 wording is no longer in the context.",
            "says it is gone",
            "says it is gone" if wording else "does not say so",
            source,
            note=rule,
            differs_note=f"round 4 answer: {rounds[4]['answer'][:120]!r}; {rule}",
            article_source=cite(AS_SEED, "但第一轮的原话已经不在上下文里了"),
        ),
        c(
            "E3",
            "E3-SUMMARY-LEN",
            "Summary lengths in characters across the three compactions.",
            " / ".join(map(str, ARTICLE_SUMMARY_CHARS)),
            lengths,
            source,
            differs_note=f"summary text is model output: {source} is not the article's "
            "deepseek-flash, so lengths differ; reported for comparison, not tuned",
            article_source=cite(AS_SEED, "摘要长度 698 → 874 → 168 字符"),
        ),
    )
