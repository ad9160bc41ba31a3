"""Tool calls inside one call: a tool-heavy round that compacts twice, and a large tool result.

* **Tool-heavy round**: trigger 6 / keep 2 and three tool rounds in one call; the article never
  built it. Every request the model sees must keep each tool result beside its call.
* **Large tool result**: a 300,000-character result is offloaded to a file behind a
  2,000 + 2,000 preview; ``read_file`` brings the full text back and is not offloaded again.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from experiments.e3 import CompactionRow
from experiments.e5.common import START, qa_config
from experiments.e5.view import E5View, LargeResult, ToolHeavy
from harness import Agent, FunctionModel, Message, Tool, ToolCall, make_engine
from harness.errors import PairingError
from harness.memory import MemoryTools, MemoryWorkspace, SteppingClock
from harness.messages import validate_pairing
from harness.model import ChatRequest
from lab import AS_SEED, ClaimSpec, Verdict, cite, to_data

__all__ = ["TOOL_SPECS", "measure_large_result", "measure_tool_round"]

OFFLOAD_HELD = "preview 2,000 + 2,000, path, full text back, excluded tool kept"


def _tool_round_model() -> FunctionModel:
    """A warm-up answer, then four lookups over three tool rounds; checks pairing every time."""
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

    return FunctionModel(reply, model_name="scripted")


def measure_tool_round() -> ToolHeavy:
    """One call with three tool rounds, trigger 6 / keep 2: two compactions inside it."""
    model = _tool_round_model()
    lookup = Tool.from_function(lambda q: f"result for {q}", name="lookup", description="look up")
    agent = Agent(model, "system", [lookup], engine=make_engine(qa_config(6, 2), model))
    agent.call("warm-up")  # 2 messages before the heavy call
    model.requests.clear()
    try:
        result = agent.call("find a, b, c and d")
    except PairingError:  # a request broke tool pairing: the scripted model refused it
        asked = sum(r.purpose == "agent" for r in model.requests)
        return ToolHeavy(asked, (), (), pairing_held=False, tool_calls=())
    agent_requests = [r for r in model.requests if r.purpose == "agent"]
    for request in model.requests:
        validate_pairing(request.messages[1:])
    return ToolHeavy(
        requests=len(agent_requests),
        compactions_before_request=tuple(
            i + 1 for i, r in enumerate(result.requests) if r.compaction is not None
        ),
        compactions=tuple(CompactionRow.of(e) for e in result.compactions),
        pairing_held=True,
        tool_calls=tuple(result.tool_calls),
    )


def _tool_round(view: E5View) -> Verdict:
    """Matches when the call compacted at least twice and pairing held."""
    heavy = view.tool_heavy
    count = len(heavy.compactions)
    before = ", ".join(map(str, heavy.compactions_before_request))
    pairing = "held" if heavy.pairing_held else "broken"
    return Verdict(
        f"{count} compactions (before requests {before}), pairing {pairing}",
        count >= 2 and heavy.pairing_held,
    )


def _manifest() -> str:
    return "\n".join(f"line {i:05d} " + "x" * 88 for i in range(3_000))  # ~300,000 chars


def _reader_model() -> tuple[FunctionModel, dict[str, Any]]:
    """A model that queries the manifest, reads the offloaded file back, then stops.

    The dict it returns fills, on the second request, with the preview's metadata and text.
    """
    offloaded: dict[str, Any] = {}
    calls = iter(
        [
            Message.assistant("", [ToolCall("big1", "manifest_query", "{}")]),
            None,  # filled after the offload path is known
            Message.assistant("done"),
        ]
    )

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

    return FunctionModel(reply, model_name="scripted"), offloaded


def measure_large_result() -> LargeResult:
    """Offload a ~300,000-character tool result, then read it back with ``read_file``."""
    text = _manifest()
    with tempfile.TemporaryDirectory() as tmp:
        workspace = MemoryWorkspace(Path(tmp), "lab-user", SteppingClock(START))
        tools = MemoryTools(workspace)
        big = Tool.from_function(lambda: text, name="manifest_query", description="big")
        model, offloaded = _reader_model()
        agent = Agent(model, "system", [big, *tools.tools()], workspace=workspace.base)
        agent.call("query the manifest")
        read = agent.context[-2]
    restored = "\n".join(line.partition("|")[2] for line in read.content.splitlines())
    preview = offloaded["preview"]
    return LargeResult(
        original_chars=len(text),
        offloaded_to=offloaded["offloaded_to"],
        preview_chars=len(preview),
        preview_has_head=text[:2000] in preview,
        preview_has_tail=text[-2000:] in preview,
        read_file_restores_text=restored == text,
        read_file_result_chars=len(read.content),
        read_file_result_offloaded="offloaded_to" in read.metadata,
    )


def _offload(view: E5View) -> Verdict:
    """Matches when the preview keeps head and tail and read_file restores the text unoffloaded."""
    large = view.large_result
    held = (
        large.preview_has_head
        and large.preview_has_tail
        and large.read_file_restores_text
        and not large.read_file_result_offloaded
    )
    return Verdict(OFFLOAD_HELD if held else f"see E5.json large_result: {to_data(large)}")


TOOL_SPECS: tuple[ClaimSpec[E5View], ...] = (
    ClaimSpec(
        "E5-TOOL-ROUND",
        "A round with several tool calls can compact twice "
        "inside one call, and pairing holds for every request.",
        _tool_round,
        "two compactions inside one round are possible (reasoned, not built)",
        cite(AS_SEED, "按挂载点推，同一轮里压两次也有可能，这个样本我没造"),
        kind="article-computed",
        note="constructed here; the article never built it; pairing is our own extra check",
        differs_note="fewer than two compactions inside the call, or a split pair; see E5.json "
        "tool_heavy",
    ),
    ClaimSpec(
        "E5-OFFLOAD",
        "A 300,000-character tool result keeps a 2,000 + 2,000 preview "
        "and a path; read_file returns the full text; read_file's own result is not "
        "offloaded again.",
        _offload,
        OFFLOAD_HELD,
        cite(
            AS_SEED,
            "单条 tool_result 文本超过 80K 字符，头尾各留 2K 预览，中间换成 "
            "large_tool_results/<hash>.txt 的路径",
        ),
        kind="article-computed",
    ),
)
