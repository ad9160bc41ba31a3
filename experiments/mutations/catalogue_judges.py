"""Mutations for the strict judges (no row may match a plausible wrong answer): code mutations that
break a behaviour in the way a lenient judge let through, and answer mutations
(:mod:`lab.mutations.answers`) that rewrite one recorded answer into a plausible wrong one. Each
names the rows it must flip; ``pytest -m mutations`` checks it does
(``tests/lab/test_mutations.py``)."""

from __future__ import annotations

from experiments.mutations.patches_judges import (
    chain_cites_kept,
    cut_refused_as_empty,
    placeholder_without_error,
    sources_cite_kept,
    summary_drops_previous,
)
from lab import Mutation, Rewrite, attr, many, rewritten, wrap

__all__ = ["ANSWER_MUTATIONS", "JUDGE_MUTATIONS"]

_AS = "harness.compaction.agentscope"
_DSH = "harness.compaction.dsh"
_05B = "qwen2.5-coder-0.5b-instruct-q4_k_m"
_15B = "qwen2.5-coder-1.5b-instruct-q4_k_m"
_E2_15B = f"E2/local-{_15B}/steps"
_E2_05B = f"E2/local-{_05B}/steps"

JUDGE_MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "SUMMARY_DROPS_PREVIOUS",
        "the AgentScope summariser drops the old summary from the prefix instead of merging it",
        wrap(f"{_AS}.compactor", "summarize", summary_drops_previous),
        ("E3-SUMMARY-MERGED",),
    ),
    Mutation(
        "PLACEHOLDER_WITHOUT_ERROR",
        "a failed AgentScope summary call gives a bare (Summary unavailable), the error dropped",
        wrap(f"{_AS}.compactor", "summarize", placeholder_without_error),
        ("E5-SUMMARY-FAIL",),
    ),
    Mutation(
        "DSH_CUT_REFUSED_AS_EMPTY",
        "a DSH summary cut off at max_tokens is refused with the empty-answer error",
        wrap(f"{_DSH}.summarizer", "summarize_span", cut_refused_as_empty),
        ("DSH-TRUNCATED",),
    ),
    Mutation(
        "DSH_CHAIN_CITES_KEPT",
        "the DSH summary event and the replace's sourceEventSeqs both cite the first kept node "
        "as shadowed (they agree with each other, not with the log)",
        lambda: many(
            attr(f"{_DSH}.engine.DshEngine", "_summary_data", chain_cites_kept),
            attr("harness.store.eventlog.log.EventLog", "replace_seqs", sources_cite_kept),
        ),
        ("DSH-SOURCE-SEQS",),
    ),
)

_INSTRUCTION = "不要调用任何工具，只用一句话回答并确认：我们公司出口固定走上海港，客户代号 ALPHA"
_FILLED = (
    "## SESSION INTENT\n记住暗号并按要求回答。\n\n"
    "## SUMMARY\n第一轮定的暗号是夜莺；倒过来念是莺夜。\n\n"
    "## ARTIFACTS\n无文件。\n\n## NEXT STEPS\n被问到时答出暗号夜莺。"
)
_BROKEN_CALL = '{"name": "memory_save", "arguments": {"content": "ALPHA"}'
"""A call written as text with its last brace missing, as the 0.5B model wrote it."""
ANSWER_MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "ANSWER_FLUSH_COPIES_INSTRUCTION",
        "the recorded step-1 flush (1.5B) rewritten to the user's instruction, word for word",
        rewritten(Rewrite(_E2_15B, 1, "客户代号 ALPHA", f"- {_INSTRUCTION}")),
        (f"E2-S1-FLUSH@{_15B}",),
    ),
    Mutation(
        "ANSWER_S1_TRIES_TOOL",
        "the recorded step-1 answer (1.5B) rewritten to a memory_save call written as text",
        rewritten(Rewrite(_E2_15B, 0, "上海港", _BROKEN_CALL)),
        (f"E2-S1-TOOLS@{_15B}",),
    ),
    Mutation(
        "ANSWER_RECALL_OTHER_CODE",
        "the recorded step-3 answer (0.5B) rewritten to name another customer code",
        rewritten(Rewrite(_E2_05B, 3, "ALPHA", "我们公司出口固定走上海港，客户代号是 BRAVO")),
        (f"E2-S3-RECALL@{_05B}",),
    ),
    Mutation(
        "ANSWER_RECALL_OTHER_WORD",
        "the recorded answers of rounds 4 and 5 (both models) rewritten to name another word",
        rewritten(
            *(
                Rewrite(f"E3/local-{model}/rounds", index, "夜莺", "暗号：画眉。")
                for model in (_05B, _15B)
                for index in (5, 7)
            )
        ),
        ("E3-RECALL",),
    ),
    Mutation(
        "ANSWER_SUMMARIES_FILLED",
        "the three recorded summaries (1.5B) rewritten to fill the four sections and keep 夜莺",
        rewritten(
            *(Rewrite(f"E3/local-{_15B}/rounds", i, "## SUMMARY", _FILLED) for i in (2, 4, 6))
        ),
        (f"E3-SUMMARY@{_15B}", f"E3-SUMMARY-KEEPS@{_15B}", f"E3-RECALL-ROUTE@{_15B}"),
    ),
)
