"""memory_search's kept index: the same hits as a fresh ranking, re-read only what changed."""

from __future__ import annotations

import os
import struct
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from harness.fs.files import read_lines
from harness.memory import index_store as index_module
from harness.memory.index import MemoryIndex
from harness.text_search import SearchLine, rank_lines

WORDS = ["夜莺", "暗号", "上海港", "ALPHA", "alpha", "booking", "BK-7", "的", "USD 2800", "  ", "-"]
line_text = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)
file_lines = st.lists(line_text, max_size=12)


def fresh(files: list[tuple[Path, str]], query: str) -> list[tuple[object, ...]]:
    lines = [
        SearchLine(name, number, text)
        for path, name in files
        if path.exists()
        for number, text in enumerate(read_lines(path), 1)
        if text.strip()
    ]
    return [tuple(vars(h).values()) for h in rank_lines(lines, query)]


def write(path: Path, lines: list[str]) -> None:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


@given(st.lists(file_lines, min_size=1, max_size=3), st.sampled_from([*WORDS, "夜莺 暗号", "zzz"]))
def test_index_answers_as_a_fresh_ranking(contents: list[list[str]], query: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = [(Path(tmp) / f"f{i}.md", f"f{i}.md") for i in range(len(contents))]
        for (path, _), lines in zip(files, contents, strict=True):
            write(path, lines)
        index = MemoryIndex()
        got = [tuple(vars(h).values()) for h in index.search(files, query)]
        assert got == fresh(files, query)


def test_index_keeps_files_between_queries_and_rereads_a_changed_one(tmp_path: Path) -> None:
    memory, daily = tmp_path / "MEMORY.md", tmp_path / "2026-10-30.md"
    write(memory, ["- 暗号: 夜莺"])
    write(daily, ["- customer ALPHA", "- booking BK-7"])
    files = [(memory, "MEMORY.md"), (daily, "memory/2026-10-30.md")]
    index = MemoryIndex()
    index.search(files, "夜莺")
    index.search(files, "ALPHA")
    assert index.reindexed == 2  # the second query read nothing
    with daily.open("a", encoding="utf-8") as handle:
        handle.write("- 夜莺 again\n")
    hits = index.search(files, "夜莺")
    assert index.reindexed == 3
    assert {(h.file, h.line) for h in hits if h.literal} == {
        ("MEMORY.md", 1),
        ("memory/2026-10-30.md", 3),
    }
    replacement = tmp_path / "new.md"
    write(replacement, ["- 暗号: 百灵"])
    os.replace(replacement, memory)  # MEMORY.md is rewritten atomically: a new inode
    assert [h.text for h in index.search(files, "百灵")] == ["- 暗号: 百灵"]
    memory.unlink()
    assert all(h.file != "MEMORY.md" for h in index.search(files, "暗号"))


# --- appends, the cache, ties at the limit ---------------------------------------------------

TEXTS = [*WORDS, "ΑΣ", "σ", "İstanbul", "K", "booking 上海港", "上海港 booking", "哈哈哈", ""]
line_piece = st.lists(st.sampled_from(TEXTS), max_size=5).map(" ".join)


class DictCache:
    """An :class:`~harness.memory.index.IndexCache` in memory (what a test can tear)."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}

    def load(self, name: str) -> bytes | None:
        return self.blobs.get(name)

    def save(self, name: str, data: bytes) -> None:
        self.blobs[name] = data

    def remove(self, name: str) -> None:
        self.blobs.pop(name, None)


step = st.one_of(
    st.tuples(st.just("append"), st.integers(0, 2), st.lists(line_piece, max_size=4),
              st.booleans()),
    st.tuples(st.just("replace"), st.integers(0, 2), st.lists(line_piece, max_size=6),
              st.booleans()),
    st.tuples(st.just("restart"), st.just(0), st.just([]), st.booleans()),
    st.tuples(st.just("tear"), st.integers(0, 2), st.just([]), st.booleans()),
)  # fmt: skip


def raw_write(path: Path, lines: list[str], newline_at_end: bool, mode: str = "w") -> None:
    text = "\n".join(lines) + ("\n" if newline_at_end and lines else "")
    with path.open(mode, encoding="utf-8") as handle:
        handle.write(text)


@given(
    st.lists(st.lists(line_piece, max_size=8), min_size=1, max_size=3),
    st.lists(st.tuples(step, st.sampled_from([*TEXTS, "夜莺 暗号", "上海港 booking"]),
                       st.integers(1, 6)), min_size=1, max_size=6),
)  # fmt: skip
def test_index_with_appends_and_a_cache_answers_as_a_fresh_ranking(
    contents: list[list[str]], steps: list[tuple[tuple[str, int, list[str], bool], str, int]]
) -> None:
    """Random files, appends (also onto a last line without a newline), whole replacements,
    new processes reading the cache, torn caches: always what rank_lines answers."""
    with tempfile.TemporaryDirectory() as tmp:
        files = [(Path(tmp) / f"f{i}.md", f"f{i}.md") for i in range(len(contents))]
        for (path, _), lines in zip(files, contents, strict=True):
            raw_write(path, lines, True)
        cache = DictCache()
        index = MemoryIndex(cache=cache)
        for (kind, which, lines, flag), query, limit in steps:
            path, name = files[which % len(files)]
            if kind == "append":
                raw_write(path, lines, flag, "a")
            elif kind == "replace":
                replacement = path.with_suffix(".new")
                raw_write(replacement, lines, flag)
                os.replace(replacement, path)
            elif kind == "restart":
                index = MemoryIndex(cache=cache)  # a new process: the cache is all it has
            elif name in cache.blobs:
                blob = cache.blobs[name]
                cache.blobs[name] = blob[: len(blob) // 2] if flag else blob[:-1] + b"\x00"
                index = MemoryIndex(cache=cache)
            got = [tuple(vars(h).values()) for h in index.search(files, query, limit)]
            lines_now = [
                SearchLine(n, number, text)
                for p, n in files
                for number, text in enumerate(read_lines(p), 1)
                if text.strip()
            ]
            want = [tuple(vars(h).values()) for h in rank_lines(lines_now, query, limit)]
            assert got == want


def test_many_ties_at_the_limit_are_cut_by_file_then_line(tmp_path: Path) -> None:
    files = [(tmp_path / f"{name}.md", f"{name}.md") for name in ("b", "a", "c")]
    for path, _ in files:
        write(path, ["- ships via 上海港, booking"] * 30)
    hits = MemoryIndex().search(files, "上海港 booking", limit=5)
    assert [(h.file, h.line) for h in hits] == [("a.md", n) for n in range(1, 6)]
    assert [tuple(vars(h).values()) for h in hits] == fresh_limited(files, "上海港 booking", 5)


def fresh_limited(files: list[tuple[Path, str]], query: str, limit: int) -> list[object]:
    lines = [
        SearchLine(name, number, text)
        for path, name in files
        for number, text in enumerate(read_lines(path), 1)
        if text.strip()
    ]
    return [tuple(vars(h).values()) for h in rank_lines(lines, query, limit)]


def test_a_one_line_append_tokenises_that_line_only(tmp_path: Path) -> None:
    daily = tmp_path / "2026-10-30.md"
    write(daily, [f"- customer ALPHA-{n} ships via 上海港, booking BK-{n}" for n in range(500)])
    files = [(daily, "memory/2026-10-30.md")]
    cache = DictCache()
    index = MemoryIndex(cache=cache)
    index.search(files, "上海港 booking")
    assert index.tokenised == 500
    with daily.open("a", encoding="utf-8") as handle:
        handle.write("- 夜莺 booking\n")
    hits = index.search(files, "夜莺")
    assert index.tokenised == 501  # the appended line, nothing else
    assert [(h.line, h.literal) for h in hits] == [(501, True)]
    # a new process: the cache (written at the first build) plus the one line after it
    again = MemoryIndex(cache=cache)
    assert [(h.line, h.literal) for h in again.search(files, "夜莺")] == [(501, True)]
    assert (again.loaded, again.tokenised) == (1, 1)


def test_the_cache_is_only_a_cache(tmp_path: Path) -> None:
    """Deleted, torn, foreign or stale: the answers stay rank_lines', and nothing raises."""
    memory = tmp_path / "MEMORY.md"
    write(memory, ["# Memory", "- 暗号: 夜莺", "- booking via 上海港"])
    files = [(memory, "MEMORY.md")]
    cache = DictCache()
    want = fresh_limited(files, "夜莺 booking", 20)
    index = MemoryIndex(cache=cache)
    assert [tuple(vars(h).values()) for h in index.search(files, "夜莺 booking")] == want
    good = cache.blobs["MEMORY.md"]
    damaged = [
        b"",
        good[:10],
        good[: len(good) // 2],
        good[:-1] + bytes([good[-1] ^ 1]),
        b"not an index at all" * 10,
        good.replace(b"ctxlab", b"CTXLAB", 1),
    ]
    for blob in damaged:
        cache.blobs["MEMORY.md"] = blob
        fresh_index = MemoryIndex(cache=cache)
        got = fresh_index.search(files, "夜莺 booking")
        assert [tuple(vars(h).values()) for h in got] == want
        assert fresh_index.loaded == 0 and fresh_index.tokenised == 3  # rebuilt, rewritten
        assert cache.blobs["MEMORY.md"] == good
    # another file's index under this name (foreign), and a stale one (the file was rewritten)
    other = tmp_path / "other.md"
    write(other, ["- something else"])
    MemoryIndex(cache=(foreign := DictCache())).search([(other, "MEMORY.md")], "x")
    cache.blobs["MEMORY.md"] = foreign.blobs["MEMORY.md"]
    assert [
        tuple(vars(h).values()) for h in MemoryIndex(cache=cache).search(files, "夜莺 booking")
    ] == want
    del cache.blobs["MEMORY.md"]
    assert [
        tuple(vars(h).values()) for h in MemoryIndex(cache=cache).search(files, "夜莺 booking")
    ] == want
    memory.unlink()
    assert MemoryIndex(cache=cache).search(files, "夜莺") == []
    assert "MEMORY.md" not in cache.blobs  # a file's index goes with it


def test_a_cache_file_that_lies_gives_rank_lines_answers_and_no_error(tmp_path: Path) -> None:
    """A hand-made cache with a valid checksum whose postings point past the file's lines:
    found as the query reads them, the file is indexed anew and the answer is still right."""
    daily = tmp_path / "d.md"
    write(daily, ["- booking via 上海港", "- 夜莺", "- booking again"])
    files = [(daily, "d.md")]
    cache = DictCache()
    MemoryIndex(cache=cache).search(files, "booking")
    blob = bytearray(cache.blobs["d.md"][:-4])
    header = index_module._HEADER.unpack_from(blob, len(index_module._MAGIC))
    n_lines, n_terms = header[4], header[6]
    postings_at = len(index_module._MAGIC) + index_module._HEADER.size + n_lines * 4
    postings_at += (n_terms + 1) * 8
    for k in range(header[7]):  # every posting points at line 1,000,000
        struct.pack_into("<I", blob, postings_at + 4 * k, 1_000_000)
    cache.blobs["d.md"] = bytes(blob) + index_module._check(bytes(blob))
    fresh_index = MemoryIndex(cache=cache)
    got = fresh_index.search(files, "booking 上海港")
    assert fresh_index.loaded == 1 and fresh_index.tokenised == 3  # read, then rebuilt
    assert [tuple(vars(h).values()) for h in got] == fresh_limited(files, "booking 上海港", 20)
