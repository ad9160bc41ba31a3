"""Two of E2's rows, kept beside :mod:`experiments.e2.claims` (which lists them in its
``SPECS``): the MEMORY.md each request of a call injects, and step 4's file sizes; and the
header-format bytes both E2-SIZES and E2-S4-SIZES explain."""

from __future__ import annotations

import re
from collections import Counter

from experiments.e2.view import E2View
from harness import MemoryConfig
from harness.memory import cut_memory
from lab import Verdict

__all__ = ["DAILY", "header_bytes", "injected_previous", "s4_sizes"]

DAILY = "memory/2026-10-30.md"
FRACTION = re.compile(r"(## Memory (?:Flush|Save) — \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)Z")


def header_bytes(text: str) -> int:
    """Bytes the entry headers' fraction digits add over the seed's seconds-only format."""
    return sum(len(m.group(2)) for m in FRACTION.finditer(text))


def injected_previous(view: E2View) -> Verdict:
    """Every agent request of a chat step carries MEMORY.md as the step found it (what the
    previous call left), whatever the step itself then wrote to it."""
    cap = MemoryConfig().max_context_tokens
    parts, same, found_any = [], True, False
    for step in (s for s in view.steps if s.user):
        expected = cut_memory(step.memory_at_start, cap).strip()
        off = sum(injected != expected for injected in step.memory_injected)
        same = same and off == 0 and bool(step.memory_injected)
        found_any = found_any or bool(expected)
        carried = f"the start's {len(expected.encode())} B" if expected else "none, as at the start"
        sent = len(step.memory_injected)
        after = step.size("MEMORY.md")
        parts.append(
            f"step {step.step}: {sent - off}/{sent} requests carry {carried}, {after} B after"
        )
    return Verdict(
        "; ".join(parts),
        same and found_any,
        note="read from the HARNESS_CONTEXT block of each agent request; structural: the "
        "injection reads MEMORY.md once, at call start, so a memory_save or a consolidation "
        "of the same call shows only in the next call",
        differs_note="a request carried another MEMORY.md than the one the step found at its "
        "start, or no step found one to inject",
    )


def s4_sizes(view: E2View) -> Verdict:
    source = view.source
    s4 = view.steps[3]
    memory = (
        f"MEMORY.md {s4.size('MEMORY.md')} B"
        if s4.files["MEMORY.md"].exists
        else ("MEMORY.md absent")
    )
    tools = Counter(s4.tool_calls)
    called = ", ".join(f"{k}×{v}" for k, v in sorted(tools.items())) or "no tool"
    return Verdict(
        f"{memory} / {DAILY} {s4.size(DAILY)} B",
        differs_note=f"model output ({source}): step 4's model called {called}, so MEMORY.md "
        f"was {'rebuilt' if s4.memory_rebuilt else 'not rebuilt (only memory_save writes it)'}"
        "; the daily size adds up what every flush and memory_save of the four steps wrote "
        "(model text; our header format adds "
        f"{header_bytes(view.final_daily_text)} B of fraction digits, see E2-FLUSH-HEADER)",
    )
