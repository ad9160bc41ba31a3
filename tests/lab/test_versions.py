"""Each experiment states a version, and every file it writes says it: ``<ID>.json``'s
``version`` field, after ``experiment``, and ``claims.csv``'s ``version`` column (as an lm-eval
task's version and an Inspect eval log's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab.claims import CLAIM_COLUMNS, read_claims
from lab.experiment import Experiment
from lab.registry import EXPERIMENTS
from lab.runner import versioned


@pytest.mark.parametrize("experiment_id", sorted(EXPERIMENTS))
def test_every_experiment_states_a_version_from_one(experiment_id: str) -> None:
    version = EXPERIMENTS[experiment_id].version
    assert isinstance(version, int) and version >= 1


def test_listing_an_experiment_needs_its_version() -> None:
    with pytest.raises(TypeError, match="version"):
        Experiment.listed("experiments.e1", lambda s: None, needs_cassettes=False)  # type: ignore[call-arg, arg-type, return-value]


def test_the_version_follows_the_experiment_id_and_changes_nothing_else() -> None:
    data = {"experiment": "E9", "source": "scripted", "rounds": [1, 2]}
    assert list(versioned(data, 3).items()) == [
        ("experiment", "E9"),
        ("version", 3),
        ("source", "scripted"),
        ("rounds", [1, 2]),
    ]
    assert list(versioned({"ledgers": []}, 2)) == ["version", "ledgers"]
    assert data == {"experiment": "E9", "source": "scripted", "rounds": [1, 2]}


def test_a_claims_table_from_before_versions_reads_with_the_column_empty(tmp_path: Path) -> None:
    old = [c for c in CLAIM_COLUMNS if c != "version"]
    path = tmp_path / "claims.csv"
    path.write_text(",".join(old) + "\n" + ",".join(["E1", "E1-X"] + [""] * (len(old) - 2)) + "\n")
    table = read_claims(path)
    assert list(table.columns) == CLAIM_COLUMNS
    assert table.loc[0, "version"] == "" and table.loc[0, "claim_id"] == "E1-X"
