"""AgentScope's trigger, cutoff and dynamic-threshold rules, as an independent model compared
with ctxlab on generated histories and configs.

The model below restates, in our words, what ``ConversationCompactor`` (``shouldCompact``,
``determineCutoffIndex``, ``findTokenBasedCutoff`` with its capped binary search,
``findMessageBasedCutoff``, ``findSafeCutoffPoint``) and ``CompactionMiddleware``
(``resolveEffectiveConfig``) do at the commit named in :mod:`conformance.agentscope_peer`. Both
sides price messages with the same meter (``agentscope-2.0.3``), so what is compared is the
rules, not the estimator.

The configs are drawn from the range AgentScope's fields document (0 turns a trigger off at
the compactor; keep 0 tokens is count mode). ctxlab refuses some that AgentScope runs; each
refusal must be one of the :data:`DEVIATIONS` classes, every one a deliberate deviation, and on
every config both accept the trigger and the cutoff must agree exactly.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from conformance.agentscope_peer import UNSAFE
from hypothesis import assume, event, given
from hypothesis import strategies as st

from harness.compaction.agentscope import CompactionConfig, Compactor, resolve_thresholds
from harness.errors import ConfigError
from harness.messages import Message, ToolCall
from harness.meter import build_meter
from harness.testing import FunctionModel

METER = build_meter("agentscope-2.0.3")
FALLBACK_TRIGGER = 160_000

# --- the reference: AgentScope's rules as read in its Java code -------------------------------


def peer_fires(count: int, tokens: int, trigger_messages: int, trigger_tokens: int) -> bool:
    """Either trigger, each on when positive, each met at ``>=``."""
    by_count = trigger_messages > 0 and count >= trigger_messages
    return by_count or (trigger_tokens > 0 and tokens >= trigger_tokens)


def peer_naive_cutoff(prices: Sequence[int], keep_messages: int, keep_tokens: int) -> int:
    n = len(prices)
    if keep_tokens <= 0:  # count mode
        return 0 if n <= keep_messages else n - keep_messages
    if sum(prices) <= keep_tokens:
        return 0
    # the earliest start whose suffix fits, by a binary search of at most bitlen(n) + 1 steps
    low, high, found = 0, n, n
    for _ in range(n.bit_length() + 1):
        if low >= high:
            break
        middle = (low + high) // 2
        if sum(prices[middle:]) <= keep_tokens:
            found, high = middle, middle
        else:
            low = middle + 1
    return min(found, n - 1)  # one message is always kept


def peer_safe_cutoff(messages: Sequence[Message], cutoff: int) -> int:
    """A cutoff on a tool result moves back to the assistant message that made one of the
    calls of the run of results starting there; with no such message, past the run."""
    if cutoff <= 0 or cutoff >= len(messages) or messages[cutoff].role != "tool":
        return cutoff
    end = cutoff
    ids = []
    while end < len(messages) and messages[end].role == "tool":
        ids.append(messages[end].tool_call_id)
        end += 1
    if not ids:
        return end
    for index in range(cutoff - 1, -1, -1):
        message = messages[index]
        if message.role == "assistant" and any(c.id in ids for c in message.tool_calls):
            return index
    return end


def peer_plan(
    messages: Sequence[Message], tm: int, tt: int, km: int, kt: int
) -> tuple[bool, int | None]:
    """(did a trigger fire, the cutoff compaction uses or None when it skips)."""
    prices = [METER.price(m) for m in messages]
    fired = peer_fires(len(messages), sum(prices), tm, tt)
    if not fired:
        return False, None
    cutoff = peer_safe_cutoff(messages, peer_naive_cutoff(prices, km, kt))
    return True, cutoff if cutoff > 0 else None


def peer_thresholds(
    window: int, reserved: int, trigger: int, keep: int, kmin: int, kmax: int, ratio: float
) -> tuple[int, int]:
    """(trigger tokens, keep tokens) after the middleware resolves the dynamic values
    (trigger 0, keep -1); keep 0 means count mode."""
    if trigger == 0:
        if window > 0:
            trigger = window - reserved
            if trigger <= 0:
                trigger = max(1, window // 2)
        else:
            trigger = FALLBACK_TRIGGER
    if keep == -1:
        keep = min(kmax, max(kmin, int((window - reserved) * ratio))) if window > 0 else 0
    return trigger, keep


# --- ctxlab on the same input ------------------------------------------------------------------


def ctxlab_config(tm: int, tt: int, km: int, kt: int) -> CompactionConfig:
    """AgentScope's compactor-level config in ctxlab's terms (token trigger 0 = off = None);
    raises ConfigError when ctxlab refuses it."""
    return CompactionConfig(
        trigger_messages=tm,
        trigger_tokens=tt if tt > 0 else None,
        keep_messages=km,
        keep_tokens=kt,
        prune=None,
        flush_before_compact=False,
        offload_before_compact=False,
        meter="agentscope-2.0.3",
    )


def ctxlab_plan(messages: Sequence[Message], config: CompactionConfig) -> tuple[bool, int | None]:
    model = FunctionModel(lambda request: AssertionError("planning makes no model call"))
    compactor = Compactor(config, resolve_thresholds(config, "unknown-model"), model)
    fired = compactor.trigger(len(messages), METER.price_all(messages)) is not None
    plan = compactor.plan(messages)
    return fired, None if plan is None else plan.cutoff.index


DEVIATIONS = {
    "keep not below trigger": UNSAFE + ": the kept tail fires the trigger again (see "
    "test_agentscope_middleware.KEEP_NOT_BELOW_TRIGGER)",
    "keep 0 messages in count mode": UNSAFE + ": the request being answered would be folded "
    "into the summary, leaving the model a summary and no message to answer",
    "both triggers off": UNSAFE + ": the config reads as 'compaction off', yet the overflow "
    "retry would still summarise the history away; ctxlab says how to turn compaction off "
    "(engine=None, disable_compaction=True)",
}


def refusal_class(tm: int, tt: int, km: int, kt: int) -> str:
    """Which deliberate deviation a refused config falls under."""
    if tm == 0 and tt <= 0:
        return "both triggers off"
    if kt <= 0 and km == 0:
        return "keep 0 messages in count mode"
    if (kt > 0 and 0 < tt <= kt) or (kt <= 0 and 0 < tm <= km):
        return "keep not below trigger"
    raise AssertionError(f"ctxlab refuses a config for no deliberate reason: {(tm, tt, km, kt)}")


# --- generated histories -----------------------------------------------------------------------


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    """User and assistant turns, assistant calls with some of their results in any order,
    and now and then a result whose call is nowhere (a broken history AgentScope tolerates)."""
    ids = itertools.count()
    messages: list[Message] = []
    for kind in draw(st.lists(st.sampled_from("uacco"), max_size=16)):
        text = "x" * draw(st.integers(0, 120))
        if kind == "u":
            messages.append(Message.user(text))
        elif kind == "a":
            messages.append(Message.assistant(text or "ok"))
        elif kind == "c":
            calls = [ToolCall(f"c{next(ids)}", "lookup") for _ in range(draw(st.integers(1, 3)))]
            messages.append(Message.assistant("", calls))
            answered = draw(st.permutations(calls))[: draw(st.integers(0, len(calls)))]
            messages += [Message.tool(c.id, text, tool_name="lookup") for c in answered]
        else:
            messages.append(Message.tool(f"lost{next(ids)}", text, tool_name="lookup"))
    return messages


configs = st.tuples(
    st.integers(0, 12),  # trigger messages
    st.one_of(st.just(0), st.integers(1, 600)),  # trigger tokens (0: off)
    st.integers(0, 12),  # keep messages
    st.one_of(st.just(0), st.integers(1, 600)),  # keep tokens (0: count mode)
)


@given(histories(), configs)
def test_trigger_and_cutoff_agree_on_every_config_both_accept(
    messages: list[Message], config: tuple[int, int, int, int]
) -> None:
    try:
        ours = ctxlab_config(*config)
    except ConfigError:
        event(f"refused: {refusal_class(*config)}")
        assume(False)
        return
    fired, cutoff = peer_plan(messages, *config)
    event(f"fired: {fired}, compacts: {cutoff is not None}")
    assert ctxlab_plan(messages, ours) == (fired, cutoff)


def test_every_refused_config_is_a_deliberate_deviation() -> None:
    """A census of 5,000 configs drawn (seeded) from the ranges above."""
    draw = random.Random(2_030).randint
    refused: dict[str, int] = dict.fromkeys(DEVIATIONS, 0)
    for _ in range(5_000):
        config = (draw(0, 12), draw(0, 600) * draw(0, 1), draw(0, 12), draw(0, 600) * draw(0, 1))
        try:
            ctxlab_config(*config)
        except ConfigError:
            refused[refusal_class(*config)] += 1
    # the counts docs/conformance.md gives: 2,893 accepted, 2,107 refused
    assert refused == {
        "keep not below trigger": 1_689,
        "keep 0 messages in count mode": 208,
        "both triggers off": 210,
    }


@given(
    window=st.one_of(st.just(0), st.integers(1, 300_000)),
    reserved=st.integers(0, 60_000),
    trigger=st.one_of(st.just(0), st.integers(1, 200_000)),
    keep=st.one_of(st.just(-1), st.just(0), st.integers(1, 9_000)),
    kmin=st.integers(1, 10_000),
    spread=st.integers(0, 10_000),
    ratio=st.floats(0.01, 1.0),
)
def test_dynamic_thresholds_agree(
    window: int, reserved: int, trigger: int, keep: int, kmin: int, spread: int, ratio: float
) -> None:
    kmax = kmin + spread
    config = (
        CompactionConfig(
            trigger_tokens=trigger,
            keep_tokens="dynamic" if keep == -1 else keep,
            reserved=reserved,
            keep_tokens_min=kmin,
            keep_tokens_max=kmax,
            keep_tokens_ratio=ratio,
            keep_messages=20,
            trigger_messages=50,
        )
        if not (keep > 0 and 0 < trigger <= keep)
        else None
    )
    if config is None:
        event("refused: keep not below trigger")
        return
    ours = resolve_thresholds(config, "m", {"m": window})
    assert (ours.trigger_tokens, ours.keep_tokens) == peer_thresholds(
        window, reserved, trigger, keep, kmin, kmax, ratio
    )
