"""The views codec (experiments/views): what an experiment writes with ``to_data`` reads back
with ``from_data`` into the equal view, and JSON of another shape is refused with ShapeError."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.paths import ROOT

from experiments import e1, e2, e3, e4, e5
from experiments.e1.view import E1View
from experiments.e2.view import E2View
from experiments.e3.view import CompactionRow, E3View
from experiments.e4.view import E4View
from experiments.e5.view import E5View
from experiments.x_cost.ledger import LedgerCompaction, LedgerRequest, build_ledger
from experiments.x_cost.view import LedgerRecord
from harness.compaction.record import CompactionRecord, Cutoff, EngineName
from harness.model import Usage
from lab.experiment import RunSettings, dump_json
from lab.views import ShapeError, from_data, to_data


@dataclass(frozen=True)
class Inner:
    name: str
    share: float


@dataclass(frozen=True)
class Outer:
    count: int
    flag: bool
    kind: Literal["a", "b"]
    items: tuple[Inner, ...]
    pair: tuple[int, str] | None
    table: dict[str, int]
    anything: Any = None
    optional: str | None = None

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ValueError("count is negative")


inners = st.builds(Inner, st.text(), st.floats(allow_nan=False, allow_infinity=False))
outers = st.builds(
    Outer,
    st.integers(min_value=0),
    st.booleans(),
    st.sampled_from(["a", "b"]),
    st.tuples() | st.lists(inners, max_size=3).map(tuple),
    st.none() | st.tuples(st.integers(), st.text()),
    st.dictionaries(st.text(), st.integers(), max_size=3),
    st.none() | st.integers() | st.text(),
    st.none() | st.text(),
)


@given(outers)
def test_a_view_reads_back_equal_through_json(view: Outer) -> None:
    assert from_data(Outer, json.loads(dump_json(to_data(view)))) == view


GOOD: dict[str, Any] = {
    "count": 1,
    "flag": True,
    "kind": "a",
    "items": [{"name": "x", "share": 1}],
    "pair": [1, "y"],
    "table": {"k": 2},
}
BAD = {
    "a missing key": ({"count": None}, "Outer lacks the key 'count'"),
    "a boolean for a count": ({"count": True}, "Outer.count should not be a boolean"),
    "text for a count": ({"count": "1"}, "Outer.count should be int, not str"),
    "a value outside the literal": ({"kind": "c"}, "Outer.kind is 'c', not one of 'a', 'b'"),
    "an object for a list": ({"items": {"name": "x"}}, "Outer.items should be a list"),
    "a nested key missing": ({"items": [{"name": "x"}]}, "Outer.items[0] lacks the key 'share'"),
    "a pair of three": ({"pair": [1, "y", 2]}, "Outer.pair should hold 2 items, not 3"),
    "a table of text": ({"table": {"k": "2"}}, "Outer.table.k should be int, not str"),
    "a check in __post_init__": ({"count": -1}, "Outer: count is negative"),
}


@pytest.mark.parametrize("change, message", BAD.values(), ids=BAD.keys())
def test_json_of_another_shape_is_refused_naming_where(
    change: dict[str, Any], message: str
) -> None:
    data = {k: v for k, v in (GOOD | change).items() if v is not None or k not in change}
    with pytest.raises(ShapeError, match=re.escape(message)):
        from_data(Outer, data)


def test_keys_the_view_does_not_declare_are_ignored_and_ints_read_as_floats() -> None:
    view = from_data(Outer, GOOD | {"added_later": 1})
    assert view.items[0].share == 1.0 and isinstance(view.items[0].share, float)
    assert view.pair == (1, "y") and view.optional is None


MEASURED: dict[str, tuple[Callable[[RunSettings], Any], type]] = {
    "E2": (e2.measure, E2View),
    "E3": (e3.measure, E3View),
    "E4": (e4.measure, E4View),
    # the measuring itself, not the session's view of it (tests/support/scripted_memo.py)
    "E5": (lambda _: inspect.unwrap(e5.measure)(), E5View),
}


@pytest.mark.parametrize("experiment", MEASURED)
def test_an_experiment_writes_the_view_its_report_reads(experiment: str) -> None:
    measure, view_type = MEASURED[experiment]
    view = measure(RunSettings(cassette_root=ROOT / "cassettes", progress=lambda _: None))
    assert isinstance(view, view_type)
    data = json.loads(dump_json(to_data(view)))
    assert from_data(view_type, data) == view
    committed = (ROOT / "reports" / f"{experiment}.json").read_text(encoding="utf-8")
    assert from_data(view_type, json.loads(committed)) == view


def test_e4_views_check_what_their_types_cannot_say() -> None:
    view = e4.measure(RunSettings(cassette_root=ROOT / "cassettes", progress=lambda _: None))
    data = to_data(view)
    with pytest.raises(ShapeError, match="'engines' holds an engine twice"):
        from_data(E4View, data | {"engines": data["engines"] * 2})
    with pytest.raises(ValueError, match="not a share between 0 and 1"):
        replace(view.engines[0], prefix_reuse=85.14)


def test_e1_writes_the_view_its_report_reads() -> None:
    result = e1.run(RunSettings(cassette_root=ROOT / "cassettes", progress=lambda _: None))
    view = from_data(E1View, result.data)
    assert view.rerun is not None and view.rerun.identical
    assert replace(view, rerun=None) == e1.measure()
    committed = json.loads((ROOT / "reports" / "E1.json").read_text(encoding="utf-8"))
    assert from_data(E1View, committed) == view


def _record(cutoff: Cutoff | None, engine: EngineName = "agentscope") -> CompactionRecord:
    return CompactionRecord(
        engine=engine,
        trigger="messages",
        total_messages=9,
        total_tokens=None if cutoff is None else 120,
        cutoff=cutoff,
        keeping=2,
        messages_after=4,
        tokens_after=None if cutoff is None else 60,
        summary="摘要",
        summary_failed=False,
        log_lines=("compacted",),
        meter="agentscope-2.0.3",
        gate={"added": 1},
    )


def test_a_compaction_row_is_built_from_the_record_directly_as_its_json_said() -> None:
    """CompactionRow.of gives the row the old ``from_data(…, record.to_dict())`` round trip
    gave (the gate's section is not one of the row's fields)."""
    record = _record(Cutoff(6, 5, "moved to keep a tool pair"))
    assert CompactionRow.of(record) == from_data(CompactionRow, record.to_dict())


def test_a_compaction_with_no_cutoff_is_not_an_agentscope_row() -> None:
    with pytest.raises(ValueError, match="not an AgentScope compaction"):
        CompactionRow.of(_record(None, engine="dsh"))


def test_a_ledger_record_is_the_ledger_and_its_json_is_the_record() -> None:
    usage = Usage(prompt_tokens=100, completion_tokens=20)
    requests = [
        LedgerRequest(usage, 100),
        LedgerRequest(
            Usage(prompt_tokens=50, completion_tokens=5),
            50,
            (LedgerCompaction(100, 40, (usage,), "m"),),
        ),
    ]
    ledger = build_ledger(requests)
    record = LedgerRecord.of(ledger)
    assert to_data(record) == ledger.to_dict()
    assert record.savings == ledger.savings and record.net == ledger.net
    assert [c.cost for c in record.compactions] == [c.summary.total for c in ledger.compactions]
