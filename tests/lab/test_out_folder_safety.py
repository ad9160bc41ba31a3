"""Nothing outside ``--out`` is ever touched by ``ctxlab run``.

The commit journal beside ``--out`` is hostile input (anyone can write a shared parent such as
``/tmp``, and a crash can cut it): a planted or cut one is moved aside, never obeyed. Only
folders holding our marker are removed. An ``--out`` that is not a reports folder of ours is
refused unless forced. A full disk while the reports folder is copied is one sentence.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.errors import ConfigError
from lab.cli import main
from lab.staging import MARKER, mark, staged


def _reports(folder: Path) -> Path:
    folder.mkdir(parents=True)
    mark(folder)
    (folder / "claims.csv").write_text("old claims\n")
    return folder


def _victim(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "precious.txt").write_text("mine")
    return folder


def _run_once(out: Path) -> None:
    with staged(out) as stage:
        (stage.folder / "claims.csv").write_text("new claims\n")


@pytest.mark.parametrize(
    "entry",
    [
        {"new": "../victim", "old": "x"},
        {"new": "x", "old": "../victim"},
        {"new": ".out.staging-1-0123abcd/../../victim", "old": ".out.old-1-0123abcd"},
        {"new": "victim", "old": "victim"},
        {"new": str(Path("/", "tmp", "victim")), "old": ".out.old-1-0123abcd"},
        {"new": ".out.staging-1-0123abcd", "old": ".other.old-1-0123abcd"},
        {"new": [".out.staging-1-0123abcd"], "old": ".out.old-1-0123abcd"},
    ],
    ids=["new-dotdot", "old-dotdot", "nested-dotdot", "plain", "absolute", "other-out", "list"],
)
@pytest.mark.parametrize("out_exists", [True, False])
def test_a_planted_commit_journal_is_moved_aside_never_obeyed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: dict[str, object], out_exists: bool
) -> None:
    base = tmp_path / "shared"
    out = _reports(base / "out") if out_exists else base / "out"
    base.mkdir(exist_ok=True)
    victims = [_victim(tmp_path / "victim"), _victim(base / "victim")]
    (base / ".out.commit").write_text(json.dumps(entry))
    _run_once(out)
    for victim in victims:
        assert (victim / "precious.txt").read_text() == "mine", victim
    assert (out / "claims.csv").read_text() == "new claims\n"
    assert not (out / "precious.txt").exists()
    assert (base / ".out.commit.corrupt").is_file()
    assert not (base / ".out.commit").exists()
    said = capsys.readouterr().err
    assert "ignored the commit journal" in said and "nothing it names was touched" in said


@pytest.mark.parametrize(
    "text",
    ['{"new": ".out.staging-1-0', "", "\x00\xff", "[" * 100_000],
    ids=["cut", "empty", "bytes", "deep"],
)
def test_a_cut_or_garbled_journal_does_not_brick_later_runs(tmp_path: Path, text: str) -> None:
    out = _reports(tmp_path / "out")
    (tmp_path / ".out.commit").write_text(text, encoding="latin-1")
    _run_once(out)  # no JSONDecodeError, no RecursionError
    _run_once(out)  # nor on the run after
    assert (out / "claims.csv").read_text() == "new claims\n"
    assert (tmp_path / ".out.commit.corrupt").read_text(encoding="latin-1") == text


def test_a_journal_that_is_a_symbolic_link_is_not_followed(tmp_path: Path) -> None:
    out = _reports(tmp_path / "out")
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"keep": 1}')
    (tmp_path / ".out.commit").symlink_to(elsewhere)
    _run_once(out)
    assert elsewhere.read_text() == '{"keep": 1}'
    assert (tmp_path / ".out.commit.corrupt").is_symlink()


def test_a_true_journal_of_ours_still_puts_the_old_folder_back(tmp_path: Path) -> None:
    """The recovery itself still works: stopped between the two renames."""
    old = _reports(tmp_path / ".out.old-1-0123abcd")
    new = tmp_path / ".out.staging-1-0123abcd"
    new.mkdir()
    mark(new)
    (tmp_path / ".out.commit").write_text(json.dumps({"new": new.name, "old": old.name}))
    with staged(tmp_path / "out") as stage:
        stage.discard()
    assert (tmp_path / "out" / "claims.csv").read_text() == "old claims\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_sibling_folders_that_look_like_scratch_folders_are_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``.notes.personal`` and ``.notes.backup_1`` matched the old eight-character pattern; a
    folder named exactly like a dead run's scratch folder but without our marker is kept too."""
    out = _reports(tmp_path / "notes")
    kept = [
        _victim(tmp_path / ".notes.personal"),
        _victim(tmp_path / ".notes.backup_1"),
        _victim(tmp_path / ".notes.staging-999999999-0123abcd"),
        _victim(tmp_path / ".notes.old-999999999-0123abcd"),
    ]
    _run_once(out)
    for folder in kept:
        assert (folder / "precious.txt").read_text() == "mine", folder
    assert "holds no .ctxlab-reports" in capsys.readouterr().err


def test_a_dead_runs_marked_scratch_folder_is_removed_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _reports(tmp_path / "out")
    scratch = _reports(tmp_path / ".out.staging-999999999-0123abcd")
    _run_once(out)
    assert not scratch.exists()
    assert f"removed {scratch}" in capsys.readouterr().err


def test_a_foreign_folder_is_refused_unless_forced(tmp_path: Path) -> None:
    """A folder another program writes to (a log) is never swapped away by accident."""
    out = _victim(tmp_path / "logs")
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(ConfigError, match=r"not a reports folder of ctxlab .*--force"):
        _run_once(out)
    assert sorted(tmp_path.rglob("*")) == before  # no lock, no scratch folder
    with staged(out, force=True) as stage:
        (stage.folder / "claims.csv").write_text("new claims\n")
    assert (out / MARKER).is_file() and (out / "claims.csv").is_file()


def test_the_cli_refuses_a_foreign_out_in_one_sentence_and_force_replaces_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _victim(tmp_path / "mine")
    assert main(["run", "E1", "--out", str(out)]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "not a reports folder of ctxlab" in said[0]
    assert (out / "precious.txt").read_text() == "mine"
    assert main(["run", "E1", "--out", str(out), "--force"]) == 0
    assert (out / "E1.md").is_file() and (out / MARKER).is_file()


def test_an_empty_or_missing_out_is_ours_to_write(tmp_path: Path) -> None:
    for out in (tmp_path / "missing", tmp_path / "empty"):
        if out.name == "empty":
            out.mkdir()
        _run_once(out)
        assert (out / MARKER).is_file()


FULL_DISK_RUN = """
import sys
from pathlib import Path
from lab.staging import mark, staged
from harness.errors import StorageError

out = Path(sys.argv[1]) / "out"
out.mkdir()
mark(out)
for number in range(40):
    (out / f"E{number}.json").write_text("x" * 4000)  # 160 KB: a second copy does not fit
try:
    with staged(out) as stage:
        pass
except StorageError as exc:
    print(exc)
"""


def test_a_full_disk_while_copying_the_reports_is_one_sentence(tmp_path: Path) -> None:
    """On a real 256 KiB tmpfs (its own user and mount namespace): the copy of the reports
    folder fills it. It printed an 11 KB list of tuples naming a scratch folder."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare here: no user+mount namespace for a small tmpfs")
    mount = tmp_path / "mnt"
    mount.mkdir()
    script = f'mount -t tmpfs -o size=256k tmpfs {mount} && {sys.executable} -c "$RUN" {mount}'
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "RUN": FULL_DISK_RUN}
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, env=env
    )
    if done.returncode != 0 and "mount" in done.stderr:
        pytest.skip(f"no tmpfs in a user namespace here: {done.stderr.strip()[-200:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    message = done.stdout.strip()
    assert message.count("\n") == 0 and len(message) < 300, message
    assert "No space left on device" in message and "free some space" in message, message
    assert ".staging-" not in message  # names the reports folder's file, not a scratch folder
