"""``benchmarks.common.settled``: a section whose gate reads within 10 % of its limit, or a
stall (NaN), is measured again and read as the median; a section far from its gates is
measured once."""

from __future__ import annotations

import math

from benchmarks.common import Row, settled


def _section(values: list[float]) -> object:
    readings = iter(values)
    calls: list[int] = []

    def measure() -> list[Row]:
        calls.append(1)
        return [Row("s", "time", 1.0, "ms"), Row("s", "ratio", next(readings), gate=2.0)]

    measure.calls = calls  # type: ignore[attr-defined]
    return measure


def test_a_gate_far_from_its_limit_is_read_once() -> None:
    measure = _section([1.2, 9.0, 9.0])
    rows = settled(measure)  # type: ignore[arg-type]
    assert [r.value for r in rows] == [1.0, 1.2] and len(measure.calls) == 1  # type: ignore[attr-defined]


def test_a_gate_read_close_is_measured_again_and_read_as_the_median() -> None:
    measure = _section([1.95, 1.5, 2.4])  # 1.95 is within 10 % of 2: two more readings
    rows = settled(measure)  # type: ignore[arg-type]
    assert len(measure.calls) == 3  # type: ignore[attr-defined]
    assert rows[1].value == 1.95 and not rows[1].failed
    assert "measured 3 times" in rows[1].note and "1.95, 1.5, 2.4" in rows[1].note


def test_a_stall_is_measured_again_and_left_out_of_the_median() -> None:
    measure = _section([math.nan, 2.5, 2.7])
    rows = settled(measure)  # type: ignore[arg-type]
    assert rows[1].value == 2.6 and rows[1].failed  # two real readings, both over the gate


def test_a_count_exactly_at_its_limit_is_read_once() -> None:
    measure = _section([2.0, 9.0, 9.0])  # a deterministic count at its gate: no timing noise
    rows = settled(measure)  # type: ignore[arg-type]
    assert rows[1].value == 2.0 and len(measure.calls) == 1  # type: ignore[attr-defined]
