"""X-BENCH's conditions, every one at the same budget (the same trigger and the same kept tail).

A :class:`Budget` is chosen per size (:data:`BUDGETS`); every condition fires when the history's
estimate (AgentScope 2.0.3's estimator, the meter of every condition here) reaches
``trigger_tokens`` and keeps about ``keep_tokens`` verbatim:

* ``full`` — no compaction (the sanity ceiling);
* ``truncation`` — the last whole turns within the tail (:class:`~.baselines.TruncationEngine`);
* ``masking`` — old tool outputs masked (JetBrains' baseline, :class:`~.baselines.MaskingEngine`);
* ``gate`` — the gate alone: AgentScope's engine whose summary model is scripted (a fixed
  placeholder, no model call), so what survives is what ctxlab's identifier gate appends;
* ``ctxlab-pin`` — the pin alone on the same placeholder: the user's own turns verbatim
  (:mod:`harness.compaction.guards.pin`);
* ``ctxlab-recall`` — the recall alone on the same placeholder: replaced turns recalled from the
  log before each request and the probe (:mod:`harness.compaction.guards.recall`);
* ``ctxlab-gate`` — every model-free part of ctxlab's profile together: the gate as ctxlab's
  profile sets it (definitions, reasons and rules too:
  :data:`~harness.compaction.agentscope.CTXLAB_GATE`, its budget a share of the room), the pin
  and the recall (:func:`model_free_config`);
* ``ctxlab-gate-nodefs`` — the same with the gate's definition patterns off (the switch);
* ``agentscope`` — AgentScope 2.0.3 (the article's profile: its prompt, no gate, no size check);
* ``agentscope+gate`` — the same with the gate on;
* ``dsh`` / ``dsh+gate`` — DeepSeek-Harness's engine (window = trigger / 0.8, retain = tail);
* ``ctxlab`` — ctxlab's own profile (:func:`~harness.compaction.agentscope.ctxlab_profile`:
  gate and thrash guard) at the budget, as recorded (no pin, no recall);
* ``ctxlab+pin+recall`` — ctxlab's profile with the pin and the recall of the model-free
  conditions (:func:`candidate_config`): the candidate for ctxlab's profile, recorded on the
  held-out split before it becomes the default;
* ``ctxlab+quotes`` — ctxlab's profile with verified quotes (:func:`quotes_config`), recorded on
  the held-out split first;
* ``reference`` — AgentScope's engine with a published structured prompt: CompactBench 0.1.0's
  ``hybrid-ledger`` extraction prompt (:func:`reference_prompt`, read from the installed package).

The first eight need no model for their compactions (:attr:`Condition.needs_model` False); the
others' summaries are calls to the recorded summary model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from experiments.x_bench import installed_text
from experiments.x_bench.baselines import MaskingEngine, TruncationEngine
from harness import CompactionConfig, CompactionEngine, ConfigError, DshConfig, make_engine
from harness.compaction.agentscope import CTXLAB_GATE, ctxlab_profile
from harness.compaction.guards.gate import GateConfig
from harness.compaction.guards.pin import PinConfig
from harness.compaction.guards.quotes import QuoteConfig
from harness.compaction.guards.recall import RecallConfig
from harness.model import ChatModel
from harness.store.history import History

__all__ = [
    "BUDGETS",
    "CANDIDATE",
    "CONDITIONS",
    "GATE_ONLY_SUMMARY",
    "MODEL_FREE",
    "QUOTES",
    "REFERENCE_PLACEHOLDER",
    "REFERENCE_SOURCE",
    "Budget",
    "Condition",
    "budget_for",
    "candidate_config",
    "ctxlab_condition",
    "reference_prompt",
]

METER = "agentscope-2.0.3"


@dataclass(frozen=True)
class Budget:
    """When every condition compacts and how much tail it keeps (estimator tokens)."""

    trigger_tokens: int
    keep_tokens: int


BUDGETS: dict[str, Budget] = {
    "2k": Budget(1_000, 300),
    "8k": Budget(2_400, 720),
    "24k": Budget(4_000, 1_200),
}
"""Per corpus size; the 8K and 24K conversations go through three cycles or more."""


def budget_for(size: str, tokens: int) -> Budget:
    """The budget of a conversation: its size's, or for a user's own conversation about 40 % of
    its tokens as trigger and 30 % of that as tail (at least 400 / 120)."""
    if size in BUDGETS:
        return BUDGETS[size]
    trigger = max(400, tokens * 2 // 5)
    return Budget(trigger, max(120, trigger * 3 // 10))


GATE_ONLY_SUMMARY = "(no summary: the gate alone)"
"""The scripted summary of the gate-alone condition (no model call)."""

REFERENCE_SOURCE = (
    "CompactBench 0.1.0 (Apache-2.0, pypi.org/project/compactbench), "
    "compactbench/compactors/hybrid_ledger.py, _DELTA_PROMPT"
)
REFERENCE_PLACEHOLDER = "{transcript}"
"""Where CompactBench's prompt puts the conversation; ours is ``{messages}``."""
REFERENCE_CONSTANT = ("compactbench.compactors.hybrid_ledger", "_DELTA_PROMPT")  # module, name


def reference_prompt() -> str:
    """CompactBench's ``hybrid-ledger`` extraction prompt, read from the installed package
    (the ``compactbench`` extra; no copy of its text is in this repository), with its
    ``{transcript}`` placeholder as our ``{messages}``. Used as one summary call per compaction
    through our own client: its second call (a 2–3 sentence header) and its ledger merge across
    cycles are left out (AgentScope's engine merges the earlier summary into the next span
    instead). Without the package: one sentence, :class:`~harness.errors.ConfigError`. Read
    from the module's source, not imported (:mod:`~experiments.x_bench.installed_text`)."""
    try:
        prompt = installed_text.constant(*REFERENCE_CONSTANT)
    except LookupError:  # no prompt, so no placeholder: refused below
        prompt = ""
    if prompt is None:
        raise ConfigError(
            "the reference condition reads CompactBench's prompt from the installed package: "
            "pip install 'ctxlab[compactbench]'"
        )
    if prompt.count(REFERENCE_PLACEHOLDER) != 1:
        raise ConfigError(
            f"CompactBench's hybrid-ledger prompt has no single {REFERENCE_PLACEHOLDER} (a "
            "version other than 0.1.0?)"
        )
    return prompt.replace(REFERENCE_PLACEHOLDER, "{messages}")


REFERENCE_MAX_TOKENS = 2_048
"""The reference call's cap on its answer: CompactBench 0.1.0's ``CompletionRequest``
default (``compactbench/providers/base.py``), which its hybrid-ledger call does not override.
Its ``response_format={"type": "json_object"}`` is left out: our client sends none."""


def agentscope_config(budget: Budget, **changes: object) -> CompactionConfig:
    """AgentScope 2.0.3's compaction at ``budget``: token trigger only, token tail, its
    estimator, no memory flush or transcript record (X-BENCH has no memory)."""
    fields: dict[str, object] = {
        "trigger_messages": 0,
        "trigger_tokens": budget.trigger_tokens,
        "keep_tokens": budget.keep_tokens,
        "flush_before_compact": False,
        "offload_before_compact": False,
        "meter": METER,
    }
    return CompactionConfig(**(fields | changes))  # type: ignore[arg-type]


def ctxlab_config(budget: Budget) -> CompactionConfig:
    """ctxlab's own profile (gate and thrash guard on) at ``budget``, **as recorded**: without
    the pin and the recall whatever ``ctxlab_profile()`` becomes, so its cassettes replay."""
    return replace(
        ctxlab_profile(),
        pin=None,
        recall=None,
        trigger_messages=0,
        trigger_tokens=budget.trigger_tokens,
        keep_tokens=budget.keep_tokens,
        flush_before_compact=False,
        offload_before_compact=False,
        meter=METER,
    )


CANDIDATE = "ctxlab+pin+recall"
"""The candidate for ctxlab's profile (:func:`candidate_config`)."""


def candidate_config(budget: Budget) -> CompactionConfig:
    """``ctxlab+pin+recall``: :func:`ctxlab_config` with the pin and the recall of the
    model-free conditions (:func:`pin_for`, :func:`recall_for`; shares chosen on the tune split
    only). Room: the summary (gate included) 40 %, the pin 20 %, the recall 15 %."""
    return replace(ctxlab_config(budget), pin=pin_for(budget), recall=recall_for(budget))


QUOTES = "ctxlab+quotes"
"""ctxlab's profile with verified quotes (:func:`quotes_config`)."""


def quotes_config(budget: Budget) -> CompactionConfig:
    """``ctxlab+quotes``: :func:`ctxlab_config` with verified quotes
    (:mod:`harness.compaction.guards.quotes`): the summary proposes lines of its span, and only
    those found there verbatim are kept, within the room the summary budget left."""
    return replace(ctxlab_config(budget), quotes=QuoteConfig())


GATE_SHARE = 0.3
"""``ctxlab-gate``'s gate budget, as a share of the room between the tail and the trigger
(:data:`~harness.compaction.agentscope.CTXLAB_GATE`'s fixed 320 tokens were 46 % of the 2K
room); chosen with :data:`PIN_SHARE` and :data:`RECALL_SHARE` on the tune corpus only."""
PIN_SHARE = 0.2
"""The model-free conditions' pin: a fifth of that room."""
RECALL_SHARE = 0.15
"""The model-free conditions' recall budget, as a share of that room."""
RECALL_TOP_K = 5


def _room(budget: Budget) -> int:
    return budget.trigger_tokens - budget.keep_tokens


def pin_for(budget: Budget) -> PinConfig:
    """The pin of the model-free conditions (:data:`PIN_SHARE`; it prices its own room)."""
    return PinConfig(share=PIN_SHARE)


def recall_for(budget: Budget) -> RecallConfig:
    """The recall at ``budget``: :data:`RECALL_SHARE` of its room, :data:`RECALL_TOP_K` turns."""
    return RecallConfig(budget_tokens=max(int(RECALL_SHARE * _room(budget)), 1), top_k=RECALL_TOP_K)


def model_free_config(
    budget: Budget, *, definitions: bool = True, pin: bool = True, recall: bool = True
) -> CompactionConfig:
    """``ctxlab-gate``: every part of ctxlab's profile that needs no model, at ``budget``: the
    gate (:data:`GATE_SHARE` of the room; its definition patterns switched by
    ``definitions``, the lead's measurement of whether they stay), the pin and the recall."""
    gate_tokens = max(int(GATE_SHARE * _room(budget)), 1)
    gate = replace(CTXLAB_GATE, budget_tokens=gate_tokens, definitions=definitions)
    return agentscope_config(
        budget,
        gate=gate,
        pin=pin_for(budget) if pin else None,
        recall=recall_for(budget) if recall else None,
    )


def dsh_config(budget: Budget, gate: GateConfig | None = None) -> DshConfig:
    """DeepSeek-Harness's compaction at ``budget``: threshold 0.8 of a window sized so that the
    threshold is the trigger, the tail as its retain budget."""
    return DshConfig(
        context_window=budget.trigger_tokens * 5 // 4,
        retain_tokens=budget.keep_tokens,
        meter=METER,
        gate=gate,
    )


EngineBuilder = Callable[[Budget, ChatModel, ChatModel | None, History], CompactionEngine | None]


@dataclass(frozen=True)
class Condition:
    """One way of managing the context, at a budget."""

    name: str
    title: str
    needs_model: bool
    """True when its compactions call the summary model (a recorded cassette replays them)."""
    store: str
    """``state`` or ``eventlog`` (DSH needs the event log)."""
    build: EngineBuilder
    scripted_summary: bool = False
    """Its summaries are :data:`GATE_ONLY_SUMMARY` (no model call): the gate-alone conditions."""
    replays_recorded: bool = True
    """False when the cassettes recorded under its name are of an earlier definition (what it
    sends changed, so they cannot replay): ``ctxlab run`` plays it model-free only, until it
    is re-recorded (``ctxlab record X-BENCH --conditions NAME``) and this is set back."""


def _engine(config_of: Callable[[Budget], CompactionConfig | DshConfig]) -> EngineBuilder:
    def build(
        budget: Budget, agent_model: ChatModel, summary: ChatModel | None, history: History
    ) -> CompactionEngine:
        return make_engine(
            config_of(budget),
            agent_model,
            history=history,
            summary_model=summary,
        )

    return build


CONDITIONS: dict[str, Condition] = {
    c.name: c
    for c in (
        Condition("full", "full context (no compaction)", False, "state", lambda *_: None),
        Condition(
            "truncation",
            "truncation (last turns within the tail)",
            False,
            "state",
            lambda b, *_: TruncationEngine(b.trigger_tokens, b.keep_tokens),
        ),
        Condition(
            "masking",
            "masking of old tool outputs",
            False,
            "state",
            lambda b, *_: MaskingEngine(b.trigger_tokens, b.keep_tokens),
        ),
        Condition(
            "gate",
            "the gate alone (no model)",
            False,
            "state",
            _engine(lambda b: agentscope_config(b, gate=GateConfig())),
            scripted_summary=True,
        ),
        Condition(
            "ctxlab-pin",
            "the pin alone on the gate's placeholder (no model)",
            False,
            "state",
            _engine(lambda b: agentscope_config(b, pin=pin_for(b))),
            scripted_summary=True,
        ),
        Condition(
            "ctxlab-recall",
            "the recall alone on the gate's placeholder (no model)",
            False,
            "state",
            _engine(lambda b: agentscope_config(b, recall=recall_for(b))),
            scripted_summary=True,
        ),
        Condition(
            "ctxlab-gate",
            "ctxlab's model-free parts: gate (definitions on), pin and recall (no model)",
            False,
            "state",
            _engine(model_free_config),
            scripted_summary=True,
        ),
        Condition(
            "ctxlab-gate-nodefs",
            "ctxlab-gate with the gate's definition patterns off (no model)",
            False,
            "state",
            _engine(lambda b: model_free_config(b, definitions=False)),
            scripted_summary=True,
        ),
        Condition(
            "agentscope", "AgentScope 2.0.3 (article)", True, "state", _engine(agentscope_config)
        ),
        Condition(
            "agentscope+gate",
            "AgentScope + gate",
            True,
            "state",
            _engine(lambda b: agentscope_config(b, gate=GateConfig())),
        ),
        Condition("dsh", "DeepSeek-Harness", True, "eventlog", _engine(dsh_config)),
        Condition(
            "dsh+gate",
            "DeepSeek-Harness + gate",
            True,
            "eventlog",
            _engine(lambda b: dsh_config(b, GateConfig())),
        ),
        Condition("ctxlab", "ctxlab's own profile", True, "state", _engine(ctxlab_config)),
        Condition(
            CANDIDATE,
            "ctxlab's profile with the pin and the recall (the candidate)",
            True,
            "state",
            _engine(candidate_config),
        ),
        Condition(
            QUOTES,
            "ctxlab's profile with verified quotes",
            True,
            "state",
            _engine(quotes_config),
        ),
        Condition(
            "reference",
            "reference prompt (CompactBench hybrid-ledger)",
            True,
            "state",
            _engine(
                lambda b: agentscope_config(
                    b, summary_prompt=reference_prompt(), summary_max_tokens=REFERENCE_MAX_TOKENS
                )
            ),
        ),
    )
}
"""Every condition, in report order."""

MODEL_FREE: tuple[str, ...] = tuple(n for n, c in CONDITIONS.items() if not c.needs_model)


def ctxlab_condition(**changes: Any) -> Condition:
    """The ``ctxlab`` condition with ``changes`` made to its profile's
    :class:`~harness.compaction.agentscope.CompactionConfig` (``summary_budget=0.3``, say), for
    what-if estimates (``scripts/xbench_whatif.py``)."""
    return replace(
        CONDITIONS["ctxlab"], build=_engine(lambda b: replace(ctxlab_config(b), **changes))
    )
