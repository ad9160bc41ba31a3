"""E5's deliberate-deviation rows from AgentScope's own tests can fail: each flips to ``match``
when the harness is broken into doing what the peer does (its refusal dropped, or fail-open on
any error). Without these, a row that always says ``differs`` would be no claim."""

from __future__ import annotations

import pytest

import harness.compaction.agentscope.config as config
import harness.summary_outcome as summary_outcome
from experiments.e5.claims.peer_deviations import peer_claims
from experiments.e5.measures.peer_deviations import measure_peer_deviations


def _statuses() -> dict[str, str]:
    return {c.claim_id: c.status for c in peer_claims(measure_peer_deviations())}


def test_every_row_differs_today() -> None:
    assert set(_statuses().values()) == {"differs"}


def test_the_config_rows_flip_when_ctxlab_accepts_what_agentscope_accepts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(config, "_problems", lambda found: [])  # the refusals dropped
    flipped = {k for k, v in _statuses().items() if v == "match"}
    assert flipped == {
        "AS-PEER-KEEP-AT-TRIGGER",
        "AS-PEER-KEEP-NO-MESSAGES",
        "AS-PEER-TRIGGERS-OFF",
    }


def test_the_summariser_row_flips_when_any_error_fails_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(summary_outcome, "ModelError", Exception)  # fail open on anything
    assert _statuses()["AS-PEER-SUMMARISER-BUG"] == "match"
