"""Range selection on generated surfaces, corrupt ones included, against dsh's rule as the spec
states it (``selectCompactableRange``, region.ts, quoted in seed 002): keep the shortest tail
whose price reaches the retain budget; if that keeps everything, select nothing, before pairing
is counted at all; otherwise move the cut head-ward until it is balanced, which throws on a
surface where a result has no open call."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from harness.compaction.dsh.selection import Measurement, select_compactable_range
from harness.errors import UnbalancedSurfaceError
from harness.messages import Message, ToolCall

_NODES = st.lists(
    st.one_of(
        st.just("user"),
        st.integers(0, 2).map(lambda calls: f"call {calls}"),
        st.just("result"),
    ),
    max_size=8,
)


def _surface(kinds: list[str]) -> list[tuple[int, Message]]:
    out = []
    for seq, kind in enumerate(kinds):
        if kind.startswith("call"):
            calls = tuple(ToolCall(f"c{seq}-{i}", "bash", "{}") for i in range(int(kind[5:])))
            out.append((seq, Message.assistant("a", calls)))
        elif kind == "result":
            out.append((seq, Message.tool(f"r{seq}", "done")))
        else:
            out.append((seq, Message.user("u")))
    return out


def dsh_rule(kinds: list[str], prices: list[int], retain: int) -> tuple[int, int] | str | None:
    """(start, end) positions, None, or "throws"."""
    keep, kept = len(kinds), 0
    for index in range(len(kinds) - 1, -1, -1):
        kept += prices[index]
        keep = index
        if kept >= retain:
            break
    if keep == 0:
        return None
    balance, balanced = 0, [True]
    for kind in kinds:
        balance += int(kind[5:]) if kind.startswith("call") else -(kind == "result")
        if balance < 0:
            return "throws"
        balanced.append(balance == 0)
    while keep > 0 and not balanced[keep]:
        keep -= 1
    return None if keep == 0 else (0, keep - 1)


@given(_NODES, st.data())
@example(["result", "user"], None)  # a result with no call that the retain budget keeps
def test_selection_follows_dshs_rule_on_any_surface(kinds: list[str], data: st.DataObject) -> None:
    prices = (
        [3] * len(kinds)
        if data is None
        else data.draw(st.lists(st.integers(0, 20), min_size=len(kinds), max_size=len(kinds)))
    )
    retain = 100 if data is None else data.draw(st.integers(0, 80))
    nodes = _surface(kinds)
    measurement = Measurement(0, tuple((seq, p) for (seq, _), p in zip(nodes, prices, strict=True)))
    want = dsh_rule(kinds, prices, retain)
    try:
        found = select_compactable_range(nodes, measurement, retain)
    except UnbalancedSurfaceError:
        assert want == "throws"
        return
    assert want == (None if found is None else (found.start, found.end))
