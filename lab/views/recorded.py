"""The fields every view of an experiment that replays one cassette (E2, E3, E4) opens with."""

from __future__ import annotations

from dataclasses import dataclass

from lab.recorder.provenance import Provenance

__all__ = ["RecordedView"]


@dataclass(frozen=True)
class RecordedView:
    """A recorded experiment's view: which experiment, from which cassette, with which prompt.
    The experiments' views extend it, so these fields come first in their JSON."""

    experiment: str
    source: str
    """``provider/model`` of the cassette."""
    provenance: Provenance
    """The cassette's provenance, as recorded."""
    system_prompt: str
    """The agent's system prompt."""
