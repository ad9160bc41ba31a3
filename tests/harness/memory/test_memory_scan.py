"""memory_search over files the index holds in part: the scan of the rest answers exactly as
rank_lines, whatever the split, and each query grows the index within its budget."""

from __future__ import annotations

import io
import tempfile
from collections import Counter
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness.memory import index_build, index_scan
from harness.memory.index import MemoryIndex
from harness.memory.index_build import TF_SHIFT
from harness.memory.index_scan import scan_part
from harness.text_search import SearchLine, rank_lines, tokenize

PIECES = ["夜莺", "暗号", "上海港", "上上上", "海", "ALPHA", "alpha", "booking", "booking booking",
          "BK-7", "的", "USD 2800", "  ", "-", "\t", "İstanbul", "K", "é", "，", "\u3400", "\uf900",
          "ＡＢＣ", "x_1", "ΑΣ", "ΑΣ σ", ""]  # fmt: skip
line_text = st.lists(st.sampled_from(PIECES), max_size=6).map(" ".join) | st.text(
    alphabet=st.sampled_from("aZ_9 -\t\r上海港莺莺é，\u3000\u3400\uf900İK"), max_size=10
)
files_content = st.lists(
    st.tuples(st.lists(line_text, max_size=10), st.booleans()), min_size=1, max_size=3
)
QUERIES = [*PIECES, "夜莺 暗号", "上海港 booking", "上上", "booking booking", "zzz", "-"]


def _write(path: Path, lines: list[str], newline_at_end: bool) -> None:
    body = "\n".join(lines) + ("\n" if newline_at_end and lines else "")
    path.write_bytes(body.encode("utf-8"))


def _fresh(files: list[tuple[Path, str]], query: str, limit: int) -> list[tuple[object, ...]]:
    lines = []
    for path, name in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        text = text.removesuffix("\n")
        for number, line in enumerate(text.split("\n") if text else [], 1):
            if line.strip():
                lines.append(SearchLine(name, number, line))
    return [tuple(vars(h).values()) for h in rank_lines(lines, query, limit)]


@pytest.mark.quick_examples(50)  # costly examples: [full] under -m slow
@settings(max_examples=150, deadline=None)
@given(
    files_content,
    st.lists(st.sampled_from(QUERIES), min_size=1, max_size=4),
    st.integers(0, 12),
    st.sampled_from([2, 3, 5]),
    st.sampled_from([1, 3, 8, 20]),
    st.sampled_from([16, 64, 1 << 18]),
    st.sampled_from([0, 30, 1 << 30]),
)
def test_any_split_into_indexed_and_scanned_lines_answers_as_rank_lines(
    contents: list[tuple[list[str], bool]], queries: list[str], budget: int, batch: int,
    limit: int, block: int, hold: int,
) -> None:  # fmt: skip
    """Whatever the budget (0: one batch a query), the batch and block sizes and the bytes
    of postings a scan keeps (0: it lets them go and reads its blocks again to score them),
    each query's hits, scores and order are rank_lines', while the index grows query by
    query."""
    with tempfile.TemporaryDirectory() as tmp:
        files = [(Path(tmp) / f"f{i}.md", f"f{i}.md") for i in range(len(contents))]
        for (path, _), (lines, newline_at_end) in zip(files, contents, strict=True):
            _write(path, lines, newline_at_end)
        with (
            mock.patch.object(index_build, "BATCH_LINES", batch),
            mock.patch.object(index_build, "BLOCK_BYTES", block),
            mock.patch.object(index_scan, "HOLD_BYTES", hold),
        ):
            index = MemoryIndex(build_lines=budget)
            for query in queries:
                got = [tuple(vars(h).values()) for h in index.search(files, query, limit)]
                assert got == _fresh(files, query, limit), query


@given(st.lists(line_text, max_size=8), st.booleans(), st.sampled_from(QUERIES))
@example(["上上上 上上", "上上上上", "  ", "x"], False, "上上")  # a pair overlapping itself
@example(["booking booking", "booking_booking booking-booking", "\t"], True, "booking")
@example(["İstanbul K é", "ＡＢＣ \u3400\uf900，上", "ΑΣ\nΣ"], True, "i")  # lowered out of ASCII
def test_a_scanned_part_holds_what_tokenize_finds(
    lines: list[str], newline_at_end: bool, query: str
) -> None:
    """Per line: non-blank or not, token count, each query term's count; and the lines
    holding the query literally."""
    body = ("\n".join(lines) + ("\n" if newline_at_end and lines else "")).encode("utf-8")
    texts = body.decode("utf-8").removesuffix("\n").split("\n") if body else []
    order = list(set(tokenize(query)))
    part = scan_part(io.BytesIO(body), 0, 0, len(body), order, query.strip().lower())
    tokens = [tokenize(text) for text in texts]
    assert part.lines == len(texts)
    assert part.nonblank == sum(bool(text.strip()) for text in texts)
    assert part.total == sum(map(len, tokens))
    for k, term in enumerate(order):
        want = {i: Counter(t)[term] << TF_SHIFT | len(t) for i, t in enumerate(tokens) if term in t}
        got = {line: code for b in part.blocks for kk, ls, cs in b.held if kk == k
               for line, code in zip(ls, cs, strict=True)}  # fmt: skip
        assert (got, part.frequencies[k]) == (want, len(want)), term
    needle = query.strip().lower()
    assert part.literal == [(i, t) for i, t in enumerate(texts) if needle and needle in t.lower()]


def test_the_first_query_answers_before_the_index_is_whole_and_later_ones_finish_it(
    tmp_path: Path,
) -> None:
    """30 lines, batches of 3, a budget of 6 lines a query: the first query indexes 6 lines
    and scans 24, each later one indexes 6 more, until the index is whole; then queries scan
    nothing. Every answer is rank_lines'."""
    daily = tmp_path / "d.md"
    _write(daily, [f"- line {n} booking via 上海港" + " 夜莺" * (n % 4) for n in range(30)], True)
    files = [(daily, "d.md")]
    with (
        mock.patch.object(index_build, "BATCH_LINES", 3),
        mock.patch.object(index_build, "BLOCK_BYTES", 16),  # a block a line
    ):
        index = MemoryIndex(build_lines=6)
        seen = []
        for _ in range(6):
            got = [tuple(vars(h).values()) for h in index.search(files, "夜莺 booking", 5)]
            assert got == _fresh(files, "夜莺 booking", 5)
            seen.append((index.tokenised, index.unindexed))
    assert seen == [(6, 24), (12, 42), (18, 54), (24, 60), (30, 60), (30, 60)]
