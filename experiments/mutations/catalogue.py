"""The mutation catalogue: one behaviour of the harness broken on purpose, per entry.

Each :class:`Mutation` is a patch applied from the suite (``unittest.mock``-style, for the length
of a ``with`` block, in the process that runs it); nothing in ``harness/`` knows about them. A
mutation names the claims that must flip (``must_flip``: ``<claim id>`` or
``<claim id>@<model>``); :mod:`experiments.mutations.matrix` runs every experiment under it with
the recorded answers served in order (:mod:`experiments.recorder.order_replay`) and says which
claims flipped. ``tests/test_mutations.py`` fails when a named claim did not flip, or when a
mutation flips nothing.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any
from unittest import mock

__all__ = ["MUTATIONS", "Mutation", "by_name", "patch_everywhere"]

Patch = Callable[[], Any]
"""Returns a context manager that applies the mutation while it is open."""


@dataclass(frozen=True)
class Mutation:
    """One behaviour of the harness broken, and the claims that must notice."""

    name: str
    what: str
    """The behaviour broken, in one sentence."""
    apply: Patch
    must_flip: tuple[str, ...]
    """Claims whose status must change (``ID`` for every model, ``ID@model`` for one)."""
    gap: str = ""
    """Why no claim catches this mutation yet (its test is then an expected failure, strict:
    it fails the day a claim starts catching it, so the gap is closed on purpose)."""


def patch_everywhere(module: str, name: str, new: object) -> ExitStack:
    """Replace ``module.name`` and every other loaded module's binding of the same object
    (``from module import name`` copies it), for the life of the returned stack."""
    __import__(module)
    original = getattr(sys.modules[module], name)
    stack = ExitStack()
    for loaded in list(sys.modules.values()):
        namespace = getattr(loaded, "__dict__", None)
        if namespace is not None and namespace.get(name) is original:
            stack.enter_context(mock.patch.object(loaded, name, new))
    return stack


def _wrap(module: str, name: str, make: Callable[[Any], object]) -> Patch:
    def apply() -> ExitStack:
        __import__(module)
        return patch_everywhere(module, name, make(getattr(sys.modules[module], name)))

    return apply


def _attr(target: str, attribute: str, make: Callable[[Any], object]) -> Patch:
    def apply() -> Any:
        module_name, _, owner = target.rpartition(".")
        module = __import__(module_name, fromlist=[owner])
        cls = getattr(module, owner)
        return mock.patch.object(cls, attribute, make(getattr(cls, attribute)))

    return apply


# --- the patches ---------------------------------------------------------------------------


def _cutoff_ignores_pairing(original: Any) -> Any:
    from harness.compaction.agentscope.cutoff import Cutoff

    def cutoff(messages: Sequence[Any], keep_messages: int, *args: Any, **kw: Any) -> Any:
        found = original(messages, keep_messages, *args, **kw)
        return Cutoff(found.naive_index, found.naive_index, found.reason)

    return cutoff


def _keep_one_more(original: Any) -> Any:
    def cutoff(messages: Sequence[Any], keep_messages: int, *args: Any, **kw: Any) -> Any:
        return original(messages, keep_messages + 1, *args, **kw)

    return cutoff


def _trigger_strictly_above(_original: Any) -> Any:
    def trigger(self: Any, count: int, tokens: int) -> str | None:
        limits, fired = self.thresholds, []
        if limits.trigger_messages and count > limits.trigger_messages:
            fired.append("messages")
        if limits.trigger_tokens is not None and tokens > limits.trigger_tokens:
            fired.append("tokens")
        return "+".join(fired) or None

    return trigger


def _zero_trigger_fires(_original: Any) -> Any:
    def trigger(self: Any, count: int, tokens: int) -> str | None:
        limits, fired = self.thresholds, []
        if count >= limits.trigger_messages:  # 0 no longer means "off"
            fired.append("messages")
        if limits.trigger_tokens is not None and tokens >= limits.trigger_tokens:
            fired.append("tokens")
        return "+".join(fired) or None

    return trigger


def _e3_trigger_six() -> Any:
    import experiments.e3 as e3

    return mock.patch.object(e3, "CONFIG", dataclasses.replace(e3.CONFIG, trigger_messages=6))


def _empty_summary(_original: Any) -> Any:
    return lambda text: ""


def _nested_summary(original: Any) -> Any:
    from harness.compaction.agentscope.summary import SUMMARY_PREFIX

    def build(self: Any, plan: Any, summary: Any) -> Any:
        done = original(self, plan, summary)
        old = next((m for m in plan.prefix if m.is_summary), None)
        if old is None:
            return done
        head = done.messages[0]
        body = head.content[len(SUMMARY_PREFIX) :]
        nested = dataclasses.replace(head, content=f"{SUMMARY_PREFIX}\n\n{old.content}\n\n{body}")
        return dataclasses.replace(done, messages=(nested, *done.messages[1:]))

    return build


def _dsh_skips_head(original: Any) -> Any:
    def select(nodes: Any, measurement: Any, retain_tokens: int) -> Any:
        found = original(nodes, measurement, retain_tokens)
        if found is None or found.end < 1:
            return found
        return dataclasses.replace(found, start=1, seqs=found.seqs[1:])

    return select


def _ratio_property(attribute: str, ratio: float) -> Patch:
    def make(_original: Any) -> property:
        def value(self: Any) -> int:
            if attribute == "retain" and self.retain_tokens is not None:
                return int(self.retain_tokens)
            return math.floor(self.context_window * ratio)

        return property(value)

    return _attr("harness.compaction.dsh.config.DshConfig", attribute, make)


def _prune_at_limit(original: Any) -> Any:
    def prune(messages: Sequence[Any], config: Any) -> Any:
        # one char fewer allowed: results of exactly max_output_chars are pruned too
        limit = dataclasses.replace(config, max_output_chars=max(1, config.max_output_chars - 1))
        return original(messages, limit)

    return prune


def _offload_at_limit(_original: Any) -> Any:
    from harness.tool_offload import LargeResultOffloader

    apply = LargeResultOffloader.apply

    def offload(self: Any, message: Any) -> Any:
        return apply(dataclasses.replace(self, max_chars=self.max_chars - 1), message)

    return offload


def _gate_off_summary(original: Any) -> Any:
    return lambda config, *args: original(None, *args)


def _flush_after_maintenance(original: Any) -> Any:
    def after_call(self: Any, flush: Any, maintenance: Any) -> None:
        if self.order == "flush_first":
            self._submit(lambda: (self._guarded(maintenance), self._guarded(flush)))
            return
        original(self, flush, maintenance)

    return after_call


def _save_memory_only(_original: Any) -> Any:
    def memory_save(self: Any, content: str) -> str:
        text = content.strip()
        if not text:
            return "Error: nothing to save"
        self.workspace.append_memory(text)  # today's ledger never gets its Memory Save entry
        return "Saved to MEMORY.md"

    return memory_save


def _summary_without_usage(original: Any) -> Any:
    def summary_data(self: Any, *args: Any) -> dict[str, object]:
        data: dict[str, object] = original(self, *args)
        return {key: value for key, value in data.items() if key != "usage"}

    return summary_data


@contextmanager
def _many(*patches: Patch) -> Iterator[None]:
    with ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch())
        yield


def _nothing(_original: Any) -> Any:
    return lambda *args, **kwargs: None


# --- the catalogue -------------------------------------------------------------------------

_AS = "harness.compaction.agentscope"
MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "CUTOFF_IGNORES_PAIRING",
        "the safe cutoff ignores tool pairing (the naive cutoff is used as is)",
        _wrap(f"{_AS}.cutoff", "find_safe_cutoff", _cutoff_ignores_pairing),
        ("X-THRASH-PAIRS",),
    ),
    Mutation(
        "E3_TRIGGER_6",
        "E3's message trigger is 6 instead of 5",
        _e3_trigger_six,
        ("E3-FIRST", "E3-EVERY", "E3-VISIBLE", "E3-FINAL-MSGS"),
    ),
    Mutation(
        "TRIGGER_STRICT",
        "the count and token triggers fire on > instead of >=",
        _attr(f"{_AS}.compactor.Compactor", "trigger", _trigger_strictly_above),
        (
            "E1-TRIGGER-EDGE",
            "E5-CADENCE-5-2",
            "E5-CADENCE-13-2",
            "X-THRASH-REFILL",
            "E3-FIRST",
            "E3-EVERY",
        ),
    ),
    Mutation(
        "ZERO_TRIGGER_FIRES",
        "triggerMessages=0 fires on every request instead of turning the count trigger off",
        _attr(f"{_AS}.compactor.Compactor", "trigger", _zero_trigger_fires),
        ("E1-TRIGGER-OFF",),
    ),
    Mutation(
        "EMPTY_SUMMARY",
        "the summary text is empty (whatever the model answered)",
        _wrap(f"{_AS}.summary", "_strip_prefix", _empty_summary),
        ("E1-AFTER", "E3-SUMMARY-MSG"),
    ),
    Mutation(
        "NO_WATERMARK",
        "consolidation never writes the watermark",
        _attr("harness.memory.workspace.MemoryWorkspace", "write_watermark", _nothing),
        ("E2-S2-WATERMARK", "E5-CONSOLIDATE-FAIL", "AS-CONSOLIDATE-FRESHNESS"),
    ),
    Mutation(
        "DSH_SKIPS_HEAD",
        "the DSH replace skips the head node (replaces positions 1..end)",
        _wrap("harness.compaction.dsh.selection", "select_compactable_range", _dsh_skips_head),
        ("DSH-OVERFLOW", "DSH-RANGE@qwen2.5-coder-1.5b-instruct-q4_k_m", "DSH-CACHE"),
    ),
    Mutation(
        "NO_REPLY_IGNORED",
        "a flush answering NO_REPLY is written to the ledger",
        lambda: mock.patch("harness.memory.flush.NO_REPLY", "\x00never"),
        ("AS-FLUSH-NO-REPLY",),
    ),
    Mutation(
        "INJECTION_UNCAPPED",
        "MEMORY.md is injected whole, the injection cap ignored",
        _wrap("harness.memory.injection", "cut_memory", lambda _o: lambda text, cap: text),
        ("AS-INJECT",),
    ),
    Mutation(
        "DSH_PRESSURE_0_9",
        "the DSH pressure threshold is 0.9 of the window instead of 0.8",
        _ratio_property("threshold", 0.9),
        ("DSH-PRESSURE",),
    ),
    Mutation(
        "DSH_RETAIN_0_2",
        "the DSH retain budget is 0.2 of the window instead of 0.16",
        _ratio_property("retain", 0.2),
        ("DSH-PRESSURE",),
    ),
    Mutation(
        "SUMMARY_NESTED",
        "an old summary is nested inside the new one instead of merged into it",
        _attr(f"{_AS}.compactor.Compactor", "build", _nested_summary),
        ("X-THRASH-TOKENS", "E3-SUMMARY-MERGED"),
    ),
    Mutation(
        "PRUNE_OFF_BY_ONE",
        "a tool result of exactly the prune limit is pruned (> became >=)",
        _wrap(f"{_AS}.prune", "prune_tool_results", _prune_at_limit),
        ("AS-PRUNE-DEFAULTS",),
    ),
    Mutation(
        "OFFLOAD_OFF_BY_ONE",
        "a tool result of exactly the offload threshold is offloaded (> became >=)",
        _attr("harness.tool_offload.LargeResultOffloader", "apply", _offload_at_limit),
        (),
        gap=(
            "E5-OFFLOAD offloads a 300,000-character result, far above the 80,000 threshold; "
            "no row probes the threshold itself (the seed built no large sample: "
            "本课没构造大工具结果样本)"
        ),
    ),
    Mutation(
        "INTERRUPTED_LEFT_OPEN",
        "a tool call a crash interrupted is left open (no synthetic result)",
        _wrap("harness.interrupted", "pending_calls", lambda _o: lambda messages: []),
        (),
        gap=(
            "closing an interrupted call is crash hardening of ctxlab; no claim replays a "
            "crashed session (tests/test_interrupted_calls.py guards it)"
        ),
    ),
    Mutation(
        "LOCK_UNCHECKED",
        "the compaction lock (an unclosed compaction/start) is not checked",
        _wrap("harness.store.eventlog.bracket", "refuse_if_busy", _nothing),
        (),
        gap=(
            "the DSH lock probe of E5 raises (SummaryError) instead of judging, so the "
            "mutation stops E5 before DSH-LOCK is judged: caught, but as an abort"
        ),
    ),
    Mutation(
        "GATE_OFF",
        "the identifier-survival gate is switched off whatever the config says",
        lambda: _many(
            _wrap("harness.compaction.gate", "gated_summary", _gate_off_summary),
            _wrap("harness.compaction.gate", "gated_checkpoint", _gate_off_summary),
        ),
        ("X-GATE-E4-AS-ON", "X-GATE-E4-DSH-ON@qwen2.5-coder-1.5b-instruct-q4_k_m"),
    ),
    Mutation(
        "FLUSH_AFTER_MAINTENANCE",
        "the flush runs after maintenance when the order says flush first",
        _attr("harness.memory.background.BackgroundTasks", "after_call", _flush_after_maintenance),
        ("E5-ORDER-FLUSH-FIRST",),
    ),
    Mutation(
        "KEEP_ONE_MORE",
        "the compactor keeps one message more than keep_messages",
        _wrap(f"{_AS}.cutoff", "find_safe_cutoff", _keep_one_more),
        (
            "E1-NAIVE",
            "E1-REASON",
            "E1-DEFAULT-REMOVES",
            "E3-EVERY",
            "E3-AT-COMPACTION",
            "E5-CADENCE-6-2",
        ),
    ),
    Mutation(
        "FLUSH_SKIPPED",
        "the pre-compaction memory flush never runs",
        _attr("harness.memory.runtime.MemoryRuntime", "flush_prefix", _nothing),
        (),
        gap=(
            "no row covers the pre-compaction flush yet (flushBeforeCompact of the seed, best"
            " effort): the flushes of E2 are the after-call ones"
        ),
    ),
    Mutation(
        "THRASH_GUARD_OFF",
        "the thrash guard lets every compaction run",
        _wrap("harness.compaction.thrash", "allows", lambda _o: lambda *args: True),
        ("X-THRASH-GUARDED", "X-THRASH-REFILL", "X-THRASH-SKIPS"),
    ),
    Mutation(
        "CONSOLIDATION_SKIPPED",
        "maintenance never consolidates (the schedule never claims)",
        _attr(
            "harness.memory.consolidation.MaintenanceSchedule",
            "try_claim",
            lambda _o: lambda self: False,
        ),
        ("AS-CONSOLIDATE-CADENCE", "E2-S1-SKIP-LOG", "E5-ORDER-MAINTENANCE-FIRST"),
    ),
    Mutation(
        "PAIRING_CHECK_OFF",
        "the DSH pairing back-off is off (a cut may separate a call from its result)",
        _wrap(
            "harness.compaction.dsh.selection",
            "tool_pairing_balanced_before",
            lambda _o: lambda messages, cut: True,
        ),
        ("DSH-RANGE-BACKOFF",),
    ),
)


MUTATIONS += (
    Mutation(
        "MEMORY_SAVE_NO_LEDGER",
        "memory_save writes MEMORY.md but not today's ledger",
        _attr("harness.memory.tools.MemoryTools", "memory_save", _save_memory_only),
        ("AS-MEMORY-SAVE",),
    ),
    Mutation(
        "DSH_SUMMARY_NO_USAGE",
        "the DSH compaction/summary event leaves out the summary call's usage",
        _attr("harness.compaction.dsh.engine.DshEngine", "_summary_data", _summary_without_usage),
        ("DSH-SUMMARY-EVENT@qwen2.5-coder-1.5b-instruct-q4_k_m",),
    ),
)


def by_name(name: str) -> Mutation:
    """The mutation called ``name``; KeyError naming the known ones otherwise."""
    for mutation in MUTATIONS:
        if mutation.name == name:
            return mutation
    raise KeyError(f"no mutation {name!r}; known: {', '.join(m.name for m in MUTATIONS)}")
