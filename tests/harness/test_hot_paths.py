"""The shortcuts on ``ctxlab run``'s hot paths (made for speed) answer as the long way did."""

from __future__ import annotations

import dataclasses
import re

from hypothesis import given
from hypothesis import strategies as st

from harness.compaction.guards import gate_identifiers
from harness.compaction.guards.gate_identifiers import extract_identifiers, shape
from harness.messages import Message, ToolCall
from harness.meter import CTXLAB, TokenMeter, pricers
from harness.secrets import _PATTERNS, _literals, _real_match, scan_text

TOOL = {"type": "function", "function": {"name": "grep", "parameters": {"type": "object"}}}
HEADER = (Message.system("be brief"),)


def test_the_tool_schemas_are_serialised_once_while_the_same_objects_are_sent(
    monkeypatch,
) -> None:
    calls = []
    real = pricers.tools_json

    def counting(tools):
        calls.append(len(tools))
        return real(tools)

    monkeypatch.setattr("harness.meter.meters.tools_json", counting)
    meter = TokenMeter("m", CTXLAB, anchored=False)
    first = meter.header(HEADER, (TOOL,))
    for _ in range(5):
        assert meter.header(HEADER, [TOOL]) == first  # a new list of the same schema
    assert calls == [0, 1]  # the empty tools at construction, then the one schema once


def test_a_schema_object_that_changed_is_priced_again() -> None:
    meter = TokenMeter("m", CTXLAB, anchored=False)
    price, envelope = meter.header(HEADER, (TOOL,))
    other = {**TOOL, "function": {"name": "grep_" * 20, "parameters": {}}}
    price2, envelope2 = meter.header(HEADER, (other,))
    assert envelope2 != envelope and price2 == CTXLAB.header(HEADER, (other,)) > price
    assert meter.header(HEADER, ())[0] == CTXLAB.header(HEADER, ())


def _scan_every_line(text: str, known: list[str]) -> list[str]:
    """scan_text as it was: every pattern on every line."""
    literals = _literals(known)
    findings = []
    for number, line in enumerate(text.splitlines(), start=1):
        labels = [label for label, pattern in _PATTERNS if _real_match(pattern, line)]
        labels += ["the API key in use"] if any(s in line for s in literals) else []
        findings += [f"line {number}: {label}" for label in labels]
    return findings


PIECES = [
    "sk-abcdefghijklmnop1234",
    "Bearer ",
    "bearer\n",
    "abcdefghijklmnopqrstu",
    '"authorization": ',
    '"x"',
    "api_key=",
    "AKIA0123456789ABCDEF",
    "-----BEGIN RSA PRIVATE KEY-----",
    "[REDACTED]",
    "\n",
    "\r\n",
    "\u2028",
    "\x1c",
    " ",
    "a",
    "7",
]


@given(st.lists(st.sampled_from(PIECES), max_size=14), st.booleans())
def test_scanning_only_the_patterns_present_finds_what_every_line_scan_finds(
    pieces: list[str], known: bool
) -> None:
    text = "".join(pieces)
    secrets = ["abcdefghijklmnopqrstu"] if known else []
    assert scan_text(text, secrets) == _scan_every_line(text, secrets)


@given(st.text(alphabet="0123456789a٣#-_", max_size=20))
def test_a_shape_writes_each_ascii_digit_as_a_hash(text: str) -> None:
    assert shape(text) == re.sub(r"[0-9]", "#", text)


def test_identifiers_read_from_the_cache_are_those_of_a_first_reading() -> None:
    texts = [("see /data/a.csv and CTN-1001, CTN-1002", True), ('{"seal_no": "SL-291623"}', False)]
    gate_identifiers._identifiers_in.remembered.cache_clear()
    first = extract_identifiers(texts)
    again = extract_identifiers(texts)
    assert first == again and gate_identifiers._identifiers_in.remembered.cache_info().hits == 2
    assert [(i.text, i.family, i.key) for i in first] == [
        ("/data/a.csv", 1, ""),
        ("CTN-1001", 2, ""),
        ("CTN-1002", 2, ""),
        ("SL-291623", 1, "seal_no"),
    ]


@given(st.text(max_size=40))
def test_the_ascii_shortcut_counts_utf16_units_as_the_encoding_does(text: str) -> None:
    units = len(text.encode("utf-16-le", "surrogatepass")) // 2
    assert pricers.estimate_text_tokens(text) == (-(-units * 2 // 5) if text else 0)


def test_a_toolbox_hands_out_the_same_schema_objects_with_every_request() -> None:
    from harness.tools import Tool, ToolBox

    def grep(pattern: str) -> str:
        return pattern

    box = ToolBox([Tool.from_function(grep)])
    assert box.schemas() is box.schemas()
    assert box.schemas() == (Tool.from_function(grep).schema(),)


_TEXT = st.text(max_size=40)
_NAME = st.none() | st.text(max_size=12)
_CALLS = st.lists(
    st.builds(lambda i, n, a: ToolCall(i, n, a), st.text(max_size=6), st.text(max_size=6), _TEXT),
    max_size=3,
)


def _same_as_dataclass(fast: Message, slow: Message) -> None:
    """Field for field, in the dataclass's order, and a metadata dict of its own."""
    assert list(vars(fast)) == [f.name for f in dataclasses.fields(Message)]
    assert vars(fast) == vars(slow)
    assert fast == slow and hash(fast) == hash(slow)
    assert fast.metadata is not Message.user("").metadata


@given(_TEXT, _NAME)
def test_the_user_and_system_constructors_build_what_the_dataclass_builds(
    text: str, name: str | None
) -> None:
    _same_as_dataclass(Message.user(text, name=name), Message(role="user", content=text, name=name))
    _same_as_dataclass(Message.system(text), Message(role="system", content=text))


@given(_TEXT, _CALLS, _NAME)
def test_the_assistant_constructor_builds_what_the_dataclass_builds(
    text: str, calls: list[ToolCall], reasoning: str | None
) -> None:
    fast = Message.assistant(text, calls, reasoning_content=reasoning)
    slow = Message(
        role="assistant", content=text, tool_calls=tuple(calls), reasoning_content=reasoning
    )
    _same_as_dataclass(fast, slow)
