"""Tests of harness.tools.LargeResultOffloader (large tool result offload)."""

from __future__ import annotations

import hashlib
import random
import re
import string
from pathlib import Path

import pytest

from harness.messages import Message, ToolCall
from harness.tools import LargeResultOffloader


def varied_text(size: int, seed: int = 7) -> str:
    """Text where every 2,000-character window is unique (so substring checks mean something)."""
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + " 船期上海\r\n😀"
    return "".join(rng.choice(alphabet) for _ in range(size))


def test_large_result_is_saved_and_replaced_by_a_preview(tmp_path: Path) -> None:
    text = varied_text(300_000)
    message = Message.tool("call/1:x", text, tool_name="execute")
    offloader = LargeResultOffloader(tmp_path)

    result = offloader.apply(message)

    relative = result.metadata["offloaded_to"]
    assert relative.startswith("large_tool_results/")
    assert relative in result.content
    assert text[:2_000] in result.content
    assert text[-2_000:] in result.content
    assert text[2_000:4_000] not in result.content
    assert len(result.content) < 5_000
    assert "300,000" in result.content
    assert "read_file" in result.content
    # The seed's path: large_tool_results/<hash>.txt, the hash of the text (not the call id).
    assert result.tool_call_id == "call/1:x"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    assert relative == f"large_tool_results/{digest}.txt"
    assert result.metadata["tool_name"] == "execute"
    assert result.metadata["original_chars"] == len(text)
    # The file holds the whole text, byte for byte (CR LF and non-BMP characters included).
    saved = tmp_path / relative
    assert saved.parent == tmp_path / "large_tool_results"
    assert saved.read_bytes() == text.encode("utf-8")
    # The input message is not changed.
    assert message.content == text
    assert "offloaded_to" not in message.metadata


def test_preview_head_and_tail_are_exact(tmp_path: Path) -> None:
    text = "A" * 2_000 + "B" * 100_000 + "Z" * 2_000
    result = LargeResultOffloader(tmp_path).apply(Message.tool("c1", text, tool_name="execute"))
    assert "\n" + "A" * 2_000 + "\n" in result.content
    assert result.content.endswith("\n" + "Z" * 2_000)
    assert "B" not in result.content


@pytest.mark.parametrize("size", [10, 79_999, 80_000])
def test_results_up_to_the_limit_are_unchanged(tmp_path: Path, size: int) -> None:
    message = Message.tool("c1", "x" * size, tool_name="execute")
    assert LargeResultOffloader(tmp_path).apply(message) is message
    assert not (tmp_path / "large_tool_results").exists()


def test_one_char_over_the_limit_is_offloaded(tmp_path: Path) -> None:
    message = Message.tool("c1", "x" * 80_001, tool_name="execute")
    result = LargeResultOffloader(tmp_path).apply(message)
    assert result is not message
    assert "offloaded_to" in result.metadata


@pytest.mark.parametrize("tool", ["read_file", "memory_search", "session_search", "grep_files"])
def test_excluded_tools_are_unchanged(tmp_path: Path, tool: str) -> None:
    message = Message.tool("c1", varied_text(100_000), tool_name=tool)
    assert LargeResultOffloader(tmp_path).apply(message) is message
    assert not (tmp_path / "large_tool_results").exists()


@pytest.mark.parametrize(
    "message",
    [
        Message.user("u" * 100_000),
        Message.assistant("a" * 100_000),
        Message.assistant("a" * 100_000, [ToolCall("c1", "f")]),
        Message.system("s" * 100_000),
    ],
)
def test_non_tool_messages_are_unchanged(tmp_path: Path, message: Message) -> None:
    assert LargeResultOffloader(tmp_path).apply(message) is message
    assert not (tmp_path / "large_tool_results").exists()


def test_custom_limits(tmp_path: Path) -> None:
    offloader = LargeResultOffloader(tmp_path, max_chars=20, preview_chars=4, folder="evicted")
    text = "0123456789" * 3
    result = offloader.apply(Message.tool("call_1", text, tool_name="execute"))
    relative = result.metadata["offloaded_to"]
    assert re.fullmatch(r"evicted/[0-9a-f]{16}\.txt", relative)
    assert "0123" in result.content
    assert "6789" in result.content
    assert "45678" not in result.content
    assert (tmp_path / relative).read_text(encoding="utf-8") == text


def test_different_texts_with_the_same_call_id_go_to_different_files(tmp_path: Path) -> None:
    offloader = LargeResultOffloader(tmp_path)
    first = offloader.apply(Message.tool("c1", varied_text(90_000, seed=1), tool_name="execute"))
    second = offloader.apply(Message.tool("c1", varied_text(90_000, seed=2), tool_name="execute"))
    assert first.metadata["offloaded_to"] != second.metadata["offloaded_to"]
    assert len(list((tmp_path / "large_tool_results").iterdir())) == 2
