"""dsh's surface-fold cases (``surface.spec.ts``) against ctxlab reading the same session file.

What dsh folds, ctxlab must fold to the same surface nodes and replace generation; what dsh's
fold refuses, ctxlab must refuse with LogCorruptError naming the file and line (a surface error
found while folding names the event instead). Nodes are written short in the data; this module
turns them into dsh's records (:func:`record`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dsh_cases as dc
import pytest
from dsh_cases import Case

from harness.errors import EventLogError
from harness.store.eventlog import EventLog

_MODEL = {"kind": "model", "provider": "mock", "model": "mock"}


def _message(node: dict[str, Any]) -> dict[str, Any]:
    seq, kind = node["seq"], node["kind"]
    ident = node.get("id", f"m{seq}")
    text = node.get("text", f"node {seq}")
    if kind == "user":
        return {"id": ident, "role": "user", "content": [{"type": "text", "text": text}],
                "source": {"kind": "user"}}  # fmt: skip
    if kind == "assistant":
        calls = [{"type": "tool-call", "id": c, "name": "bash", "arguments": "{}"}
                 for c in node.get("calls", ())]  # fmt: skip
        return {"id": ident, "role": "assistant", "source": _MODEL,
                "content": [{"type": "text", "text": text}, *calls]}  # fmt: skip
    block = {"type": "tool-result", "toolCallId": node.get("block_call", node["call"]),
             "content": [{"type": "text", "text": text}],
             "isError": node.get("isError", False)}  # fmt: skip
    return {"id": ident, "role": "user", "content": [block],
            "source": {"kind": "tool", "callId": node["call"]}}  # fmt: skip


def record(node: dict[str, Any]) -> dict[str, Any]:
    """dsh's record for a short node of the data."""
    if node["kind"] == "log":
        return {k: v for k, v in node.items() if k != "kind"} | {"time": node["seq"]}
    message = _message(node)
    types = {"user": "user/message", "assistant": "assistant/message", "result": "tool/result"}
    data = message if node["kind"] == "user" else {"turn": 1, "step": 1, "message": message}
    if "meta" in node:
        data["meta"] = node["meta"]
    out: dict[str, Any] = {"type": types[node["kind"]], "seq": node["seq"], "time": node["seq"],
                           "data": data}  # fmt: skip
    if node.get("surfaceOp") != "omit":
        out["surfaceOp"] = node.get("surfaceOp", "append")
    if "sourceEventSeqs" in node:
        out["sourceEventSeqs"] = node["sourceEventSeqs"]
    return out


def _agrees(case: Case, path: Path) -> bool:
    try:
        log = EventLog.replay(path)
    except EventLogError as exc:
        return "refused" in case.dsh and (f"{path}:" in str(exc) or "event" in str(exc))
    want = case.dsh
    return "nodes" in want and (list(log.node_seqs), log.replace_generation) == (
        want["nodes"],
        want["generation"],
    )


@pytest.mark.parametrize("case", dc.params("surface"))
def test_ctxlab_folds_a_dsh_surface_as_dsh_does(case: Case, tmp_path: Path) -> None:
    path = dc.session_file(tmp_path, [record(node) for node in case.input])
    dc.conform(case, lambda: _agrees(case, path))


def _pruned_pair(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The original tool result and its rewrite, as the file holds them (the rewrite's
    content put back, so the two compare whole)."""
    import json

    lines = [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines()]
    original, rewrite = (r for r in lines if r.get("type") == "tool/result")
    seq = original["seq"]
    assert rewrite["surfaceOp"] == {"op": "replace", "start": seq, "end": seq}
    text = rewrite["data"]["message"]["content"][0]["content"][0]["text"]
    assert text.startswith("x" * 10) and len(text) < 100
    rewrite["data"]["message"]["content"][0]["content"] = [{"type": "text", "text": "x" * 300}]
    return original, rewrite


@pytest.mark.parametrize("reopened", [False, True], ids=["live", "reopened-from-snapshot"])
def test_ctxlabs_own_prune_of_a_dsh_file_changes_the_result_content_only(
    tmp_path: Path, reopened: bool
) -> None:
    """dsh refuses a tool-result rewrite that changes anything but the content (its message id
    included): what ctxlab's pruner writes into a dsh file keeps the rest of the original, also
    after a reopen from the sidecar snapshot (which has not read the original's line)."""
    from harness.compaction.dsh.pruner import ToolResultPruner
    from harness.messages import Message, ToolCall

    path = tmp_path / "session.jsonl"
    log = EventLog(path, format="dsh", snapshot_every=3)
    log.append_message(Message.user("read it"))
    log.append_message(Message.assistant("", (ToolCall("c1", "read_file", "{}"),)))
    log.append_message(Message.tool("c1", "x" * 300))
    log.append_message(Message.assistant("done"))
    if reopened:
        log = EventLog.open(path, snapshot_every=3)
        assert log.opened_from_snapshot is not None
    assert ToolResultPruner(threshold_chars=100, head_chars=10, tail_chars=10).prune(log) == 1
    original, rewrite = _pruned_pair(path)
    assert rewrite["data"] == original["data"]
    assert EventLog.replay(path).messages()[2].content.startswith("x" * 10)
