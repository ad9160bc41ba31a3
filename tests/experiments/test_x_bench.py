"""X-BENCH: the model-free conditions through the real agent loop, the sanity checks the issue
asks for (full context keeps everything; truncation keeps exactly its window, computed here
independently of the harness), the scorer, and judges that fail on a bad measurement."""

from __future__ import annotations

import dataclasses
from contextlib import ExitStack

import pandas as pd
import pytest
from support.bench_memo import replayed_view
from support.paths import ROOT

from experiments.x_bench.claims import claims
from experiments.x_bench.conditions import (
    BUDGETS,
    CANDIDATE,
    CONDITIONS,
    METER,
    QUOTES,
    Budget,
    ctxlab_config,
)
from experiments.x_bench.corpus import generate, turn_messages
from experiments.x_bench.page import x_bench_section
from experiments.x_bench.recorded import RecordedModels
from experiments.x_bench.replay import run_conversation
from experiments.x_bench.runs import run_all
from experiments.x_bench.schema import Conversation, Fact
from experiments.x_bench.scoring import (
    bootstrap,
    correct,
    invented_identifiers,
    normalise,
    paired,
    parse_answers,
    score_run,
)
from experiments.x_bench.suite import bench_conversations, tabulate
from experiments.x_bench.view import XBenchView
from harness.compaction.agentscope import build_summary_message
from harness.compaction.engine import CompactionEngine
from harness.compaction.factory import make_engine
from harness.errors import ScriptError
from harness.messages import Message
from harness.meter import build_meter
from harness.meter.pricers import estimate_tokens
from harness.model import ChatModel
from harness.store.history import History
from harness.testing import FunctionModel
from lab.cassette_sets import list_sets
from lab.experiment import RunSettings

# On the xdist worker of X-BENCH's claims: the replay with cassettes (the claims) and the one
# without (``view``) then play the model-free runs once for both (tests/support/bench_memo.py).
pytestmark = pytest.mark.xdist_group("X-BENCH")


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> XBenchView:
    """The model-free conditions (no cassette), replayed once per session
    (tests/support/bench_memo.py)."""
    return replayed_view(RunSettings(tmp_path_factory.mktemp("no-cassettes")))


def _claim(view: XBenchView, claim_id: str) -> str:
    return next(c.status for c in claims(view) if c.claim_id == claim_id)


def test_full_context_keeps_every_fact_on_every_conversation(view: XBenchView) -> None:
    full = [r for r in view.runs if r.condition == "full"]
    assert len(full) == len(view.conversations) == 18
    assert all(r.survival == 1.0 and not r.lost and r.compactions == 0 for r in full)


def _independent_truncation(conversation: Conversation, budget: Budget) -> list[Message]:
    """The truncation rule re-done on the corpus's own messages, with no agent: before each
    model request (after the user message, and after a tool result), once the context costs the
    trigger, keep the latest user-started run of turns that fits the tail (at least the
    current turn)."""
    context: list[Message] = []

    def check() -> None:
        nonlocal context
        if estimate_tokens(context) < budget.trigger_tokens:
            return
        starts = [n for n, m in enumerate(context) if m.role == "user"]
        keep = starts[-1]
        for start in reversed(starts):
            if estimate_tokens(context[start:]) > budget.keep_tokens:
                break
            keep = start
        context = context[keep:]

    for turn in conversation.turns:
        messages = turn_messages(turn)
        context.append(messages[0])
        check()
        if turn.tool is not None:
            context += messages[1:3]
            check()
        context.append(messages[-1])
    return context


def _share_in(conversation: Conversation, window: list[Message]) -> float:
    text = "\n".join(
        [m.content for m in window] + [c.arguments for m in window for c in m.tool_calls]
    )
    facts = [f for f in conversation.facts if f.values]
    return sum(all(v in text for v in f.values) for f in facts) / len(facts)


def test_truncation_keeps_exactly_the_share_inside_its_window(view: XBenchView) -> None:
    conversations = {c.id: c for c in bench_conversations()}
    runs = [r for r in view.runs if r.condition == "truncation"]
    assert len(runs) == 18
    for run in runs:
        conversation = conversations[run.conversation]
        window = _independent_truncation(conversation, BUDGETS[conversation.size])
        assert run.survival == round(_share_in(conversation, window), 4), run.conversation
        assert run.window_share == run.survival
    assert sum(r.survival for r in runs) / len(runs) < 0.5


def test_the_model_free_claims_hold_and_the_model_conditions_wait(view: XBenchView) -> None:
    judged = claims(view)
    assert [c.status for c in judged[:5]] == ["match"] * 5
    # the held-out split is judged apart (its own targets, whatever it measures)
    assert [c.claim_id for c in judged[5:]] == ["X-BENCH-HELDOUT-GATE"]
    assert view.not_recorded == [n for n, c in CONDITIONS.items() if c.needs_model]
    waiting = [c for c in view.conditions if c.status == "not recorded yet"]
    assert {c.name for c in waiting} == set(view.not_recorded)
    assert all(c.conversations == 0 for c in waiting)


def _with_run(view: XBenchView, condition: str, **changes: object) -> XBenchView:
    runs = list(view.runs)
    n = next(i for i, r in enumerate(runs) if r.condition == condition)
    runs[n] = dataclasses.replace(runs[n], **changes)  # type: ignore[arg-type]
    return dataclasses.replace(view, runs=runs)


def test_the_judges_fail_on_a_bad_measurement(view: XBenchView) -> None:
    assert _claim(_with_run(view, "full", survival=0.9), "X-BENCH-FULL") == "differs"
    assert _claim(_with_run(view, "truncation", window_share=0.5), "X-BENCH-TRUNCATION") == (
        "differs"
    )
    masking = next(r for r in view.runs if r.condition == "masking")
    spoken = _with_run(view, "masking", lost=[*masking.lost, "name"])
    assert _claim(spoken, "X-BENCH-MASKING") == "differs"
    gate = next(r for r in view.runs if r.condition == "gate")
    lost = _with_run(view, "gate", lost=[*gate.lost, "identifier-id"])
    assert _claim(lost, "X-BENCH-GATE-KINDS") == "differs"
    beyond = _with_run(view, "gate", survived=[*gate.survived, "code_word"], in_tail=[])
    assert _claim(beyond, "X-BENCH-GATE-KINDS") == "differs"


def test_a_condition_that_needs_a_model_never_runs_without_one() -> None:
    conversation = generate(1, "2k", "en")
    with pytest.raises(ScriptError):
        run_conversation(conversation, CONDITIONS["agentscope"], BUDGETS["2k"])


@pytest.mark.parametrize("name", [n for n, c in CONDITIONS.items() if c.needs_model])
def test_every_model_condition_compacts_by_its_own_rules_and_is_probed(name: str) -> None:
    conversation = generate(2, "8k", "en")

    def reply(request: object) -> str:
        assert getattr(request, "purpose", "") in ("summary", "probe")
        if getattr(request, "purpose", "") == "probe":
            return "\n".join(f"{n}. not known" for n in range(1, 13))
        return "## SUMMARY\nThe team checks export papers (booking SO-2026-0000)."

    model = FunctionModel(reply, model_name="scripted-summary")
    run = run_conversation(conversation, CONDITIONS[name], BUDGETS["8k"], model)
    score = score_run(conversation, run)
    assert score.compactions >= 3  # 8K goes through three cycles or more
    assert score.summary_calls == sum(r.purpose == "summary" for r in model.requests) >= 3
    assert model.requests[-1].purpose == "probe" and score.answered
    # priced with the prices cached on the messages: the estimator's figures, uncached
    assert run.final_tokens == estimate_tokens(run.probe_context)
    summaries = [r for r in model.requests if r.purpose == "summary"]
    assert [c.prompt_tokens for c in run.summary_calls] == [
        estimate_tokens(r.messages) for r in summaries
    ]
    # ctxlab's source check drops the line naming the id the span never had
    ctxlab_profiles = ("ctxlab", CANDIDATE, QUOTES)  # the source check drops the made-up id
    assert score.invented == ([] if name in ctxlab_profiles else ["SO-2026-0000"])
    right = {f.kind: f.correct for f in score.facts}
    assert right["abstention"] is True and right["name"] is False
    gated = name in ("agentscope+gate", "dsh+gate", *ctxlab_profiles)
    if gated:  # the gate appends every identifier the scripted summary dropped
        assert all(f.survived for f in score.facts if f.kind == "identifier")


def _word(i: int) -> str:
    return "point" + chr(97 + i % 26) + chr(97 + i // 26 % 26)


def _long_summaries(words: int) -> FunctionModel:
    """A summary model whose summaries are ``words`` words long: at the 2K budget, 150 words
    refill ctxlab's context to its trigger right after each compaction."""

    def reply(request: object) -> str:
        if getattr(request, "purpose", "") == "probe":
            return "\n".join(f"{n}. not known" for n in range(1, 13))
        # words without digits: ctxlab's source check would drop a line of made-up ids
        return "## SUMMARY\n" + " ".join(_word(i) for i in range(words))

    return FunctionModel(reply, model_name="scripted-summary")


def _unbudgeted(
    budget: Budget, agent_model: ChatModel, summary: ChatModel | None, history: History
) -> CompactionEngine:
    """ctxlab's profile without its summary budget (what it was when the guard's stop was
    recorded: the finding the budget answers)."""
    config = dataclasses.replace(ctxlab_config(budget), summary_budget=None)
    return make_engine(config, agent_model, history=history, summary_model=summary)


UNBUDGETED = dataclasses.replace(CONDITIONS["ctxlab"], build=_unbudgeted)


def test_a_thrash_guard_stop_ends_the_conversation_and_is_scored() -> None:
    # A fault seen recording en-2k-s01 under ctxlab: the guard's CompactionThrashError aborted
    # the whole recording. It is the condition's outcome, not the benchmark's error.
    conversation = generate(1, "2k", "en")
    model = _long_summaries(150)
    run = run_conversation(conversation, UNBUDGETED, BUDGETS["2k"], model)
    last = len(conversation.turns) - 1
    assert run.stopped_at is not None and 0 < run.stopped_at < last
    assert run.stop_reason.startswith("compaction is thrashing")
    assert len(run.agent_prompt_tokens) == run.stopped_at + 1  # no later turn was played
    later = {t.user for t in conversation.turns[run.stopped_at + 1 :]}
    assert not later & {m.content for m in run.context}
    assert model.requests[-1].purpose == "probe"  # asked from the context the stop left
    assert len(run.compactions) >= 2 and score_run(conversation, run).answered
    # the same conversation with short summaries plays to the end
    played = run_conversation(conversation, UNBUDGETED, BUDGETS["2k"], _long_summaries(20))
    assert played.stopped_at is None and len(played.agent_prompt_tokens) == last + 1


@pytest.mark.parametrize("words", [150, 600])
def test_the_summary_budget_lets_ctxlab_play_every_turn(words: int) -> None:
    # The finding: with this model's long summaries the guard stopped ctxlab's profile on two
    # of three recorded 2K conversations. Its summary budget cuts a summary to 40 % of the room
    # between the tail and the trigger (the gate's exact values kept first), so a compaction
    # leaves the rest to the conversation.
    budget = BUDGETS["2k"]
    room = (budget.trigger_tokens - budget.keep_tokens) * 2 // 5
    for seed, lang in ((1, "en"), (2, "en"), (1, "zh")):
        conversation = generate(seed, "2k", lang)
        model = _long_summaries(words)
        run = run_conversation(conversation, CONDITIONS["ctxlab"], budget, model)
        assert run.stopped_at is None, (seed, lang)
        price = build_meter(METER).price
        assert run.compactions and all(
            price(build_summary_message(c.summary)) <= room + 8 for c in run.compactions
        )
        summaries = [r for r in model.requests if r.purpose == "summary"]
        assert summaries and all(r.max_tokens == room for r in summaries)
        assert score_run(conversation, run).survival == 1.0, (seed, lang)  # the gate's list


def test_a_stopped_run_saves_no_tokens_on_the_turns_it_never_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(CONDITIONS, "ctxlab", UNBUDGETED)
    conversation = generate(1, "2k", "en")
    records, _ = run_all([conversation], ["full", "ctxlab"], lambda *_: _long_summaries(150), "m")
    full, ours = (next(r for r in records if r.condition == n) for n in ("full", "ctxlab"))
    assert full.stopped_at is None and ours.stopped_at is not None
    assert ours.turns_after_last_compaction <= ours.stopped_at
    # against full's tokens over the turns played, not over the whole conversation
    whole = full.agent_prompt_tokens - ours.agent_prompt_tokens - ours.summary_tokens
    assert ours.net_tokens < whole
    assert ours.net_continuation_tokens <= full.continuation_prompt_tokens
    (row,) = [c for c in tabulate([conversation], records, ["ctxlab"])[0] if c.name == "ctxlab"]
    assert row.stopped == 1
    page = x_bench_section(dataclasses.replace(_empty_view(), runs=records), pd.DataFrame())
    assert f"`{conversation.id}` under `ctxlab` @ m at turn {ours.stopped_at}" in page


def _empty_view() -> XBenchView:
    return XBenchView("X-BENCH", "scripted", 1, [], [], [], [], [], [], [], [], "")


def _fact(kind: str, expect: list[str], reject: tuple[str, ...] = ()) -> Fact:
    values, wrong = list(expect), list(reject)
    return Fact("f", kind, "?", values, values, wrong, 0, "user", 0.0, "early")  # type: ignore[arg-type]


def test_answers_are_scored_by_normalised_contains() -> None:
    assert normalise(" 88,955 EUR ") == "88955eur"
    assert parse_answers("1. Birch\n2) not known\n 3、青松", 3) == {
        1: "Birch",
        2: "not known",
        3: "青松",
    }
    assert parse_answers("no numbers at all", 3) == {}
    update = _fact("update", ["Birch"], ["Aster"])
    assert correct(update, "room birch", [])
    assert not correct(update, "Aster, later Birch", [])
    assert not correct(_fact("name", ["林晓雯"]), "", [])
    abstain = _fact("abstention", [])
    assert correct(abstain, "not known", ["not known"])
    assert not correct(abstain, "not known, maybe DE-12345", ["not known"])
    assert not correct(abstain, "DE-12345", ["not known"])


def test_invented_identifiers_are_those_nowhere_in_the_conversation() -> None:
    conversation = generate(1, "2k", "en")
    real = next(f for f in conversation.facts if f.id == "identifier-id").values[0]
    assert invented_identifiers(f"booking {real}, see /bin/db_backup.sh", conversation) == [
        "/bin/db_backup.sh"
    ]


def test_the_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [0.1, 0.5, 0.4, 0.9, 0.3, 0.6]
    mean, low, high = bootstrap(values)
    assert bootstrap(values) == (mean, low, high)
    assert low <= mean <= high and mean == round(sum(values) / 6, 4)
    assert paired([1.0] * 6, [0.5] * 6) == (0.5, 0.5, 0.5)
    with pytest.raises(ValueError):
        paired([1.0], [])


def test_a_condition_played_with_and_without_a_model_is_one_row_per_model(
    view: XBenchView,
) -> None:
    """A recorded set replays the model-free conditions too (their probe is a model call): its
    runs get a row of their own, so the scripted row still counts each conversation once."""
    scripted = [r for r in view.runs if r.condition == "full"]
    recorded = [dataclasses.replace(r, model="local-m") for r in scripted[:2]]
    conversations = bench_conversations()
    summary, *_ = tabulate(conversations, [*view.runs, *recorded], ["full", "agentscope"])
    rows = [(c.name, c.model, c.status, c.conversations) for c in summary]
    assert rows == [
        ("full", "none", "run", len(scripted)),
        ("full", "local-m", "run", 2),
        ("agentscope", "none", "not recorded yet", 0),
    ]


ORDER_SUBSET = ("zh-2k-s01", "en-2k-s02", "en-8k-s01")
"""The conversations the order-replay test plays again (both languages, two sizes): the whole
replay is the claims table's, made once per session (tests/support/bench_memo.py)."""


def test_unmutated_order_replay_plays_every_recorded_run_as_recorded() -> None:
    """Mutation testing serves recorded answers in order to a broken harness; X-BENCH serves
    each run's summary answers and its probe apart (experiments.x_bench.recorded). Unmutated,
    that must give exactly what the ordinary replay gives, recorded runs included: on a subset
    of the conversations, every condition and recorded set, against the session's replay."""
    root = ROOT / "cassettes"
    sets = list_sets(root, "X-BENCH")
    assert sets, "no recorded X-BENCH set"
    replayed = replayed_view(RunSettings(root))  # the claims table's, once a session
    subset = [c for c in bench_conversations() if c.id in ORDER_SUBSET]
    order = RunSettings(root, progress=lambda _: None, cassette_match="order")
    ordered = []
    names = [n for n, c in CONDITIONS.items() if c.replays_recorded]
    for cassette_set in sets:
        with ExitStack() as stack:
            models = RecordedModels(order, cassette_set, stack)
            found, _ = run_all(subset, names, models, cassette_set)
        ordered += [r for r in found if r.model != "none"]
    expected = [r for r in replayed.runs if r.model != "none" and r.conversation in ORDER_SUBSET]
    assert {r.model for r in ordered} == {r.model for r in replayed.runs if r.model != "none"}
    assert sorted(ordered, key=repr) == sorted(expected, key=repr)
    # recorded on the tune split: not the model-free conditions added since, nor the candidate
    # (recorded on the held-out split first)
    added = ("ctxlab-pin", "ctxlab-recall", "ctxlab-gate-nodefs", CANDIDATE, QUOTES)
    recorded = [n for n in names if n not in added]
    assert len(ordered) == len(sets) * len(subset) * len(recorded)


def test_the_plot_shows_every_condition_that_ran_once_per_model(view: XBenchView) -> None:
    from experiments.x_bench.plot import x_bench_plot

    plot = x_bench_plot(view)
    assert plot.name == "X-BENCH_tradeoff" and plot.png.startswith(b"\x89PNG")
    ran = [c.name for c in view.conditions if c.status == "run"]
    assert list(plot.legend) == ran  # the model-free ones, once each (no cassette here)
    assert "Models: none yet" in plot.caption
