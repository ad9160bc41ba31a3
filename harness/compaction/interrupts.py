"""Whether an exception is, or carries, a user's interrupt (Ctrl-C, SIGTERM).

Compaction's best-effort steps (the memory flush, the prefix record, a fail-open summary call)
log a failure and go on. An interrupt must never be taken for such a failure, even when a
library caught it and raised its own error from it (``raise X from KeyboardInterrupt()``, or an
error raised while the interrupt was being handled): the user asked to stop.
"""

from __future__ import annotations

__all__ = ["INTERRUPTS", "carries_interrupt"]

INTERRUPTS: tuple[type[BaseException], ...] = (KeyboardInterrupt, SystemExit)
"""What counts as a user's interrupt."""


def carries_interrupt(exc: BaseException) -> bool:
    """True when ``exc`` or an exception in its chain (``__cause__``, else ``__context__``)
    is an interrupt; a chain that loops back on itself is walked once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, INTERRUPTS):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
