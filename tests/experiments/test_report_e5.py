"""E5's report: its page (the cadence grid and the other sections) and its heat map.

The inputs are the real E5 (scripted, run once per module); the malformed and edge-case inputs
are that JSON edited by hand.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.report_inputs import (
    assert_generic_page,
    built_copy,
    edited_build,
    two_builds,
    write_inputs,
)
from support.report_plots import figure_in, plot_size, png_of

from experiments import e5
from lab.experiment import RunSettings, write_json
from lab.report import build_reports

GRID_HEADER = "| trigger | keep 1 | keep 2 | keep 3 | keep 4 | keep 5 | keep 6 |"


@pytest.fixture(scope="module")
def e5_inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the real E5.json and its claims, built once for the module."""
    folder = tmp_path_factory.mktemp("e5-inputs")
    result = e5.run(RunSettings(cassette_root=folder / "cassettes", progress=lambda _: None))
    return write_inputs(folder, result)


@pytest.fixture(scope="module")
def reports(e5_inputs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built once for the module: the tests only read it (one that builds again copies it)."""
    return built_copy(e5_inputs, tmp_path_factory.mktemp("report") / "reports")


@pytest.fixture
def own_reports(reports: Path, tmp_path: Path) -> Path:
    """A copy of the module's built report for a test that builds again in it."""
    return Path(shutil.copytree(reports, tmp_path / "own-reports"))


def e5_data(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "E5.json").read_text(encoding="utf-8"))


def grid_rows(page: str) -> list[list[str]]:
    """The cells of the grid table's body rows, header checked."""
    lines = page.splitlines()
    start = lines.index(GRID_HEADER)
    assert lines[start + 1] == "| --- " * 7 + "|"
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_e5_page_has_the_grid_one_row_per_trigger(reports: Path) -> None:
    data = e5_data(reports)
    page = (reports / "E5.md").read_text(encoding="utf-8")
    assert "shown as recorded" not in page.lower()
    rows = grid_rows(page)
    triggers = sorted({c["trigger"] for c in data["grid"]})
    assert triggers == list(range(4, 21))
    assert [int(r[0]) for r in rows] == triggers
    cells = {(c["trigger"], c["keep"]): c for c in data["grid"]}
    for row in rows:
        assert len(row) == 7
        for keep, text in enumerate(row[1:], start=1):
            cell = cells.get((int(row[0]), keep))
            if cell is None:
                assert keep >= int(row[0]) and text == ""
                continue
            expected = f"{cell['interval']} / {cell['formula']}"
            if cell["interval"] != cell["formula"]:
                expected += " ✗"
            assert text == expected
    assert rows[0] == ["4", "1 / 1", "1 / 1", "1 / 0 ✗", "", "", ""]
    assert "| 13 | 6 / 6 | 5 / 5 |" in page  # the article's trigger 13 / keep 2: every 5


def test_e5_page_says_which_cells_disagree_and_why(reports: Path) -> None:
    data = e5_data(reports)
    page = (reports / "E5.md").read_text(encoding="utf-8")
    wrong = [c for c in data["grid"] if c["interval"] != c["formula"]]
    total = len(data["grid"])
    assert wrong and all(c["trigger"] == c["keep"] + 1 for c in wrong)
    assert f"**{total - len(wrong)} of {total} cells agree.**" in page
    assert sum(cell.endswith("✗") for row in grid_rows(page) for cell in row) == len(wrong)
    names = [f"trigger {c['trigger']} / keep {c['keep']}" for c in wrong]
    assert ", ".join(names[:-1]) + " and " + names[-1] in page
    claims = (reports / "claims.csv").read_text(encoding="utf-8")
    note = re.search(r"E5-CADENCE-GRID,.*,\"(the \d+ cells that disagree[^\"]*)\"", claims)
    assert note, "the grid claim's note is missing from claims.csv"
    assert f"As the E5-CADENCE-GRID claim notes: {note.group(1).rstrip('.')}." in page


def test_e5_page_compares_the_first_compaction(reports: Path) -> None:
    data = e5_data(reports)
    page = (reports / "E5.md").read_text(encoding="utf-8")
    firsts = {c["trigger"]: c["first"] for c in data["grid"] if c["keep"] == 1}
    measured = "| first compaction, measured | " + " | ".join(
        str(firsts[t]) for t in sorted(firsts)
    )
    formula = "| ceil((trigger + 1) / 2) | " + " | ".join(
        str(-(-(t + 1) // 2)) for t in sorted(firsts)
    )
    assert measured in page and formula in page
    assert "in all 96 cells, whatever the keep." in page


def test_e5_page_shows_the_other_sections(reports: Path) -> None:
    data = e5_data(reports)
    page = (reports / "E5.md").read_text(encoding="utf-8")
    heavy = data["tool_heavy"]
    assert "compacted 2 times inside it, before requests 3 and 4. Pairing held" in page
    for event in heavy["compactions"]:
        assert all(line in page for line in event["log_lines"])
    assert "| tool result | 299,999 characters |" in page
    assert f"`{data['large_result']['offloaded_to']}`" in page
    assert "| read_file's result offloaded again | no |" in page
    assert (
        "| a second context-length error | ContextLengthExceededError reached the caller |" in page
    )
    assert "facts in MEMORY.md: fact-1, fact-2" in page
    assert "| maintenance_first | skipped | absent | 1 |" in page
    assert "| flush_first | written | present | 1 |" in page
    assert "|  | agentscope-2.0.3 | ctxlab |" in page
    assert "| token trigger | 160,000 | 980,000 |" in page


def test_e5_heat_map_has_the_set_size_and_is_embedded(reports: Path) -> None:
    width, height = plot_size("E5_cadence")
    assert png_of(reports / "E5_cadence.png") == ("PNG", (width, height))
    index = (reports / "index.html").read_text(encoding="utf-8")
    figure = figure_in(reports, "E5_cadence")
    assert figure, "index.html does not embed the E5 heat map"
    assert f'width="{width}" height="{height}"' in figure
    assert "data:image/png;base64," in figure
    assert "The 4 outlined cells disagree" in figure
    assert "generic page" not in index


def test_two_builds_give_identical_bytes(own_reports: Path, tmp_path: Path) -> None:
    first, again = two_builds(own_reports, tmp_path / "elsewhere")
    assert first == again
    assert {"E5.md", "E5_cadence.png", "index.html"} <= set(first)


def _cell_of(data: dict[str, Any], trigger: int, keep: int) -> dict[str, Any]:
    return next(c for c in data["grid"] if c["trigger"] == trigger and c["keep"] == keep)


MALFORMED: dict[str, Callable[[dict[str, Any]], None]] = {
    "grid not a list": lambda d: d.update(grid={"4": 1}),
    "empty grid": lambda d: d.update(grid=[]),
    "trigger as text": lambda d: d["grid"][0].update(trigger="four"),
    "interval a boolean": lambda d: d["grid"][0].update(interval=True),
    "cell without formula": lambda d: d["grid"][0].pop("formula"),
    "same cell twice": lambda d: d["grid"].append(dict(d["grid"][0])),
    "no fallback": lambda d: d.pop("fallback"),
    "profile without window": lambda d: d["fallback"]["ctxlab"].pop("window"),
    "tool_heavy a list": lambda d: d.update(tool_heavy=[]),
}


@pytest.mark.parametrize("break_it", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_e5_json_falls_back_to_the_generic_page(
    e5_inputs: Path, tmp_path: Path, break_it: Callable[[dict[str, Any]], None]
) -> None:
    written = edited_build(e5_inputs, tmp_path, "E5", break_it)
    assert_generic_page(tmp_path, written, "E5", "E5_cadence", "E5-CADENCE-GRID", GRID_HEADER)


def test_cells_with_several_gaps_or_none_are_marked(e5_inputs: Path, tmp_path: Path) -> None:
    shutil.copytree(e5_inputs, tmp_path, dirs_exist_ok=True)
    data = copy.deepcopy(e5_data(tmp_path))
    _cell_of(data, 9, 1).update(intervals=[4, 5], interval=None)
    _cell_of(data, 10, 1).update(intervals=[], interval=None, first=None, compactions=0)
    write_json(tmp_path / "E5.json", data)
    (tmp_path / "claims.csv").unlink()  # no claims: the sentence goes without the note
    written = {p.name for p in build_reports(tmp_path)}
    assert "E5_cadence.png" in written
    page = (tmp_path / "E5.md").read_text(encoding="utf-8")
    rows = {row[0]: row for row in grid_rows(page)}
    assert rows["9"][1] == "4,5 / 4 ✗" and rows["10"][1] == "- / 4 ✗"
    assert "**90 of 96 cells agree.**" in page and "claim notes" not in page
    assert "| first compaction, measured | 3 | 3 | 4 | 4 | 5 | 5 | 6,- ✗ | 6 |" in page
    assert "in 95 of 96 cells" in page
