"""The fault suite's own checks can fail: a token that is not on disk is reported lost."""

from __future__ import annotations

from pathlib import Path

import pytest
import scenarios as sc

pytestmark = pytest.mark.faults


def test_missing_tokens_tells_a_token_from_its_longer_neighbours() -> None:
    kept = 'turn tok-1-10 zzz", "turn tok-seed-3 z'
    acked = ["tok-1-10", "tok-1-1", "tok-seed-3", "tok-seed-30", "tok-2-10"]
    assert sc.missing_tokens(acked, kept) == ["tok-1-1", "tok-seed-30", "tok-2-10"]


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_check_agent_reports_an_acknowledged_call_that_is_not_on_disk(
    tmp_path: Path, store: str
) -> None:
    acked = sc.seed_session(tmp_path, store, 3)
    outcome = sc.check_agent(tmp_path, [*acked, "tok-9-0"], store, "none", False)
    assert outcome.lost == ["tok-9-0"]
    assert outcome.unresumable is None


def test_check_memory_reports_a_flushed_token_that_is_not_on_disk(tmp_path: Path) -> None:
    outcome = sc.check_memory(tmp_path, ["tok-0-0"], False)
    assert outcome.lost == ["tok-0-0"]
