"""A damaged file ctxlab reads is one sentence naming the file, never a raw traceback (issue 25).

Each case plants one malformed state file on disk and opens the session through
``HarnessAgent`` and makes a call, as a user resuming a session would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.builder import HarnessAgent
from harness.errors import CtxlabError
from harness.testing import FunctionModel

MESSAGE = b'{"epoch": 0, "message": {"role": "user", "content": "x"}}\n'
STATE_FILES = {
    "checkpoint-not-json": ("state/s1.json", b"{not json"),
    "checkpoint-a-list": ("state/s1.json", b"[1, 2]"),
    "checkpoint-without-context": ("state/s1.json", b'{"format": 2, "session_id": "s1"}'),
    "checkpoint-utf16": ("state/s1.json", '{"format": 2}'.encode("utf-16")),
    "checkpoint-bad-message": (
        "state/s1.json",
        b'{"format": 2, "session_id": "s1", "context": [{"x": 1}]}',
    ),
    "checkpoint-context-a-number": (
        "state/s1.json",
        b'{"format": 2, "session_id": "s1", "context": 5}',
    ),
    "checkpoint-unknown-format": (
        "state/s1.json",
        b'{"format": 9, "session_id": "s1", "context": []}',
    ),
    "journal-line-not-json": ("state/s1.journal.jsonl", b"garbage\n" + MESSAGE),
    "journal-line-a-number": ("state/s1.journal.jsonl", b"5\n" + MESSAGE),
    "journal-line-without-message": ("state/s1.journal.jsonl", b'{"epoch": 0}\n' + MESSAGE),
    "journal-bad-message": (
        "state/s1.journal.jsonl",
        b'{"epoch": 0, "message": {"x": 1}}\n' + MESSAGE,
    ),
}


@pytest.mark.parametrize("case", sorted(STATE_FILES))
def test_a_damaged_state_file_is_one_sentence_naming_it(tmp_path: Path, case: str) -> None:
    relative, data = STATE_FILES[case]
    path = tmp_path / "u" / relative
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    model = FunctionModel(lambda request: "ok")
    with pytest.raises(CtxlabError) as info:
        agent = HarnessAgent(
            model, workspace_root=tmp_path, user_id="u", session_id="s1", store="state"
        )
        agent.call("hello")
    message = str(info.value)
    assert str(path) in message, message
    assert "\n" not in message and ("backup" in message or "move it aside" in message)
    assert path.read_bytes() == data  # nothing of it was rewritten or dropped
