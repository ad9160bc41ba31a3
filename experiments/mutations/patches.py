"""The patches of the mutation catalogue (:mod:`experiments.mutations.catalogue`): each breaks
one behaviour of the harness for the life of a ``with`` block, from the suite; nothing in
``harness/`` knows about them. The generic tools they are built with are lab's
(:mod:`lab.mutations.patching`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any
from unittest import mock

from lab import Patch, attr

__all__ = [
    "cutoff_ignores_pairing",
    "dsh_skips_head",
    "e3_trigger_six",
    "empty_summary",
    "flush_after_maintenance",
    "gate_off_summary",
    "keep_one_more",
    "nested_summary",
    "offload_at_limit",
    "prune_at_limit",
    "ratio_property",
    "save_memory_only",
    "summary_without_usage",
    "trigger_strictly_above",
    "zero_trigger_fires",
]


def cutoff_ignores_pairing(original: Any) -> Any:
    from harness.compaction.agentscope import Cutoff

    def cutoff(messages: Sequence[Any], keep_messages: int, *args: Any, **kw: Any) -> Any:
        found = original(messages, keep_messages, *args, **kw)
        return Cutoff(found.naive_index, found.naive_index, found.reason)

    return cutoff


def keep_one_more(original: Any) -> Any:
    def cutoff(messages: Sequence[Any], keep_messages: int, *args: Any, **kw: Any) -> Any:
        return original(messages, keep_messages + 1, *args, **kw)

    return cutoff


def trigger_strictly_above(_original: Any) -> Any:
    def trigger(self: Any, count: int, tokens: int) -> str | None:
        limits, fired = self.thresholds, []
        if limits.trigger_messages and count > limits.trigger_messages:
            fired.append("messages")
        if limits.trigger_tokens is not None and tokens > limits.trigger_tokens:
            fired.append("tokens")
        return "+".join(fired) or None

    return trigger


def zero_trigger_fires(_original: Any) -> Any:
    def trigger(self: Any, count: int, tokens: int) -> str | None:
        limits, fired = self.thresholds, []
        if count >= limits.trigger_messages:  # 0 no longer means "off"
            fired.append("messages")
        if limits.trigger_tokens is not None and tokens >= limits.trigger_tokens:
            fired.append("tokens")
        return "+".join(fired) or None

    return trigger


def e3_trigger_six() -> Any:
    import experiments.e3 as e3

    return mock.patch.object(e3, "CONFIG", dataclasses.replace(e3.CONFIG, trigger_messages=6))


def empty_summary(_original: Any) -> Any:
    return lambda text: ""


def nested_summary(original: Any) -> Any:
    from harness.compaction.agentscope import SUMMARY_PREFIX

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


def dsh_skips_head(original: Any) -> Any:
    def select(nodes: Any, measurement: Any, retain_tokens: int) -> Any:
        found = original(nodes, measurement, retain_tokens)
        if found is None or found.end < 1:
            return found
        return dataclasses.replace(found, start=1, seqs=found.seqs[1:])

    return select


def ratio_property(attribute: str, ratio: float) -> Patch:
    def make(_original: Any) -> property:
        def value(self: Any) -> int:
            if attribute == "retain" and self.retain_tokens is not None:
                return int(self.retain_tokens)
            return math.floor(self.context_window * ratio)

        return property(value)

    return attr("harness.compaction.dsh.config.DshConfig", attribute, make)


def prune_at_limit(original: Any) -> Any:
    def prune(messages: Sequence[Any], config: Any) -> Any:
        # one char fewer allowed: results of exactly max_output_chars are pruned too
        limit = dataclasses.replace(config, max_output_chars=max(1, config.max_output_chars - 1))
        return original(messages, limit)

    return prune


def offload_at_limit(_original: Any) -> Any:
    from harness.tools import LargeResultOffloader

    apply = LargeResultOffloader.apply

    def offload(self: Any, message: Any) -> Any:
        return apply(dataclasses.replace(self, max_chars=self.max_chars - 1), message)

    return offload


def gate_off_summary(original: Any) -> Any:
    return lambda config, *args: original(None, *args)


def flush_after_maintenance(original: Any) -> Any:
    def after_call(self: Any, flush: Any, maintenance: Any) -> None:
        if self.order == "flush_first":
            self._submit(lambda: (self._guarded(maintenance), self._guarded(flush)))
            return
        original(self, flush, maintenance)

    return after_call


def save_memory_only(_original: Any) -> Any:
    def memory_save(self: Any, content: str) -> str:
        text = content.strip()
        if not text:
            return "Error: nothing to save"
        self.workspace.append_memory(text)  # today's ledger never gets its Memory Save entry
        return "Saved to MEMORY.md"

    return memory_save


def summary_without_usage(original: Any) -> Any:
    def summary_data(self: Any, *args: Any) -> dict[str, object]:
        data: dict[str, object] = original(self, *args)
        return {key: value for key, value in data.items() if key != "usage"}

    return summary_data
