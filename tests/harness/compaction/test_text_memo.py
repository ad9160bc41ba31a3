"""A pure function of a text remembered for the shorter texts (harness/compaction/guards/
text_memo.py), shared by the gate's identifier and phrase readers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from harness.compaction.guards import gate_definitions, gate_identifiers
from harness.compaction.guards.text_memo import LONGEST_REMEMBERED, ShortTextMemo


def test_a_short_text_is_read_once_and_a_long_one_every_time() -> None:
    reads: list[str] = []

    def read(text: str, flag: bool) -> tuple[int, bool]:
        reads.append(text)
        return len(text), flag

    memo = ShortTextMemo(read)
    short, long = "x" * LONGEST_REMEMBERED, "x" * (LONGEST_REMEMBERED + 1)
    assert [memo(short, True) for _ in range(3)] == [(len(short), True)] * 3
    assert memo(short, False) == (len(short), False)  # the other arguments are part of the key
    assert [memo(long, True) for _ in range(2)] == [(len(long), True)] * 2
    assert reads == [short, short, long, long]
    assert memo.remembered.cache_info().currsize == 2


def test_the_gate_readers_share_the_memo() -> None:
    assert isinstance(gate_identifiers._identifiers_in, ShortTextMemo)
    assert isinstance(gate_definitions._phrases, ShortTextMemo)


@given(st.text(max_size=200), st.booleans())
def test_remembered_identifiers_are_a_fresh_reading(text: str, prose: bool) -> None:
    memo = gate_identifiers._identifiers_in
    assert memo(text, prose) == memo(text, prose) == memo.read(text, prose)
