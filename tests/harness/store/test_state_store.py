"""The state store as a checkpoint plus a journal (a turn costs what it adds): a turn writes only
its own messages, a compaction writes a checkpoint, and a crash at any write loses nothing that was
acknowledged (torn journal lines and stale-epoch lines are left out)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import StateStoreError
from harness.fs.path import WorkspacePath
from harness.messages import Message
from harness.store.statefile import AgentState, JsonStateStore


def _messages(n: int, start: int = 0) -> list[Message]:
    return [Message.user(f"m{start + i} 上海") for i in range(n)]


def test_appends_write_journal_lines_only(tmp_path: Path) -> None:
    store = JsonStateStore(tmp_path)
    state = AgentState("s", _messages(500))
    store.save(state)
    checkpoint = store.path("s").read_bytes()
    for n in range(10):
        new = _messages(2, 500 + 2 * n)
        state.context.extend(new)
        before = store.journal_path("s").stat().st_size if n else 0
        store.append(state, new)
        grown = store.journal_path("s").stat().st_size - before
        assert grown < 200  # two short lines, whatever the context's length
    assert store.path("s").read_bytes() == checkpoint  # not rewritten per turn
    assert JsonStateStore(tmp_path).load("s").context == state.context


def test_a_journal_as_long_as_the_context_becomes_a_checkpoint(tmp_path: Path) -> None:
    store = JsonStateStore(tmp_path)
    state = AgentState("s")
    for n in range(600):  # past JOURNAL_FLOOR (256) and the checkpoint
        new = _messages(1, n)
        state.context.extend(new)
        store.append(state, new)
    assert state.epoch >= 1  # folded at least once: loading stays linear in the context
    assert JsonStateStore(tmp_path).load("s").context == state.context


def test_a_torn_last_journal_line_is_dropped_and_truncated(tmp_path: Path) -> None:
    store = JsonStateStore(tmp_path)
    state = AgentState("s")
    store.append(state.__class__("s", _messages(2)), _messages(2))
    journal = store.journal_path("s")
    good = journal.read_bytes()
    journal.write_bytes(good + b'{"epoch": 0, "mess')
    assert JsonStateStore(tmp_path).load("s").context == _messages(2)
    assert journal.read_bytes() == good
    journal.write_bytes(good + b"not json\n")  # the newline landed, the rest did not
    assert JsonStateStore(tmp_path).load("s").context == _messages(2)


def test_a_compaction_is_one_journal_line_read_in_place_of_what_came_before(
    tmp_path: Path,
) -> None:
    store = JsonStateStore(tmp_path)
    state = AgentState("s", _messages(5))
    store.save(state)
    state.context = [Message.user("summary"), *state.context[-1:]]
    store.replace(state)
    state.context.append(Message.user("after"))
    store.append(state, state.context[-1:])
    assert state.epoch == 1  # no new checkpoint for the compaction
    assert JsonStateStore(tmp_path).load("s").context == state.context


def test_a_bad_line_before_the_last_is_an_error(tmp_path: Path) -> None:
    store = JsonStateStore(tmp_path)
    journal = store.journal_path("s")
    journal.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"epoch": 0, "message": Message.user("x").to_record()})
    journal.write_text(f"garbage\n{line}\n")
    with pytest.raises(StateStoreError, match=":1:"):
        store.load("s")


def test_lines_of_an_older_epoch_are_ignored(tmp_path: Path) -> None:
    """A crash after the new checkpoint landed and before the journal was emptied."""
    store = JsonStateStore(tmp_path)
    state = AgentState("s")
    store.append(state, _messages(3))
    stale = store.journal_path("s").read_bytes()
    state.context = [Message.user("summary")]
    store.save(state)
    store.journal_path("s").write_bytes(stale)  # as if the truncation never happened
    assert JsonStateStore(tmp_path).load("s").context == [Message.user("summary")]


def test_a_format_1_state_file_is_still_read(tmp_path: Path) -> None:
    data = {"format": 1, "session_id": "s", "context": [Message.user("old").to_record()]}
    (tmp_path / "s.json").write_text(json.dumps(data, indent=2))
    assert JsonStateStore(tmp_path).load("s").context == [Message.user("old")]


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(1, 3)),
        st.tuples(st.just("compact"), st.integers(0, 2)),
    ),
    max_size=12,
)


@settings(max_examples=40, deadline=None)
@given(ops=OPS, crash_at=st.integers(0, 40), tear=st.floats(0, 1))
def test_a_crash_at_any_write_loses_nothing_acknowledged(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, int]], crash_at: int, tear: float
) -> None:
    """Every write (journal append, checkpoint replace, truncation) may be the one a crash
    interrupts; what the store acknowledged before it is what a reload gives."""
    root = tmp_path_factory.mktemp("state")
    store = JsonStateStore(root)
    state, acked, counter = AgentState("s"), [], 0
    import harness.store.statefile as module

    real_append, writes = module.append_text, [0]

    def crashing_append(path: WorkspacePath, text: str) -> None:
        writes[0] += 1
        if writes[0] == crash_at:
            data = text.encode("utf-8")
            path.append(data[: int(len(data) * tear)])  # never through a symlink
            raise OSError("crash")
        real_append(path, text)

    module.append_text = crashing_append
    try:
        for op, n in ops:
            if op == "append":
                new = _messages(n, counter)
                counter += n
                state.context.extend(new)
                store.append(state, new)
            else:
                state.context = [Message.user(f"summary {counter}"), *state.context[-n:]]
                store.save(state)
            acked = list(state.context)
    except OSError:
        pass
    finally:
        module.append_text = real_append
    loaded = JsonStateStore(root).load("s").context
    assert loaded[: len(acked)] == acked
    assert len(loaded) - len(acked) in (0, *range(1, 4))  # at most the in-flight write's lines
    os.sync()
