"""E4's report: its page (the two engines side by side, events, conversation, summaries) and
its cache plot.

The inputs are the committed ``reports/E4.json`` and the same JSON replayed from the committed
cassette, each beside the claims the replay gives; the malformed and edge-case inputs are that
JSON edited by hand.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT
from support.report_inputs import (
    assert_generic_page,
    built_copy,
    edited_build,
    two_builds,
    write_inputs,
)
from support.report_plots import figure_in, plot_size, png_of

from experiments import e4
from lab.experiment import RunSettings

TITLES = {"agentscope": "AgentScope", "dsh": "DSH"}
SIDE_BY_SIDE = "|  | AgentScope | DSH |"
CONVERSATION = "| # | role | chars | replaced by | text | English |"


@pytest.fixture(scope="module", params=["committed", "replayed"])
def e4_inputs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding an E4.json and E4's claims: the committed report's, or a fresh replay."""
    folder = tmp_path_factory.mktemp(f"e4-{request.param}")
    result = e4.run(RunSettings(cassette_root=ROOT / "cassettes", progress=lambda _: None))
    write_inputs(folder, result)
    if request.param == "committed":
        shutil.copyfile(ROOT / "reports" / "E4.json", folder / "E4.json")
    return folder


@pytest.fixture(scope="module")
def reports(e4_inputs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built once for the module: the tests only read it (one that builds again copies it)."""
    return built_copy(e4_inputs, tmp_path_factory.mktemp("report") / "reports")


@pytest.fixture
def own_reports(reports: Path, tmp_path: Path) -> Path:
    """A copy of the module's built report for a test that builds again in it."""
    return Path(shutil.copytree(reports, tmp_path / "own-reports"))


def e4_data(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "E4.json").read_text(encoding="utf-8"))


def page_of(folder: Path) -> str:
    return (folder / "E4.md").read_text(encoding="utf-8")


def table_after(page: str, header: str, start: int = 0) -> list[list[str]]:
    """The cells of the body rows of the first table with ``header`` after line ``start``."""
    lines = page.splitlines()
    first = lines.index(header, start)
    columns = header.count(" | ") + 1
    assert lines[first + 1] == "| --- " * columns + "|"
    rows = []
    for line in lines[first + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in re.split(r"(?<!\\) \| ", line[2:-2])]
        assert len(cells) == columns, line
        rows.append(cells)
    return rows


def side_by_side(page: str) -> dict[str, dict[str, str]]:
    """The side-by-side table as {row label: {engine title: cell}}."""
    return {
        row[0]: {"AgentScope": row[1], "DSH": row[2]} for row in table_after(page, SIDE_BY_SIDE)
    }


def engines(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {TITLES[e["engine"]]: e for e in data["engines"]}


def test_e4_page_sets_the_engines_side_by_side(reports: Path) -> None:
    data = e4_data(reports)
    page = page_of(reports)
    assert "shown as recorded" not in page.lower()
    table = side_by_side(page)
    total = len(data["facts"])
    for title, run in engines(data).items():
        column = {label: cells[title] for label, cells in table.items()}
        share = run["summary_cached_tokens"] / run["summary_prompt_tokens"]
        kept = ", ".join(run["facts_kept"])
        assert column == {
            "messages before → after": f"{run['messages_before']} → {run['messages_after']}",
            "tokens before → after, AgentScope estimator (2.5 chars/token)": (
                f"{run['estimated_tokens_before']} → {run['estimated_tokens_after']}"
            ),
            "tokens before → after, DSH meter (4 chars/token)": (
                f"{run['dsh_meter_before']} → {run['dsh_meter_after']}"
            ),
            "replaced range (surface positions)": f"0..{len(data['conversation']) - 3}, keeping 2",
            "summary chars": str(run["summary_chars"]),
            "summary request messages": str(run["summary_request_messages"]),
            "prefix reuse": f"{100 * run['prefix_reuse']:.2f}%",
            "summary prompt tokens": str(run["summary_prompt_tokens"]),
            "cached tokens": f"{run['summary_cached_tokens']} ({100 * share:.1f}%)",
            "planted facts kept": f"{len(run['facts_kept'])} of {total}"
            + (f": {kept}" * bool(kept)),
            "replay equals live": "yes" if run["replay_equals_live"] else "no",
            "tool pairing valid after": "yes" if run["pairing_valid"] else "no",
        }
    # The recorded numbers the DSH-CACHE claim rests on.
    assert table["summary request messages"] == {"AgentScope": "1", "DSH": "10"}
    assert float(table["prefix reuse"]["DSH"].rstrip("%")) > 50
    assert float(table["prefix reuse"]["AgentScope"].rstrip("%")) < 5


def test_e4_page_marks_each_planted_fact(reports: Path) -> None:
    data = e4_data(reports)
    rows = table_after(page_of(reports), "| fact | planted value | AgentScope | DSH | English |")
    runs = engines(data)
    assert [row[:2] for row in rows] == [
        [name, f"`{value}`"] for name, value in data["facts"].items()
    ]
    for name, _, agentscope, dsh, english in rows:
        assert name != "code word" or english == "blue whale"  # 蓝鲸, glossed
        assert agentscope == ("yes" if name in runs["AgentScope"]["facts_kept"] else "no")
        assert dsh == ("yes" if name in runs["DSH"]["facts_kept"] else "no")


def _op_text(op: Any, positions: Any = None) -> str:
    if op is None:
        return "—"
    if op["start"] is None:
        return str(op["op"])
    where = f" (positions {positions[0]}..{positions[1]})" if positions else ""
    return f"{op['op']} seqs {op['start']}..{op['end']}{where}"


def test_e4_page_lists_each_engines_events(reports: Path) -> None:
    data = e4_data(reports)
    page = page_of(reports)
    runs = engines(data)
    dsh_at = page.index("#### DSH (4 events)")
    dsh = table_after(page, "| seq | type | surface op | sources |", page[:dsh_at].count("\n"))
    assert dsh == [
        [
            str(e["seq"]),
            e["type"],
            _op_text(e["surface_op"], e.get("positions")),
            ", ".join(map(str, e["sources"])) or "—",
        ]
        for e in runs["DSH"]["events"]
    ]
    assert [row[1] for row in dsh] == [
        "compaction/start",
        "compaction/summary",
        "user/message",
        "compaction/end",
    ]
    assert dsh[2][2] == "replace seqs 0..8 (positions 0..7)"  # seqs, as DeepSeek-Harness
    agentscope_at = page.index(f"#### AgentScope ({len(runs['AgentScope']['events'])} events)")
    agentscope = table_after(page, "| seq | type | surface op |", page[:agentscope_at].count("\n"))
    assert agentscope == [
        [str(e["seq"]), e["type"], _op_text(e["surface_op"], e.get("positions"))]
        for e in runs["AgentScope"]["events"]
    ]


def test_e4_page_shows_the_conversation_shortened(reports: Path) -> None:
    data = e4_data(reports)
    rows = table_after(page_of(reports), CONVERSATION)
    conversation = data["conversation"]
    assert len(rows) == len(conversation) == 10
    for index, (row, message) in enumerate(zip(rows, conversation, strict=True)):
        number, role, chars, replaced, text, _english = row
        assert (int(number), role, int(chars)) == (index, message["role"], len(message["text"]))
        assert replaced == ("AgentScope, DSH" if index < len(conversation) - 2 else "kept")
        shown = text.replace("\\|", "|")
        assert "\n" not in shown and len(shown) <= 80
        flat = " ".join(message["text"].replace("\n", "⏎").split())
        assert shown == flat or (shown.endswith("…") and flat.startswith(shown[:-1]))
    packing = rows[2][4]
    assert packing.endswith("…") and "：⏎01 \\| CTN-1001 \\|" in packing
    assert rows[0][4] == conversation[0]["text"]


def test_e4_page_shows_both_summaries_in_full(reports: Path) -> None:
    data = e4_data(reports)
    page = page_of(reports)
    for title, run in engines(data).items():
        heading = f"#### {title} ({run['summary_chars']} characters)\n\n"
        assert f"{heading}```text\n{run['summary'].rstrip()}\n```\n" in page


def test_e4_cache_plot_has_the_set_size_and_is_embedded(reports: Path) -> None:
    data = e4_data(reports)
    width, height = plot_size("E4_cache", 1 + len(list(reports.glob("E4@*.json"))))
    assert png_of(reports / "E4_cache.png") == ("PNG", (width, height))
    index = (reports / "index.html").read_text(encoding="utf-8")
    figure = figure_in(reports, "E4_cache")
    assert figure, "index.html does not embed the E4 cache plot"
    assert f'width="{width}" height="{height}"' in figure
    assert "data:image/png;base64," in figure
    caption = re.search(r"<figcaption>(.*?)</figcaption>", figure, re.DOTALL)
    assert caption
    for title, run in engines(data).items():
        assert (
            f"{title}: {run['summary_cached_tokens']} of {run['summary_prompt_tokens']} prompt "
            f"tokens cached, prefix reuse {100 * run['prefix_reuse']:.2f}%"
        ) in caption.group(1)
    assert "generic page" not in index
    assert "[E4_cache.png](E4_cache.png)" in page_of(reports)


def test_two_builds_give_identical_bytes(own_reports: Path, tmp_path: Path) -> None:
    first, again = two_builds(own_reports, tmp_path / "elsewhere")
    assert first == again
    assert {"E4.md", "E4_cache.png", "index.html"} <= set(first)


def _engine(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(e for e in data["engines"] if e["engine"] == name)


MALFORMED: dict[str, Callable[[dict[str, Any]], None]] = {
    "engines not a list": lambda d: d.update(engines={"dsh": {}}),
    "no engines": lambda d: d.update(engines=[]),
    "same engine twice": lambda d: d["engines"].append(dict(d["engines"][0])),
    "prefix reuse as text": lambda d: _engine(d, "dsh").update(prefix_reuse="85%"),
    "prefix reuse a percentage": lambda d: _engine(d, "dsh").update(prefix_reuse=85.14),
    "cached tokens a boolean": lambda d: _engine(d, "dsh").update(summary_cached_tokens=True),
    "engine without summary": lambda d: _engine(d, "agentscope").pop("summary"),
    "facts kept not strings": lambda d: _engine(d, "dsh").update(facts_kept=[1, 2]),
    "event without type": lambda d: _engine(d, "dsh")["events"][0].pop("type"),
    "replace without end": lambda d: _engine(d, "dsh")["events"][2]["surface_op"].pop("end"),
    "range a list": lambda d: _engine(d, "dsh").update(range=[0, 7]),
    "message without role": lambda d: d["conversation"][0].pop("role"),
    "no facts": lambda d: d.pop("facts"),
}


@pytest.mark.parametrize("break_it", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_e4_json_falls_back_to_the_generic_page(
    e4_inputs: Path, tmp_path: Path, break_it: Callable[[dict[str, Any]], None]
) -> None:
    written = edited_build(e4_inputs, tmp_path, "E4", break_it)
    assert_generic_page(tmp_path, written, "E4", "E4_cache", "DSH-CACHE", SIDE_BY_SIDE)


def test_dsh_without_compaction_or_usage_still_renders(e4_inputs: Path, tmp_path: Path) -> None:
    def without_compaction(data: dict[str, Any]) -> None:
        dsh = _engine(data, "dsh")
        dsh.update(
            range=None,
            error="the summary is not smaller than what it replaces",
            summary_prompt_tokens=None,
            summary_cached_tokens=None,
            events=[e for e in dsh["events"] if e["surface_op"] is None],
            facts_kept=[],
        )

    written = edited_build(e4_inputs, tmp_path, "E4", without_compaction)
    assert "E4_cache.png" in written
    page = page_of(tmp_path)
    table = side_by_side(page)
    reason = "the summary is not smaller than what it replaces"
    assert table["replaced range (surface positions)"]["DSH"] == f"none: {reason}"
    assert table["error"] == {"AgentScope": "", "DSH": reason}
    assert table["summary prompt tokens"]["DSH"] == "—"
    assert table["cached tokens"]["DSH"] == "—"
    assert table["planted facts kept"]["DSH"] == "0 of 4"
    rows = table_after(page, CONVERSATION)
    assert {row[3] for row in rows[:8]} == {"AgentScope"}
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "DSH: n/a of n/a prompt tokens cached" in index
