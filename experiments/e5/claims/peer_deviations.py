"""E5's rows for where ctxlab deliberately does otherwise than a peer's own tests expect.

``tests/conformance/`` restates the peers' test suites as tests of ours; a case where ctxlab
does otherwise on purpose carries its reason there, and each such class of case is a row
here, kind ``ctxlab`` (no seed states these values: the peer's test does), ``differs`` with
reason ``deliberate deviation``. Measured on ctxlab itself, so a change that made ctxlab agree
with the peer shows as a changed row.
"""

from __future__ import annotations

from collections.abc import Callable

from experiments.e5.common import SOURCE
from experiments.e5.view.peer_deviations import PeerDeviations
from lab import DEVIATION, Claim, ClaimSpec, Verdict, evaluate

__all__ = ["PEER_SPECS", "peer_claims"]

AGENTSCOPE = "AgentScope Java c2d43f8 (2.0.3-SNAPSHOT)"
"""The peer snapshot ``tests/conformance/`` translates (the seed's 2.0.3)."""


def peer_claims(data: PeerDeviations) -> tuple[Claim, ...]:
    """The rows of :data:`PEER_SPECS` judged on ``data``."""
    return evaluate("E5", PEER_SPECS, data, SOURCE)


def _same(field: Callable[[PeerDeviations], str], peer: str) -> Callable[[PeerDeviations], Verdict]:
    """A row whose value is ctxlab's outcome and that holds only when it is the peer's."""
    return lambda data: Verdict(field(data), field(data) == peer)


def _spec(claim_id: str, text: str, field: Callable[[PeerDeviations], str], peer: str,
          test: str, reason: str) -> ClaimSpec[PeerDeviations]:  # fmt: skip
    return ClaimSpec(
        claim_id,
        text,
        _same(field, peer),
        kind="ctxlab",
        expected=f"{peer} ({AGENTSCOPE}, {test})",
        note="run on ctxlab's AgentScope engine, scripted",
        differs_note=f"deliberate deviation (tests/conformance/, docs/conformance.md): {reason}",
        reason_class=DEVIATION,
    )


_UNSAFE = "unsafe for our users: "
PEER_SPECS: tuple[ClaimSpec[PeerDeviations], ...] = (
    _spec(
        "AS-PEER-KEEP-AT-TRIGGER",
        "AgentScope accepts a keep budget at or above its trigger (its middleware test's "
        "token trigger 1 with keep 1 token).",
        lambda d: d.keep_at_trigger,
        "accepted",
        "CompactionMiddlewareTest fixedConfig",
        _UNSAFE + "the kept tail alone fires the trigger again, so once compaction starts "
        "every request makes a summary call and re-summarises the last summary",
    ),
    _spec(
        "AS-PEER-KEEP-NO-MESSAGES",
        "AgentScope accepts keeping 0 messages when the tail is counted in messages.",
        lambda d: d.keep_no_messages,
        "accepted",
        "the config census of its fields' documented ranges",
        _UNSAFE + "the request being answered is folded into the summary, and the model is "
        "left a summary with no message to answer",
    ),
    _spec(
        "AS-PEER-TRIGGERS-OFF",
        "AgentScope accepts both triggers off (message trigger 0, no token trigger).",
        lambda d: d.triggers_off,
        "accepted",
        "the config census of its fields' documented ranges",
        _UNSAFE + "it reads as 'compaction off', yet the overflow retry would still "
        "summarise the history away; engine=None (disable_compaction=True) is off",
    ),
    _spec(
        "AS-PEER-SUMMARISER-BUG",
        "AgentScope compacts with its failure text whatever error the summary model raises.",
        lambda d: d.summariser_bug,
        "compacted with the failure text",
        "CompactionMiddlewareTest ordinarySummaryFailureContinuesWithCompactedInput",
        _UNSAFE + "an error that is not the provider's is a bug in the summariser or its "
        "adapter and recurs; failing open on it would replace the prefix with the placeholder "
        "at every compaction; only a provider's error (the seed's failed summary call) does",
    ),
)
