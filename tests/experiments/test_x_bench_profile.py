"""X-BENCH's model-free profile conditions (``ctxlab-pin``, ``ctxlab-recall``, ``ctxlab-gate``):
survival counts recalled material only when it is in what the model sees for the probe request;
the recorded ``ctxlab`` condition still sends what its cassettes hold."""

from __future__ import annotations

from dataclasses import replace

from experiments.x_bench.conditions import (
    CONDITIONS,
    METER,
    Budget,
    ctxlab_config,
    model_free_config,
)
from experiments.x_bench.corpus import generate
from experiments.x_bench.replay import ConversationRun, probe_request, run_conversation
from experiments.x_bench.scoring import score_run
from harness.compaction.agentscope import ctxlab_profile
from harness.compaction.guards.recall import RECALL_NAME, recall_message
from harness.messages import Message
from harness.testing import FunctionModel

BUDGET = Budget(1_000, 300)


def facts_kept(run: ConversationRun) -> set[str]:
    conversation = generate(1, "2k", "en")
    return {f.fact for f in score_run(conversation, run).facts if f.survived}


def test_a_recalled_value_counts_only_when_it_is_in_the_probe_request() -> None:
    conversation = generate(1, "2k", "en")
    run = ConversationRun(conversation.id, "ctxlab-recall", BUDGET)
    run.context = (Message.user("Nothing to see here."),)
    assert "code_word" not in facts_kept(run)  # in the log only: lost
    run.reference = (recall_message([Message.user("Before I forget: the password is juniper.")]),)
    assert "code_word" in facts_kept(run)
    request = probe_request(conversation, run.context, run.reference)
    assert request.messages[1] == run.reference[0]  # right after the system prompt
    assert run.final_tokens > 0 and run.probe_context[0] is run.reference[0]


def test_the_recall_condition_puts_its_recall_in_the_probe_it_asks() -> None:
    conversation = generate(1, "2k", "en")
    sent: list[object] = []

    def answer(request: object) -> str:
        sent.append(request)
        return GATE_TEXT

    model = FunctionModel(answer, model_name="probe")
    run = run_conversation(conversation, CONDITIONS["ctxlab-recall"], BUDGET, model)
    assert run.recalled and run.reference
    probe = sent[-1]
    assert [m for m in probe.messages if m.name == RECALL_NAME] == list(run.reference)  # type: ignore[attr-defined]
    assert all(text in run.text for text in run.recalled)


GATE_TEXT = "(no summary: the gate alone)"


def test_the_model_free_profile_keeps_more_than_truncation_on_a_tune_conversation() -> None:
    conversation = generate(2, "2k", "zh")
    truncation = run_conversation(conversation, CONDITIONS["truncation"], BUDGET)
    ours = run_conversation(conversation, CONDITIONS["ctxlab-gate"], BUDGET)
    kept = [score_run(conversation, r).survival for r in (truncation, ours)]
    assert kept[1] > kept[0]
    assert any(c.gate_added for c in ours.compactions)


def test_the_recorded_ctxlab_condition_has_neither_pin_nor_recall() -> None:
    config = ctxlab_config(BUDGET)
    assert config.pin is None and config.recall is None
    recorded = replace(
        ctxlab_profile(),
        trigger_messages=0,
        trigger_tokens=1_000,
        keep_tokens=300,
        flush_before_compact=False,
        offload_before_compact=False,
        meter=METER,
    )
    assert recorded == config


def test_the_definitions_switch_turns_only_the_gates_patterns_off() -> None:
    on, off = model_free_config(BUDGET), model_free_config(BUDGET, definitions=False)
    assert on.gate is not None and on.gate.definitions
    assert off.gate is not None and not off.gate.definitions
    assert replace(off, gate=on.gate) == on
    assert CONDITIONS["ctxlab-gate"].replays_recorded  # its probe cassettes are of this definition
