"""E5: the claims the article computed or read from bytecode but never ran, run here.

Every model in this experiment is scripted (the claims are about the harness's mechanics, not
a model's wording), and the claims say ``scripted`` in their source column.
"""

from __future__ import annotations

import itertools
import math
import tempfile
from pathlib import Path
from typing import Any

from experiments.base import ExperimentResult, RunSettings
from experiments.claims import Claim
from harness.agent import Agent
from harness.compaction import (
    SUMMARY_UNAVAILABLE,
    CompactionConfig,
    resolve_thresholds,
)
from harness.errors import ContextLengthExceededError, ServerError
from harness.memory import MemoryConfig, MemoryTools, MemoryWorkspace, SteppingClock, parse_instant
from harness.memory.consolidation import Consolidator
from harness.messages import Message, ToolCall, validate_pairing
from harness.model import ChatRequest
from harness.testing import FunctionModel
from harness.tokens import AGENTSCOPE_2_0_3_WINDOWS, CTXLAB_WINDOWS
from harness.tools import Tool

__all__ = ["cadence", "formula_interval", "run"]

SOURCE = "scripted"
START = parse_instant("2026-10-30T12:33:04Z")
ROUNDS = 30
TRIGGERS = range(4, 21)
KEEPS = range(1, 7)


def formula_interval(trigger: int, keep: int) -> int:
    """The article's interval between compactions in plain Q&A rounds."""
    return math.ceil((trigger - keep - 1) / 2)


def _echo_model() -> FunctionModel:
    def reply(request: ChatRequest) -> str:
        return "SUMMARY" if request.purpose == "summary" else "OK"

    return FunctionModel(reply, model_name="scripted")


def _qa_config(trigger: int, keep: int) -> CompactionConfig:
    return CompactionConfig(
        trigger_messages=trigger,
        trigger_tokens=None,
        keep_messages=keep,
        keep_tokens=0,
        flush_before_compact=False,
        offload_before_compact=False,
        prune=None,
    )


def cadence(trigger: int, keep: int, rounds: int = ROUNDS) -> list[int]:
    """The rounds (1-based) in which a plain Q&A agent compacted."""
    agent = Agent(_echo_model(), "system", compaction=_qa_config(trigger, keep))
    return [r for r in range(1, rounds + 1) if agent.call(f"question {r}").compactions]


def _grid() -> list[dict[str, Any]]:
    cells = []
    for trigger in TRIGGERS:
        for keep in KEEPS:
            if keep >= trigger:
                continue
            rounds = cadence(trigger, keep)
            gaps = sorted({b - a for a, b in itertools.pairwise(rounds)})
            cells.append(
                {
                    "trigger": trigger,
                    "keep": keep,
                    "first": rounds[0] if rounds else None,
                    "first_formula": math.ceil((trigger + 1) / 2),
                    "intervals": gaps,
                    "interval": gaps[0] if len(gaps) == 1 else None,
                    "formula": formula_interval(trigger, keep),
                    "compactions": len(rounds),
                }
            )
    return cells


def _tool_heavy() -> dict[str, Any]:
    """One call with three tool rounds, trigger 6 / keep 2: two compactions inside it."""
    steps = iter(
        [
            Message.assistant("ready"),  # the warm-up call
            Message.assistant("", [ToolCall("c1", "lookup", '{"q": "a"}')]),
            Message.assistant(
                "", [ToolCall("c2", "lookup", '{"q": "b"}'), ToolCall("c3", "lookup", '{"q": "c"}')]
            ),
            Message.assistant("", [ToolCall("c4", "lookup", '{"q": "d"}')]),
            Message.assistant("done"),
        ]
    )

    def reply(request: ChatRequest) -> Message | str:
        validate_pairing(request.messages[1:])
        return "SUMMARY" if request.purpose == "summary" else next(steps)

    model = FunctionModel(reply, model_name="scripted")
    lookup = Tool.from_function(lambda q: f"result for {q}", name="lookup", description="look up")
    agent = Agent(model, "system", [lookup], compaction=_qa_config(6, 2))
    agent.call("warm-up")  # 2 messages before the heavy call
    model.requests.clear()
    result = agent.call("find a, b, c and d")
    agent_requests = [r for r in model.requests if r.purpose == "agent"]
    for request in model.requests:
        validate_pairing(request.messages[1:])
    return {
        "requests": len(agent_requests),
        "compactions_before_request": [
            i + 1 for i, r in enumerate(result.requests) if r.compaction is not None
        ],
        "compactions": [e.to_dict() for e in result.compactions],
        "pairing_held": True,
        "tool_calls": list(result.tool_calls),
    }


def _large_result() -> dict[str, Any]:
    text = "\n".join(f"line {i:05d} " + "x" * 88 for i in range(3_000))  # ~300,000 chars
    with tempfile.TemporaryDirectory() as tmp:
        workspace = MemoryWorkspace(Path(tmp), "lab-user", SteppingClock(START))
        tools = MemoryTools(workspace)
        big = Tool.from_function(lambda: text, name="manifest_query", description="big")
        reads: list[str] = []
        calls = iter(
            [
                Message.assistant("", [ToolCall("big1", "manifest_query", "{}")]),
                None,  # filled after the offload path is known
                Message.assistant("done"),
            ]
        )
        offloaded: dict[str, Any] = {}

        def reply(request: ChatRequest) -> Message | str:
            step = next(calls)
            if step is not None:
                return step
            preview = request.messages[-1]
            offloaded.update(preview.metadata)
            offloaded["preview"] = preview.content
            path = preview.metadata["offloaded_to"]
            return Message.assistant(
                "", [ToolCall("read1", "read_file", f'{{"path": "{path}", "limit": 5000}}')]
            )

        model = FunctionModel(reply, model_name="scripted")
        agent = Agent(model, "system", [big, *tools.tools()], workspace=workspace.base)
        agent.call("query the manifest")
        read_result = agent.context[-2].content
        reads.append(read_result)
        restored = "\n".join(line.split("|", 1)[1] for line in read_result.splitlines())
    preview = offloaded["preview"]
    return {
        "original_chars": len(text),
        "offloaded_to": offloaded["offloaded_to"],
        "preview_chars": len(preview),
        "preview_has_head": text[:2000] in preview,
        "preview_has_tail": text[-2000:] in preview,
        "read_file_restores_text": restored == text,
        "read_file_result_chars": len(read_result),
        "read_file_result_offloaded": "offloaded_to" in agent.context[-2].metadata,
    }


def _failures() -> dict[str, Any]:
    out: dict[str, Any] = {}

    def failing_summary(request: ChatRequest) -> str:
        if request.purpose == "summary":
            raise ServerError("summary backend down", status_code=503)
        return "OK"

    agent = Agent(FunctionModel(failing_summary), "system", compaction=_qa_config(5, 2))
    events = [e for r in range(3) for e in agent.call(f"q{r}").compactions]
    out["summary_failure"] = {
        "compacted": bool(events),
        "messages_after": events[0].messages_after if events else None,
        "summary_starts": events[0].summary[:60] if events else None,
    }
    out["overflow"] = _overflow()
    out["consolidation_write_failure"] = _consolidation_failure()
    return out


def _overflow() -> dict[str, Any]:
    def model_for(overflows: int) -> FunctionModel:
        # The server overflows on the first ``overflows`` agent requests of the third call.
        state = {"left": overflows, "agent_requests": 0}

        def reply(request: ChatRequest) -> str:
            if request.purpose == "agent":
                state["agent_requests"] += 1
            if request.purpose == "agent" and state["agent_requests"] >= 3 and state["left"] > 0:
                state["left"] -= 1
                raise ContextLengthExceededError("maximum context length", status_code=400)
            return "SUMMARY" if request.purpose == "summary" else "OK"

        return FunctionModel(reply)

    config = CompactionConfig(
        trigger_messages=50,
        trigger_tokens=None,
        keep_messages=2,
        keep_tokens=0,
        flush_before_compact=False,
        offload_before_compact=False,
    )
    once = Agent(model_for(1), "system", compaction=config)
    for r in range(2):
        once.call(f"q{r}")
    result = once.call("q2")
    twice = Agent(model_for(2), "system", compaction=config)
    for r in range(2):
        twice.call(f"q{r}")
    try:
        twice.call("q2")
        second = "answered"
    except ContextLengthExceededError:
        second = "ContextLengthExceededError reached the caller"
    return {
        "one_error": {
            "compactions": len(result.compactions),
            "trigger": result.compactions[0].trigger if result.compactions else None,
            "answer": result.text,
        },
        "two_errors": second,
    }


def _consolidation_failure() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = MemoryWorkspace(Path(tmp), "lab-user", SteppingClock(START))
        workspace.append_entry("Memory Flush", "- fact-1 exports via 上海港")
        workspace.append_entry("Memory Flush", "- fact-2 customer ALPHA")
        inputs: list[str] = []

        def merge(request: ChatRequest) -> str:
            inputs.append(request.messages[-1].content)
            return "\n".join(
                w for w in request.messages[-1].content.split() if w.startswith("fact-")
            )

        consolidator = Consolidator(FunctionModel(merge), workspace)
        real_write = workspace.write_memory

        def broken(text: str) -> None:
            raise OSError("disk full")

        workspace.write_memory = broken  # type: ignore[method-assign]
        failed = consolidator.consolidate()
        workspace.write_memory = real_write  # type: ignore[method-assign]
        redone = consolidator.consolidate()
        memory = workspace.read_memory()
    return {
        "failed_status": failed.status,
        "watermark_after_failure": failed.watermark_after,
        "watermark_unchanged": failed.watermark_after == failed.watermark_before,
        "redone_status": redone.status,
        "same_batch": inputs[0] == inputs[1],
        "facts_in_memory": [f for f in ("fact-1", "fact-2") if f in memory],
    }


def _flush_order() -> dict[str, Any]:
    from harness.builder import HarnessAgent

    outcome = {}
    for order in ("maintenance_first", "flush_first"):

        def reply(request: ChatRequest) -> str:
            if request.purpose == "flush":
                return "- exports via 上海港\n- customer ALPHA"
            if request.purpose == "consolidation":
                return "## Business\n- exports via 上海港\n- customer ALPHA"
            return "confirmed"

        with tempfile.TemporaryDirectory() as tmp:
            agent = HarnessAgent(
                FunctionModel(reply),
                "system",
                workspace_root=Path(tmp),
                user_id="lab-user",
                disable_compaction=True,
                clock=SteppingClock(START),
                memory=MemoryConfig(background_order=order),
            )
            agent.call("exports via 上海港, customer ALPHA")
            agent.close()
            log = agent.memory.maintenance_log[0]
            outcome[order] = {
                "maintenance": log.status if log else None,
                "log_line": log.log_line if log else None,
                "memory_exists": agent.workspace.memory_file.exists(),
                "daily_files": len(agent.workspace.daily_files()),
            }
    return outcome


def _fallback() -> dict[str, Any]:
    config = CompactionConfig()
    as_203 = resolve_thresholds(config, "deepseek-flash", AGENTSCOPE_2_0_3_WINDOWS)
    ours = resolve_thresholds(config, "deepseek-flash", CTXLAB_WINDOWS)
    return {
        name: {
            "window": t.context_window,
            "trigger_tokens": t.trigger_tokens,
            "keep_tokens": t.keep_tokens,
            "keep_messages": t.keep_messages,
            "explanation": t.explanation,
        }
        for name, t in (("agentscope-2.0.3", as_203), ("ctxlab", ours))
    }


def measure() -> dict[str, Any]:
    return {
        "experiment": "E5",
        "source": SOURCE,
        "grid": _grid(),
        "tool_heavy": _tool_heavy(),
        "large_result": _large_result(),
        "failures": _failures(),
        "flush_order": _flush_order(),
        "fallback": _fallback(),
    }


def run(settings: RunSettings) -> ExperimentResult:
    data = measure()
    return ExperimentResult("E5", _claims(data), data, SOURCE)


def _cell(data: dict[str, Any], trigger: int, keep: int) -> dict[str, Any]:
    return next(c for c in data["grid"] if c["trigger"] == trigger and c["keep"] == keep)


def _cadence_text(cell: dict[str, Any]) -> str:
    return f"first at round {cell['first']}, then every {cell['interval']}"


def _claims(data: dict[str, Any]) -> tuple[Claim, ...]:
    c = Claim.compare
    grid = data["grid"]
    agree = [g for g in grid if g["interval"] == g["formula"]]
    disagree = [g for g in grid if g["interval"] != g["formula"]]
    only_edge = all(g["trigger"] == g["keep"] + 1 and g["interval"] == 1 for g in disagree)
    heavy, large, fail, order, fb = (
        data[k] for k in ("tool_heavy", "large_result", "failures", "flush_order", "fallback")
    )
    return (
        c(
            "E5",
            "E5-CADENCE-5-2",
            "trigger 5 / keep 2 compacts every round (from round 3).",
            "first at round 3, then every 1",
            _cadence_text(_cell(data, 5, 2)),
            SOURCE,
        ),
        c(
            "E5",
            "E5-CADENCE-6-2",
            "trigger 6 / keep 2 compacts every 2 rounds.",
            "first at round 4, then every 2",
            _cadence_text(_cell(data, 6, 2)),
            SOURCE,
        ),
        c(
            "E5",
            "E5-CADENCE-13-2",
            "trigger 13 / keep 2: first at round 7, then every 5 rounds "
            "(computed in the article, never run).",
            "first at round 7, then every 5",
            _cadence_text(_cell(data, 13, 2)),
            SOURCE,
        ),
        Claim(
            "E5",
            "E5-CADENCE-GRID",
            "Interval = ceil((trigger − keep − 1) / 2) over the grid "
            "trigger 4–20 × keep 1–6 (30 rounds each).",
            "formula holds",
            f"{len(agree)} of {len(grid)} cells agree",
            "match" if not disagree else "differs",
            SOURCE,
            ""
            if not disagree
            else (
                f"the {len(disagree)} cells that disagree are "
                + ("exactly those with trigger = keep + 1" if only_edge else "listed in E5.json")
                + ": the formula gives 0 there, but after a compaction the context holds "
                "keep + 1 = trigger messages and the next round's user message makes it larger, "
                "so the harness compacts every round (interval 1); the harness is right, the "
                "formula needs max(1, …)"
            ),
        ),
        _tool_claim(heavy),
        c(
            "E5",
            "E5-OFFLOAD",
            "A 300,000-character tool result keeps a 2,000 + 2,000 preview "
            "and a path; read_file returns the full text; read_file's own result is not "
            "offloaded again.",
            "preview 2,000 + 2,000, path, full text back, excluded tool kept",
            "preview 2,000 + 2,000, path, full text back, excluded tool kept"
            if (
                large["preview_has_head"]
                and large["preview_has_tail"]
                and large["read_file_restores_text"]
                and not large["read_file_result_offloaded"]
            )
            else f"see E5.json large_result: {large}",
            SOURCE,
        ),
        c(
            "E5",
            "E5-SUMMARY-FAIL",
            "A failed summary call gives (Summary unavailable) and compaction still happens.",
            f"compacted, {SUMMARY_UNAVAILABLE}",
            ("compacted, " + SUMMARY_UNAVAILABLE)
            if (
                fail["summary_failure"]["compacted"]
                and str(fail["summary_failure"]["summary_starts"]).startswith(SUMMARY_UNAVAILABLE)
            )
            else str(fail["summary_failure"]),
            SOURCE,
        ),
        c(
            "E5",
            "E5-OVERFLOW",
            "A context-length error compacts once and retries once; a second "
            "one reaches the caller.",
            "1 forced compaction, retry answered; second error raised",
            f"{fail['overflow']['one_error']['compactions']} forced compaction, retry "
            f"{'answered' if fail['overflow']['one_error']['answer'] == 'OK' else 'failed'}; "
            + (
                "second error raised"
                if "reached" in fail["overflow"]["two_errors"]
                else "second error swallowed"
            ),
            SOURCE,
        ),
        c(
            "E5",
            "E5-CONSOLIDATE-FAIL",
            "A consolidation whose write fails leaves the watermark; "
            "the next run redoes the same batch with nothing lost.",
            "watermark kept, same batch redone, nothing lost",
            (
                "watermark kept"
                if fail["consolidation_write_failure"]["watermark_unchanged"]
                else "watermark moved"
            )
            + (
                ", same batch redone"
                if fail["consolidation_write_failure"]["same_batch"]
                else ", different batch"
            )
            + (
                ", nothing lost"
                if len(fail["consolidation_write_failure"]["facts_in_memory"]) == 2
                else ", facts lost"
            ),
            SOURCE,
        ),
        c(
            "E5",
            "E5-ORDER-MAINTENANCE-FIRST",
            "Maintenance before the flush skips and leaves MEMORY.md absent (the article's case).",
            "skipped, MEMORY.md absent",
            f"{order['maintenance_first']['maintenance']}, MEMORY.md "
            f"{'present' if order['maintenance_first']['memory_exists'] else 'absent'}",
            SOURCE,
        ),
        c(
            "E5",
            "E5-ORDER-FLUSH-FIRST",
            "Flush before maintenance: consolidation merges the fresh "
            "flush into a new MEMORY.md (reasoned, never caught, in the article).",
            "written, MEMORY.md present",
            f"{order['flush_first']['maintenance']}, MEMORY.md "
            f"{'present' if order['flush_first']['memory_exists'] else 'absent'}",
            SOURCE,
        ),
        c(
            "E5",
            "E5-FALLBACK-160K",
            "With AgentScope 2.0.3's table, deepseek-flash resolves to "
            "window 0: token trigger 160,000, retention 20 messages.",
            "window 0, trigger 160000, keep 20 messages",
            f"window {fb['agentscope-2.0.3']['window']}, trigger "
            f"{fb['agentscope-2.0.3']['trigger_tokens']}, keep "
            + (
                f"{fb['agentscope-2.0.3']['keep_messages']} messages"
                if fb["agentscope-2.0.3"]["keep_tokens"] == 0
                else f"{fb['agentscope-2.0.3']['keep_tokens']} tokens"
            ),
            SOURCE,
        ),
        c(
            "E5",
            "E5-FALLBACK-OURS",
            "With ctxlab's table, deepseek-flash resolves to 1M − reserve.",
            "window 1000000, trigger 980000",
            f"window {fb['ctxlab']['window']}, trigger {fb['ctxlab']['trigger_tokens']}",
            SOURCE,
        ),
    )


def _tool_claim(heavy: dict[str, Any]) -> Claim:
    count = len(heavy["compactions"])
    before = ", ".join(map(str, heavy["compactions_before_request"]))
    reproduced = f"{count} compactions (before requests {before}), pairing " + (
        "held" if heavy["pairing_held"] else "broken"
    )
    ok = count >= 2 and heavy["pairing_held"]
    return Claim(
        "E5",
        "E5-TOOL-ROUND",
        "A round with several tool calls can compact twice "
        "inside one call, and pairing holds for every request.",
        "2 compactions possible, pairing held",
        reproduced,
        "match" if ok else "differs",
        SOURCE,
        "constructed here; the article never built it"
        if ok
        else "fewer than two compactions inside the call; see E5.json tool_heavy",
    )
