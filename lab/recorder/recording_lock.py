"""The lock a recording holds on its cassette: ``.<name>.lock`` beside it.

``ctxlab record`` checks that the cassette does not exist (unless ``--force``), records it and
writes it, all while holding this lock (the holder-naming OS lock of
:mod:`harness.store.session_lock`, freed by the kernel when its holder dies). A second recorder
of the same cassette is refused at once with :class:`~lab.errors.CassetteBusyError`
naming the first (a recording takes minutes; waiting and then failing on the existing cassette
would only hide it), so two recordings can never overwrite each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from harness.errors import SessionBusyError
from harness.store.session_lock import session_lock
from lab.errors import CassetteBusyError

__all__ = ["recording_lock"]


@contextmanager
def recording_lock(path: Path) -> Iterator[None]:
    """Hold the recording lock of the cassette at ``path`` (its folder is created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(f".{path.name}.lock")
    with ExitStack() as stack:
        try:
            stack.enter_context(session_lock(lock, "ctxlab record", timeout=0))
        except SessionBusyError as exc:
            holder = exc.holder
            raise CassetteBusyError(
                f"Cassette {path} is being recorded by pid {holder.get('pid', '?')} on "
                f"{holder.get('host', '?')} since {holder.get('started', '?')}; nothing was "
                "recorded. Wait for that recording to finish (then re-record with --force if "
                "you still want to)."
            ) from exc
        yield
