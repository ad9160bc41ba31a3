"""E5's consolidation-failure row is judged, never a traceback, when the harness misbehaves.

Advancing the watermark before MEMORY.md is written made ``ctxlab run`` die with a raw
``IndexError`` in the measurement (it indexed a second consolidation that never ran), so the
row that should catch it, E5-CONSOLIDATE-FAIL, was never judged.
"""

from __future__ import annotations

import pytest

import experiments.e5.failures as failures


def test_a_consolidation_that_never_redoes_its_batch_is_a_differing_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # as if the failed write still moved the watermark: the batch is never offered again
    monkeypatch.setattr(failures, "_consolidate_on_full_disk", lambda c, w: c.consolidate())
    measured = failures.measure_consolidation_failure()
    assert measured.same_batch is False
    assert measured.watermark_unchanged is False
