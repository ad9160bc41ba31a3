"""Probes of ``ctxlab run --out``: nothing outside ``--out`` is ever touched.

A commit journal planted (or cut short) beside ``--out`` in a shared parent, sibling folders
that look like scratch folders, and an ``--out`` that belongs to another program. Each runs the
real command in a child process.
"""

from __future__ import annotations

import json
from pathlib import Path

from probes.fakes import ROOT, ctxlab
from probes.registry import check, probe

PLANTED = {
    "new-dotdot": {"new": "../victim", "old": "x"},
    "old-dotdot": {"new": "x", "old": "../victim"},
    "absolute": {"new": "<the victim, absolute>", "old": "x"},
}


def _run(out: Path, *more: str) -> tuple[int, str]:
    """``ctxlab run E1 --out OUT``: its exit status and stderr."""
    run = ctxlab("run", "E1", "--out", str(out), "--project", str(ROOT), *more)
    _, err = run.communicate(timeout=600)
    return run.returncode, err


def _victim(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "precious.txt").write_text("mine", encoding="utf-8")
    return folder


def _intact(folder: Path) -> bool:
    return (folder / "precious.txt").is_file()


@probe("planted-commit-journal", "data-loss", 24, PLANTED)
def planted_journal(folder: Path, variant: str) -> None:
    shared = folder / "shared"  # a folder anyone may write, /tmp say
    victims = [_victim(folder / "victim"), _victim(shared / "victim")]
    entry = dict(PLANTED[variant])
    if variant == "absolute":
        entry["new"] = str(victims[0])
    (shared / ".out.commit").write_text(json.dumps(entry), encoding="utf-8")
    for out_exists in (False, True):  # a missing --out moved the old folder in
        status, err = _run(shared / "out")
        check(status == 0 and "Traceback" not in err, f"the run failed: {err[-300:]}")
        for victim in victims:
            check(_intact(victim), f"{victim} was deleted or moved (--out existed: {out_exists})")
        (shared / ".out.commit").write_text(json.dumps(entry), encoding="utf-8")
    check(not _intact(shared / "out"), "a victim was moved into --out")


@probe("cut-commit-journal", "robustness", 24)
def cut_journal(folder: Path) -> None:
    (folder / ".out.commit").write_text('{"new": ".out.stag', encoding="utf-8")
    for _ in range(2):  # every later run crashed with a JSONDecodeError traceback
        status, err = _run(folder / "out")
        check(status == 0 and "Traceback" not in err, f"the run failed: {err[-300:]}")


@probe("sibling-folders-of-out", "data-loss", 24)
def sibling_folders(folder: Path) -> None:
    kept = [_victim(folder / ".notes.personal"), _victim(folder / ".notes.backup_1")]
    status, err = _run(folder / "notes")
    check(status == 0, f"the run failed: {err[-300:]}")
    for victim in kept:
        check(_intact(victim), f"{victim.name} beside --out was deleted")


@probe("foreign-out-folder", "data-loss", 24)
def foreign_out(folder: Path) -> None:
    logs = _victim(folder / "logs")
    status, err = _run(logs)
    check(status == 2, f"a folder holding another program's files was replaced (rc {status})")
    check(len(err.strip().splitlines()) == 1 and "--force" in err, f"not one sentence: {err}")
    check(_intact(logs), "the folder's files were touched")
