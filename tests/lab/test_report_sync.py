"""Where the reports reach the disk: ``ctxlab run`` writes them plainly into its staging folder,
and the commit syncs every file in it (the evidence pages' subfolder too) before the swap; a
report built anywhere else is written atomically and synced file by file, as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lab import report, staging
from lab.staging import staged


def _synced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the files and folders fsynced from now on."""
    paths: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        paths.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return paths


FILES = {"index.html": "<p>ok</p>", "plot.png": b"\x89PNG", "evidence/E1-X.html": "<p>e</p>"}


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc/self/fd")
def test_a_staged_report_is_written_once_and_synced_by_the_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = _synced(monkeypatch)
    out = tmp_path / "reports"
    with staged(out) as stage:
        files = {stage.folder / name: data for name, data in FILES.items()}
        report._write(files, stage.folder / "evidence", durable=False)
        assert synced == []  # nothing synced file by file, no temporary file beside each
        assert sorted(p.name for p in stage.folder.rglob("*.tmp")) == []
    assert (out / "evidence" / "E1-X.html").read_text(encoding="utf-8") == "<p>e</p>"
    assert (out / "plot.png").read_bytes() == b"\x89PNG"
    assert {"index.html", "plot.png", "E1-X.html", "evidence"} <= {Path(p).name for p in synced}


def test_a_report_built_outside_a_staging_folder_is_synced_file_by_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = _synced(monkeypatch)
    files = {tmp_path / name: data for name, data in FILES.items()}
    report._write(files, tmp_path / "evidence")
    # each synced as its temporary file (.<name>.<random>.tmp), before the rename
    for name in ("index.html", "plot.png", "E1-X.html"):
        assert any(Path(p).name.startswith(f".{name}.") for p in synced), name


def test_the_commit_syncs_files_in_subfolders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "stage"
    (folder / "evidence").mkdir(parents=True)
    (folder / "evidence" / "page.html").write_text("x", encoding="utf-8")
    (folder / "claims.csv").write_text("y", encoding="utf-8")
    synced = _synced(monkeypatch)
    staging._sync_tree(folder)
    names = [Path(p).name for p in synced]
    assert "page.html" in names and "claims.csv" in names and "evidence" in names
