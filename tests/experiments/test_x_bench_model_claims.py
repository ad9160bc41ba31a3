"""X-BENCH's per-model claims judge recorded runs strictly: each can say ``differs``, and a model
whose cassettes lack what a claim compares gets no row for it."""

from __future__ import annotations

import dataclasses

from support.bench_runs import SMALL, bench_run
from support.bench_runs import bench_view as _view

from experiments.x_bench.model_claims import model_claims
from experiments.x_bench.view import RunRecord
from lab.cassette_sets import split_set
from lab.experiment import ExperimentResult
from lab.runner import combine_sets

SET = SMALL


def _run(condition: str, conversation: str, survival: float, **changes: object) -> RunRecord:
    """A model's run with no tokens carried and no probe answer right (``changes`` set them)."""
    base: dict[str, object] = {"carried_tokens": [], "final_tokens": 0, "correct": 0}
    return bench_run(condition, conversation, survival, SET, **(base | changes))


def _engines(gain: float, **changes: object) -> list[RunRecord]:
    runs = []
    for conversation in ("a", "b"):
        for engine in ("agentscope", "dsh"):
            runs.append(_run(engine, conversation, 0.2, **changes))
            runs.append(_run(f"{engine}+gate", conversation, 0.2 + gain, **changes))
    return runs


def _by_id(runs: list[RunRecord]) -> dict[str, tuple[str, str, str]]:
    return {c.claim_id: (c.status, c.reproduced_value, c.model) for c in model_claims(_view(runs))}


def test_the_gate_adding_facts_matches_and_names_the_model() -> None:
    status, value, model = _by_id(_engines(0.4))["X-BENCH-GATE-ADDS"]
    assert status == "match" and model == "qwen2.5-coder-0.5b-instruct-q4_k_m"
    assert value == "AgentScope 20% → 60% on 2; DSH 20% → 60% on 2; fewer with the gate on 0"


def test_the_gate_adding_nothing_or_losing_once_differs() -> None:
    assert _by_id(_engines(0.0))["X-BENCH-GATE-ADDS"][0] == "differs"
    runs = _engines(0.4)
    runs[1] = dataclasses.replace(runs[1], survival=0.1)  # agentscope+gate on "a": worse
    status, value, _ = _by_id(runs)["X-BENCH-GATE-ADDS"]
    assert status == "differs" and value.endswith("fewer with the gate on 1")


def test_no_row_without_both_conditions_of_a_pair() -> None:
    runs = [r for r in _engines(0.4) if r.condition != "dsh+gate"]
    assert "X-BENCH-GATE-ADDS" not in _by_id(runs)


def test_agentscope_oversize_needs_one_summary_not_smaller_than_its_span() -> None:
    runs = _engines(0.4)
    assert _by_id(runs)["X-BENCH-AS-OVERSIZE"][0] == "differs"  # every summary was smaller
    runs[0] = dataclasses.replace(runs[0], oversized=1)
    status, value, _ = _by_id(runs)["X-BENCH-AS-OVERSIZE"]
    assert status == "match" and value == "1 of 4 compactions (25%) over 2 conversations (a)"


def test_each_recorded_model_is_judged_on_its_own_runs() -> None:
    other = "local-qwen2.5-coder-1.5b-instruct-q4_k_m"
    runs = _engines(0.4) + [dataclasses.replace(r, model=other) for r in _engines(0.0)]
    claims = [c for c in model_claims(_view(runs)) if c.claim_id == "X-BENCH-GATE-ADDS"]
    assert [(c.model, c.status) for c in claims] == [
        ("qwen2.5-coder-0.5b-instruct-q4_k_m", "match"),
        ("qwen2.5-coder-1.5b-instruct-q4_k_m", "differs"),
    ]
    assert claims[1].source == "local/qwen2.5-coder-1.5b-instruct-q4_k_m"


def test_the_runner_keeps_a_model_the_experiment_set() -> None:
    claims = tuple(model_claims(_view(_engines(0.4))))
    combined = combine_sets([ExperimentResult("X-BENCH", claims, {}, "scripted")])
    assert {c.model for c in combined.claims} == {"qwen2.5-coder-0.5b-instruct-q4_k_m"}


def test_set_names_split_into_provider_and_model() -> None:
    assert split_set(SET) == ("local", "qwen2.5-coder-0.5b-instruct-q4_k_m")
    assert split_set("openai-compatible-m") == ("openai-compatible", "m")
    assert split_set("odd") == ("", "odd")


def _rivals(ours: float, carried: int, n: int = 4, **changes: object) -> list[RunRecord]:
    runs = []
    for conversation in "abcdefgh"[:n]:
        runs.append(_run("ctxlab", conversation, ours, carried_tokens=[carried], **changes))
        runs.append(_run("reference", conversation, 0.2, carried_tokens=[400]))
        runs.append(_run("masking", conversation, 0.9, carried_tokens=[1500]))
    return runs


def test_ctxlab_wins_with_more_facts_for_no_more_tokens() -> None:
    status, value, _ = _by_id(_rivals(1.0, 400))["X-BENCH-CTXLAB-WINS"]
    assert status == "match"
    assert value == "+80% [+80%, +80%] vs reference, +10% [+10%, +10%] vs masking"
    claim = next(c for c in model_claims(_view(_rivals(1.0, 400))) if "WINS" in c.claim_id)
    assert claim.note.startswith(
        "400/400 tokens and 4 conversations with reference, 400/1500 tokens and 4 conversations "
        "with masking, invented 0, stopped 0; our own check"
    )


def test_ctxlab_winning_weighs_tokens_on_the_same_conversations() -> None:
    # the reference recorded on the four small conversations only; ctxlab also carried 2,000
    # tokens on four larger ones that only masking was compared on: no longer held against it
    runs = _rivals(1.0, 400, n=8)
    runs = [r for r in runs if not (r.condition == "reference" and r.conversation in "efgh")]
    runs = [dataclasses.replace(r, carried_tokens=[2_000]) if r.condition == "ctxlab"
            and r.conversation in "efgh" else r for r in runs]  # fmt: skip
    status, value, _ = _by_id(runs)["X-BENCH-CTXLAB-WINS"]
    assert status == "match", value
    assert status == "match" and value.startswith("+80% [+80%, +80%] vs reference")


def test_ctxlab_winning_differs_on_tokens_facts_inventions_stops_and_too_few() -> None:
    assert _by_id(_rivals(1.0, 401))["X-BENCH-CTXLAB-WINS"][0] == "differs"  # above the reference
    assert _by_id(_rivals(0.9, 300))["X-BENCH-CTXLAB-WINS"][0] == "differs"  # no more than masking
    invented = _rivals(1.0, 300, invented=["app.py"])
    assert _by_id(invented)["X-BENCH-CTXLAB-WINS"][0] == "differs"
    assert _by_id(_rivals(1.0, 300, stopped_at=5))["X-BENCH-CTXLAB-WINS"][0] == "differs"
    assert _by_id(_rivals(1.0, 300, n=3))["X-BENCH-CTXLAB-WINS"][0] == "differs"
    claim = next(c for c in model_claims(_view(_rivals(1.0, 401))) if "WINS" in c.claim_id)
    assert claim.note.startswith("401 tokens against reference's 400")


def test_ctxlab_never_compacting_is_no_comparison_at_equal_budget() -> None:
    # it kept everything by spending nothing: its runs are left out, said, and the claim
    # differs for want of conversations (before, it differed on its whole context's tokens)
    runs = [dataclasses.replace(r, carried_tokens=[], compactions=0, final_tokens=3_000)
            if r.condition == "ctxlab" else r for r in _rivals(1.0, 300)]  # fmt: skip
    status, _value, _ = _by_id(runs)["X-BENCH-CTXLAB-WINS"]
    assert status == "differs"
    claim = next(c for c in model_claims(_view(runs)) if "WINS" in c.claim_id)
    assert claim.note.startswith("too few conversations with reference")
    assert "4 run(s) never compacted, left out" in claim.reproduced_value + claim.note


def test_a_rival_that_never_compacted_is_left_out_of_the_pairs() -> None:
    # masking never compacted on two of six conversations (chat with no tool output): those
    # two are no comparison at equal budget, so the claim pairs four and says so
    runs = _rivals(1.0, 300, n=6)
    runs = [dataclasses.replace(r, compactions=0, survival=1.0) if r.condition == "masking"
            and r.conversation in "ab" else r for r in runs]  # fmt: skip
    claim = next(c for c in model_claims(_view(runs)) if "WINS" in c.claim_id)
    assert claim.status == "match", claim.reproduced_value
    assert "4 conversations with masking" in claim.note
    assert "2 run(s) never compacted, left out" in claim.note


def test_ctxlab_winning_weighs_each_conversation_once() -> None:
    # more compactions on the small conversations must not pull ctxlab's mean down: it carries
    # more than the reference on every conversation
    runs = []
    cases = (("a", [600] * 3, [500]), ("b", [600] * 3, [500]), ("c", [3_200], [3_100]),
             ("d", [3_200], [3_100]))  # fmt: skip
    for conversation, ours, theirs in cases:
        runs += [_run("ctxlab", conversation, 1.0, carried_tokens=ours),
                 _run("reference", conversation, 0.2, carried_tokens=theirs),
                 _run("masking", conversation, 0.9, carried_tokens=[5_000])]  # fmt: skip
    status, _value, _ = _by_id(runs)["X-BENCH-CTXLAB-WINS"]
    assert status == "differs"
    claim = next(c for c in model_claims(_view(runs)) if "WINS" in c.claim_id)
    assert claim.note.startswith("1900 tokens against reference's 1800")


def test_a_rival_that_carried_nothing_does_not_crash_the_judge() -> None:
    runs = [dataclasses.replace(r, carried_tokens=[], final_tokens=0)
            if r.condition == "reference" else r for r in _rivals(1.0, 300)]  # fmt: skip
    assert _by_id(runs)["X-BENCH-CTXLAB-WINS"][0] == "differs"


def test_ctxlab_winning_needs_both_rivals_recorded() -> None:
    runs = [r for r in _rivals(1.0, 300) if r.condition != "reference"]
    assert "X-BENCH-CTXLAB-WINS" not in _by_id(runs)


def test_dsh_over_agentscope_needs_an_interval_above_zero_on_enough_conversations() -> None:
    def runs(gap: float, n: int = 4) -> list[RunRecord]:
        pairs = [(_run("dsh", c, 0.2 + gap), _run("agentscope", c, 0.2)) for c in "abcdefgh"[:n]]
        return [r for pair in pairs for r in pair]

    status, value, _ = _by_id(runs(0.3))["X-BENCH-DSH-OVER-AS"]
    assert (
        status == "match"
        and value == "DSH 50%, AgentScope 20%: +30% [+30%, +30%] on 4 conversations"
    )
    assert _by_id(runs(0.0))["X-BENCH-DSH-OVER-AS"][0] == "differs"
    assert _by_id(runs(-0.1))["X-BENCH-DSH-OVER-AS"][0] == "differs"
    assert _by_id(runs(0.3, n=3))["X-BENCH-DSH-OVER-AS"][0] == "differs"
