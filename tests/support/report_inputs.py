"""Shared by the report tests: what an experiment run leaves in a report folder, a built copy of
such a folder (as it is, or with its JSON edited, or built twice), and the generic page."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lab.claims import claims_frame, write_claims
from lab.experiment import ExperimentResult, write_json
from lab.report import build_reports
from support.built_reports import BUILT
from support.plot_memo import MEMO


def write_inputs(folder: Path, result: ExperimentResult) -> Path:
    """What ``ctxlab run`` leaves before the report is built: ``<id>.json`` and ``claims.csv``."""
    write_json(folder / f"{result.experiment}.json", result.data)
    write_claims(claims_frame(result.claims), folder / "claims.csv")
    return folder


def built_copy(inputs: Path, folder: Path) -> Path:
    """``inputs`` copied to ``folder`` with the report built there: a copy of the build of the
    same inputs and code made before, in this session or an earlier one, when there is one
    (:mod:`support.built_reports`)."""
    return BUILT.copy(inputs, folder)


def edited_build(
    inputs: Path, folder: Path, experiment: str, edit: Callable[[dict[str, Any]], None]
) -> set[str]:
    """``inputs`` copied into ``folder`` with ``<experiment>.json`` changed by ``edit``, and the
    report built there; the names of the files the build wrote."""
    shutil.copytree(inputs, folder, dirs_exist_ok=True)
    path = folder / f"{experiment}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    write_json(path, data)
    return {p.name for p in build_reports(folder)}


def two_builds(folder: Path, elsewhere: Path) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The report built in ``folder``, then in a copy of it at ``elsewhere`` with every plot
    drawn again: each build's files by name."""
    first = {p.name: p.read_bytes() for p in build_reports(folder)}
    shutil.copytree(folder, elsewhere)
    with MEMO.fresh():
        return first, {p.name: p.read_bytes() for p in build_reports(elsewhere)}


def assert_generic_page(
    folder: Path, written: set[str], experiment: str, plot: str, claim: str, own_table: str
) -> None:
    """The build in ``folder`` showed ``experiment`` on the generic page: its JSON as recorded and
    its claims (``claim`` among them), without its own table (``own_table``) or its ``plot``."""
    assert f"{experiment}.md" in written and f"{plot}.png" not in written
    page = (folder / f"{experiment}.md").read_text(encoding="utf-8")
    assert "_Shown as recorded: its JSON is not shaped as expected (" in page
    assert own_table not in page and f'"experiment": "{experiment}"' in page
    assert f"| {claim} |" in page  # the claims are still shown
    index = (folder / "index.html").read_text(encoding="utf-8")
    assert "generic page: its JSON is not shaped as expected" in index
    assert f'id="plot-{plot}"' not in index
