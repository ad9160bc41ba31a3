"""ctxlab's gate ranks what it keeps by who said it (definitions on): X-BENCH's English 1.5B runs
lost the user's name and password to the assistant's own phrasing (``what moved, what is
blocked, what is next``, said in three replies), and after three compactions the carried list was
mostly such phrases. Each test here fails with the ranking of the plain gate (by position)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.compaction.agentscope import CTXLAB_GATE
from harness.compaction.agentscope.summary import build_summary_message
from harness.compaction.guards.gate import GateConfig, apply_gate
from harness.compaction.guards.gate_definitions import spoken_definitions
from harness.messages import Message
from harness.meter import build_meter

METER = build_meter("agentscope-2.0.3")
BOILERPLATE = "Keep the status mail to five lines: what moved, what is blocked, what is next."
FACTS = (
    "Our contact at the warehouse is Ingrid Vasquez; call her for anything about the dock.",
    "Before I forget: the password is juniper.",
)


def _span() -> list[Message]:
    span = [Message.user("Can you remind me what we check?"), Message.assistant(BOILERPLATE)]
    for n in range(2):  # said in three replies: kept (not a table's row), ranked last
        span += [Message.user(f"Give me checklist {n}."), Message.assistant(BOILERPLATE)]
    for fact in FACTS:
        span += [Message.user(fact), Message.assistant("Got it.")]
    return span


def _facts_only() -> int:
    """A budget that holds the section of the two facts and no more."""
    span = [Message.user(fact) for fact in FACTS]
    return apply_gate(GateConfig(definitions=True, budget_tokens=400), "s", span, METER).tokens


def test_the_users_words_win_a_tight_budget_over_the_assistants_boilerplate() -> None:
    budget = _facts_only() + 2
    kept = apply_gate(GateConfig(definitions=True, budget_tokens=budget), "s", _span(), METER)
    assert "Ingrid Vasquez" in kept.added and "the password is juniper" in kept.added
    assert not {"what moved", "blocked", "next"} & set(kept.added)


def test_tiers_say_who_said_it() -> None:
    said = [
        (BOILERPLATE, "assistant"),
        (BOILERPLATE, "assistant"),
        ("Found it: the container is on the yard.", "assistant"),
        ("Agreed: we go with Parquet, because the finance tool reads column types.", "assistant"),
        ("The handover meeting is in room Maple.", "user"),
        ("Summary.\n\n## Exact values\nVerbatim.\n- in room Birch", "summary"),
    ]
    tiers = {d.text: d.tier for d in spoken_definitions(said, "## Exact values")}
    assert tiers["what moved"] == 3  # the assistant's boilerplate
    assert tiers["the container is on the yard"] == 2  # the assistant's, once
    assert tiers["we go with Parquet"] == 0 == tiers["the finance tool reads column types"]
    assert tiers["in room Maple"] == 0  # the user's
    assert tiers["in room Birch"] == 1  # carried


def test_the_list_is_best_first_and_the_next_compaction_keeps_its_order() -> None:
    first = apply_gate(CTXLAB_GATE, "s", _span(), METER)
    assert first.added.index("Ingrid Vasquez") < first.added.index("what moved")
    span = [build_summary_message(first.text), Message.user("Next: is line 1 done?")]
    budget = _facts_only() + 2
    again = apply_gate(GateConfig(definitions=True, budget_tokens=budget), "s", span, METER)
    assert "Ingrid Vasquez" in again.added and "what moved" not in again.added


def test_an_item_another_chosen_item_holds_is_left_out() -> None:
    kept = apply_gate(
        CTXLAB_GATE, "s", [Message.user("Before I forget: the password is juniper.")], METER
    )
    assert kept.added == ("the password is juniper",)  # not "juniper" beside it


def test_a_rule_the_user_repeats_is_no_row_of_a_table() -> None:
    span = [Message.user("Remember: never touch prod.") for _ in range(6)]
    assert "never touch prod" in apply_gate(CTXLAB_GATE, "s", span, METER).added


def test_the_plain_gate_lists_by_first_appearance_as_recorded() -> None:
    span = [Message.user("See /b/c/later.txt"), Message.user("Order SO-2026-0417")]
    assert apply_gate(GateConfig(), "s", span, METER).added == ("/b/c/later.txt", "SO-2026-0417")


PHRASES = st.sampled_from(
    [BOILERPLATE, *FACTS, "Got it.", "One rule: never touch prod.", "因为审计要求行级锁。",
     "暗号：夜莺。", "The order is SO-2026-0417.", "the password is falcon"]
)  # fmt: skip
ROLES = st.sampled_from(["user", "assistant"])


@settings(max_examples=150, deadline=None)
@given(pairs=st.lists(st.tuples(PHRASES, ROLES), max_size=12), budget=st.integers(1, 200))
def test_ranked_lists_keep_the_budget_and_hold_no_item_twice(
    pairs: list[tuple[str, str]], budget: int
) -> None:
    span = [Message(role=role, content=text) for text, role in pairs]  # type: ignore[arg-type]
    config = GateConfig(definitions=True, budget_tokens=budget)
    result = apply_gate(config, "summary", span, METER)
    assert result.text.startswith("summary") and result.tokens <= budget
    items = [a.strip('“”「」『』‘’`"') for a in result.added]
    assert not any(a != b and a in b for a in items for b in items)
    assert apply_gate(config, "summary", span, METER) == result
