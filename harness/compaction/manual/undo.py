"""Undo of the last committed manual compaction, without dropping what came after it.

* **Event log** — nothing is restored from a copy: :func:`undo_on_log` finds the latest
  compaction whose ``compaction/end`` has no error (a failed or killed one is never picked),
  checks that its checkpoint is still on the surface, and appends a ``compaction/undo`` event
  followed by ordinary surface events that bring the shadowed originals back in place: one
  replace of the checkpoint through the newest node by the first original, then the other
  originals and every later node appended again (a pruned result as its original). Only
  ``append`` and seq-named ``replace`` ops are used, so DeepSeek-Harness folds the result the
  same way; every event stays in the log.
* **State store** — :func:`take_snapshot` writes the context before the compaction to
  ``snapshots/<session>/<attempt>.json``; only the audit line of a committed compaction names
  it, with a digest of the context the compaction left. :func:`restore_state` puts the
  snapshot back followed by every message added since, and refuses (changing nothing) when
  the context no longer starts with what the compaction left.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from harness import json_depth
from harness.errors import ManualCompactionError, NothingToUndoError
from harness.fs.path import WorkspacePath
from harness.messages import Message
from harness.store.eventlog import Event, EventLog
from harness.store.eventlog.turns import TurnMarks

__all__ = ["digest", "restore_state", "take_snapshot", "undo_on_log"]


def digest(messages: Sequence[Message]) -> str:
    """A sha256 of the messages' records: what a compaction left, to recognise it later."""
    text = json.dumps([m.to_record() for m in messages], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def take_snapshot(
    folder: WorkspacePath, session_id: str, attempt: str, context: list[Message]
) -> WorkspacePath:
    """Write the context before a compaction (never through a symlink); returns where."""
    path = folder / session_id / f"{attempt}.json"
    data = {"session_id": session_id, "context": [m.to_record() for m in context]}
    path.write_atomic(json.dumps(data, ensure_ascii=False) + "\n")
    return path


def restore_state(
    snapshot: WorkspacePath, session_id: str, record: dict[str, Any], now: list[Message]
) -> list[Message]:
    """The context to save: the snapshot, then what was added after the compaction."""
    try:
        data = json_depth.loads(snapshot.read_text())
        if not isinstance(data, dict) or not isinstance(data.get("context"), list):
            raise ValueError("not an object with a context")
    except ValueError as exc:  # not UTF-8, not JSON, nested too deep, or not a snapshot's shape
        raise ManualCompactionError(
            "damaged", f"the snapshot {snapshot} cannot be read ({exc}); nothing was changed"
        ) from None
    if data.get("session_id") != session_id:
        raise ManualCompactionError("commit", f"{snapshot} is not a snapshot of {session_id!r}")
    after = int(record["messages_after"])
    if len(now) < after or digest(now[:after]) != record["after_digest"]:
        raise ManualCompactionError(
            "changed",
            "the session was compacted or rewritten again after the last manual compaction, "
            "so undo would lose messages; nothing was changed",
        )
    return [Message.from_record(m) for m in data["context"]] + now[after:]


def undo_on_log(log: EventLog, session_id: str) -> tuple[str, int]:
    """Undo the last committed compaction on ``log``; returns its id and how many messages
    came back. ManualCompactionError when there is none or its checkpoint is gone."""
    bracket = _last_committed(log)
    if bracket is None:
        raise NothingToUndoError(session_id)
    compaction_id, checkpoint, pruned = bracket
    nodes = list(log.node_seqs)
    if checkpoint.seq not in nodes:
        raise ManualCompactionError(
            "changed",
            "the compaction's summary is no longer on the surface (a later compaction merged "
            "it), so it cannot be undone; nothing was changed",
        )
    start = nodes.index(checkpoint.seq)
    originals = _originals(checkpoint)
    restored = originals + [pruned.get(seq, seq) for seq in nodes[start + 1 :]]
    undo = log.append(
        "compaction/undo",
        {"compaction_id": compaction_id, "checkpoint_seq": checkpoint.seq, "restored": restored},
    )
    first = log.events[originals[0]].message
    assert first is not None  # shadowed nodes are surface events
    marks = _turn_marks(log)  # dsh's format: the restored messages get a turn and steps
    if marks is not None:
        marks.start_turn()
        marks.before_restored(first)
    log.replace_seqs(checkpoint.seq, nodes[-1], first, extra_sources=(undo.seq, originals[0]))
    for seq in restored[1:]:
        message = log.events[seq].message
        assert message is not None
        if marks is not None:
            marks.before_restored(message)
        log.append_message(message, restored_from=seq)
    if marks is not None:
        marks.end_turn()
    return compaction_id, len(originals)


def _turn_marks(log: EventLog) -> TurnMarks | None:
    if log.codec.format != "dsh":
        return None
    return TurnMarks(log)


def _originals(checkpoint: Event) -> list[int]:
    """The nodes a checkpoint shadowed, in surface order (its sources after start and
    summary, which are log-only events)."""
    return list(checkpoint.source_event_seqs[2:])


def _last_committed(log: EventLog) -> tuple[str, Event, dict[int, int]] | None:
    """The latest compaction closed without error and not undone yet: its id, its
    checkpoint, and ``{pruned replacement seq: original seq}`` of the results it pruned."""
    events = log.events
    undone = {e.data.get("compaction_id") for e in events if e.type == "compaction/undo"}
    for end in reversed(events):
        if end.type != "compaction/end" or end.data.get("error") is not None:
            continue
        compaction_id = end.data.get("compaction_id")
        if compaction_id in undone:
            return None  # the last committed compaction is already undone
        return _bracket(events, end, compaction_id)
    return None


def _bracket(events: Any, end: Event, compaction_id: Any) -> tuple[str, Event, dict[int, int]]:
    checkpoint: Event | None = None
    pruned: dict[int, int] = {}
    for event in reversed(events[: end.seq]):
        if event.type == "compaction/start" and event.data.get("compaction_id") == compaction_id:
            break
        if event.replace_range is None:
            continue
        if event.type == "tool/result":
            pruned[event.seq] = event.source_event_seqs[-1]
        elif checkpoint is None:
            checkpoint = event
    if checkpoint is None:
        raise ManualCompactionError("commit", f"compaction {compaction_id} has no checkpoint")
    return str(compaction_id), checkpoint, pruned
