"""E5's consolidation-failure row is judged, never a traceback, when the harness misbehaves.

Advancing the watermark before MEMORY.md is written made ``ctxlab run`` die with a raw
``IndexError`` in the measurement (it indexed a second consolidation that never ran), so the
row that should catch it, E5-CONSOLIDATE-FAIL, was never judged.
"""

from __future__ import annotations

import pytest

import experiments.e5.mechanisms.failures as failures


def test_a_consolidation_that_never_redoes_its_batch_is_a_differing_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # as if the failed write still moved the watermark: the batch is never offered again
    monkeypatch.setattr(failures, "_consolidate_on_full_disk", lambda c, w: c.consolidate())
    measured = failures.measure_consolidation_failure()
    assert measured.same_batch is False
    assert measured.watermark_unchanged is False


def test_a_watermark_moved_before_the_write_reads_as_moved() -> None:
    # the outcome of the failed run reports the watermark it started from; the file is what
    # counts: under this mutation the row said "watermark kept" while the file had moved
    from experiments.mutations.catalogue import by_name

    with by_name("WATERMARK_BEFORE_WRITE").apply():
        measured = failures.measure_consolidation_failure()
    assert measured.watermark_unchanged is False
    assert measured.same_batch is False
