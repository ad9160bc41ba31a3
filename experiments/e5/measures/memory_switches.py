"""The AgentScope seed's memory switches and timing, run here on scripted HarnessAgents.

* the flush and maintenance run only after a *successful* call (onAgent, afterCompletion);
* ``disableMemoryTools`` takes the memory tools away, not the flush;
* ``flushTrigger`` throttled to 10 minutes and ``never`` (only the pre-compaction flush left),
  and ``disableMemoryHooks`` stopping flush and maintenance alike;
* maintenance moves daily files older than 90 days into ``memory/archive/`` (89, 90, 91 and 120
  days old: the edge and both sides of it);
* memory_search's ``Source:`` lines carry line numbers, each checked against the file;
* a flush that writes a date the conversation never held, consolidated into MEMORY.md;
* MEMORY.md exactly at the injection cap (8,000 tokens, 20,000 of the estimator's characters)
  and one character over it.

Each is measured from the harness with scripted models (no recorded output), then judged in
:mod:`experiments.e5.claims.memory_switches`.
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

from experiments.e5.common import START, qa_config
from experiments.e5.view.memory_switches import (
    AfterSuccess,
    Archive,
    FlushSwitches,
    InjectionEdge,
    InventedCarried,
    MemorySwitches,
    SourceLines,
    ToolsOff,
)
from harness import FunctionModel, HarnessAgent, MemoryConfig
from harness.errors import ServerError
from harness.memory import FlushPolicy, MaintenanceSchedule, MemoryTools, SteppingClock
from harness.meter.pricers import CHARS_PER_TOKEN
from harness.model import ChatRequest

__all__ = ["ARCHIVE_AGES", "INVENTED", "measure_memory_switches"]

MINUTE = 60 * 1_000_000_000
DAY = 24 * 60 * MINUTE
FACT = "我们公司出口固定走上海港，客户代号 ALPHA"
FLUSHED = "- 出口固定走上海港\n- 客户代号 ALPHA"
INVENTED = "2026-02-13"
"""The date the seed's flush invented (§4.6); the conversation below never holds it."""
ARCHIVE_AGES = (89, 90, 91, 120)
THROTTLE_MINUTES = (0, 5, 10, 16, 21)


def measure_memory_switches() -> MemorySwitches:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        return MemorySwitches(
            after_success=_after_success(root / "success"),
            tools_off=_tools_off(root / "tools"),
            flush_switches=FlushSwitches(
                THROTTLE_MINUTES,
                _throttled(root / "throttled"),
                *_never(root / "never"),
                *_hooks_off(root / "hooks"),
            ),
            archive=_archive(root / "archive"),
            source_lines=_source_lines(root / "source"),
            invented=_invented(root / "invented"),
            injection_edge=_injection_edge(root / "inject"),
        )


def _memory_model(purposes: list[str], answers: Callable[[ChatRequest], str]) -> FunctionModel:
    def reply(request: ChatRequest) -> str:
        purposes.append(request.purpose)
        return answers(request)

    return FunctionModel(reply, model_name="scripted")


def _flush_answer(request: ChatRequest) -> str:
    return FLUSHED if request.purpose == "flush" else "收到"


def _agent(root: Path, model: FunctionModel, clock: SteppingClock, **options: Any) -> HarnessAgent:
    memory = {"background_order": "maintenance_first", **options.pop("memory", {})}
    return HarnessAgent(
        model, "system", workspace_root=root, user_id="lab-user", clock=clock,
        schedule=MaintenanceSchedule(clock), memory=MemoryConfig(**memory),
        **{"disable_compaction": True, **options},
    )  # fmt: skip


def _after_success(root: Path) -> AfterSuccess:
    purposes: list[str] = []
    failing = [True]

    def answer(request: ChatRequest) -> str:
        if request.purpose == "agent" and failing[0]:
            raise ServerError("upstream failed", status_code=500)
        return _flush_answer(request)

    agent = _agent(root, _memory_model(purposes, answer), SteppingClock(START))
    error = ""
    try:
        agent.call(FACT)
    except ServerError as exc:
        error = type(exc).__name__
    agent.await_quiescence()
    flushes, maintained = purposes.count("flush"), len(agent.memory.maintenance_log)
    failing[0] = False
    agent.call(FACT)
    agent.close()
    return AfterSuccess(
        failed_error=error,
        failed_flushes=flushes,
        failed_maintenance=maintained,
        ok_flushes=purposes.count("flush") - flushes,
        ok_maintenance=len(agent.memory.maintenance_log) - maintained,
    )


def _tool_names(request: ChatRequest) -> set[str]:
    return {str(s.get("function", s).get("name", "")) for s in request.tools}


def _tools_off(root: Path) -> ToolsOff:
    requests: list[ChatRequest] = []

    def answer(request: ChatRequest) -> str:
        requests.append(request)
        return _flush_answer(request)

    on = _agent(root / "on", FunctionModel(answer), SteppingClock(START))
    memory_tools = {t.name for t in on.memory.tools()}
    on.call(FACT)
    on.close()
    offered_on = _tool_names(requests[0]) & memory_tools
    requests.clear()
    agent = _agent(root / "off", FunctionModel(answer), SteppingClock(START),
                   disable_memory_tools=True)  # fmt: skip
    agent.call(FACT)
    agent.close()
    daily = "".join(p.read_text(encoding="utf-8") for p in agent.workspace.daily_files())
    return ToolsOff(
        memory_tools_offered=tuple(sorted(_tool_names(requests[0]) & memory_tools)),
        memory_tools_when_on=tuple(sorted(offered_on)),
        flushes=sum(r.purpose == "flush" for r in requests),
        flush_written="## Memory Flush" in daily and "上海港" in daily,
    )


def _throttled(root: Path) -> tuple[int, ...]:
    """Calls at :data:`THROTTLE_MINUTES` with ``flushTrigger(throttled(10min))``."""
    purposes: list[str] = []
    clock = SteppingClock(START, step_ns=0)
    policy = FlushPolicy.throttled(10 * 60)
    agent = _agent(root, _memory_model(purposes, _flush_answer), clock,
                   memory={"flush_policy": policy})  # fmt: skip
    flushed = []
    for minute in THROTTLE_MINUTES:
        clock.now = START + minute * MINUTE
        before = purposes.count("flush")
        agent.call(f"{FACT}（第 {minute} 分钟）")
        agent.await_quiescence()
        if purposes.count("flush") > before:
            flushed.append(minute)
    agent.close()
    return tuple(flushed)


def _three_calls(root: Path, **options: Any) -> tuple[list[str], HarnessAgent]:
    """Three Q&A calls with trigger 5 / keep 2 and the pre-compaction flush on (it compacts
    once, in the third); the purposes of every memory and summary request, in order."""
    purposes: list[str] = []
    model = _memory_model(purposes, _flush_answer)
    compaction = dataclasses.replace(qa_config(5, 2), flush_before_compact=True)
    agent = _agent(root, model, SteppingClock(START), compaction=compaction,
                   disable_compaction=False, **options)  # fmt: skip
    for n in range(3):
        agent.call(f"{FACT}（第 {n + 1} 轮）")
        agent.await_quiescence()
    agent.close()
    return purposes, agent


def _pre_compaction(purposes: list[str]) -> int:
    """Flush requests made right before a summary request (the compactor's flushPrefix)."""
    return sum(a == "flush" and b == "summary" for a, b in pairwise(purposes))


def _never(root: Path) -> tuple[int, int]:
    purposes, _ = _three_calls(root, memory={"flush_policy": FlushPolicy.never()})
    before = _pre_compaction(purposes)
    return purposes.count("flush") - before, before


def _hooks_off(root: Path) -> tuple[int, int]:
    purposes, agent = _three_calls(root, disable_memory_hooks=True)
    return purposes.count("flush"), len(agent.memory.maintenance_log)


def _archive(root: Path) -> Archive:
    clock = SteppingClock(START, step_ns=0)
    agent = _agent(root, _memory_model([], _flush_answer), clock)
    for age in ARCHIVE_AGES:
        clock.now = START - age * DAY
        agent.workspace.append_entry("Memory Flush", f"- fact of a day {age} days back")
    clock.now = START
    agent.call(FACT)  # maintenance after the call archives
    agent.close()
    archived = {p.name for p in agent.workspace.archive_dir.glob("*.md")}
    by_name = {_day_name(START - age * DAY): age for age in ARCHIVE_AGES}
    return Archive(ARCHIVE_AGES, tuple(sorted(by_name[n] for n in archived if n in by_name)))


def _day_name(nanos: int) -> str:
    return datetime.fromtimestamp(nanos // 1_000_000_000, UTC).date().isoformat() + ".md"


SOURCE_LINE = re.compile(r"^Source: (?P<file>[^#\s]+)(?:#(?P<line>\d+))?[^:]*: (?P<text>.*)$")


def _source_lines(root: Path) -> SourceLines:
    clock = SteppingClock(START)
    agent = _agent(root, _memory_model([], _flush_answer), clock)
    agent.workspace.append_entry("Memory Flush", "- 舱单查询走 EDI\n- 出口固定走上海港")
    MemoryTools(agent.workspace).memory_save("- 客户代号 ALPHA\n- 出口固定走上海港")
    found = MemoryTools(agent.workspace).memory_search("上海港")
    agent.close()
    sources, numbered, right = [], 0, 0
    for line in found.splitlines():
        match = SOURCE_LINE.match(line)
        if match is None:
            continue
        file, number, text = match["file"], match["line"], match["text"]
        sources.append(f"{file}#{number}" if number else file)
        if number is None:
            continue
        numbered += 1
        lines = (agent.workspace.base / file).read_text(encoding="utf-8").splitlines()
        index = int(number) - 1
        right += 0 <= index < len(lines) and text.strip() in lines[index] and "上海港" in text
    return SourceLines(tuple(sources), numbered, right)


def _merge_bullets(request: ChatRequest) -> str:
    """A scripted consolidation that keeps every bullet it was sent, once (what the seed's
    deepseek-flash did with the invented sentence, and what E2's recorded 0.5B model does)."""
    bullets = [line for line in request.messages[-1].content.splitlines() if line.startswith("- ")]
    return "## 业务与物流\n" + "\n".join(dict.fromkeys(bullets))


def _invented(root: Path) -> InventedCarried:
    requests: list[ChatRequest] = []

    def answer(request: ChatRequest) -> str:
        requests.append(request)
        if request.purpose == "flush":
            return f"{FLUSHED}\n- {INVENTED} 之前这些信息仅在对话中确认"
        return _merge_bullets(request) if request.purpose == "consolidation" else "收到"

    agent = _agent(root, FunctionModel(answer), SteppingClock(START),
                   memory={"background_order": "flush_first"})  # fmt: skip
    agent.call(FACT)
    agent.close()
    conversation = " ".join(m.content for r in requests if r.purpose == "agent" for m in r.messages)
    daily = "".join(p.read_text(encoding="utf-8") for p in agent.workspace.daily_files())
    consolidation = [r for r in requests if r.purpose == "consolidation"]
    return InventedCarried(
        invented=INVENTED,
        in_conversation=INVENTED in conversation,
        in_ledger=INVENTED in daily,
        in_consolidation_request=any(INVENTED in r.messages[-1].content for r in consolidation),
        in_memory=INVENTED in agent.workspace.read_memory(),
    )


END_MARK = "- end-of-memory"


def _memory_text(chars: int) -> str:
    """A MEMORY.md of exactly ``chars`` characters whose last line is :data:`END_MARK`."""
    line = "- fact " + "m" * 40 + "\n"
    body = line * ((chars - len(END_MARK)) // len(line))
    body += "x" * (chars - len(END_MARK) - len(body) - 1) + "\n" if len(body) + 1 < chars else ""
    text = body + END_MARK
    assert len(text) == chars, (len(text), chars)
    return text


def _injected(root: Path, chars: int) -> str:
    """What the agent request carried of a MEMORY.md of ``chars`` characters."""
    requests: list[ChatRequest] = []

    def answer(request: ChatRequest) -> str:
        requests.append(request)
        return _flush_answer(request)

    (root / "lab-user").mkdir(parents=True)
    (root / "lab-user" / "MEMORY.md").write_text(_memory_text(chars), encoding="utf-8")
    agent = _agent(root, FunctionModel(answer), SteppingClock(START))
    agent.call(FACT)
    agent.close()
    first = next(r for r in requests if r.purpose == "agent")
    return "\n".join(m.content for m in first.messages if "- fact " in m.content)


def _injection_edge(root: Path) -> InjectionEdge:
    cap = int(MemoryConfig().max_context_tokens * CHARS_PER_TOKEN)
    at, over = _injected(root / "at", cap), _injected(root / "over", cap + 1)
    return InjectionEdge(
        cap_chars=cap,
        at_cap_whole=END_MARK in at,
        over_cap_whole=END_MARK in over,
        over_cap_carried=bool(over),
    )
