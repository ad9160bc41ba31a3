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
from experiments.claims import Claim
from harness.agent import Agent, CallResult
from harness.compaction import SUMMARY_PREFIX, CompactionConfig
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
        agent = Agent(cassette.client, SYSTEM_PROMPT, compaction=CONFIG)
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
        ),
        c(
            "E3",
            "E3-VISIBLE",
            "The context shows 4 messages before and 4 after a call in rounds 3–5.",
            article_visible,
            visible,
            source,
            note=STRUCTURAL,
        ),
        c(
            "E3",
            "E3-SUMMARY-MSG",
            "The summary is a USER message named __compaction_summary__.",
            "user __compaction_summary__, starts with the fixed opening",
            identity,
            source,
            note=STRUCTURAL,
        ),
    )


def _all_sections_empty(text: str) -> bool:
    body = [line.strip() for line in text.splitlines() if line.strip()]
    return all(line.startswith("#") or line.lower() == "none" for line in body)


def _model_claims(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    rounds = {r["round"]: r for r in data["rounds"]}
    compacted = _compacted_rounds(data)
    summaries = [r["compaction"]["summary"] for r in compacted]
    with_sections = sum(all(s in text for s in SECTIONS) for text in summaries)
    empty = sum(_all_sections_empty(text) for text in summaries)
    recall = [n for n in (4, 5) if CODE_WORD in rounds[n]["answer"]]
    wording = bool(WORDING_GONE.search(rounds[4]["answer"]))
    lengths = " / ".join(str(len(s)) for s in summaries)
    keeps_word = sum(CODE_WORD in text for text in summaries)
    tail_has_word = [
        n
        for n in (4, 5)
        if any(
            CODE_WORD in m["text"] for m in rounds[n - 1]["context_after"] if m["kind"] != "summary"
        )
    ]
    survived = (
        f"the code word was in {keeps_word} of {len(summaries)} summaries and in the kept tail "
        f"before rounds {', '.join(map(str, tail_has_word)) or 'none'}"
    )
    reversed_ok = REVERSED in rounds[3]["answer"]
    rule = "judged by a rule in experiments/e3.py; model output as recorded"
    c = Claim.compare
    return (
        c(
            "E3",
            "E3-SUMMARY",
            "Each summary has the four sections SESSION INTENT / SUMMARY / ARTIFACTS / NEXT STEPS.",
            f"{len(summaries)} of {len(summaries)}",
            f"{with_sections} of {len(summaries)}",
            source,
            note=f"the headings only: {empty} of {len(summaries)} summaries have nothing but "
            f"'None' under every heading (see E3-SUMMARY-KEEPS); {rule}",
            differs_note=f"the model ({source}) left out sections in "
            f"{len(summaries) - with_sections} of {len(summaries)} summaries; {rule}",
        ),
        c(
            "E3",
            "E3-RECALL",
            "Rounds 4 and 5 still name the code word 夜莺.",
            "rounds 4, 5",
            "rounds " + ", ".join(map(str, recall)) if recall else "neither",
            source,
            note=f"{survived}; {rule}",
            differs_note=f"the model ({source}) did not name 夜莺 in every round; "
            f"{survived}; {rule}",
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
        ),
        c(
            "E3",
            "E3-REVERSE",
            "Round 3 says the code word backwards: 莺夜.",
            "莺夜",
            REVERSED if reversed_ok else rounds[3]["answer"][:40],
            source,
            note=rule,
            differs_note=f"the model ({source}) did not reverse the word; {rule}",
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
        ),
    )
