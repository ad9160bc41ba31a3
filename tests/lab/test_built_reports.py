"""A report folder built once for its inputs and code (tests/support/built_reports.py): the
processes sharing a folder (xdist workers, later sessions) build it once and copy it; a changed
input file, cassette or code misses the stored build; inside ``fresh()`` every copy is built."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import support.built_reports as built_reports
from support.built_reports import KEEP, BuiltReports, build_key


class Builds:
    """A stand-in for ``build_reports``: writes a page naming the inputs it saw."""

    def __init__(self) -> None:
        self.folders: list[Path] = []

    def __call__(self, folder: Path) -> None:
        self.folders.append(folder)
        seen = sorted(f"{p.name}={p.read_text()}" for p in folder.iterdir() if p.is_file())
        (folder / "index.html").write_text(" ".join(seen), encoding="utf-8")


def _inputs(tmp_path: Path, claims: str = "E1,match\n") -> Path:
    inputs = tmp_path / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    (inputs / "claims.csv").write_text(claims, encoding="utf-8")
    return inputs


def _sharing(builds: Builds, shared: Path) -> BuiltReports:
    memo = BuiltReports(builds, cassettes=shared.parent / "cassettes")
    memo.install(shared)
    return memo


def test_two_processes_sharing_a_folder_build_once_and_copy_the_same_report(
    tmp_path: Path,
) -> None:
    builds = Builds()
    first, second = _sharing(builds, tmp_path / "shared"), _sharing(builds, tmp_path / "shared")
    inputs = _inputs(tmp_path)
    one = first.copy(inputs, tmp_path / "one" / "reports")
    two = second.copy(inputs, tmp_path / "two" / "reports")
    assert (first.built, second.built, len(builds.folders)) == (1, 0, 1)
    assert (
        (one / "index.html").read_text()
        == (two / "index.html").read_text()
        == ("claims.csv=E1,match\n")
    )
    assert (two / "claims.csv").read_text() == "E1,match\n"  # the inputs are copied too
    (one / "index.html").write_text("changed by a test")  # a copy: the stored build is intact
    assert (first.copy(inputs, tmp_path / "three") / "index.html").read_text() != (
        "changed by a test"
    )


def test_a_changed_input_misses_the_stored_build(tmp_path: Path) -> None:
    builds = Builds()
    memo = _sharing(builds, tmp_path / "shared")
    memo.copy(_inputs(tmp_path), tmp_path / "before")
    after = memo.copy(_inputs(tmp_path, "E1,differs\n"), tmp_path / "after")
    assert len(builds.folders) == 2
    assert (after / "index.html").read_text() == "claims.csv=E1,differs\n"


def test_the_key_follows_the_inputs_the_cassettes_and_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs, cassettes = _inputs(tmp_path), tmp_path / "cassettes"
    (cassettes / "E3").mkdir(parents=True)
    (cassettes / "E3" / "rounds.json").write_text("{}", encoding="utf-8")
    key = build_key(inputs, cassettes)
    assert build_key(inputs, cassettes) == key
    (cassettes / "E3" / "rounds.json").write_text("{ }", encoding="utf-8")
    assert build_key(inputs, cassettes) != key
    key = build_key(inputs, cassettes)
    (inputs / "E1.json").write_text("{}", encoding="utf-8")
    assert build_key(inputs, cassettes) != key
    key = build_key(inputs, cassettes)
    monkeypatch.setattr(built_reports, "code_digest", lambda: "other code")
    assert build_key(inputs, cassettes) != key


def test_fresh_or_without_a_folder_every_copy_is_built(tmp_path: Path) -> None:
    builds = Builds()
    alone, shared = BuiltReports(builds), _sharing(builds, tmp_path / "shared")
    inputs = _inputs(tmp_path)
    alone.copy(inputs, tmp_path / "a")
    alone.copy(inputs, tmp_path / "b")
    shared.copy(inputs, tmp_path / "c")
    with shared.fresh():
        shared.copy(inputs, tmp_path / "d")
    assert (alone.built, shared.built) == (2, 2)
    assert [f.name for f in builds.folders[:2]] == ["a", "b"]


def test_old_builds_are_pruned_and_the_one_used_last_is_kept(tmp_path: Path) -> None:
    builds, shared = Builds(), tmp_path / "shared"
    memo = _sharing(builds, shared)
    first = _inputs(tmp_path / "first", "X-BENCH,match\n")
    memo.copy(first, tmp_path / "copy-first")
    for n in range(KEEP + 2):
        os.utime(shared / f"built-{build_key(first, memo.cassettes)[:32]}")  # used again
        memo.copy(_inputs(tmp_path / f"{n}", f"E{n},match\n"), tmp_path / f"copy-{n}")
    stored = sorted(p.name for p in shared.glob("built-*") if p.is_dir())
    assert len(stored) == KEEP and f"built-{build_key(first, memo.cassettes)[:32]}" in stored
    assert not list(shared.glob("*.tmp"))
    assert len(builds.folders) == KEEP + 3
