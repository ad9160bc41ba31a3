"""The memory tools on real files: memory_save, memory_search (with a property test against a
literal line match), read_file / list_files and their workspace confinement, session_search."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.memory_invariants import INSTANT, FakeClock
from support.sessions import code_word_session

from harness.memory import MemoryTools, MemoryWorkspace
from harness.memory.tools import INDEX_FOLDER
from harness.messages import ToolCall
from harness.text_search import SearchLine, rank_lines
from harness.tools import ToolBox

SOURCE = re.compile(r"^Source: (\S+)#(\d+): (.*)$")


@pytest.fixture
def workspace(tmp_path: Path) -> MemoryWorkspace:
    return MemoryWorkspace(tmp_path / "root", "u1", clock=FakeClock())


def sources(result: str) -> list[tuple[str, int, str]]:
    """The ``Source: file#line: text`` lines of a memory_search result."""
    found = []
    for line in result.splitlines():
        match = SOURCE.match(line)
        if match:
            found.append((match.group(1), int(match.group(2)), match.group(3)))
    return found


def assert_sources_are_right(workspace: MemoryWorkspace, result: str) -> None:
    """Each cited line number points at the cited text in the cited file."""
    for file, number, text in sources(result):
        lines = (workspace.base / file).read_text(encoding="utf-8").split("\n")
        assert lines[number - 1] == text, f"{file}#{number} is {lines[number - 1]!r}, not {text!r}"


def run(toolbox: ToolBox, name: str, **arguments: object) -> str:
    return toolbox.run(ToolCall("c1", name, json.dumps(arguments, ensure_ascii=False)))


# --- memory_save ------------------------------------------------------------------------------


def test_memory_save_appends_to_memory_and_the_daily_ledger(workspace: MemoryWorkspace) -> None:
    tools = MemoryTools(workspace)
    assert tools.memory_save("  - exports go through 上海港\n") == "Saved 1 memory to MEMORY.md"
    assert workspace.read_memory() == "- exports go through 上海港\n"
    assert tools.memory_save("- customer ALPHA\n- invoices monthly") == (
        "Saved 2 memories to MEMORY.md"
    )
    assert workspace.read_memory() == (
        "- exports go through 上海港\n\n- customer ALPHA\n- invoices monthly\n"
    )
    (daily,) = workspace.daily_files()
    sections = re.findall(r"\n## Memory Save — (\S+)\n(.*?)\n(?=\n## |$)", daily.read_text(), re.S)
    assert [body for _, body in sections] == [
        "- exports go through 上海港",
        "- customer ALPHA\n- invoices monthly",
    ]
    assert all(INSTANT.fullmatch(stamp) for stamp, _ in sections)
    assert sections[0][0] < sections[1][0]


def test_memory_save_keeps_a_memory_file_without_final_newline(
    workspace: MemoryWorkspace,
) -> None:
    workspace.write_memory("# Memory\n- old")
    MemoryTools(workspace).memory_save("- new")
    assert workspace.read_memory() == "# Memory\n- old\n\n- new\n"


def test_memory_save_of_nothing_writes_nothing(workspace: MemoryWorkspace) -> None:
    assert MemoryTools(workspace).memory_save("  \n ").startswith("Error:")
    assert not workspace.base.exists()


# --- memory_search ----------------------------------------------------------------------------


@pytest.fixture
def searchable(workspace: MemoryWorkspace) -> MemoryTools:
    workspace.write_memory(
        "# Memory\n\n- Customer code ALPHA ships weekly\n- 出口固定走上海港\n- unrelated line\n"
    )
    workspace.append_entry("Memory Flush", "- 暗号是夜莺\n- the Alpha account pays monthly")
    workspace.append_entry("Memory Save", "- 上海港 cut-off is Friday")
    return MemoryTools(workspace)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("夜莺", {"- 暗号是夜莺"}),
        ("上海港", {"- 出口固定走上海港", "- 上海港 cut-off is Friday"}),
        ("alpha", {"- Customer code ALPHA ships weekly", "- the Alpha account pays monthly"}),
        ("ALPHA", {"- Customer code ALPHA ships weekly", "- the Alpha account pays monthly"}),
    ],
)
def test_memory_search_finds_chinese_and_english_with_right_line_numbers(
    searchable: MemoryTools, query: str, expected: set[str]
) -> None:
    result = searchable.memory_search(query)
    assert result.startswith("Found ")
    found = sources(result)
    literal = [text for _, _, text in found if query.lower() in text.lower()]
    assert set(literal) == expected
    assert [text for _, _, text in found[: len(expected)]] == literal[: len(expected)]
    assert_sources_are_right(searchable.workspace, result)
    files = {file for file, _, _ in found}
    assert files <= {"MEMORY.md", f"memory/{searchable.workspace.daily_files()[0].name}"}


def test_memory_search_cites_memory_line_numbers(searchable: MemoryTools) -> None:
    found = sources(searchable.memory_search("上海港"))
    assert ("MEMORY.md", 4, "- 出口固定走上海港") in found


def test_memory_search_without_a_match_says_so(searchable: MemoryTools) -> None:
    assert searchable.memory_search("zebra") == "No matching memories found for: zebra"


def test_memory_search_ranks_more_query_terms_higher(workspace: MemoryWorkspace) -> None:
    workspace.write_memory(
        "\n".join(
            [
                "- freight rates go up in May",
                "- the office cat is called Tom",
                "- freight to Shanghai leaves every Tuesday",
                "- lunch is at noon",
                "- invoices are due monthly",
            ]
        )
    )
    found = [
        text for _, _, text in sources(MemoryTools(workspace).memory_search("shanghai freight"))
    ]
    assert found.index("- freight to Shanghai leaves every Tuesday") < found.index(
        "- freight rates go up in May"
    )
    assert "- lunch is at noon" not in found


def test_memory_search_counts_lines_as_the_file_has_them(workspace: MemoryWorkspace) -> None:
    workspace.write_memory("- a note\u2028that goes on\n- customer ALPHA\n")
    found = sources(MemoryTools(workspace).memory_search("ALPHA"))
    assert found == [("MEMORY.md", 2, "- customer ALPHA")]


# Characters str.splitlines() treats as line breaks are left out of generated lines: the tools
# split on them (see the line-numbering test above).
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
LINE_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters=LINE_BREAKS),
    max_size=40,
)
CORPUS_WORDS = st.sampled_from(["alpha", "ALPHA", "Alpha", "port", "上海港", "夜莺", "7", "-"])


@st.composite
def corpus_and_query(draw: st.DrawFn) -> tuple[list[str], str]:
    """Lines (some random, some of shared words) and a case variant of a slice of one line."""
    words_line = st.lists(CORPUS_WORDS, min_size=1, max_size=6).map(" ".join)
    lines = draw(st.lists(st.one_of(LINE_TEXT, words_line), max_size=11))
    source = draw(st.one_of(LINE_TEXT.filter(str.strip), words_line))
    lines.insert(draw(st.integers(0, len(lines))), source)
    start = draw(st.integers(0, len(source) - 1))
    end = draw(st.integers(start + 1, len(source)))
    query = source[start:end] if source[start:end].strip() else source.strip()
    return lines, draw(st.sampled_from([query, query.upper(), query.lower()]))


@given(corpus_and_query())
def test_memory_search_finds_every_literal_match(case: tuple[list[str], str]) -> None:
    lines, query = case
    with tempfile.TemporaryDirectory() as root:
        workspace = MemoryWorkspace(Path(root), "u1", clock=FakeClock())
        workspace.write_memory("\n".join(lines) + "\n")
        found = sources(MemoryTools(workspace).memory_search(query))
    expected = {
        (number, line) for number, line in enumerate(lines, 1) if query.lower() in line.lower()
    }
    assert expected <= {(number, text) for _, number, text in found}


# --- read_file and list_files -----------------------------------------------------------------


def test_read_file_numbers_lines_and_honours_offset_and_limit(
    workspace: MemoryWorkspace,
) -> None:
    workspace.write_memory("# Memory\n- one\n- two\n- three\n")
    toolbox = ToolBox(MemoryTools(workspace).tools())
    assert run(toolbox, "read_file", path="MEMORY.md") == "1|# Memory\n2|- one\n3|- two\n4|- three"
    assert run(toolbox, "read_file", path="MEMORY.md", offset=2, limit=2) == "2|- one\n3|- two"
    assert run(toolbox, "read_file", path="MEMORY.md", offset=9) == "(empty)"
    assert run(toolbox, "read_file", path="memory/none.md").startswith("Error:")


def test_list_files_lists_the_workspace(workspace: MemoryWorkspace) -> None:
    workspace.write_memory("- x\n")
    entry = workspace.append_entry("Memory Flush", "- y")
    toolbox = ToolBox(MemoryTools(workspace).tools())
    assert run(toolbox, "list_files").splitlines() == ["MEMORY.md", entry.file]
    assert run(toolbox, "list_files", path="memory") == entry.file
    assert run(toolbox, "list_files", path="MEMORY.md").startswith("Error:")


@pytest.fixture
def outside(tmp_path: Path, workspace: MemoryWorkspace) -> Path:
    """A secret next to the workspace, plus symlinks from inside the workspace to it."""
    secret_dir = tmp_path / "secret"
    secret_dir.mkdir()
    (secret_dir / "secret.md").write_text("TOP-SECRET-TOKEN\n", encoding="utf-8")
    workspace.write_memory("- x\n")
    os.symlink(secret_dir / "secret.md", workspace.base / "link.md")
    os.symlink(secret_dir, workspace.base / "linkdir")
    return secret_dir


@pytest.mark.parametrize(
    ("tool", "path"),
    [
        ("read_file", "../../secret/secret.md"),
        ("read_file", "memory/../../../secret/secret.md"),
        ("read_file", "ABSOLUTE"),
        ("read_file", "link.md"),
        ("read_file", "linkdir/secret.md"),
        ("list_files", ".."),
        ("list_files", "ABSOLUTE_DIR"),
        ("list_files", "linkdir"),
    ],
)
def test_paths_leaving_the_workspace_are_refused(
    workspace: MemoryWorkspace, outside: Path, tool: str, path: str
) -> None:
    path = {"ABSOLUTE": str(outside / "secret.md"), "ABSOLUTE_DIR": str(outside)}.get(path, path)
    toolbox = ToolBox(MemoryTools(workspace).tools())
    result = run(toolbox, tool, path=path)
    assert result.startswith("Error:")
    assert "outside" in result
    assert "TOP-SECRET-TOKEN" not in result
    assert len(result.splitlines()) == 1  # an error, not a listing


def test_listing_the_workspace_does_not_follow_a_symlinked_folder(
    workspace: MemoryWorkspace, outside: Path
) -> None:
    listing = run(ToolBox(MemoryTools(workspace).tools()), "list_files")
    assert "linkdir/secret.md" not in listing.splitlines()


def test_memory_search_does_not_read_through_a_symlinked_daily_file(
    workspace: MemoryWorkspace, outside: Path
) -> None:
    workspace.daily_dir.mkdir(parents=True)
    os.symlink(outside / "secret.md", workspace.daily_dir / "2026-01-01.md")
    toolbox = ToolBox(MemoryTools(workspace).tools())
    assert "outside" in run(toolbox, "read_file", path="memory/2026-01-01.md")
    assert "TOP-SECRET-TOKEN" not in run(toolbox, "memory_search", query="TOP-SECRET")


# --- session_search ---------------------------------------------------------------------------


def test_session_search_finds_a_real_transcript(tmp_path: Path) -> None:
    agent = code_word_session(tmp_path)
    toolbox = ToolBox(MemoryTools(agent.workspace).tools())
    result = run(toolbox, "session_search", query="夜莺")
    assert result.splitlines()[0] == "[sessions/chat1.jsonl#1] [USER] 记住暗号是夜莺，只回复收到"
    assert "收到" in run(toolbox, "session_search", query="收到")
    record = json.loads(
        agent.workspace.sessions_dir.joinpath("chat1.jsonl").read_text().split("\n")[0]
    )
    assert record["message"]["content"] == "记住暗号是夜莺，只回复收到"
    assert run(toolbox, "session_search", query="zebra").startswith("No matching session")


# --- memory_search's index cache ---------------------------------------------------------------


def _memory_lines(workspace: MemoryWorkspace, tools: MemoryTools) -> list[SearchLine]:
    return [
        SearchLine(name, number, text)
        for path, name in tools.memory_files()
        for number, text in enumerate(workspace.read_lines(path.as_posix()), 1)
        if text.strip()
    ]


def _expected(workspace: MemoryWorkspace, tools: MemoryTools, query: str) -> str:
    hits = rank_lines(_memory_lines(workspace, tools), query)
    lines = [f"Source: {h.file}#{h.line}: {h.text}" for h in hits]
    return f"Found {len(hits)} matches:\n\n" + "\n".join(lines)


def test_the_index_is_kept_beside_memory_and_a_damaged_one_is_built_anew(
    workspace: MemoryWorkspace,
) -> None:
    tools = MemoryTools(workspace)
    tools.memory_save("- exports go through 上海港\n- booking BK-7 via 上海港")
    workspace.append_entry("Memory Flush", "- customer ALPHA books via 上海港")
    query = "上海港 booking"
    want = _expected(workspace, tools, query)
    assert tools.memory_search(query) == want
    folder = workspace.base / INDEX_FOLDER
    database = folder / "index.sqlite"
    assert [p.name for p in folder.iterdir()] == ["index.sqlite"]  # WAL checkpointed, closed
    assert INDEX_FOLDER not in run(ToolBox(tools.tools()), "list_files")
    again = MemoryTools(workspace)  # a new process: the index on disk instead of tokenising
    assert again.memory_search(query) == want
    assert (again.index.loaded, again.index.tokenised) == (2, 0)
    database.write_bytes(b"damaged by a crash or a disk" * 100)
    torn = MemoryTools(workspace)
    assert torn.memory_search(query) == want
    assert (torn.index.loaded, torn.index.recovered) == (0, 1)
    assert (folder / "index.sqlite.damaged").exists()
    for path in folder.iterdir():
        path.unlink()
    assert MemoryTools(workspace).memory_search(query) == want
    # memory changes: the index never answers for the old text
    workspace.write_memory("- the code word is 夜莺\n")
    assert MemoryTools(workspace).memory_search("夜莺 上海港") == _expected(
        workspace, tools, "夜莺 上海港"
    )
    (folder / "0123456789abcdef.idx").write_bytes(b"the index before this one")
    MemoryTools(workspace).memory_search("夜莺")
    assert sorted(p.name for p in folder.iterdir()) == ["index.sqlite"]  # old caches removed


def test_a_symlinked_index_folder_is_not_followed(
    workspace: MemoryWorkspace, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    tools = MemoryTools(workspace)
    tools.memory_save("- booking via 上海港")
    (workspace.base / INDEX_FOLDER).symlink_to(outside, target_is_directory=True)
    assert tools.memory_search("booking") == _expected(workspace, tools, "booking")
    assert list(outside.iterdir()) == []  # nothing written through the link


def test_a_symlinked_index_file_is_removed_not_followed(
    workspace: MemoryWorkspace, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.sqlite"
    outside.write_bytes(b"someone else's file")
    tools = MemoryTools(workspace)
    tools.memory_save("- booking via 上海港")
    folder = workspace.base / INDEX_FOLDER
    folder.mkdir(exist_ok=True)
    for name in ("index.sqlite", "index.sqlite-wal"):
        (folder / name).unlink(missing_ok=True)
        (folder / name).symlink_to(outside)
    assert tools.memory_search("booking") == _expected(workspace, tools, "booking")
    assert outside.read_bytes() == b"someone else's file"
    assert not (folder / "index.sqlite").is_symlink()
    assert not (folder / "index.sqlite-wal").is_symlink()


SEARCHER = r"""
import sys
from pathlib import Path
from harness.memory import MemoryTools, MemoryWorkspace
workspace = MemoryWorkspace(Path(sys.argv[1]), "u1")
tools = MemoryTools(workspace)
for n in range(15):
    line = f"- {sys.argv[2]} {n} ships via 上海港\n"
    workspace.fs.append("memory/2026-10-30.md", line, sync=False)
    assert tools.memory_search("上海港 booking").startswith("Found"), n
print("ok")
"""


def test_two_processes_search_and_append_at_once(workspace: MemoryWorkspace) -> None:
    workspace.daily_dir.mkdir(parents=True)
    body = "".join(f"- customer {n} booking via 上海港\n" for n in range(1500))
    (workspace.daily_dir / "2026-10-30.md").write_text(body, encoding="utf-8")
    children = [
        subprocess.Popen(
            [sys.executable, "-c", SEARCHER, str(workspace.base.parent), name],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for name in ("first", "second")
    ]  # fmt: skip
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        assert out.strip() == "ok"
    tools = MemoryTools(workspace)  # whatever cache the two left: the right answers
    for query in ("上海港 booking", "first 14", "second"):
        assert tools.memory_search(query) == _expected(workspace, tools, query)
