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
them through :class:`harness.textcalls.TextToolCalls` (documented there), and the report says so.
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from experiments.base import ExperimentResult, RunSettings
from experiments.claims import Claim
from harness.builder import HarnessAgent
from harness.errors import StepLimitExceededError
from harness.memory import MaintenanceSchedule, MemoryConfig, SteppingClock, parse_instant
from harness.model import ChatModel
from harness.textcalls import TextToolCalls

__all__ = ["STEPS", "run"]

USER_ID = "lab-user"
DAILY = "memory/2026-10-30.md"
START = parse_instant("2026-10-30T12:33:04Z")
SYSTEM_PROMPT = "你是货代公司的业务助手。回答简洁。"
STEPS = (
    "不要调用任何工具，只用一句话回答并确认：我们公司出口固定走上海港，客户代号 ALPHA",
    "我们公司出口固定走哪个港口？客户代号是什么？",
)
FACTS = ("上海港", "ALPHA")
TRACKED = ("MEMORY.md", DAILY, "memory/.consolidation_state")
ARTICLE_BYTES = {"MEMORY.md": 158, DAILY: 140, "memory/.consolidation_state": 30}
SOURCE_CITE = re.compile(r"Source: ([^\s#]+)#\d+")


def _disk(base: Path) -> dict[str, Any]:
    files = {
        name: {
            "exists": (base / name).exists(),
            "size": (base / name).stat().st_size if (base / name).exists() else 0,
        }
        for name in TRACKED
    }
    watermark = base / "memory/.consolidation_state"
    return {"files": files, "watermark": watermark.read_text() if watermark.exists() else None}


class Lab:
    """One workspace, one clock, one maintenance schedule, shared by the four steps."""

    def __init__(self, model: ChatModel, root: Path) -> None:
        self.model = TextToolCalls(model)
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

    def chat(self, step: int, title: str, session_id: str, text: str) -> dict[str, Any]:
        agent = self.agent(session_id)
        try:
            result = agent.call(text)
            answer, tools = result.text, list(result.tool_calls)
            tool_text = "\n".join(m.content for m in result.messages if m.role == "tool")
            error = None
        except StepLimitExceededError as exc:
            answer, tools, tool_text, error = "", [], "", str(exc)
        agent.close()
        maintenance = [o.log_line if o else "not due" for o in agent.memory.maintenance_log]
        return {
            "step": step,
            "title": title,
            "user": text,
            "answer": answer,
            "tool_calls": tools,
            "sources": sorted(set(SOURCE_CITE.findall(tool_text))),
            "error": error,
            "maintenance": maintenance,
            **_disk(self.base),
        }


def measure(settings: RunSettings) -> tuple[dict[str, Any], dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp, settings.model("E2", "steps") as cassette:
        lab = Lab(cassette.client, Path(tmp))
        steps = [lab.chat(1, "no tools, two facts", "s1", STEPS[0])]
        daily_before = (lab.base / DAILY).read_bytes() if (lab.base / DAILY).exists() else b""
        by_hand = lab.agent("s1")
        outcome = by_hand.consolidate_now()
        by_hand.close()
        daily_after = (lab.base / DAILY).read_bytes() if (lab.base / DAILY).exists() else b""
        steps.append(
            {
                "step": 2,
                "title": "manual consolidation",
                "tool_calls": [],
                "answer": "",
                "consolidation": dataclasses.asdict(outcome),
                "daily_unchanged": daily_before == daily_after,
                "memory_text": (lab.base / "MEMORY.md").read_text()
                if (lab.base / "MEMORY.md").exists()
                else None,
                **_disk(lab.base),
            }
        )
        steps.append(lab.chat(3, "new session asks", "s2", STEPS[1]))
        (lab.base / "MEMORY.md").unlink(missing_ok=True)
        steps.append(lab.chat(4, "MEMORY.md deleted, new session asks", "s3", STEPS[1]))
        steps[3]["memory_rebuilt"] = (lab.base / "MEMORY.md").exists()
        daily_text = (lab.base / DAILY).read_text() if (lab.base / DAILY).exists() else ""
    provenance = dataclasses.asdict(cassette.provenance)
    data = {
        "experiment": "E2",
        "source": cassette.provenance.source,
        "provenance": provenance,
        "system_prompt": SYSTEM_PROMPT,
        "tool_calls_read_from_text": True,
        "steps": steps,
        "final_daily_text": daily_text,
    }
    return data, provenance


def run(settings: RunSettings) -> ExperimentResult:
    data, provenance = measure(settings)
    source = data["source"]
    return ExperimentResult("E2", _claims(data, source), data, source, (provenance,))


def _has_facts(text: str) -> bool:
    return all(fact in text for fact in FACTS)


def _claims(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    s1, s2, s3, s4 = data["steps"]
    first_flush = data["final_daily_text"].split("## Memory Flush")[1:2]
    flush_ok = bool(first_flush) and _has_facts(first_flush[0])
    structural = "structural: decided by the harness, whatever the model says"
    rule = (
        f"model output as recorded ({source}); it writes tool calls as JSON text, not API "
        "tool_calls, and the harness reads them (harness/textcalls.py); judged by a rule in "
        "experiments/e2.py"
    )
    c = Claim.compare
    tools4 = Counter(s4["tool_calls"])
    from_daily = any(src.startswith("memory/") for src in s4["sources"])
    rebuild_ok = _has_facts(s4["answer"]) and bool(tools4) and from_daily
    evidence = (
        f"answer has both facts: {'yes' if _has_facts(s4['answer']) else 'no'}; tools: "
        f"{', '.join(f'{k}×{v}' for k, v in sorted(tools4.items())) or 'none'}; sources: "
        f"{', '.join(s4['sources']) or 'none'}; MEMORY.md rebuilt: "
        f"{'yes' if s4['memory_rebuilt'] else 'no'}"
    )
    sizes = (
        " / ".join(f"{name} {s2['files'][name]['size']} B" for name in (DAILY, "MEMORY.md"))
        + f" / watermark {s2['files']['memory/.consolidation_state']['size']} B"
    )
    return (
        c(
            "E2",
            "E2-S1-TOOLS",
            "Step 1 makes 0 tool calls.",
            0,
            len(s1["tool_calls"]),
            source,
            note=rule,
            differs_note=f"the model called {s1['tool_calls']}; {rule}",
        ),
        c(
            "E2",
            "E2-S1-FLUSH",
            "After step 1 the daily file has a Memory Flush section naming both facts.",
            "yes",
            "yes" if flush_ok else "no",
            source,
            note=rule,
            differs_note=f"the flush model ({source}) did not name both facts; {rule}",
        ),
        c(
            "E2",
            "E2-S1-NO-MEMORY",
            "MEMORY.md does not exist after step 1 (maintenance ran before the flush and skipped).",
            "absent",
            "present" if s1["files"]["MEMORY.md"]["exists"] else "absent",
            source,
            note=structural,
        ),
        c(
            "E2",
            "E2-S2-MEMORY",
            "Consolidation writes MEMORY.md holding both facts.",
            "yes",
            "yes" if _has_facts(s2.get("memory_text") or "") else "no",
            source,
            note=rule,
            differs_note=f"the consolidation model ({source}) dropped a fact; {rule}",
        ),
        c(
            "E2",
            "E2-S2-WATERMARK",
            "The watermark file is 30 bytes.",
            "30 B",
            f"{s2['files']['memory/.consolidation_state']['size']} B",
            source,
            note=structural,
        ),
        c(
            "E2",
            "E2-S2-DAILY",
            "Consolidation leaves the daily file unchanged.",
            "unchanged",
            "unchanged" if s2["daily_unchanged"] else "changed",
            source,
            note=structural,
        ),
        c(
            "E2",
            "E2-S3-RECALL",
            "A new session answers both facts.",
            "yes",
            "yes" if _has_facts(s3["answer"]) else "no",
            source,
            note=rule,
            differs_note=f"answer: {s3['answer'][:100]!r}; {rule}",
        ),
        Claim(
            "E2",
            "E2-S4-REBUILD",
            "With MEMORY.md deleted, the answer is recovered from the "
            "daily file through tools (MEMORY.md rebuilt in one of the article's runs).",
            "both facts, via tools, from the daily file",
            evidence,
            "match" if rebuild_ok else "differs",
            source,
            rule if rebuild_ok else f"the evidence chain is incomplete; {rule}",
        ),
        c(
            "E2",
            "E2-SIZES",
            "File sizes after consolidation: daily / MEMORY.md / watermark.",
            f"{DAILY} 140 B / MEMORY.md 158 B / watermark 30 B",
            sizes,
            source,
            differs_note="daily and MEMORY.md hold model-written text, so their sizes follow "
            f"the model ({source}); the watermark size is fixed by its format",
        ),
    )
