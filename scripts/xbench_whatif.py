"""What would ctxlab's profile keep, and carry, with another summary budget or gate budget?
An estimate on X-BENCH's recorded answers, before paying hours of re-recording for it.

The ``ctxlab`` condition is played again on every recorded model with the changed profile,
its summary calls answered in order from the recorded cassettes (order replay, the mutation
matrix's mode: the model's text is the recorded one, cut to the new budget as ctxlab cuts it;
a model asked with another budget would have written otherwise). So the figures are an
estimate, never a reproduction, and the script prints them beside the recorded profile's
figures, computed the same way, and the reference prompt's, which X-BENCH-CTXLAB-WINS compares
against ("carried": the mean context right after a compaction, per conversation, then over
conversations, as the claim's).

    python scripts/xbench_whatif.py [--summary-budget 0.3] [--gate-budget 240]
        [--conversations zh-2k-s01,en-2k-s02]

``--conversations`` plays only the conversations named (all of them by default).
"""

from __future__ import annotations

import argparse
import dataclasses
from contextlib import ExitStack
from pathlib import Path
from types import SimpleNamespace

from experiments.x_bench.conditions import CONDITIONS, Condition, budget_for, ctxlab_condition
from experiments.x_bench.headline import Carrying, carried
from experiments.x_bench.recorded import RecordedModels
from experiments.x_bench.replay import run_conversation
from experiments.x_bench.schema import Conversation
from experiments.x_bench.scoring import score_run
from experiments.x_bench.suite import bench_conversations
from harness.compaction.agentscope import CTXLAB_GATE, CTXLAB_SUMMARY_BUDGET
from lab.cassette_sets import list_sets
from lab.experiment import RunSettings

ROOT = Path(__file__).resolve().parent.parent


def _measure(
    conversations: list[Conversation], cassette_set: str, condition: Condition, recorded: str
) -> tuple[float, float, int]:
    """Mean survival, mean carried tokens and conversations of ``condition`` on the
    conversations whose ``recorded`` cassette exists (order replay)."""
    settings = RunSettings(ROOT / "cassettes", progress=lambda _: None, cassette_match="order")
    survival: list[float] = []
    runs: list[Carrying] = []
    with ExitStack() as stack:
        models = RecordedModels(settings, cassette_set, stack)
        for conversation in conversations:
            model = models(conversation, recorded)
            if model is None:
                continue
            budget = budget_for(conversation.size, conversation.tokens)
            run = run_conversation(conversation, condition, budget, model)
            score = score_run(conversation, run)
            survival.append(score.survival)
            runs.append(
                SimpleNamespace(carried_tokens=score.carried_tokens, final_tokens=run.final_tokens)
            )
    n = len(survival)
    return (sum(survival) / n, carried(runs), n) if n else (0.0, 0.0, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--summary-budget", type=float, default=CTXLAB_SUMMARY_BUDGET)
    parser.add_argument("--gate-budget", type=int, default=CTXLAB_GATE.budget_tokens)
    parser.add_argument("--conversations", default="", help="ids, comma-separated (all: empty)")
    args = parser.parse_args()
    conversations = bench_conversations()
    if args.conversations:
        named = set(args.conversations.split(","))
        conversations = [c for c in conversations if c.id in named]
        if {c.id for c in conversations} != named:
            parser.error(
                f"no such conversation: {', '.join(sorted(named - {c.id for c in conversations}))}"
            )
    rows = (
        ("ctxlab as recorded", CONDITIONS["ctxlab"], "ctxlab"),
        (
            f"ctxlab, summary budget {args.summary_budget}, gate {args.gate_budget} (estimate)",
            ctxlab_condition(
                summary_budget=args.summary_budget,
                gate=dataclasses.replace(CTXLAB_GATE, budget_tokens=args.gate_budget),
            ),
            "ctxlab",
        ),
        ("reference prompt", CONDITIONS["reference"], "reference"),
    )
    for cassette_set in list_sets(ROOT / "cassettes", "X-BENCH"):
        print(cassette_set)
        for label, condition, recorded in rows:
            survival, carried, n = _measure(conversations, cassette_set, condition, recorded)
            print(f"  {label}: survival {survival:.1%}, carried {carried:.0f} tokens on {n}")


if __name__ == "__main__":
    main()
