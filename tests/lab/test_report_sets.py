"""A set recorded later appears in the report without code changes: a copy of the committed
reports gains a third model's views (``<ID>@<model>.json``, copies of the 0.5B model's with
the model renamed, so only the name is new) and its claim rows, and the matrix, every recorded
experiment's plot legend and section, and the intro all show it."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from support.paths import ROOT
from support.report_plots import plot_size, png_of

from lab.experiment import write_json
from lab.report import build_reports, recorded_views
from lab.report.experiments import build_plots
from lab.report.tables import load_inputs

SECOND = "qwen2.5-coder-0.5b-instruct-q4_k_m"
THIRD, PROVIDER = "third-model-7b", "otherhost"
pytestmark = pytest.mark.slow  # builds a whole report for a third model (about 6 s of CPU)

PLOTTED = {"E2": "E2_files", "E3": "E3_context", "E4": "E4_cache", "X-COST": "X-COST_cumulative"}


def _renamed(value: object) -> object:
    """A JSON value with the second model's name and provider replaced by the third's."""
    text = json.dumps(value, ensure_ascii=False)
    text = text.replace(f"local/{SECOND}", f"{PROVIDER}/{THIRD}").replace(SECOND, THIRD)
    return json.loads(text.replace('"provider": "local"', f'"provider": "{PROVIDER}"'))


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sets") / "reports"
    shutil.copytree(ROOT / "reports", folder)
    for path in sorted(folder.glob(f"*@{SECOND}.json")):
        experiment = path.name.split("@", 1)[0]
        data = json.loads(path.read_text(encoding="utf-8"))
        write_json(folder / f"{experiment}@{THIRD}.json", _renamed(data))
    with (folder / "claims.csv").open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        columns, rows = list(reader.fieldnames or []), list(reader)
    third = [_renamed(r) for r in rows if r["model"] == SECOND]
    assert third, "the committed claims have no row of the second model"
    with (folder / "claims.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows([*rows, *third])  # type: ignore[list-item]
    build_reports(folder)
    return folder


def _page(folder: Path) -> str:
    return (folder / "index.html").read_text(encoding="utf-8")


def test_the_third_model_has_a_column_and_a_cell_per_recorded_experiment(three: Path) -> None:
    html = _page(three)
    matrix = html[html.index('<section id="verdicts"') : html.index('<section id="claims"')]
    heads = re.findall(r'<th class="model-head">([^<]*)</th>', matrix)
    assert heads[-1] == THIRD and SECOND in heads
    for experiment in (*PLOTTED, "X-GATE"):
        row = re.search(rf'<tr data-experiment="{experiment}">(.*?)</tr>', matrix, re.DOTALL)
        assert row, experiment
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.DOTALL)
        assert len(cells) == len(heads) and "not recorded" not in cells[-1], (experiment, cells)
        assert f'href="#exp-{experiment}"' in cells[-1]


def test_every_recorded_plot_names_the_third_model_in_its_legend(three: Path) -> None:
    plots = {p.name: p for p in build_plots(recorded_views(load_inputs(three)))}
    for name in PLOTTED.values():
        plot = plots[name]
        legend = " | ".join(plot.legend)
        for model in ("qwen2.5-coder-1.5b-instruct-q4_k_m", SECOND, THIRD):
            assert model in legend, f"{name}'s legend lacks {model}: {legend}"
        assert THIRD in plot.caption
        # One more panel (or row of panels) for the third set, at the size the page states.
        assert png_of(three / f"{name}.png") == ("PNG", plot_size(name, 3))
        assert f'width="{plot.size[0]}" height="{plot.size[1]}"' in _page(three)


def test_the_intro_names_the_third_models_provider(three: Path) -> None:
    intro = _page(three).split("</header>", 1)[0]
    assert "replay 3 sets of cassettes" in intro
    assert f"from {PROVIDER}" in intro and THIRD in intro
    assert "from local (" in intro and SECOND in intro


def test_each_recorded_experiment_shows_the_third_models_values(three: Path) -> None:
    html = _page(three)
    start = html.index('<table id="claims-table"')
    table = html[start : html.index("</table>", start)]
    assert f'<th class="model-head">{THIRD}</th>' in table  # a column of the claims table
    for experiment in (*PLOTTED, "X-GATE"):
        group = table[table.index(f'<tbody data-experiment="{experiment}">') :]
        assert f'data-label="{THIRD}"' in group.split("</tbody>", 1)[0]
        start = html.index(f'<section id="exp-{experiment}"')
        section = html[start : html.index("</section>", start)]
        assert f"<td>{PROVIDER}</td>" in section  # its provenance row


def test_a_plot_made_without_its_experiment_or_size_still_sits_in_its_section() -> None:
    # A renderer written before Plot had these fields builds Plot(name, caption, png).
    import io

    from PIL import Image

    from lab.report.plots import Plot
    from lab.report.sections import figure_of, plot_experiment

    buffer = io.BytesIO()
    Image.new("RGB", (12, 7), "white").save(buffer, format="PNG")
    plot = Plot("X-BENCH_scores", "a caption", buffer.getvalue())
    assert plot_experiment(plot) == "X-BENCH"
    assert (figure_of(plot).width, figure_of(plot).height) == (12, 7)
