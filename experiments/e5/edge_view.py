"""E5's rows for the last seed claims that had none and the two catalogue gaps, as
:mod:`experiments.e5.edge_rows` measures them: the offload threshold at its edge, a tool call a
crash left open, a DSH compaction whose close fails, and an image block. Part of
:class:`~experiments.e5.view.E5View`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EdgeMechanics", "FailedClose", "ImageContent", "InterruptedCall", "OffloadEdge"]


@dataclass(frozen=True)
class OffloadEdge:
    """Tool results of exactly the offload threshold and one character more, as the next
    request carried them."""

    threshold: int
    at_limit_offloaded: bool
    above_limit_offloaded: bool


@dataclass(frozen=True)
class InterruptedCall:
    """A session whose process stopped while its tool ran, called again."""

    open_calls: int
    """Tool calls the stopped session's last assistant message left without a result."""
    closed_with: tuple[str, ...]
    """The ``interrupted`` code of each result the next request carried for those calls."""
    outcome: str
    """``answered``, or the error the next call raised."""


@dataclass(frozen=True)
class FailedClose:
    """A DSH compaction whose ``compaction/end`` cannot be written."""

    error: str
    """What the compaction raised ("" when it returned)."""
    last_event: str
    """The type of the log's last event."""
    start_open: bool
    """The log's live lock is this compaction's start."""
    next_compaction: str
    """``busy`` when the next compaction of the process is refused as busy, else what it did."""


@dataclass(frozen=True)
class ImageContent:
    """An image block offered as message content."""

    message_content_types: tuple[str, ...]
    """The types a :class:`~harness.messages.Message`'s content can have."""
    refused_by: str
    """Where the image was refused: the error's type and message ("" when it was read)."""
    summarizer_code: str
    """The DSH summarizer's error code for it ("" when the summarizer never met it)."""


@dataclass(frozen=True)
class EdgeMechanics:
    offload_edge: OffloadEdge
    interrupted: InterruptedCall
    failed_close: FailedClose
    image: ImageContent
