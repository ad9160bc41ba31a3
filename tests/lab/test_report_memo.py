"""The test processes' report-build memo (tests/support/report_memo.py) serves a build only for
inputs it built before (folder, cassettes, jobs), writing the same files through the report's
writer (a stale evidence page removed), builds again inside ``fresh()`` and in any other
process, and keeps only what succeeded."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.report_memo import KEEP, ReportMemo

from lab.report.evidence import FOLDER


class Builds:
    """A stand-in for ``build_reports``: writes ``index.html`` (the folder's ``claims.csv``
    and the number of the build) and one evidence page; counts its calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.fail = False

    def __call__(
        self, out_dir: Path, jobs: int = 1, cassettes: Path | None = None, *, durable: bool = True
    ) -> list[Path]:
        self.calls += 1
        if self.fail:
            raise RuntimeError("the build failed")
        index, page = out_dir / "index.html", out_dir / FOLDER / "E1-A.html"
        page.parent.mkdir(exist_ok=True)
        index.write_text(f"{(out_dir / 'claims.csv').read_text()} build {self.calls}")
        page.write_text("evidence")
        return [index, page]


def _folder(root: Path, name: str, claims: str = "E1,match\n") -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "claims.csv").write_text(claims)
    return folder


def _cassettes(root: Path) -> Path:
    (root / "cassettes" / "E1").mkdir(parents=True)
    (root / "cassettes" / "E1" / "a.json").write_text("{}")
    return root / "cassettes"


def test_the_same_inputs_are_built_once_and_written_again(tmp_path: Path) -> None:
    builds, memo, cassettes = Builds(), ReportMemo(), _cassettes(tmp_path)
    build = memo.wrap(builds)
    folders = [_folder(tmp_path, "a"), _folder(tmp_path, "b")]
    for folder in folders:  # the same inputs, a page of a claim no longer in claims.csv too
        (folder / FOLDER).mkdir()
        (folder / FOLDER / "GONE.html").write_text("a stale page")
    first = build(folders[0], 1, cassettes)
    again = folders[1]
    written = build(again, 1, cassettes)
    assert builds.calls == 1 and memo.built == 1
    assert [p.relative_to(again) for p in written] == [p.relative_to(folders[0]) for p in first]
    assert (again / "index.html").read_text() == "E1,match\n build 1"
    assert sorted(p.name for p in (again / FOLDER).iterdir()) == ["E1-A.html"]


def test_changed_inputs_jobs_or_cassettes_are_built_again(tmp_path: Path) -> None:
    builds, memo, cassettes = Builds(), ReportMemo(), _cassettes(tmp_path)
    build = memo.wrap(builds)
    build(_folder(tmp_path, "a"), 1, cassettes)
    build(_folder(tmp_path, "b", "E1,differs\n"), 1, cassettes)  # another input byte
    build(_folder(tmp_path, "c"), 2, cassettes)  # --jobs 2 is compared with --jobs 1
    (cassettes / "E1" / "a.json").write_text('{"x": 1}')
    build(_folder(tmp_path, "d"), 1, cassettes)  # the evidence pages read the cassettes
    assert builds.calls == 4
    assert (tmp_path / "b" / "index.html").read_text() == "E1,differs\n build 2"


def test_fresh_another_process_and_a_failed_build_are_built_again(tmp_path: Path) -> None:
    builds, memo, cassettes = Builds(), ReportMemo(), _cassettes(tmp_path)
    build = memo.wrap(builds)
    builds.fail = True
    with pytest.raises(RuntimeError):
        build(_folder(tmp_path, "a"), 1, cassettes)
    builds.fail = False
    build(_folder(tmp_path, "b"), 1, cassettes)
    with memo.fresh():
        build(_folder(tmp_path, "c"), 1, cassettes)
    memo.owner = -1  # a forked worker: not the process that installed the memo
    build(_folder(tmp_path, "d"), 1, cassettes)
    assert builds.calls == 4 and memo.built == 2


def test_only_the_last_builds_are_kept(tmp_path: Path) -> None:
    builds, memo, cassettes = Builds(), ReportMemo(), _cassettes(tmp_path)
    build = memo.wrap(builds)
    for n in range(KEEP + 1):
        build(_folder(tmp_path, f"f{n}", f"E1,{n}\n"), 1, cassettes)
    assert len(memo.builds) == KEEP
    build(_folder(tmp_path, "again", "E1,0\n"), 1, cassettes)  # the oldest was dropped
    assert builds.calls == KEEP + 2


def test_the_runner_builds_through_the_installed_memo() -> None:
    import lab.runner

    assert hasattr(lab.runner.build_reports, "__wrapped__")  # conftest's session fixture
