"""E4's claims, judged from what :mod:`experiments.e4` measured (model output as recorded).

Every ``article`` row cites the DeepSeek-Harness seed (:data:`~experiments.claims.DSH_SEED`);
DSH-SUMMARY-EXACT is our own check (``ctxlab``).
"""

from __future__ import annotations

from typing import Any

from experiments.claims import DSH_SEED, Claim, cite
from experiments.judges import filled_sections, markdown_headings
from harness.compaction.dsh.summarizer import SECTIONS as DSH_SECTIONS

__all__ = ["DSH_SECTIONS", "claims"]

FACT_COUNT = 4
"""The facts :data:`experiments.e4.FACTS` plants."""

STRUCTURAL = "structural: decided by the harness, whatever the model says"


def claims(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    return (*_structure_claims(data, source), *_summary_claims(data, source))


def _structure_claims(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    agentscope, dsh = data["engines"]
    types = [
        e["type"] + ("(replace)" if isinstance(e["surface_op"], dict) else "")
        for e in dsh["events"]
    ]
    replay = (
        f"DSH: {'equal' if dsh['replay_equals_live'] else 'different'} (AgentScope on the same "
        f"store: {'equal' if agentscope['replay_equals_live'] else 'different'})"
    )
    return (
        Claim.compare(
            "E4",
            "DSH-EVENTS",
            "A DSH compaction appends four events: compaction/start, "
            "compaction/summary, a user/message with a surface replace, compaction/end.",
            "compaction/start, compaction/summary, user/message(replace), compaction/end",
            ", ".join(types),
            source,
            note=STRUCTURAL,
            article_source=cite(
                DSH_SEED,
                "一条 compaction/start，一条 compaction/summary，一条带替换指令的 user/message，"
                "一条 compaction/end",
            ),
        ),
        Claim(
            "E4",
            "DSH-REPLAY",
            "Replaying the log from zero folds the replace and gives the live surface.",
            "replayed surface = live surface",
            replay,
            "match" if dsh["replay_equals_live"] else "differs",
            source,
            f"judged on the DSH log; {STRUCTURAL}"
            if dsh["replay_equals_live"]
            else "the DSH log replays to another surface than the live one",
            article_source=cite(DSH_SEED, "它算出的表面，与在线进程压缩后的表面一致"),
        ),
        _summary_event_claim(dsh, source),
        _cache_claim(agentscope, dsh, source),
        _range_claim(data, dsh, source),
    )


SUMMARY_EVENT_FIELDS = ("summary", "shadowed_range", "shadowed_seqs", "provider", "model", "usage")


def _summary_event_claim(dsh: dict[str, Any], source: str) -> Claim:
    event = dsh.get("summary_event") or {"fields": [], "provider": None, "model": None}
    present = [f for f in SUMMARY_EVENT_FIELDS if f in event["fields"]]
    missing = ", ".join(f for f in SUMMARY_EVENT_FIELDS if f not in present)
    return Claim.compare(
        "E4",
        "DSH-SUMMARY-EVENT",
        "The compaction/summary event records the summary, the shadowed range and seqs, the "
        "provider, the model and the usage.",
        ", ".join(SUMMARY_EVENT_FIELDS),
        ", ".join(present),
        source,
        note=f"provider {event['provider']!r} (the API host the cassette replays), model "
        f"{event['model']!r}; {STRUCTURAL}",
        differs_note=f"the event lacks {missing} (harness/compaction/dsh/engine.py)",
        article_source=cite(
            DSH_SEED, "summary 原文、shadowedRange、shadowedSeqs、provider、model、usage"
        ),
    )


def _cache_claim(agentscope: dict[str, Any], dsh: dict[str, Any], source: str) -> Claim:
    reuse = f"DSH {dsh['prefix_reuse']:.0%} vs AgentScope {agentscope['prefix_reuse']:.0%}"
    cached = (
        f"cached tokens: DSH {dsh['summary_cached_tokens']} of {dsh['summary_prompt_tokens']}, "
        f"AgentScope {agentscope['summary_cached_tokens']} of "
        f"{agentscope['summary_prompt_tokens']}"
    )
    cache_ok = (
        dsh["prefix_reuse"] >= 0.5
        and dsh["prefix_reuse"] > 2 * agentscope["prefix_reuse"]
        and (dsh["summary_cached_tokens"] or 0) > (agentscope["summary_cached_tokens"] or 0)
    )
    return Claim(
        "E4",
        "DSH-CACHE",
        "The DSH summary call is the last request's prefix plus the directive, so the "
        "provider's prefix cache is hit (AgentScope's summariser prompt, our comparison, is not).",
        "a true prefix of the last request plus one directive; the prefix cache is hit",
        f"{reuse}; {cached}",
        "match" if cache_ok else "differs",
        source,
        "measured from the recorded request bodies and the server's cached-token counts; "
        "judged: DSH reuse ≥ 50%, more than twice AgentScope's, and more cached tokens"
        if cache_ok
        else "the measured reuse does not show DSH far above AgentScope; see E4.json",
        article_source=cite(DSH_SEED, "provider 的前缀缓存直接命中，唯一的新输入就是那条指令"),
    )


def _range_claim(data: dict[str, Any], dsh: dict[str, Any], source: str) -> Claim:
    span = dsh["range"]
    total = len(data["conversation"])
    oldest = bool(span) and span["start"] == 0 and span["end"] + 1 + span["kept"] == total
    reproduced = (
        f"nodes {span['start']}..{span['end']} of {total} (the tail of {span['kept']} kept "
        "is our setup)"
        if span
        else f"no compaction: {dsh['error']}"
    )
    return Claim(
        "E4",
        "DSH-RANGE",
        "The replaced range is the oldest contiguous block: it starts at the first surface "
        "node and runs up to the retained tail.",
        "starts at the first surface node; oldest contiguous block",
        reproduced,
        "match" if oldest else "differs",
        source,
        f"judged: the span starts at node 0 and ends right before the kept tail; {STRUCTURAL}"
        if oldest
        else "the replaced span is not the head block before the tail; see E4.json",
        article_source=cite(DSH_SEED, "压缩边界永远从表面第一个节点开始"),
    )


def _summary_claims(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    agentscope, dsh = data["engines"]
    summary = dsh["summary"]
    headed = [h for h in markdown_headings(summary) if h in DSH_SECTIONS]
    filled = filled_sections(summary, DSH_SECTIONS)
    named = [s for s in DSH_SECTIONS if s in summary]
    rule = f"model output as recorded ({source}); judged by a rule in experiments/e4.py"
    return (
        Claim.compare(
            "E4",
            "DSH-SUMMARY-SECTIONS",
            "The DSH summary is markdown in eight sections (Primary Request and Intent … "
            "Critical Context), each a heading with content under it.",
            "8 of 8 sections",
            f"{len(filled)} of 8 sections",
            source,
            note=rule,
            differs_note=f"the summary has {len(headed)} of the 8 as markdown headings; it "
            f"names {len(named)} of 8 as bold bullet labels instead ('- **Primary Request and "
            "Intent**: …'), so it is not the sectioned markdown the directive asks for; "
            f"judged by experiments/judges.py:filled_sections; {rule}",
            article_source=cite(
                DSH_SEED,
                "指令要求输出固定的八段 Markdown（Primary Request and Intent / Key Technical "
                "Concepts / Files and Code / Errors and Fixes / Pending Jobs / Current Work / "
                "Next Step / Critical Context",
            ),
        ),
        Claim.ours(
            "E4",
            "DSH-SUMMARY-EXACT",
            "Our check of the directive's 'keep exact paths and numbers': the four facts we "
            "planted (code word, order id, number, path) survive in the DSH summary.",
            "4 of 4 kept",
            f"{len(dsh['facts_kept'])} of 4 kept ({', '.join(dsh['facts_kept']) or 'none'})",
            source,
            note=rule,
            differs_note=f"AgentScope's summary kept {len(agentscope['facts_kept'])} of 4 "
            f"({', '.join(agentscope['facts_kept']) or 'none'}); {rule}",
            article_source=cite(DSH_SEED, "必须保留精确路径、命令、错误串和数字"),
        ),
    )
