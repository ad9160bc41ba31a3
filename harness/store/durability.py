"""When a session's appended lines are flushed to the disk: the ``durability`` setting.

Every append is written to the OS at once (one ``write``), so a process that is killed, even
with ``kill -9``, loses nothing it appended, in every setting. What the settings change is
when the OS is told to put those bytes on the disk (``fsync``), that is, what a **power cut or
an OS crash** can lose:

* ``per-event``: each append is fsynced before it returns. A power cut loses nothing that was
  appended. Costs one fsync per event (a turn with a tool call: four or more per store).
* ``per-turn`` (the default): the turn's appends (user message, replies, tool calls and
  results, a compaction's events) are fsynced together when the turn ends, one group commit
  per file; with ``durable_user_message`` the user message is committed before the model is
  called too. A power cut loses at most the turn in flight (the appends since the last
  commit); a finished turn is on the disk.
* ``os``: nothing is fsynced; the OS writes the bytes when it decides (on Linux within about
  30 seconds). A power cut can lose the last seconds of every session; use it for scratch
  sessions and benchmarks.

Whole-file replacements (a state checkpoint, memory files) are fsynced in every setting: a
rename over a file whose bytes are not yet on the disk could leave it empty after a power cut.
"""

from __future__ import annotations

from typing import Literal, get_args

from harness.errors import ConfigError

__all__ = ["DEFAULT_DURABILITY", "Durability", "check_durability", "syncs_each_append"]

Durability = Literal["per-event", "per-turn", "os"]
DEFAULT_DURABILITY: Durability = "per-turn"
"""What a session gets unless told (see the module docstring)."""

_SETTINGS: tuple[str, ...] = get_args(Durability)


def check_durability(value: object) -> Durability:
    """``value`` when it is a durability setting; ConfigError in one sentence otherwise."""
    if value not in _SETTINGS:
        raise ConfigError(
            f"durability {value!r} is not a setting; use one of {', '.join(_SETTINGS)}"
        )
    return value  # type: ignore[return-value]


def syncs_each_append(durability: Durability) -> bool:
    """Whether an append is fsynced before it returns."""
    return durability == "per-event"
