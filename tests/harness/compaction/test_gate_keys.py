"""ctxlab's gate lists a value found in a tool's JSON with its key (definitions on): X-BENCH's
1.5B runs kept every tool-only fact (``SL-291623``, the seal number of a container record) in the
gated list and answered none of them, since a bare ``- SL-291623`` does not say what it is. The
plain gate's format is frozen (recorded cassettes carry it) and stays bare."""

from __future__ import annotations

import json

from harness.compaction.agentscope import CTXLAB_GATE
from harness.compaction.guards.gate import GateConfig, apply_gate
from harness.compaction.guards.gate_identifiers import extract_identifiers
from harness.messages import SUMMARY_NAME, Message, ToolCall
from harness.meter import build_meter

METER = build_meter("agentscope-2.0.3")
RECORD = {
    "container": "TGHU4716176",
    "seal_no": "SL-291623",
    "weight_kg": 12500,
    "moves": ["2026-11-21T06:10 worker-8 loaded item 79/158"],
}


def _span() -> list[Message]:
    call = ToolCall("c1", "search_records", json.dumps({"query": "the container"}))
    return [
        Message.user("Look up the container for me, please."),
        Message.assistant("", [call]),
        Message.tool("c1", json.dumps(RECORD, indent=1), tool_name="search_records"),
        Message.assistant("Found it: the record is complete."),
    ]


def test_a_value_is_keyed_only_when_it_is_the_whole_value_of_a_json_key() -> None:
    keys = {i.text: i.key for i in extract_identifiers([(json.dumps(RECORD, indent=1), False)])}
    assert keys["TGHU4716176"] == "container"
    assert keys["SL-291623"] == "seal_no"
    assert keys["12500"] == "weight_kg"  # a number
    assert keys["2026-11-21T06:10"] == ""  # inside a longer string: no key
    said = 'The "seal_no": "SL-1" line.'  # in prose a key is never read
    assert {i.text: i.key for i in extract_identifiers([(said, True)])}["SL-1"] == ""


def test_ctxlabs_gate_lists_a_tool_value_with_its_key_and_the_plain_gate_does_not() -> None:
    ours = apply_gate(CTXLAB_GATE, "The user looked up a container.", _span(), METER)
    assert "seal_no: SL-291623" in ours.added and "container: TGHU4716176" in ours.added
    assert "- seal_no: SL-291623" in ours.text
    plain = apply_gate(GateConfig(), "The user looked up a container.", _span(), METER)
    assert "SL-291623" in plain.added and not any(": " in item for item in plain.added)


def test_the_next_compaction_keeps_the_key_it_reads_back_from_the_list() -> None:
    first = apply_gate(CTXLAB_GATE, "Looked up a container.", _span(), METER)
    summary = Message.user(first.text, name=SUMMARY_NAME)
    later = [summary, Message.user("Thanks."), Message.assistant("Anything else?")]
    again = apply_gate(CTXLAB_GATE, "The user thanked me.", later, METER)
    assert "seal_no: SL-291623" in again.added
    assert "SL-291623" not in again.added  # once, with its key
