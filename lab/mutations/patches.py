"""The patches of the mutation catalogue (:mod:`lab.mutations.catalogue`): each breaks
one behaviour of the harness for the life of a ``with`` block, from the suite; nothing in
``harness/`` knows about them."""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

__all__ = [
    "Patch",
    "attr",
    "cutoff_ignores_pairing",
    "dsh_skips_head",
    "e3_trigger_six",
    "empty_summary",
    "flush_after_maintenance",
    "gate_off_summary",
    "keep_one_more",
    "many",
    "nested_summary",
    "nothing",
    "offload_at_limit",
    "patch_everywhere",
    "prune_at_limit",
    "ratio_property",
    "save_memory_only",
    "summary_without_usage",
    "trigger_strictly_above",
    "wrap",
    "zero_trigger_fires",
]

Patch = Callable[[], Any]
"""Returns a context manager that applies the mutation while it is open."""


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


def wrap(module: str, name: str, make: Callable[[Any], object]) -> Patch:
    def apply() -> ExitStack:
        __import__(module)
        return patch_everywhere(module, name, make(getattr(sys.modules[module], name)))

    return apply


def attr(target: str, attribute: str, make: Callable[[Any], object]) -> Patch:
    def apply() -> Any:
        module_name, _, owner = target.rpartition(".")
        module = __import__(module_name, fromlist=[owner])
        cls = getattr(module, owner)
        return mock.patch.object(cls, attribute, make(getattr(cls, attribute)))

    return apply


# --- the patches ---------------------------------------------------------------------------


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


@contextmanager
def many(*patches: Patch) -> Iterator[None]:
    with ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch())
        yield


def nothing(_original: Any) -> Any:
    return lambda *args, **kwargs: None
