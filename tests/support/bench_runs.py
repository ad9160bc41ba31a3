"""X-BENCH run records made by hand, for the tests of what is judged and shown from them."""

from __future__ import annotations

from experiments.x_bench.view import RunRecord, XBenchView

SMALL = "local-qwen2.5-coder-0.5b-instruct-q4_k_m"
LARGER = "local-qwen2.5-coder-1.5b-instruct-q4_k_m"


def bench_run(condition: str, conversation: str, survival: float, model: str = SMALL,
              **changes: object) -> RunRecord:  # fmt: skip
    """One English 2K run with two compactions, 400 and 500 tokens carried, and (for a model's
    run) 6 of 12 probe answers right; ``changes`` overrides any field."""
    answered = model != "none"
    fields: dict[str, object] = {
        "conversation": conversation, "lang": "en", "size": "2k", "condition": condition,
        "model": model, "compactions": 2, "survival": survival, "survived": [], "lost": [],
        "in_tail": [], "carried_tokens": [400, 500], "compression": [], "final_tokens": 800,
        "invented": [], "agent_prompt_tokens": 0, "continuation_prompt_tokens": 0,
        "summary_calls": 2, "failed_summaries": 0, "summary_tokens": 0, "net_tokens": 0,
        "net_continuation_tokens": 0, "turns_after_last_compaction": 3, "answered": answered,
        "correct": 6 if answered else None, "window_share": None,
        "questions": 12 if answered else 0,
    }  # fmt: skip
    return RunRecord(**(fields | changes))  # type: ignore[arg-type]


def bench_view(runs: list[RunRecord]) -> XBenchView:
    """A view of ``runs`` alone (no conversations, cells or pairs)."""
    return XBenchView("X-BENCH", "scripted", 1, [], [], [], [], [], [], runs, [], "")
