"""The experiments ``ctxlab run`` knows, in report order."""

from __future__ import annotations

from experiments import e1, e2, e3, e4, e5, x_bench, x_cost, x_gate, x_thrash
from experiments.base import Experiment

__all__ = ["EXPERIMENTS", "experiment_ids"]

EXPERIMENTS: dict[str, Experiment] = {
    "E1": Experiment("E1", "Compaction algorithm: 9 messages become 4, cutoff 6", e1.run, False),
    "E2": Experiment("E2", "Memory pipeline: facts reach disk with no tool call", e2.run, True),
    "E3": Experiment(
        "E3", "Real agent, trigger 5 / keep 2: compaction from round 3 on", e3.run, True
    ),
    "E4": Experiment(
        "E4",
        "One conversation, compacted once by each engine",
        e4.run,
        True,
        local_server="llama-server",
    ),
    "E5": Experiment(
        "E5",
        "What the seeds computed or state but never ran, run with scripted models",
        e5.run,
        False,
    ),
    "X-GATE": Experiment(
        "X-GATE",
        "Identifier-survival gate: E3 and E4 planted facts kept with and without it",
        x_gate.run,
        True,
        cassettes_of="E3",
        requires=("E3/rounds-gate",),
        reads=("E3", "E4"),
    ),
}
EXPERIMENTS["X-THRASH"] = Experiment(
    "X-THRASH",
    "Compaction thrash under AgentScope defaults, with and without the guard",
    x_thrash.run,
    False,  # scripted
)
EXPERIMENTS["X-COST"] = Experiment(
    "X-COST",
    "Compaction cost ledger: summary calls against the tokens they remove (E3, E4)",
    x_cost.run,
    True,
    cassettes_of="E3",  # replays E3's and E4's cassettes, once per set that holds both
    requires=("E3/rounds", "E4/compactions"),
    reads=("E3", "E4"),
)
EXPERIMENTS["X-BENCH"] = Experiment(
    "X-BENCH",
    "Compaction-quality benchmark: planted facts kept by each condition at one budget",
    x_bench.run,
    False,  # the model-free conditions run with no cassette; recorded sets add the others
    records=True,
)


def experiment_ids() -> list[str]:
    return list(EXPERIMENTS)
