"""Which experiments a mutation can reach (:mod:`lab.mutations.reach`): what a patch replaces,
what a run executed, and the matrix keeping the unmutated claims of the experiments a
mutation cannot reach."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import pytest
from support.paths import ROOT
from support.reach_probe import Base, Child, called, never

from lab.mutations.inputs import recorded_digest, recorded_reach, write_inputs
from lab.mutations.matrix import _claims_outside
from lab.mutations.reach import code_key, patched_code, reaches, traced

MODULE = "ctxlab_reach_probe"


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType(MODULE)
    module.LIMIT = 5  # type: ignore[attr-defined]
    module.TABLE = {"a": 1}  # type: ignore[attr-defined]
    module.run = called  # type: ignore[attr-defined]
    module.Base, module.Child = Base, Child  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, MODULE, module)
    return module


def _key(function: object) -> str:
    return code_key(function.__code__)  # type: ignore[attr-defined]


def _fresh(case: str) -> dict[str, object]:
    """:mod:`support.reach_probe`'s answer for ``case``, from a process of its own."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}
    out = subprocess.run(
        [sys.executable, "-m", "support.reach_probe", case],
        capture_output=True, text=True, check=True, env=env, cwd=ROOT,
    )  # fmt: skip
    answer: dict[str, object] = json.loads(out.stdout)
    return answer


@pytest.mark.parametrize("case", ["function", "inherited", "property", "by-hand"])
def test_a_replaced_function_method_property_names_its_code(case: str) -> None:
    """A replaced function, a method shadowed on a subclass (the inherited code), a property
    (its getter), and a replacement made without mock: each names exactly the code it
    replaced."""
    answer = _fresh(case)
    assert answer["found"] == answer["expected"], case


def test_a_replaced_constant_or_a_dict_changed_in_place_reaches_everything(
    probe: types.ModuleType,
) -> None:
    found = patched_code(
        {
            "CONSTANT": lambda: mock.patch.object(probe, "LIMIT", 6),
            "DICT": lambda: mock.patch.dict(probe.TABLE, {"a": 2}),
            "BOTH": lambda: _both(probe),
        }
    )
    assert found == {"CONSTANT": None, "DICT": None, "BOTH": None}


def _both(probe: types.ModuleType) -> object:
    stack = mock.patch.multiple(probe, run=never, LIMIT=6)
    return stack


def test_a_patch_that_replaces_nothing_visible_reaches_everything() -> None:
    @contextmanager
    def invisible() -> Iterator[None]:
        yield

    assert patched_code({"M": invisible}) == {"M": None}


def test_the_trace_holds_what_ran_on_any_thread_and_nothing_else() -> None:
    with traced() as ran:
        called()
        worker = threading.Thread(target=Base().step)
        worker.start()
        worker.join()
    assert {_key(called), _key(Base.step)} <= ran
    assert _key(never) not in ran


def test_a_mutation_reaches_the_experiments_that_ran_its_code() -> None:
    ran = {"E1": ["a", "b"], "E2": ["c"], "E3": ["a"]}
    assert reaches({"a"}, ran, ["E1", "E2", "E3"]) == ["E1", "E3"]
    assert reaches({"z"}, ran, ["E1", "E2", "E3"]) == []
    assert reaches(None, ran, ["E1", "E2", "E3"]) == ["E1", "E2", "E3"]


def test_an_unreached_experiment_keeps_its_unmutated_claims_and_aborts() -> None:
    baseline = {
        "A@s": ["match", "1", "article", "E1"],
        "B@s": ["match", "2", "article", "E2"],
        "!E3": ["ValueError: x"],
    }
    assert _claims_outside(baseline, ["E1"]) == {"B@s": baseline["B@s"], "!E3": ["ValueError: x"]}
    assert _claims_outside(baseline, ["E1", "E2", "E3"]) == {}


def test_the_reach_is_recorded_only_with_a_digest(tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    write_inputs(folder, "abc", {"M2": ["E2"], "M1": ["E1", "X"]})
    assert recorded_digest(folder) == "abc"
    assert recorded_reach(folder) == {"M1": ["E1", "X"], "M2": ["E2"]}
    write_inputs(folder, None, {"M1": ["E1"]})
    assert recorded_reach(folder) is None
    (folder / "mutations.inputs.json").write_text('{"reach": {"M": "E1"}}', encoding="utf-8")
    assert recorded_reach(folder) is None


def test_no_committed_cell_lies_outside_the_recorded_reach() -> None:
    # a mutation that moved a claim of an experiment it was judged unable to reach would
    # mean the derivation is unsound
    reach = recorded_reach(ROOT / "reports")
    if reach is None:
        pytest.skip("reports/mutations.inputs.json records no reach")
    with (ROOT / "reports" / "mutations.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    outside = [
        (name, row["claim_id"])
        for row in rows
        for name, within in reach.items()
        if row.get(name) and row["experiment"] not in within
    ]
    assert outside == []


def test_the_matrix_runs_a_mutation_only_where_it_reaches_and_everywhere_when_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from experiments.mutations.catalogue import MUTATIONS
    from lab.mutations import matrix

    first, second = MUTATIONS[0], MUTATIONS[1]
    asked: dict[str, list[str]] = {}

    def fake(
        mutation: str, _cassettes: object, experiments: list[str], *_reads: object
    ) -> dict[str, list[str]]:
        asked[mutation] = list(experiments)
        status = "differs" if mutation else "match"
        return {f"{e}-A@s": [status, "1", "article", e] for e in experiments}

    monkeypatch.setattr(matrix, "_run_in_subprocess", fake)
    monkeypatch.setattr("lab.runner.select", lambda _ids: ["E1", "E2"])
    found = matrix.compute_matrix(
        ROOT / "cassettes", mutations=[first, second], reach={first.name: ["E2"]}
    )
    assert asked == {"": ["E1", "E2"], first.name: ["E2"], second.name: ["E1", "E2"]}
    assert found.cell(first.name, "E1-A@s") == "" and found.cell(first.name, "E2-A@s") == "flip"
    assert found.reach == {first.name: ["E2"], second.name: ["E1", "E2"]}
