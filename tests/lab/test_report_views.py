"""A report build reads each experiment's view once: the plots get the views the pages read
(:func:`lab.report.recorded_views` given them), and only the other recorded sets' are read."""

from __future__ import annotations

from typing import Any

import pytest
from support.paths import ROOT

from lab.report import experiments, recorded_views
from lab.report.experiments import read_view
from lab.report.tables import ExperimentDoc, load_inputs


def test_views_already_read_are_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = load_inputs(ROOT / "reports")
    read = {doc.id: read_view(doc) for doc in inputs.experiments}
    fresh = recorded_views(inputs)
    calls: list[str] = []

    def counted(doc: ExperimentDoc) -> tuple[Any, str]:
        calls.append(doc.id)
        return read_view(doc)

    monkeypatch.setattr(experiments, "read_view", counted)
    assert recorded_views(inputs, read) == fresh
    assert inputs.other_models and sorted(calls) == sorted(o.id for o in inputs.other_models)
