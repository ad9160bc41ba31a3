"""Tests of harness.compaction.dsh, the DeepSeek-Harness compaction engine on the append-only
event log: config, the token meter, range selection, the summary request, the shrink/finish checks,
the
four-event commit, the lock and the stability checks.

Expected numbers are computed by hand (or by :func:`rule_price`, the pricing rule written out
independently of :func:`harness.compaction.dsh.selection.measure`), never by asking the code
under test.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.compaction.dsh import (
    DIRECTIVE,
    DshConfig,
    DshEngine,
    Measurement,
    build_summary_request,
    frame_checkpoint,
    measure,
    price_message,
    price_text,
    select_compactable_range,
    tool_pairing_balanced_before,
)
from harness.errors import (
    CompactionBusyError,
    ConfigError,
    ServerError,
    SummaryError,
    SurfaceChangedError,
    SurfaceError,
)
from harness.messages import Message, ToolCall
from harness.model import ChatRequest, ChatResponse, Usage
from harness.store.eventlog import END_SEED, EventLog
from harness.store.eventlog.events import thaw
from harness.testing import FunctionModel, ScriptedModel, Step

SECTIONS = [
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code",
    "Errors and Fixes",
    "Pending Jobs",
    "Current Work",
    "Next Step",
    "Critical Context",
]

FETCH_SCHEMA = {
    "type": "function",
    "function": {
        "name": "fetch",
        "description": "List a directory.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
}

HEADER = ChatRequest(messages=(Message.system("You are a helper."),), tools=(FETCH_SCHEMA,))
DSH_METER = DshConfig(meter="dsh")
"""The tests that check dsh's own prices run the engine with dsh's meter."""


# --- the pricing rule, written out independently ----------------------------------------------


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def q(text: str) -> int:
    return math.ceil(utf16(text) / 4)


def rule_price(message: Message) -> int:
    """dsh's heuristic (§A12) for the block shapes our messages have."""
    if message.role == "tool":
        return (q(message.content) + 4) + 4 + 4  # text block, tool-result block, role
    blocks = q(message.content) + 4 if message.content else 0
    calls = sum(q(c.name) + q(c.arguments) + 4 for c in message.tool_calls)
    return blocks + calls + 4


def rule_header(request: ChatRequest) -> int:
    total = 0
    for message in request.messages:
        total += q(message.content) + 4 if message.role == "system" else rule_price(message)
    if request.tools:
        total += q(json.dumps(list(request.tools), separators=(",", ":"), ensure_ascii=False)) + 4
    return total


# --- fixtures -----------------------------------------------------------------------------------


def ticking_clock() -> Callable[[], str]:
    ticks = iter(range(10**6))
    return lambda: f"2025-01-01T00:00:00.{next(ticks):06d}Z"


def conversation() -> list[Message]:
    """Four compactable nodes (a completed tool round) and a short last user turn."""
    return [
        Message.user("Please list the files in /srv/data. " + "x" * 400),
        Message.assistant("", [ToolCall("c1", "fetch", '{"path":"/srv/data"}')]),
        Message.tool("c1", "a.txt\n" * 100, tool_name="fetch"),
        Message.assistant("There are 100 files in /srv/data."),
        Message.user("thanks"),
    ]


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    return tmp_path / "s.jsonl"


@pytest.fixture
def log(log_path: Path) -> EventLog:
    """A log whose seqs are not positions: seq 0 is a log-only event."""
    log = EventLog(log_path, clock=ticking_clock())
    log.append("session/start", {"session_id": "t"})
    for message in conversation():
        log.append_message(message)
    return log


def summariser(
    text: str = "## Primary Request and Intent\n- list /srv/data",
    *,
    finish: str = "stop",
    on_call: Callable[[ChatRequest], None] | None = None,
) -> FunctionModel:
    def reply(request: ChatRequest) -> ChatResponse:
        assert request.purpose == "summary"
        if on_call is not None:
            on_call(request)
        return ChatResponse(
            Message.assistant(text),
            finish_reason=finish,
            usage=Usage(prompt_tokens=900, completion_tokens=40, cached_tokens=800),
            model="deepseek-v4-test",
        )

    return FunctionModel(reply, model_name="summariser")


def types_after(log: EventLog, n: int) -> list[str]:
    return [e.type for e in log.events[n:]]


# --- config -------------------------------------------------------------------------------------


def test_config_defaults_are_dsh_defaults() -> None:
    config = DshConfig()
    assert (
        config.threshold_ratio,
        config.retain_ratio,
        config.retain_tokens,
        config.max_tokens,
        config.compaction_retries,
        config.max_overflow_retries,
    ) == (0.8, 0.16, None, 8192, 1, 1)
    assert config.context_window == 1_000_000
    assert (config.threshold, config.retain) == (800_000, 160_000)


@pytest.mark.parametrize(
    ("window", "threshold", "retain"),
    [(1000, 800, 160), (12_345, 9876, 1975), (10, 8, 1), (7, 5, 1)],
)
def test_threshold_and_retain_are_floored_fractions_of_the_window(
    window: int, threshold: int, retain: int
) -> None:
    config = DshConfig(context_window=window)
    assert (config.threshold, config.retain) == (threshold, retain)


def test_retain_tokens_overrides_the_ratio() -> None:
    assert DshConfig(context_window=1000, retain_tokens=0).retain == 0
    assert DshConfig(context_window=1000, retain_tokens=799).retain == 799
    assert DshConfig(context_window=1000, threshold_ratio=1.0, retain_tokens=999).threshold == 1000


@pytest.mark.parametrize(
    "kwargs",
    [
        {"context_window": 0},
        {"context_window": -5},
        {"threshold_ratio": 0},
        {"threshold_ratio": 1.5},
        {"threshold_ratio": -0.2},
        {"retain_ratio": 0},
        {"retain_ratio": 1.2},
        {"threshold_ratio": 0.5, "retain_ratio": 0.5},
        {"threshold_ratio": 0.5, "retain_ratio": 0.6},
        {"context_window": 1000, "retain_tokens": 800},
        {"context_window": 1000, "retain_tokens": 5000},
        {"context_window": 1000, "retain_tokens": -1},
        {"max_tokens": 0},
        {"compaction_retries": -1},
        {"max_overflow_retries": -1},
    ],
)
def test_invalid_config_is_rejected(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match="invalid DshConfig"):
        DshConfig(**kwargs)


def test_boundary_configs_are_accepted() -> None:
    DshConfig(threshold_ratio=1.0, retain_ratio=0.99)
    DshConfig(max_overflow_retries=0, compaction_retries=0)
    DshConfig(context_window=1000, retain_tokens=0)


# --- meter --------------------------------------------------------------------------------------


def test_price_text_is_ceil_quarter_plus_four() -> None:
    assert [price_text("x" * n) for n in (0, 1, 4, 5, 8, 9)] == [4, 5, 5, 6, 6, 7]


@pytest.mark.parametrize(
    ("message", "price"),
    [
        (Message.user("hello"), 2 + 4 + 4),
        (Message.user("abcdefgh"), 2 + 4 + 4),
        (Message.assistant("ok"), 1 + 4 + 4),
        # name "read_file" (9) → 3, args '{"path":"a.txt"}' (16) → 4, +4 for the call, +4 role
        (Message.assistant("", [ToolCall("c1", "read_file", '{"path":"a.txt"}')]), 3 + 4 + 4 + 4),
        # text block 6 + the call 11 + role 4
        (Message.assistant("hello", [ToolCall("c1", "read_file", '{"path":"a.txt"}')]), 6 + 11 + 4),
        # two parallel calls: "ls" (2) → 1, "{}" (2) → 1, +4 each
        (Message.assistant("", [ToolCall("a", "ls", "{}"), ToolCall("b", "ls", "{}")]), 6 + 6 + 4),
        # tool result: text 9 → 3 + 4, +4 for the result block, +4 role
        (Message.tool("c1", "abcdefghi"), 3 + 4 + 4 + 4),
        (Message.tool("c1", ""), 0 + 4 + 4 + 4),
        # CJK: one UTF-16 unit per character
        (Message.user("你好世界"), 1 + 4 + 4),
        (Message.user("列出文件列出文件列"), 3 + 4 + 4),
        # astral characters are two UTF-16 units each: 3 emoji = 6 units → 2
        (Message.user("😀😀😀"), 2 + 4 + 4),
    ],
)
def test_price_message_follows_the_rule(message: Message, price: int) -> None:
    assert price_message(message) == price
    assert rule_price(message) == price


def test_measure_prices_system_prompt_tools_and_nodes() -> None:
    tools = ({"type": "function", "function": {"name": "ls", "parameters": {}}},)
    tools_json = '[{"type":"function","function":{"name":"ls","parameters":{}}}]'
    assert len(tools_json) == 62
    header = ChatRequest(messages=(Message.system("abcdefghij"),), tools=tools)
    nodes = [(3, Message.user("hello")), (7, Message.tool("c", "abcdefghi"))]
    measured = measure(header, nodes)
    # system: ceil(10/4)+4 = 7 (no per-message 4); tools: ceil(62/4)+4 = 20
    assert measured.header_tokens == 7 + 20
    assert measured.nodes == ((3, 10), (7, 15))
    assert measured.surface_tokens == 25
    assert measured.total == 52


def test_measure_without_tools_or_system() -> None:
    assert measure(ChatRequest(messages=()), []).total == 0
    assert measure(ChatRequest(messages=(Message.system("你好"),)), []).header_tokens == 5


def test_tools_json_counts_cjk_per_utf16_unit() -> None:
    tools = ({"type": "function", "function": {"name": "读", "description": "读取文件"}},)
    stringified = '[{"type":"function","function":{"name":"读","description":"读取文件"}}]'
    assert len(stringified) == 66
    assert measure(ChatRequest(messages=(), tools=tools), []).header_tokens == 17 + 4


def test_reasoning_content_is_priced_as_a_block() -> None:
    message = Message.assistant("ok", reasoning_content="r" * 400)
    assert price_message(message) == (1 + 4) + (100 + 4) + 4


# --- select_compactable_range -------------------------------------------------------------------


def priced(messages: list[Message], prices: list[int], seqs: list[int] | None = None):
    seqs = seqs if seqs is not None else list(range(10, 10 + len(messages)))
    nodes = list(zip(seqs, messages, strict=True))
    return nodes, Measurement(0, tuple(zip(seqs, prices, strict=True)))


def users(n: int) -> list[Message]:
    return [Message.user(f"m{i}") for i in range(n)]


@pytest.mark.parametrize(
    ("retain", "end", "tokens"),
    [
        (25, 1, 20),  # 10+10 < 25, +10 reaches it: keep 3, compact 2
        (20, 2, 30),  # 10+10 reaches 20 exactly: keep 2
        (11, 2, 30),
        (10, 3, 40),  # the last node alone reaches it
        (0, 3, 40),  # retain 0 still keeps the last node
        (1, 3, 40),
    ],
)
def test_retain_budget_is_reached_from_the_tail(retain: int, end: int, tokens: int) -> None:
    nodes, measurement = priced(users(5), [10] * 5)
    found = select_compactable_range(nodes, measurement, retain)
    assert found is not None
    assert (found.start, found.end, found.tokens) == (0, end, tokens)
    assert found.seqs == tuple(range(10, 10 + end + 1))
    assert found.naive_cut == end + 1


def test_prices_not_counts_decide_the_tail() -> None:
    nodes, measurement = priced(users(5), [50, 50, 50, 5, 300])
    found = select_compactable_range(nodes, measurement, 200)
    assert found is not None and (found.end, found.tokens) == (3, 155)


@pytest.mark.parametrize("retain", [50, 51, 1000])
def test_everything_retained_gives_none(retain: int) -> None:
    nodes, measurement = priced(users(5), [10] * 5)
    assert select_compactable_range(nodes, measurement, retain) is None


def test_a_single_node_or_an_empty_surface_gives_none() -> None:
    nodes, measurement = priced(users(1), [500])
    assert select_compactable_range(nodes, measurement, 0) is None
    assert select_compactable_range([], Measurement(0, ()), 0) is None


def call(*ids: str) -> Message:
    return Message.assistant("", [ToolCall(i, "fetch", "{}") for i in ids])


def test_cut_between_a_call_and_its_result_backs_off_toward_the_head() -> None:
    messages = [Message.user("go"), call("c1"), Message.tool("c1", "r"), Message.assistant("ok")]
    nodes, measurement = priced(messages, [10, 10, 10, 10])
    found = select_compactable_range(nodes, measurement, 15)
    assert found is not None
    assert (found.naive_cut, found.start, found.end, found.seqs) == (2, 0, 0, (10,))
    assert found.tokens == 10


def test_parallel_calls_back_off_past_all_their_results() -> None:
    messages = [
        Message.user("go"),
        call("c1", "c2"),
        Message.tool("c1", "r1"),
        Message.tool("c2", "r2"),
        Message.user("next"),
    ]
    nodes, measurement = priced(messages, [10] * 5)
    found = select_compactable_range(nodes, measurement, 20)  # naive cut before the 2nd result
    assert found is not None
    assert (found.naive_cut, found.end) == (3, 0)


def test_a_cut_after_a_completed_round_does_not_move() -> None:
    messages = [
        Message.user("go"),
        call("c1", "c2"),
        Message.tool("c1", "r1"),
        Message.tool("c2", "r2"),
        Message.assistant("done"),
        Message.user("next"),
    ]
    nodes, measurement = priced(messages, [10] * 6)
    found = select_compactable_range(nodes, measurement, 20)
    assert found is not None
    assert (found.naive_cut, found.end, found.tokens) == (4, 3, 40)


def test_backing_off_to_the_head_gives_none() -> None:
    messages = [call("c1", "c2"), Message.tool("c1", "r1"), Message.tool("c2", "r2")]
    nodes, measurement = priced(messages, [10, 10, 10])
    assert select_compactable_range(nodes, measurement, 0) is None


def test_seqs_follow_surface_positions_after_a_replace() -> None:
    # A checkpoint (high seq) at the head: ranges are positions, seqs are whatever sits there.
    nodes, measurement = priced(users(4), [10] * 4, seqs=[40, 7, 8, 9])
    found = select_compactable_range(nodes, measurement, 0)
    assert found is not None and found.seqs == (40, 7, 8)


@pytest.mark.parametrize(
    "priced_seqs",
    [[10, 11, 12], [10, 11, 12, 13, 14], [10, 11, 13, 12], [10, 11, 12, 99]],
)
def test_stale_pricing_raises(priced_seqs: list[int]) -> None:
    nodes, _ = priced(users(4), [10] * 4)
    stale = Measurement(0, tuple((seq, 10) for seq in priced_seqs))
    with pytest.raises(SurfaceError, match="stale"):
        select_compactable_range(nodes, stale, 0)


def test_a_result_without_a_call_is_a_corrupt_surface() -> None:
    messages = [Message.user("a"), Message.tool("ghost", "r"), Message.user("b"), Message.user("c")]
    nodes, measurement = priced(messages, [10] * 4)
    with pytest.raises(SurfaceError, match="corrupt"):
        select_compactable_range(nodes, measurement, 0)


def test_tool_pairing_balance() -> None:
    messages = [
        Message.user("a"),
        call("c1", "c2"),
        Message.tool("c1", "r"),
        Message.tool("c2", "r"),
    ]
    assert [tool_pairing_balanced_before(messages, cut) for cut in range(5)] == [
        True,
        True,
        False,
        False,
        True,
    ]
    with pytest.raises(SurfaceError):
        tool_pairing_balanced_before([Message.tool("x", "r")], 1)


# --- the summary request ------------------------------------------------------------------------


def test_summary_request_is_header_plus_shadowed_plus_final_directive() -> None:
    reference = Message.user("MEMORY.md: prefer pnpm")
    header = ChatRequest(
        messages=(Message.system("sys"), reference),
        tools=(FETCH_SCHEMA,),
        tool_choice="auto",
        max_tokens=100,
    )
    shadowed = conversation()[:4]
    request = build_summary_request(header, shadowed, 4096)
    assert request.messages[:-1] == (Message.system("sys"), reference, *shadowed)
    assert [m.to_record() for m in request.messages[2:-1]] == [m.to_record() for m in shadowed]
    last = request.messages[-1]
    assert last.role == "user" and last.content == DIRECTIVE
    assert request.tools == (FETCH_SCHEMA,)
    assert request.max_tokens == 4096
    assert request.purpose == "summary"
    assert header.purpose == "agent" and header.max_tokens == 100  # the header is not mutated


def test_directive_names_the_eight_sections_in_order_and_the_merge_rule() -> None:
    positions = [DIRECTIVE.index(f"## {section}") for section in SECTIONS]
    assert positions == sorted(positions)
    assert DIRECTIVE.count("## ") == 8
    assert "<compacted-summary>" in DIRECTIVE
    assert "merge" in DIRECTIVE.lower()
    assert "(none)" in DIRECTIVE
    assert "do not call tools" in DIRECTIVE.lower()


def test_custom_instructions_are_appended_to_the_directive() -> None:
    request = build_summary_request(HEADER, [Message.user("x")], 10, "  Focus on file paths. ")
    text = request.messages[-1].content
    assert text.startswith(DIRECTIVE)
    assert text.endswith("Focus on file paths.")
    assert build_summary_request(HEADER, [], 10, "   ").messages[-1].content == DIRECTIVE


def test_checkpoint_framing() -> None:
    content = frame_checkpoint("  - fact one\n- fact two \n").content
    opening = content.index("<compacted-summary>")
    assert 0 < opening < content.index("- fact one") < content.index("</compacted-summary>")
    assert content.endswith("</compacted-summary>")
    assert content.count("<compacted-summary>") == 1
    assert frame_checkpoint("s").role == "user"


def test_the_engine_sends_the_summary_request(log: EventLog) -> None:
    model = summariser()
    engine = DshEngine(log, model, DshConfig(max_tokens=2048))
    result = engine.compact_now(HEADER, instructions="Keep the path /srv/data.")
    assert result is not None
    (request,) = model.requests
    assert request is result.summary_request
    assert request.messages[0] == HEADER.messages[0]
    assert [m.to_record() for m in request.messages[1:-1]] == [
        m.to_record() for m in conversation()[:4]
    ]
    assert request.messages[-1].role == "user"
    assert request.messages[-1].content.startswith(DIRECTIVE)
    assert request.messages[-1].content.endswith("Keep the path /srv/data.")
    assert request.tools == HEADER.tools
    assert (request.max_tokens, request.purpose) == (2048, "summary")


# --- checks: fail closed ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "finish", "match"),
    [
        ("## Primary Request and Intent\n- a", "length", "max_tokens"),
        ("   \n ", "stop", "no text"),
        ("", "stop", "no text"),
        ("y" * 5000, "stop", "summary is not smaller"),
    ],
)
def test_a_failed_summary_closes_the_bracket_and_leaves_the_surface(
    log: EventLog, log_path: Path, text: str, finish: str, match: str
) -> None:
    before_events = len(log.events)
    surface, messages = log.surface, log.messages()
    engine = DshEngine(log, summariser(text, finish=finish))
    with pytest.raises(SummaryError, match=match):
        engine.compact_now(HEADER)
    start, end = log.events[before_events:]
    assert (start.type, end.type) == ("compaction/start", "compaction/end")
    assert end.data["compaction_id"] == start.data["compaction_id"]
    assert end.data["error"].startswith("SummaryError")
    assert match in end.data["error"]
    assert log.surface == surface and log.messages() == messages
    assert log.open_compaction() is None  # the lock is released
    assert EventLog.open(log_path).messages() == messages


def test_the_shrink_check_is_strict(log_path: Path) -> None:
    big = Message.user("z" * 400)  # ceil(400/4)+4+4 = 108
    frame = len(frame_checkpoint("s").content) - 1  # framing characters around the summary
    # A summary whose framed checkpoint costs exactly 108: ceil((frame+n)/4) + 8 == 108.
    equal = 4 * 100 - frame
    for n, ok in ((equal, False), (equal - 4, True)):
        log = EventLog(log_path.with_name(f"{n}.jsonl"))
        log.append_message(big)
        log.append_message(Message.user("tail"))
        engine = DshEngine(log, summariser("w" * n), DSH_METER)
        if ok:
            assert engine.compact_now(HEADER) is not None
            assert rule_price(log.messages()[0]) == 107
        else:
            with pytest.raises(SummaryError, match=r"not smaller.*108"):
                engine.compact_now(HEADER)


def test_a_failing_summary_model_closes_the_bracket_with_its_error(log: EventLog) -> None:
    n = len(log.events)
    engine = DshEngine(log, ScriptedModel([Step(ServerError("boom", status_code=503))]))
    with pytest.raises(SummaryError) as info:
        engine.compact_now(HEADER)
    assert isinstance(info.value.__cause__, ServerError)
    assert types_after(log, n) == ["compaction/start", "compaction/end"]
    assert "ServerError: boom" in log.events[-1].data["error"]
    assert log.surface.replace_generation == 0


# --- commit -------------------------------------------------------------------------------------


def test_commit_appends_exactly_four_events(log: EventLog, log_path: Path) -> None:
    n = len(log.events)
    original = conversation()
    shadowed_price = sum(rule_price(m) for m in original[:4])
    result = DshEngine(log, summariser(), DSH_METER).compact_now(HEADER)
    assert result is not None
    assert types_after(log, n) == [
        "compaction/start",
        "compaction/summary",
        "user/message",
        "compaction/end",
    ]
    start, summary, checkpoint, end = log.events[n:]
    assert (result.start_seq, result.summary_seq, result.checkpoint_seq, result.end_seq) == (
        start.seq,
        summary.seq,
        checkpoint.seq,
        end.seq,
    )
    cid = start.data["compaction_id"]
    data = thaw(summary.data)
    assert data["compaction_id"] == cid and end.data["compaction_id"] == cid
    assert data["summary"] == "## Primary Request and Intent\n- list /srv/data"
    assert data["shadowed_range"] == {"start": 1, "end": 4}  # seqs, as DeepSeek-Harness
    assert data["shadowed_seqs"] == [1, 2, 3, 4]  # seq 0 is the log-only session/start
    assert data["shadowed_token_count"] == shadowed_price
    assert data["model"] == "deepseek-v4-test"
    assert data["usage"] == {"prompt_tokens": 900, "completion_tokens": 40, "cached_tokens": 800}
    assert thaw(checkpoint.surface_op) == {"op": "replace", "start": 1, "end": 4}
    assert checkpoint.source_event_seqs == (start.seq, summary.seq, 1, 2, 3, 4)
    assert end.data["error"] is None
    assert log.surface.nodes == (checkpoint.seq, 5)
    assert log.surface.replace_generation == 1
    # nothing was deleted: the shadowed events are still in the log
    assert [log.events[s].message for s in (1, 2, 3, 4)] == original[:4]

    live = log.messages()
    assert live[1] == original[4]
    content = live[0].content
    assert live[0].role == "user"
    assert "<compacted-summary>\n## Primary Request and Intent\n- list /srv/data\n" in content
    assert content.endswith("</compacted-summary>")
    assert EventLog.open(log_path).messages() == live
    assert result.event.summary == data["summary"]
    assert result.event.trigger == "manual"


def test_a_second_compaction_merges_the_first_checkpoint(log: EventLog, log_path: Path) -> None:
    engine = DshEngine(log, summariser("- first summary " + "f" * 40))
    first = engine.compact_now(HEADER)
    assert first is not None
    log.append_message(Message.assistant("You're welcome. " + "w" * 300))
    log.append_message(Message.user("Now count the .txt files. " + "c" * 300))
    log.append_message(Message.assistant("100."))
    engine.model = summariser("- merged summary")
    second = engine.compact_now(HEADER)
    assert second is not None
    request = engine.model.requests[0]
    assert request.messages[1].content == log.events[first.checkpoint_seq].message.content
    assert "first summary" in request.messages[1].content
    summary = log.events[second.summary_seq]
    assert summary.data["shadowed_seqs"][0] == first.checkpoint_seq  # head-anchored
    seqs = summary.data["shadowed_seqs"]
    assert thaw(summary.data["shadowed_range"]) == {"start": seqs[0], "end": seqs[-1]}
    live = log.messages()
    assert sum("<compacted-summary>" in m.content for m in live) == 1
    assert "merged summary" in live[0].content
    assert live[1:] == [Message.assistant("100.")]
    assert log.surface.replace_generation == 2
    assert EventLog.open(log_path).messages() == live


def test_nothing_compactable_writes_nothing(log_path: Path) -> None:
    log = EventLog(log_path)
    log.append_message(Message.user("only one " + "x" * 1000))
    model = summariser()
    assert DshEngine(log, model).compact_now(HEADER) is None
    assert len(log.events) == 1 and model.requests == []


# --- lock ---------------------------------------------------------------------------------------


def test_a_live_unclosed_start_blocks_every_path(log: EventLog) -> None:
    log.append("compaction/start", {"engine": "dsh", "compaction_id": "x"})
    n = len(log.events)
    model = summariser()
    engine = DshEngine(log, model, DshConfig(context_window=200, retain_tokens=10))
    with pytest.raises(CompactionBusyError):
        engine.compact_now(HEADER)
    with pytest.raises(CompactionBusyError):
        engine.compact_if_needed(HEADER)
    with pytest.raises(CompactionBusyError):
        engine.recover_overflow(HEADER)
    assert len(log.events) == n and model.requests == []


def test_the_lock_is_held_during_the_summary_call(log: EventLog) -> None:
    seen: list[BaseException] = []

    def nested(_: ChatRequest) -> None:
        with pytest.raises(CompactionBusyError) as info:
            engine.compact_now(HEADER)
        seen.append(info.value)

    engine = DshEngine(log, summariser(on_call=nested))
    assert engine.compact_now(HEADER) is not None
    assert len(seen) == 1
    assert [e.type for e in log.events].count("compaction/start") == 1


def test_a_stale_start_from_an_earlier_process_does_not_block(
    log: EventLog, log_path: Path
) -> None:
    log.append("compaction/start", {"engine": "dsh", "compaction_id": "crashed"})
    reopened = EventLog.open(log_path)
    assert reopened.events[-1].type == END_SEED
    assert reopened.stale_compaction() is not None
    assert reopened.open_compaction() is None
    result = DshEngine(reopened, summariser()).compact_now(HEADER)
    assert result is not None
    assert reopened.events[-1].type == "compaction/end"
    assert reopened.stale_compaction() is None


# --- pressure path on the engine ----------------------------------------------------------------


def header_and_surface_price(log: EventLog) -> int:
    return rule_header(HEADER) + sum(rule_price(m) for m in log.messages())


def test_pressure_compacts_at_and_above_the_threshold_only(log: EventLog) -> None:
    total = header_and_surface_price(log)
    below = DshEngine(
        log, summariser(), DshConfig(total + 1, threshold_ratio=1.0, retain_tokens=0, meter="dsh")
    )
    assert below.compact_if_needed(HEADER) == []
    assert below.model.requests == [] and log.surface.replace_generation == 0
    at = DshEngine(
        log, summariser(), DshConfig(total, threshold_ratio=1.0, retain_tokens=0, meter="dsh")
    )
    (event,) = at.compact_if_needed(HEADER)
    assert event.trigger == "pressure"
    assert event.total_tokens == total
    assert event.tokens_after == header_and_surface_price(log) < total
    assert log.surface.replace_generation == 1


def pressure(log: EventLog, retain: int) -> DshConfig:
    """A config whose threshold is exactly the current request's price."""
    return DshConfig(
        header_and_surface_price(log), threshold_ratio=1.0, retain_tokens=retain, meter="dsh"
    )


def test_pressure_keeps_the_retain_budget(log: EventLog) -> None:
    # The tail "thanks" costs 2+4+4 = 10, the answer before it ceil(33/4)+4+4 = 17: a budget
    # of 20 is reached with both, so the head block is positions 0..2.
    config = pressure(log, 20)
    (event,) = DshEngine(log, summariser(), config).compact_if_needed(HEADER)
    assert (event.cutoff.index, event.keeping) == (3, 2)
    assert log.messages()[1:] == conversation()[3:]


# --- stability ----------------------------------------------------------------------------------


def interjecting(log: EventLog) -> Callable[[ChatRequest], None]:
    return lambda _: log.append_message(Message.user("interjection"))


@pytest.mark.parametrize("path", ["pressure", "overflow"])
def test_automatic_paths_refuse_a_surface_append_during_the_summary(
    log: EventLog, path: str
) -> None:
    before = log.surface
    engine = DshEngine(log, summariser(on_call=interjecting(log)), pressure(log, 10))
    n = len(log.events)
    if path == "pressure":  # logged, and the turn goes on (dsh's pre-step listener)
        assert engine.compact_if_needed(HEADER) == []
    else:
        with pytest.raises(SurfaceChangedError):
            engine.recover_overflow(HEADER)
    assert types_after(log, n) == ["compaction/start", "user/message", "compaction/end"]
    assert log.events[-1].data["error"].startswith("SurfaceChangedError")
    assert log.surface.nodes == (*before.nodes, n + 1)
    assert log.surface.replace_generation == 0


def test_automatic_path_tolerates_a_log_only_append_during_the_summary(log: EventLog) -> None:
    engine = DshEngine(
        log,
        summariser(on_call=lambda _: log.append("request/header", {"model": "x"})),
        pressure(log, 10),
    )
    assert len(engine.compact_if_needed(HEADER)) == 1
    assert log.surface.replace_generation == 1


def test_manual_tolerates_an_append_after_the_span(log: EventLog, log_path: Path) -> None:
    engine = DshEngine(log, summariser(on_call=interjecting(log)))
    result = engine.compact_now(HEADER)
    assert result is not None
    assert log.messages()[1:] == [Message.user("thanks"), Message.user("interjection")]
    assert EventLog.open(log_path).messages() == log.messages()


def test_manual_refuses_a_change_inside_the_span(log: EventLog) -> None:
    def prune(_: ChatRequest) -> None:
        log.replace_span(2, 2, Message.tool("c1", "a.txt ...(pruned)", tool_name="fetch"))

    engine = DshEngine(log, summariser(on_call=prune))
    with pytest.raises(SurfaceChangedError, match="selected span"):
        engine.compact_now(HEADER)
    assert log.events[-1].type == "compaction/end"
    assert log.events[-1].data["error"].startswith("SurfaceChangedError")
    assert log.surface.replace_generation == 1  # the prune, and no checkpoint
    assert not any("<compacted-summary>" in m.content for m in log.messages())


# --- the model-free tool-result pruner ---------------------------------------------------------


def _log_with_long_result(tmp_path: Path, size: int) -> EventLog:
    long_log = EventLog(tmp_path / "pruned.jsonl")
    long_log.append_message(Message.user("read the manifest"))
    long_log.append_message(Message.assistant("", [ToolCall("c1", "manifest", "{}")]))
    long_log.append_message(Message.tool("c1", "".join(chr(0x4E00 + i % 500) for i in range(size))))
    long_log.append_message(Message.assistant("done"))
    return long_log


def test_the_pruner_keeps_head_and_tail_and_is_idempotent(tmp_path: Path) -> None:
    from harness.compaction.dsh.pruner import MARKER, ToolResultPruner

    long_log = _log_with_long_result(tmp_path, 10_000)
    original = long_log.messages()[2].content
    before = len(long_log.events)
    assert ToolResultPruner().prune(long_log) == 1
    pruned = long_log.messages()[2]
    assert pruned.content == original[:4096] + MARKER + original[-1024:]
    assert pruned.tool_call_id == "c1"
    types = [e.type for e in long_log.events[before:]]
    assert types == ["compaction/prune", "tool/result"]
    assert list(long_log.events[before].data["shadowed_seqs"]) == [2]
    assert long_log.events[before].data["meter"] == "dsh-4chars"  # who priced the shadow
    assert thaw(long_log.events[before].data["shadowed_range"]) == {"start": 2, "end": 2}
    assert thaw(long_log.events[before + 1].surface_op) == {"op": "replace", "start": 2, "end": 2}
    assert MARKER == "\n\n[... tool result middle pruned ...]\n\n"  # DeepSeek-Harness's, exactly
    assert ToolResultPruner().prune(long_log) == 0  # under the threshold now
    assert EventLog.replay(tmp_path / "pruned.jsonl").messages() == long_log.messages()


def test_a_result_at_the_threshold_is_left_alone(tmp_path: Path) -> None:
    from harness.compaction.dsh.pruner import ToolResultPruner

    long_log = _log_with_long_result(tmp_path, 8_192)
    assert ToolResultPruner().prune(long_log) == 0


def test_overflow_counts_a_prune_as_progress_when_the_summary_fails(tmp_path: Path) -> None:
    long_log = _log_with_long_result(tmp_path, 20_000)

    def failing(request: ChatRequest) -> str:
        raise ServerError("summary backend down", status_code=503)

    engine = DshEngine(long_log, FunctionModel(failing), DshConfig())
    events = engine.recover_overflow(HEADER)
    assert [e.trigger for e in events] == ["overflow-prune"]
    # a prune-only record says what it does not know instead of made-up zeros
    assert [(e.engine, e.cutoff, e.total_tokens, e.tokens_after) for e in events] == [
        ("dsh", None, None, None)
    ]
    assert long_log.surface.replace_generation == 1
    assert len(long_log.messages()[2].content) < 8_192


def test_pressure_relieved_by_the_prune_alone_calls_no_model(tmp_path: Path) -> None:
    long_log = _log_with_long_result(tmp_path, 20_000)
    model = FunctionModel(lambda r: "- summary")
    config = DshConfig(context_window=6_000, retain_tokens=100, meter="dsh")  # threshold 4,800
    assert DshEngine(long_log, model, config).compact_if_needed(HEADER) == []
    assert model.requests == []
    assert long_log.surface.replace_generation == 1


def test_the_pressure_check_prices_the_new_node_without_copying_the_surface(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Per turn the check must cost O(new nodes): ``log.surface`` builds a tuple of every node,
    so reading it on each check made the check grow with the session (100K nodes: 4.56× the
    check at 1K in benchmarks/check_cost.py; now about 1×)."""
    log = EventLog()
    for i in range(50):
        log.append_message(Message.user(f"message {i}"))
    engine = DshEngine(log, ScriptedModel([]), DshConfig(context_window=10**12))
    header = ChatRequest(messages=(Message.system("You are terse."),))
    before = engine.read(header).tokens
    log.append_message(Message.user("one more"))

    def copied(self: EventLog) -> None:
        raise AssertionError("the check copied the whole surface")

    monkeypatch.setattr(EventLog, "surface", property(copied))
    assert engine.read(header).tokens > before
