"""AgentScope mechanics the seed states, run here with scripted models.

The compaction and prune defaults, the offload path and its excluded tools, where MEMORY.md is
injected and at what cap, the flush's NO_REPLY path, memory_save, the consolidation cadence and
its MEMORY.md cap. Each is measured by running the harness (no model output involved), then
judged against the seed's words.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from experiments.e5.common import START
from experiments.e5.view.seed_memory import (
    ConsolidationCap,
    Defaults,
    Freshness,
    Injection,
    MaintenanceCadence,
    MemorySave,
    NoReply,
    OffloadPath,
    PruneRun,
    SeedMemory,
)
from harness import CompactionConfig, FunctionModel, HarnessAgent, MemoryConfig, Message, ToolCall
from harness.compaction.agentscope import prune_tool_results
from harness.memory import (
    NO_REPLY,
    Consolidator,
    MaintenanceSchedule,
    MemoryFlusher,
    MemoryTools,
    MemoryWorkspace,
    SteppingClock,
)
from harness.meter.pricers import CHARS_PER_TOKEN, estimate_message_tokens
from harness.meter.windows import RESERVED_TOKENS
from harness.model import ChatRequest
from harness.tools import OFFLOAD_EXCLUDED_TOOLS, LargeResultOffloader

PRUNE_MARKER = re.compile(r"\n\n\.\.\.\(\d+ chars pruned\)\.\.\.\n\n")
"""The marker a pruned tool result carries between its head and its tail."""

__all__ = ["measure_seed_memory"]

MINUTE = 60 * 1_000_000_000


def measure_seed_memory() -> SeedMemory:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        return SeedMemory(
            defaults=_defaults(),
            prune=_prune(),
            offload=_offload(root / "offload"),
            injection=_injection(root / "inject"),
            no_reply=_no_reply(root / "no_reply"),
            memory_save=_memory_save(root / "save"),
            cadence=_maintenance_cadence(),
            consolidation_cap=_consolidation_cap(root / "cap"),
            freshness=_freshness(root / "fresh"),
        )


def _defaults() -> Defaults:
    config = CompactionConfig()
    return Defaults(
        trigger_messages=config.trigger_messages,
        keep_messages=config.keep_messages,
        trigger_tokens=config.trigger_tokens,
        keep_tokens=config.keep_tokens,
        reserved=config.reserved,
        default_reserve=RESERVED_TOKENS,
    )


def _tool_pair(n: int, text: str) -> list[Message]:
    call = ToolCall(f"call_{n}", "lookup", f'{{"n": {n}}}')
    return [Message.assistant("", (call,)), Message.tool(call.id, text, tool_name="lookup")]


def _prune() -> PruneRun:
    config = CompactionConfig().prune
    assert config is not None
    history = [Message.user("start")]
    for n in range(12):  # 12 results of 20,000 characters: 8,000 estimated tokens each
        history += _tool_pair(n, f"row {n} " + "x" * 20_000)
    pruned = prune_tool_results(history, config)
    shrunk = [i for i, (a, b) in enumerate(zip(history, pruned, strict=True)) if a != b]
    return PruneRun(
        protect_tokens=config.protect_tokens,
        minimum_tokens=config.minimum_tokens,
        max_output_chars=config.max_output_chars,
        messages_before=len(history),
        messages_after=len(pruned),
        pruned=len(shrunk),
        newest_kept_whole=pruned[-1] == history[-1],
        pruned_chars=max((len(pruned[i].content) for i in shrunk), default=0),
        result_tokens=estimate_message_tokens(history[-1]),
        preview_chars=tuple(sorted({len(PRUNE_MARKER.sub("", pruned[i].content)) for i in shrunk})),
    )


def _offload(root: Path) -> OffloadPath:
    offloader = LargeResultOffloader(root)
    big = Message.tool("call_1", "y" * 90_000, tool_name="lookup")
    moved = offloader.apply(big)
    return OffloadPath(
        path=moved.metadata.get("offloaded_to", ""), excluded=tuple(sorted(OFFLOAD_EXCLUDED_TOOLS))
    )


def _agent(root: Path, model: FunctionModel, **memory: Any) -> HarnessAgent:
    clock = SteppingClock(START)
    return HarnessAgent(
        model,
        "system",
        workspace_root=root,
        user_id="lab-user",
        disable_compaction=True,
        clock=clock,
        schedule=MaintenanceSchedule(clock),
        memory=MemoryConfig(background_order="maintenance_first", **memory),
    )


def _injection(root: Path) -> Injection:
    """A MEMORY.md of 30,000 estimated tokens; where and how much of it reaches the request."""
    requests: list[ChatRequest] = []

    def reply(request: ChatRequest) -> str:
        requests.append(request)
        return NO_REPLY if request.purpose == "flush" else "OK"

    model = FunctionModel(reply, model_name="scripted")
    memory = "".join(f"- fact {n:05d} {'m' * 40}\n" for n in range(1_500))
    (root / "lab-user").mkdir(parents=True)
    (root / "lab-user" / "MEMORY.md").write_text(memory, encoding="utf-8")
    agent = _agent(root, model)
    agent.call("hello")
    agent.close()
    first = next(r for r in requests if r.purpose == "agent")
    carrier = [m for m in first.messages if "fact 00000" in m.content]
    return Injection(
        memory_tokens=round(len(memory) / CHARS_PER_TOKEN),
        roles=tuple(m.role for m in carrier),
        in_system=any(m.role == "system" for m in carrier),
        injected_chars=max((len(m.content) for m in carrier), default=0),
        cap_chars=int(8_000 * CHARS_PER_TOKEN),
        cap_tokens=MemoryConfig().max_context_tokens,
    )


def _no_reply(root: Path) -> NoReply:
    workspace = MemoryWorkspace(root, "lab-user", SteppingClock(START))
    model = FunctionModel(lambda request: NO_REPLY, model_name="scripted")
    entry = MemoryFlusher(model, workspace).flush([Message.user("hi"), Message.assistant("hi")])
    return NoReply(entry=entry is not None, daily_files=len(workspace.daily_files()))


def _memory_save(root: Path) -> MemorySave:
    workspace = MemoryWorkspace(root, "lab-user", SteppingClock(START))
    MemoryTools(workspace).memory_save("- 出口固定走上海港")
    daily = "".join(p.read_text(encoding="utf-8") for p in workspace.daily_files())
    return MemorySave(
        memory_has_it="上海港" in workspace.read_memory(),
        daily_save_section="## Memory Save" in daily and "上海港" in daily,
    )


def _maintenance_cadence() -> MaintenanceCadence:
    """Claims at minutes 0, 10, 29, 30, 45 and 61 of one schedule."""
    clock = SteppingClock(START, step_ns=0)
    schedule = MaintenanceSchedule(clock)
    granted = []
    for minute in (0, 10, 29, 30, 45, 61):
        clock.now = START + minute * MINUTE
        if schedule.try_claim():
            granted.append(minute)
    return MaintenanceCadence(granted_minutes=tuple(granted))


def _consolidation_cap(root: Path) -> ConsolidationCap:
    workspace = MemoryWorkspace(root, "lab-user", SteppingClock(START))
    workspace.append_entry("Memory Flush", "- fact")
    seen: list[ChatRequest] = []

    def reply(request: ChatRequest) -> str:
        seen.append(request)
        return "- fact"

    consolidator = Consolidator(FunctionModel(reply, model_name="scripted"), workspace)
    consolidator.consolidate()
    return ConsolidationCap(
        default_max_tokens=MemoryConfig().consolidation_max_tokens,
        request_max_tokens=seen[0].max_tokens if seen else None,
        prompt_says="4000 tokens" in seen[0].messages[0].content if seen else False,
    )


DAY_NS = 86_400 * 1_000_000_000
FRESHNESS_FACTS = ("old-day-fact", "first-fact", "second-fact")
"""The entries before the first consolidation: a day-old file's, then today's two."""


def _freshness(root: Path) -> Freshness:
    """An entry of the day before, two entries of today consolidated, a third appended to
    today's file, consolidated again: which entries does the second run send? (The day
    before's file was not touched after the first run's watermark: it must not come back.)"""
    clock = SteppingClock(START - DAY_NS)
    workspace = MemoryWorkspace(root, "lab-user", clock)
    inputs: list[str] = []

    def reply(request: ChatRequest) -> str:
        inputs.append(request.messages[-1].content)
        return "- merged"

    consolidator = Consolidator(FunctionModel(reply, model_name="scripted"), workspace)
    workspace.append_entry("Memory Flush", "- old-day-fact")
    clock.now = START
    workspace.append_entry("Memory Flush", "- first-fact")
    workspace.append_entry("Memory Flush", "- second-fact")
    consolidator.consolidate()
    workspace.append_entry("Memory Flush", "- third-fact")
    consolidator.consolidate()
    second = inputs[-1] if len(inputs) == 2 else ""
    sends = tuple(f for f in (*FRESHNESS_FACTS, "third-fact") if f in second)
    return Freshness(files=len(workspace.daily_files()), second_run_sends=sends)
