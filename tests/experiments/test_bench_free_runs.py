"""X-BENCH's model-free conditions play each conversation once per run (experiments.x_bench.runs
.FreeRuns): the passes of each recorded set ask their model only the probe, and get exactly the
records a play of their own gives (before, every set played every model-free run again, and
played the runs it then dropped for want of a cassette)."""

from __future__ import annotations

from experiments.x_bench.corpus import generate
from experiments.x_bench.runs import FreeRuns, GridHooks, run_all
from harness.model import ChatRequest
from harness.testing import FunctionModel

FREE = ["full", "truncation", "ctxlab-recall"]


def _prober(name: str) -> FunctionModel:
    def answer(request: ChatRequest) -> str:
        assert request.purpose == "probe", "a model-free condition asks its model the probe only"
        return f"1. {name}"

    return FunctionModel(answer, model_name=name)


def test_shared_plays_give_the_records_of_plays_of_their_own() -> None:
    conversations = [generate(1, "2k", "en"), generate(2, "2k", "zh")]
    models = {name: _prober(name) for name in ("a", "b")}
    alone = [run_all(conversations, FREE, lambda *_, m=m: m, name)[0] for name, m in models.items()]
    free_runs = FreeRuns()
    hooks = GridHooks(free_runs=free_runs)
    first, _ = run_all(conversations, FREE, lambda *_: None, "none", hooks)
    shared = [
        run_all(conversations, FREE, lambda *_, m=m: m, name, hooks)[0]
        for name, m in models.items()
    ]
    assert free_runs.played == len(conversations) * len(FREE)  # each once, for all three grids
    assert shared == alone
    assert first == run_all(conversations, FREE, lambda *_: None, "none")[0]
    assert all(r.model == "a" for r in shared[0]) and all(r.model == "b" for r in shared[1])


def test_a_grid_plays_only_the_cells_it_selects() -> None:
    conversation = generate(1, "2k", "en")
    free_runs = FreeRuns()
    hooks = GridHooks(select=lambda cell: cell.condition == "truncation", free_runs=free_runs)
    records, _ = run_all([conversation], FREE, lambda *_: _prober("a"), "a", hooks)
    assert [r.condition for r in records] == ["truncation"]
    assert free_runs.played == 2  # truncation, and full for its net tokens
