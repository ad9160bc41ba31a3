"""E2: the memory pipeline writes facts to disk although the model calls no tool.

Compaction off, memory on, the article's four steps against one workspace:

1. the user forbids tools and states two facts (exports always via 上海港, customer code ALPHA);
2. consolidation by hand;
3. a new session asks for the facts;
4. MEMORY.md is deleted and a new session asks again.

The clock is fixed (it starts at the article's 2026-10-30T12:33:04Z and advances 1 ms per
reading) so that file names, instants and therefore every request replay byte for byte. The
after-call work runs in the article's order for step 1: maintenance first (it finds nothing
and skips), then the flush. The local model writes tool calls as JSON text; the agent reads
them through :class:`lab.recorder.textcalls.TextToolCalls` (documented there),
and the report says so.
"""

from __future__ import annotations

import re
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from experiments.e2 import claims as e2_claims
from experiments.e2.claims import DAILY, FACTS
from experiments.e2.view import E2View, FileState, StepRow
from harness import HarnessAgent, MemoryConfig, StepLimitExceededError
from harness.memory import MaintenanceSchedule, SteppingClock, parse_instant
from harness.model import ChatModel, ChatRequest, ChatResponse
from lab import (
    Experiment,
    ExperimentResult,
    RunSettings,
    TextToolCalls,
    recorded_result,
    view_header,
)

__all__ = ["EXPERIMENT", "STEPS", "run"]

USER_ID = "lab-user"
START = parse_instant("2026-10-30T12:33:04Z")
SYSTEM_PROMPT = "你是货代公司的业务助手。回答简洁。"
STEPS = (
    "不要调用任何工具，只用一句话回答并确认：我们公司出口固定走上海港，客户代号 ALPHA",
    "我们公司出口固定走哪个港口？客户代号是什么？",
)
TRACKED = ("MEMORY.md", DAILY, "memory/.consolidation_state")
SOURCE_CITE = re.compile(r"Source: ([^\s#]+)#\d+")
INJECTED = re.compile(r'<memory_context source="MEMORY.md">\n(.*)\n</memory_context>', re.DOTALL)


def injected_memory(request: ChatRequest) -> str:
    """The MEMORY.md text ``request`` carried as reference material ("" when none)."""
    for message in request.messages:
        found = INJECTED.search(message.content) if message.role == "user" else None
        if found and message.content.startswith("<HARNESS_CONTEXT>"):
            return found.group(1)
    return ""


def _disk(base: Path) -> dict[str, Any]:
    """The tracked files and the watermark, as :class:`StepRow` fields."""
    files = {
        name: FileState(
            (base / name).exists(), (base / name).stat().st_size if (base / name).exists() else 0
        )
        for name in TRACKED
    }
    watermark = base / "memory/.consolidation_state"
    return {"files": files, "watermark": watermark.read_text() if watermark.exists() else None}


class Tally:
    """Passes requests through to the model and keeps each one's purpose and messages."""

    def __init__(self, model: ChatModel) -> None:
        self.model = model
        self.requests: list[ChatRequest] = []

    @property
    def model_name(self) -> str:
        return self.model.model_name

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        return self.model.complete(request)

    def purposes(self) -> dict[str, int]:
        return dict(sorted(Counter(r.purpose for r in self.requests).items()))

    def last_user_text(self, purpose: str) -> str:
        """The user message of the last request made for ``purpose``; empty when none was."""
        chosen = [r for r in self.requests if r.purpose == purpose]
        users = [m.content for m in chosen[-1].messages if m.role == "user"] if chosen else []
        return users[-1] if users else ""


class Lab:
    """One workspace, one clock, one maintenance schedule, shared by the four steps."""

    def __init__(self, model: ChatModel, root: Path) -> None:
        self.tally = Tally(model)
        self.model = TextToolCalls(self.tally)
        self.root = root
        self.clock = SteppingClock(START)
        self.schedule = MaintenanceSchedule(self.clock)
        self.base = root / USER_ID

    def agent(self, session_id: str) -> HarnessAgent:
        return HarnessAgent(
            self.model,
            SYSTEM_PROMPT,
            workspace_root=self.root,
            user_id=USER_ID,
            session_id=session_id,
            disable_compaction=True,
            clock=self.clock,
            schedule=self.schedule,
            max_steps=8,
            memory=MemoryConfig(background_order="maintenance_first"),
        )

    def chat(self, step: int, title: str, session_id: str, text: str) -> StepRow:
        memory_at_start = _read(self.base / "MEMORY.md")
        daily_before = _read(self.base / DAILY)
        agent = self.agent(session_id)
        first = len(self.tally.requests)
        try:
            result, error = agent.call(text), None
        except StepLimitExceededError as exc:  # keep what the call did before it stopped
            assert exc.partial is not None  # the agent loop always attaches it
            result, error = exc.partial, str(exc)
        answer, tools = result.text, tuple(result.tool_calls)
        tool_text = "\n".join(m.content for m in result.messages if m.role == "tool")
        agent.close()
        sent = [r for r in self.tally.requests[first:] if r.purpose == "agent"]
        maintenance = tuple(o.log_line if o else "not due" for o in agent.memory.maintenance_log)
        return StepRow(
            step=step,
            title=title,
            user=text,
            answer=answer,
            tool_calls=tools,
            sources=tuple(sorted(set(SOURCE_CITE.findall(tool_text)))),
            error=error,
            maintenance=maintenance,
            memory_at_start=memory_at_start,
            memory_injected=tuple(injected_memory(r) for r in sent),
            tool_result_facts=tuple(fact for fact in FACTS if fact in tool_text),
            daily_added=_read(self.base / DAILY).removeprefix(daily_before),
            **_disk(self.base),
        )


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


def measure(settings: RunSettings) -> E2View:
    """Replay (or record) E2's four steps against one workspace."""
    with tempfile.TemporaryDirectory() as tmp, settings.model("E2", "steps") as cassette:
        lab = Lab(cassette.client, Path(tmp))
        steps = [lab.chat(1, "no tools, two facts", "s1", STEPS[0])]
        daily_before = (lab.base / DAILY).read_bytes() if (lab.base / DAILY).exists() else b""
        by_hand = lab.agent("s1")
        outcome = by_hand.consolidate_now()
        by_hand.close()
        daily_after = (lab.base / DAILY).read_bytes() if (lab.base / DAILY).exists() else b""
        steps.append(
            StepRow(
                step=2,
                title="manual consolidation",
                tool_calls=(),
                answer="",
                consolidation=outcome,
                consolidation_input=lab.tally.last_user_text("consolidation"),
                daily_unchanged=daily_before == daily_after,
                memory_text=(lab.base / "MEMORY.md").read_text()
                if (lab.base / "MEMORY.md").exists()
                else None,
                **_disk(lab.base),
            )
        )
        steps.append(lab.chat(3, "new session asks", "s2", STEPS[1]))
        (lab.base / "MEMORY.md").unlink(missing_ok=True)
        asked = lab.chat(4, "MEMORY.md deleted, new session asks", "s3", STEPS[1])
        steps.append(replace(asked, memory_rebuilt=(lab.base / "MEMORY.md").exists()))
        daily_text = (lab.base / DAILY).read_text() if (lab.base / DAILY).exists() else ""
    return E2View(
        **view_header("E2", cassette),
        system_prompt=SYSTEM_PROMPT,
        tool_calls_read_from_text=True,
        steps=tuple(steps),
        final_daily_text=daily_text,
        model_calls=lab.tally.purposes(),
    )


def run(settings: RunSettings) -> ExperimentResult:
    return recorded_result(measure(settings), e2_claims.claims)


EXPERIMENT = Experiment.listed(__name__, run, needs_cassettes=True, version=1)
