"""memory_search's kept index: the same hits as a fresh ranking, re-read only what changed."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from harness.fs.files import read_lines
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
        index = MemoryIndex(read_lines)
        got = [tuple(vars(h).values()) for h in index.search(files, query)]
        assert got == fresh(files, query)


def test_index_keeps_files_between_queries_and_rereads_a_changed_one(tmp_path: Path) -> None:
    memory, daily = tmp_path / "MEMORY.md", tmp_path / "2026-10-30.md"
    write(memory, ["- 暗号: 夜莺"])
    write(daily, ["- customer ALPHA", "- booking BK-7"])
    files = [(memory, "MEMORY.md"), (daily, "memory/2026-10-30.md")]
    index = MemoryIndex(read_lines)
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
