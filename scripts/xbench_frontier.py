"""What does the model-free profile (``ctxlab-gate``) keep, and how large is its final context,
with another tail and other shares? Measured on X-BENCH's TUNE split only.

X-BENCH-HELDOUT-GATE asks the model-free profile for two things at once: at least 75 % of the
facts, and a final context at most 1.25× truncation's. This script plays variants of
``ctxlab-gate`` on the tune conversations (no model; seconds) and prints, per variant, the mean
survival, the final context against truncation's (mean and max over conversations) and on how
many conversations it kept fewer facts than truncation. Each variant is
``TAIL,GATE,PIN,RECALL``: the kept tail as a fraction of the condition's own tail, and the gate,
pin and recall budgets as shares of the condition's room (trigger less its own tail), as
:mod:`experiments.x_bench.conditions` sets them. The first row is the shipped profile.

It never reads the held-out split: a share chosen by looking at the held-out figures would be a
tuned result (issue 42). The tune split is the corpus the gate's patterns were written against,
so its survival is an upper bound of what a variant keeps elsewhere.

    python scripts/xbench_frontier.py [--sizes 2k,8k,24k] 0.5,0.15,0.1,0.08 0.4,0.1,0.05,0.05
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass, replace
from typing import Any

from experiments.x_bench.conditions import (
    CONDITIONS,
    GATE_SHARE,
    PIN_SHARE,
    RECALL_SHARE,
    RECALL_TOP_K,
    Budget,
    Condition,
    agentscope_config,
    budget_for,
)
from experiments.x_bench.replay import run_conversation
from experiments.x_bench.schema import Conversation
from experiments.x_bench.scoring import score_run
from experiments.x_bench.suite import bench_conversations
from harness import make_engine
from harness.compaction.agentscope import CTXLAB_GATE, CompactionConfig
from harness.compaction.guards.pin import PinConfig
from harness.compaction.guards.recall import RecallConfig
from harness.model import ChatModel
from harness.store.history import History


@dataclass(frozen=True)
class Variant:
    """The tail as a fraction of the condition's, and the parts' budgets as shares of its room."""

    tail: float
    gate: float
    pin: float
    recall: float

    @classmethod
    def parse(cls, text: str) -> Variant:
        try:
            tail, gate, pin, recall = (float(x) for x in text.split(","))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not TAIL,GATE,PIN,RECALL") from None
        if not 0 < tail <= 1 or min(gate, pin, recall) < 0:
            raise argparse.ArgumentTypeError(f"{text!r}: TAIL in (0, 1], shares at least 0")
        return cls(tail, gate, pin, recall)

    def config(self, budget: Budget) -> CompactionConfig:
        room = budget.trigger_tokens - budget.keep_tokens
        tail = replace(budget, keep_tokens=max(1, int(budget.keep_tokens * self.tail)))
        pin_share = self.pin * room / (tail.trigger_tokens - tail.keep_tokens)  # of the old room
        return agentscope_config(
            tail,
            gate=replace(CTXLAB_GATE, budget_tokens=max(int(self.gate * room), 1)),
            pin=PinConfig(share=min(pin_share, 1.0)) if self.pin else None,
            recall=(
                RecallConfig(budget_tokens=max(int(self.recall * room), 1), top_k=RECALL_TOP_K)
                if self.recall
                else None
            ),
        )

    def condition(self) -> Condition:
        def build(
            budget: Budget, agent: ChatModel, summary: ChatModel | None, history: History
        ) -> Any:
            return make_engine(self.config(budget), agent, history=history, summary_model=summary)

        return replace(CONDITIONS["ctxlab-gate"], name=str(self), build=build)

    def __str__(self) -> str:
        return f"tail ×{self.tail:g}, gate {self.gate:g}, pin {self.pin:g}, recall {self.recall:g}"


def measure(conversations: list[Conversation], variant: Variant) -> str:
    """One printed row: the variant against truncation on every conversation."""
    survival, ratios, below = [], [], 0
    for conversation in conversations:
        budget = budget_for(conversation.size, conversation.tokens)
        base = run_conversation(conversation, CONDITIONS["truncation"], budget)
        run = run_conversation(conversation, variant.condition(), budget)
        kept = score_run(conversation, run).survival
        survival.append(kept)
        ratios.append(run.final_tokens / max(base.final_tokens, 1))
        below += kept < score_run(conversation, base).survival
    return (
        f"{variant}: survival {statistics.mean(survival):.1%}, final context "
        f"{statistics.mean(ratios):.2f}× truncation's (max {max(ratios):.2f}×), "
        f"fewer facts than truncation on {below} of {len(conversations)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="*", type=Variant.parse, metavar="TAIL,GATE,PIN,RECALL")
    parser.add_argument("--sizes", default="2k,8k,24k", help="comma-separated (default: all)")
    args = parser.parse_args()
    sizes = args.sizes.split(",")
    conversations = [c for c in bench_conversations() if c.size in sizes]
    if not conversations:
        parser.error(f"no tune conversation of size {args.sizes!r} (2k, 8k, 24k)")
    shipped = Variant(1.0, GATE_SHARE, PIN_SHARE, RECALL_SHARE)
    print(f"X-BENCH tune split: {len(conversations)} conversations, model-free (no model)")
    for variant in (shipped, *args.variants):
        print(" ", measure(conversations, variant), flush=True)


if __name__ == "__main__":
    main()
