"""The stores' originals are read incrementally: what the recall asks before every request
costs what was appended since, not the whole session (``harness/store/appended_lines.py``,
``EventLogHistory.originals``), and the answer is the full read's, whatever happened to the file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import Message
from harness.store import statefile
from harness.store.appended_lines import AppendedLines
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.eventlog.events import Event
from harness.store.statefile import Transcript


def full_read(path: Path) -> list[tuple[int, Message]]:
    """The transcript's message lines as a read of the whole file gives them (the reference)."""
    if not path.exists():
        return []
    text = path.read_bytes().decode("utf-8", errors="replace")
    found = []
    for number, line in enumerate(text.split("\n"), 1):
        message = statefile._message_of(line)
        if message is not None:
            found.append((number, message))
    return found


def _line(n: int) -> bytes:
    record = {
        "seq": n,
        "at": "t",
        "type": "message",
        "message": Message.user(f"m{n} 上海").to_record(),
    }
    return (json.dumps(record, ensure_ascii=False) + "\n").encode()


APPENDS = ("line", "half", "rest", "garbage", "bad utf-8")
OPS = st.sampled_from([*APPENDS, "replace", "shrink", "same size", "delete"])


def _apply(path: Path, op: str, n: int, pending: bytes) -> bytes:
    """Do ``op`` to the file; the half line still to write, if any."""
    if op in APPENDS:
        data = {"line": _line(n), "garbage": b"{not json\n", "bad utf-8": b"\xe4\xb8\n"}
        if op == "half":
            pending = _line(n)
            data["half"] = pending[: len(pending) // 2]
        elif op == "rest":
            data["rest"], pending = pending[len(pending) // 2 :], b""
        with path.open("ab") as file:
            file.write(data[op])
    elif op == "replace":
        temp = path.with_suffix(".tmp")
        temp.write_bytes(_line(n) + _line(n + 1))
        os.replace(temp, path)  # another inode
    elif path.exists() and op == "shrink":
        os.truncate(path, path.stat().st_size // 3)
    elif path.exists() and op == "same size":
        size = path.stat().st_size
        with path.open("r+b") as file:  # rewritten in place, same inode and size
            file.write((_line(n) * (size // len(_line(n)) + 1))[:size])
    elif op == "delete":
        path.unlink(missing_ok=True)
    return pending


@given(st.lists(OPS, max_size=25))
def test_every_read_is_the_full_reads_whatever_happened_to_the_file(ops: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.jsonl"
        lines = AppendedLines(statefile._message_of)
        pending = b""
        for n, op in enumerate(ops):
            pending = _apply(path, op, n, pending)
            assert lines.read(lambda: path.open("rb")) == full_read(path), op


def test_a_transcript_parses_each_line_once_across_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fails without the incremental read: reading after each of 200 appends parsed
    1 + 2 + … + 200 = 20,100 lines."""
    parsed = []
    real = statefile._message_of

    def counting(line: str) -> Message | None:
        parsed.append(line)
        return real(line)

    monkeypatch.setattr(statefile, "_message_of", counting)
    transcript = Transcript(tmp_path / "s.jsonl")
    for n in range(200):
        transcript.append_messages([Message.user(f"turn {n}")])
        found = transcript.numbered_messages()
        assert [m.content for _, m in found][-1] == f"turn {n}"
    assert len(found) == 200
    assert len(parsed) <= 200


def test_an_event_logs_originals_read_each_event_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fails without the kept list: each call copied the message of every event again."""
    reads = []
    real = Event.message

    def counting(event: Event) -> Message | None:
        reads.append(event.seq)
        return real.fget(event)  # type: ignore[attr-defined, no-any-return]

    monkeypatch.setattr(Event, "message", property(counting))
    history = EventLogHistory(EventLog())
    for n in range(100):
        history.append([Message.user(f"turn {n}")])
        originals = history.originals()
        assert [o.message.content for o in originals][-1] == f"turn {n}"
        assert [o.line for o in originals] == [
            e.seq + 1 for e in history.log.events if real.fget(e)
        ]  # type: ignore[attr-defined]
    assert len(reads) <= len(history.log.events)
