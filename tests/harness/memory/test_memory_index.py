"""memory_search's kept index: the same hits as a fresh ranking, re-read only what changed."""

from __future__ import annotations

import io
import os
import sqlite3
import tempfile
from array import array
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.fs.files import read_lines
from harness.memory import index as index_module
from harness.memory import index_build, index_merge, index_query
from harness.memory.index import DatabaseFile, MemoryIndex
from harness.text_search import SearchLine, rank_lines, tokenize

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


def damage(path: Path, how: int) -> None:
    """Damage an index database in one of a few ways SQLite or the index finds."""
    data = path.read_bytes() if path.exists() else b""
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    if how == 0:
        path.write_bytes(b"not an index at all" * 50)
    elif how == 1:
        path.write_bytes(data[: len(data) // 2])
    elif how == 2:
        path.write_bytes(b"")
    else:  # a database of another format
        path.unlink(missing_ok=True)
        with sqlite3.connect(path) as other:
            other.execute("CREATE TABLE files(x)")
        other.close()


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


@pytest.mark.quick_examples(20)  # costly examples: [full] under -m slow
@given(
    st.lists(st.lists(line_piece, max_size=8), min_size=1, max_size=3),
    st.lists(st.tuples(step, st.sampled_from([*TEXTS, "夜莺 暗号", "上海港 booking"]),
                       st.integers(1, 6)), min_size=1, max_size=6),
)  # fmt: skip
def test_index_with_appends_and_a_cache_answers_as_a_fresh_ranking(
    contents: list[list[str]], steps: list[tuple[tuple[str, int, list[str], bool], str, int]]
) -> None:
    """Random files, appends (also onto a last line without a newline), whole replacements,
    new processes reading the index on disk, damaged indexes: always what rank_lines
    answers."""
    with tempfile.TemporaryDirectory() as tmp:
        files = [(Path(tmp) / f"f{i}.md", f"f{i}.md") for i in range(len(contents))]
        for (path, _), lines in zip(files, contents, strict=True):
            raw_write(path, lines, True)
        database = Path(tmp) / "index.sqlite"
        index = MemoryIndex(store=DatabaseFile(database))
        for (kind, which, lines, flag), query, limit in steps:
            path, _ = files[which % len(files)]
            if kind == "append":
                raw_write(path, lines, flag, "a")
            elif kind == "replace":
                replacement = path.with_suffix(".new")
                raw_write(replacement, lines, flag)
                os.replace(replacement, path)
            elif kind == "restart":
                index = MemoryIndex(store=DatabaseFile(database))  # a new process
            else:
                damage(database, which + 2 * flag)
                index = MemoryIndex(store=DatabaseFile(database))
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
    database = tmp_path / "index.sqlite"
    index = MemoryIndex(store=DatabaseFile(database))
    index.search(files, "上海港 booking")
    assert index.tokenised == 500
    with daily.open("a", encoding="utf-8") as handle:
        handle.write("- 夜莺 booking\n")
    hits = index.search(files, "夜莺")
    assert index.tokenised == 501  # the appended line, nothing else
    assert [(h.line, h.literal) for h in hits] == [(501, True)]
    # a new process: the index on disk holds the appended line too
    again = MemoryIndex(store=DatabaseFile(database))
    assert [(h.line, h.literal) for h in again.search(files, "夜莺")] == [(501, True)]
    assert (again.loaded, again.tokenised) == (1, 0)


def test_a_damaged_index_is_moved_aside_and_built_anew(tmp_path: Path) -> None:
    """Garbage, cut short, empty, another format, or rows that point outside their batch:
    the answers stay rank_lines', the file is moved aside, and nothing raises."""
    memory = tmp_path / "MEMORY.md"
    write(memory, ["# Memory", "- 暗号: 夜莺", "- booking via 上海港"])
    files = [(memory, "MEMORY.md")]
    database = tmp_path / "index.sqlite"
    want = fresh_limited(files, "夜莺 booking", 20)
    first = MemoryIndex(store=DatabaseFile(database))
    assert [tuple(vars(h).values()) for h in first.search(files, "夜莺 booking")] == want
    for how in range(4):
        damage(database, how)
        index = MemoryIndex(store=DatabaseFile(database))
        got = index.search(files, "夜莺 booking")
        assert [tuple(vars(h).values()) for h in got] == want, how
        assert index.tokenised == 3, how  # rebuilt
        moved = tmp_path / "index.sqlite.damaged"
        assert how == 2 or moved.exists(), how  # an empty file is an empty database
        moved.unlink(missing_ok=True)
    # rows that lie: every posting points past its batch
    with sqlite3.connect(database) as db:
        db.execute("UPDATE postings SET lines = x'40420f00' WHERE n = 1")
        for first, singles in db.execute("SELECT first, singles FROM batches").fetchall():
            past = array("I", [1_000_000] * (singles.count(b"\n") - 1)).tobytes()
            db.execute("UPDATE batches SET single_lines = ? WHERE first = ?", (past, first))
    db.close()
    index = MemoryIndex(store=DatabaseFile(database))
    got = index.search(files, "booking 上海港")
    assert (index.recovered, index.tokenised) == (1, 3)
    assert [tuple(vars(h).values()) for h in got] == fresh_limited(files, "booking 上海港", 20)
    memory.unlink()
    assert MemoryIndex(store=DatabaseFile(database)).search(files, "夜莺") == []
    with sqlite3.connect(database) as db:  # a file's index goes with it
        assert db.execute("SELECT count(*) FROM postings").fetchone() == (0,)
    db.close()


# --- batches, appends at scale ------------------------------------------------------------------


@pytest.mark.quick_examples(20)  # costly examples: [full] under -m slow
@given(
    st.lists(st.lists(line_piece, max_size=12), min_size=1, max_size=2),
    st.lists(st.tuples(st.integers(0, 1), st.lists(line_piece, max_size=5), st.booleans(),
                       st.sampled_from([*TEXTS, "上海港 booking"]), st.integers(1, 6)),
             min_size=1, max_size=6),
)  # fmt: skip
def test_small_batches_and_blocks_answer_as_a_fresh_ranking(
    contents: list[list[str]], steps: list[tuple[int, list[str], bool, str, int]]
) -> None:
    """Batches of 3 lines read in 16-byte blocks (the build and the literal scan share
    ``line_blocks``), small batches merged after appends: the answers do not depend on where a
    batch or a block ends."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        mock.patch.object(index_build, "BATCH_LINES", 3),
        mock.patch.object(index_build, "BLOCK_BYTES", 16),
        mock.patch.object(index_merge, "BATCH_LINES", 6),
        mock.patch.object(index_merge, "SMALL_BATCH", 4),
    ):
        files = [(Path(tmp) / f"f{i}.md", f"f{i}.md") for i in range(len(contents))]
        for (path, _), lines in zip(files, contents, strict=True):
            raw_write(path, lines, True)
        index = MemoryIndex(store=DatabaseFile(Path(tmp) / "index.sqlite"))
        for which, lines, flag, query, limit in steps:
            raw_write(files[which % len(files)][0], lines, flag, "a")
            got = [tuple(vars(h).values()) for h in index.search(files, query, limit)]
            assert got == fresh_limited(files, query, limit)


def _indexed_lines(database: Path) -> tuple[int, int]:
    """(lines in the batches, postings rows) of an index database."""
    with sqlite3.connect(database) as db:
        lines = db.execute("SELECT coalesce(sum(count), 0) FROM batches").fetchone()[0]
        rows = db.execute("SELECT count(*) FROM postings").fetchone()[0]
    db.close()
    return lines, rows


def test_appends_to_20k_lines_index_only_the_new_lines(tmp_path: Path) -> None:
    """20,000 lines in two daily files; 250 lines appended: the search tokenises those 250
    and stores them, nothing else; a file replaced or cut short is indexed anew."""
    days = [tmp_path / "2026-10-29.md", tmp_path / "2026-10-30.md"]
    for day, path in enumerate(days):
        write(path, [f"- customer ALPHA-{n} ships via 上海港, booking BK-{day}-{n}"
                     for n in range(10_000)])  # fmt: skip
    files = [(path, f"memory/{path.name}") for path in days]
    database = tmp_path / "index.sqlite"
    index = MemoryIndex(store=DatabaseFile(database))
    assert index.search(files, "夜莺") == []
    assert index.tokenised == 20_000 and _indexed_lines(database)[0] == 20_000
    with days[1].open("a", encoding="utf-8") as handle:
        handle.writelines(f"- appended {n}: 夜莺 booking\n" for n in range(250))
    before = _indexed_lines(database)
    hits = index.search(files, "夜莺")
    assert index.tokenised == 20_250  # the appended lines, nothing else
    assert [h.line for h in hits] == list(range(10_001, 10_251))  # every literal match
    after = _indexed_lines(database)
    assert after[0] == before[0] + 250
    with sqlite3.connect(database) as db:  # the appended lines' terms: those lines only
        held = db.execute("SELECT sum(n) FROM postings WHERE term = 'appended'").fetchone()[0]
        rows = db.execute("SELECT count(*) FROM postings").fetchone()[0]
    db.close()
    assert held == 250
    assert rows - before[1] <= len({"appended", "夜", "莺", "夜莺", "booking",
                                    *map(str, range(250))})  # fmt: skip
    assert MemoryIndex(store=DatabaseFile(database)).search(files, "夜莺")[0].line == 10_001
    # cut short (the same inode): indexed anew
    with days[0].open("r+b") as handle:
        handle.truncate(100)
    index.search(files, "ALPHA")
    assert index.tokenised == 20_250 + 1  # one whole line (the cut one is scanned)
    assert index.unindexed == 1
    # replaced (a new inode) with a longer file: indexed anew
    replacement = tmp_path / "new.md"
    write(replacement, [f"- new {n}" for n in range(10_300)])
    os.replace(replacement, days[1])
    assert [h.text for h in index.search(files, "new 7")][:1] == ["- new 7"]
    assert index.tokenised == 20_251 + 10_300
    assert _indexed_lines(database)[0] == 1 + 10_300


CASED = ["sign: K", "İstanbul", "ΑΣ σ", "ＡＢＣ wide", "Ↄ turned", "plain ascii", "夜莺 — 上海港"]
NEEDLES = ["k", "i̇stanbul", "ας", "σ", "ａｂｃ", "ↄ", "ascii", "夜莺 —", "—", "\udcff", "x"]


@given(st.lists(st.sampled_from([*CASED, "", "\udcff"]), max_size=8), st.sampled_from(NEEDLES))
def test_literal_lines_lower_case_as_str_lower(lines: list[str], needle: str) -> None:
    """The bytes.lower shortcut is taken only where it finds what str.lower finds (a block
    with Kelvin signs, dotted capital I, Greek, fullwidth or other cased letters outside ASCII
    goes the long way), and a needle no text can hold finds nothing."""
    data = "".join(f"{line}\n" for line in lines).encode("utf-8", errors="surrogateescape")
    text = data.decode("utf-8", errors="replace").split("\n")[:-1]
    want = [(i, t) for i, t in enumerate(text) if needle in t.lower()]
    assert index_query.literal_lines(io.BytesIO(data), len(data), needle) == want


ALPHABET = "aZ9_ -夜莺上海港的々ｱ﨑㐀鿿ΣσİKＡ\t\r\x0b\u3000\u00a0é"


@given(st.lists(st.text(alphabet=st.sampled_from(ALPHABET), max_size=12), max_size=6))
def test_block_tokens_are_tokenize_line_by_line(lines: list[str]) -> None:
    """The tokens found for a whole block are, line by line, tokenize's (as a multiset: a
    line's postings do not depend on token order)."""
    found = index_build.block_tokens("".join(f"{line}\n" for line in lines))
    per_line: list[list[str]] = [[]]
    for token in found:
        if token == "\n":
            per_line.append([])
        else:
            per_line[-1].append(token)
    assert [sorted(t) for t in per_line[:-1]] == [sorted(tokenize(line)) for line in lines]


def test_a_build_cut_short_goes_on_from_its_last_batch(tmp_path: Path) -> None:
    """A process killed mid-build keeps the batches it committed: the next one tokenises the
    lines after them only, and answers as a fresh ranking."""
    daily = tmp_path / "d.md"
    write(daily, [f"- line {n} booking via 上海港" for n in range(10)])
    files = [(daily, "d.md")]
    database = tmp_path / "index.sqlite"
    real = index_module.add_batch
    calls = []

    def dies_at_the_second(*args: object) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process dies here
        real(*args)  # type: ignore[arg-type]

    with (
        mock.patch.object(index_build, "BATCH_LINES", 3),
        mock.patch.object(index_build, "BLOCK_BYTES", 16),
    ):
        with (
            mock.patch.object(index_module, "add_batch", dies_at_the_second),
            pytest.raises(KeyboardInterrupt),
        ):
            MemoryIndex(store=DatabaseFile(database)).search(files, "booking")
        again = MemoryIndex(store=DatabaseFile(database))
        got = [tuple(vars(h).values()) for h in again.search(files, "上海港 booking", 5)]
    assert again.tokenised == 7  # lines 4 to 10: the first batch was kept
    assert got == fresh_limited(files, "上海港 booking", 5)


def test_a_rare_literal_query_reads_only_the_lines_holding_its_rarest_term(
    tmp_path: Path,
) -> None:
    """A needle with a CJK character or a whole inner word is looked for in the lines the
    index says hold it (read by their offsets), not by a scan of the files; the same hits."""
    daily = tmp_path / "d.md"
    lines = [f"- customer ALPHA-{n} ships via 上海港, booking BK-{n}" for n in range(5_000)]
    lines[1234] = "- the code word is 夜莺 (not the CODE WORD IS 夜 alone)"
    lines[4321] = "- The Code Word Is nothing here"
    write(daily, lines)
    files = [(daily, "d.md")]
    size = daily.stat().st_size
    index = MemoryIndex()
    index.search(files, "zzz")  # built (a needle that is one word may be part of a longer one)
    for query, reads in (("夜莺 (not", "few"), ("code word is", "few"), ("oking bk", "all"),
                         ("ALPHA-49", "all")):  # fmt: skip
        before = index.scanned
        got = [tuple(vars(h).values()) for h in index.search(files, query)]
        assert got == fresh_limited(files, query, 20), query
        read = index.scanned - before
        assert (read < size // 100) if reads == "few" else (read == size), (query, read)
    assert index.scanned - before == size
