"""A DeepSeek-Harness session another agent owns is not compacted by hand.

In dsh an agent owns its session while the log's last turn is open: ``turn/start`` written, no
``turn/end`` yet. That holds for a live agent and for one that crashed and has not been resumed
(dsh's resume closes the turn as ``interrupted``). dsh's ``compactNow`` refuses such a session as
``busy``. ctxlab's own session lock sits beside the file, where dsh does not look, so the open
turn is the only mark both harnesses see: ``ctxlab compact`` reads the log without writing it
(:meth:`~harness.store.eventlog.EventLog.replay`) and refuses before its ``session/end-seed``
or a compaction could interleave with the owner's appends.
"""

from __future__ import annotations

from harness.errors import ManualCompactionError
from harness.fs.path import WorkspacePath
from harness.store.eventlog import EventLog
from harness.store.eventlog.codec import codec_of
from harness.store.eventlog.turns import open_turn

__all__ = ["refuse_owned_session"]


def refuse_owned_session(file: WorkspacePath) -> None:
    """ManualCompactionError ``busy`` when ``file`` is a dsh-format log whose last turn is open
    or whose compaction is live (nothing is written); nothing for a missing file or one in
    ctxlab's own format."""
    if file.kind() != "file" or codec_of(file, None).format != "dsh":
        return
    log = EventLog.replay(file)
    compacting = log.open_compaction()
    if compacting is not None:
        raise ManualCompactionError(
            "busy",
            f"a compaction is still open (compaction/start at seq {compacting.seq}, with no "
            "compaction/end and no later session/end-seed), so a DeepSeek-Harness process is "
            "compacting this session, or crashed doing so and has not resumed it",
        )
    owner = open_turn(log.events)
    if owner is None:
        return
    raise ManualCompactionError(
        "busy",
        f"the session already has an open turn (turn {owner.data.get('turn')!r}, opened by "
        f"turn/start at seq {owner.seq} and never ended), so a DeepSeek-Harness agent still "
        "owns it, live or crashed and not yet resumed; resume or finish it there first",
    )
