"""E5's part for where ctxlab deliberately does otherwise than a peer's own tests expect, as
:mod:`experiments.e5.measures.peer_deviations` measures it. Part of
:class:`~experiments.e5.view.E5View`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PeerDeviations"]


@dataclass(frozen=True)
class PeerDeviations:
    """What ctxlab did in each case a peer's test expects otherwise (``docs/conformance.md``).

    Each field is ctxlab's outcome in a few words: ``accepted``, or ``refused: <why>`` for a
    configuration; what reached the caller for a failing summariser."""

    keep_at_trigger: str
    """AgentScope's middleware config: token trigger 1, keep 1 token."""
    keep_no_messages: str
    """``keep_messages=0`` with the tail counted in messages."""
    triggers_off: str
    """A message trigger of 0 and no token trigger."""
    summariser_bug: str
    """The summary model raising an error that is not a provider's."""
