"""Shared by the report tests: what an experiment run leaves in a report folder, and a built
copy of such a folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from experiments.base import ExperimentResult, write_json
from experiments.claims import claims_frame, write_claims
from experiments.report import build_reports


def write_inputs(folder: Path, result: ExperimentResult) -> Path:
    """What ``ctxlab run`` leaves before the report is built: ``<id>.json`` and ``claims.csv``."""
    write_json(folder / f"{result.experiment}.json", result.data)
    write_claims(claims_frame(result.claims), folder / "claims.csv")
    return folder


def built_copy(inputs: Path, folder: Path) -> Path:
    """``inputs`` copied to ``folder`` with the report built there."""
    shutil.copytree(inputs, folder)
    build_reports(folder)
    return folder
