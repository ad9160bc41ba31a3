"""``python -m probes [-j N] [-k TEXT] [--list] [--keep]``: run every probe, each in its own
process (forked from this one) on a scratch folder of its own, and print the table of probes
tried and failing per class and per defect. Exit 1 when a probe fails (its reason is printed)."""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from probes import one
from probes.catalogue import load
from probes.registry import CLASSES, Probe

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_SECONDS = 600.0


@dataclass
class Outcome:
    probe: Probe
    failed: bool
    seconds: float
    reason: str


class _Forked:
    """One probe in a child forked from the runner, which imported every probe module once:
    a process of its own on a scratch folder of its own, as before, without paying Python's
    start-up and the imports again per probe (the probe's process is not what it tests). Its
    stderr goes to a file beside its folder."""

    def __init__(self, found: Probe, folder: Path) -> None:
        self.stderr = folder.with_name(folder.name + ".stderr")
        fd = os.open(self.stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: runs the probe and never returns
            code = 1
            try:
                os.dup2(fd, 2)
                os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
                sys.stderr = open(2, "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
                sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
                os.chdir(ROOT)
                code = one.run_probe(found, folder)
            finally:
                sys.stderr.flush()
                os._exit(code)
        os.close(fd)
        self.pid, self.pidfd = pid, os.pidfd_open(pid)
        self.returncode: int | None = None

    def communicate(self, timeout: float) -> tuple[str, str]:
        ready, _, _ = select.select([self.pidfd], [], [], timeout)
        if not ready:
            raise subprocess.TimeoutExpired(f"probe {self.pid}", timeout)
        _, status = os.waitpid(self.pid, 0)
        os.close(self.pidfd)
        self.returncode = os.waitstatus_to_exitcode(status)
        return "", self.stderr.read_text(encoding="utf-8", errors="replace")

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)


def _start(found: Probe, scratch: Path) -> tuple[_Forked, float, Path]:
    folder = scratch / found.name.replace("/", "_")
    folder.mkdir()
    return _Forked(found, folder), time.monotonic(), folder


def run(probes: list[Probe], jobs: int, keep: bool) -> list[Outcome]:
    scratch = Path(tempfile.mkdtemp(prefix="ctxlab-probes-"))
    outcomes: list[Outcome] = []
    waiting = list(probes)
    running: list[tuple[Probe, _Forked, float, Path]] = []
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                found = waiting.pop(0)
                running.append((found, *_start(found, scratch)))
            found, proc, started, folder = running.pop(0)
            try:
                _, stderr = proc.communicate(timeout=TIMEOUT_SECONDS)
                failed = proc.returncode != 0
                lines = stderr.strip().splitlines()
                reason = lines[-1] if failed and lines else ""
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate(TIMEOUT_SECONDS)
                failed, reason = True, f"FAILED: no answer in {TIMEOUT_SECONDS:g} s"
            outcome = Outcome(found, failed, time.monotonic() - started, reason)
            outcomes.append(outcome)
            mark = "FAIL" if failed else "  ok"
            print(
                f"{mark} {found.kind:<10} #{found.defect:<2} {found.name} "
                f"({outcome.seconds:.1f} s){'  ' + reason if failed else ''}",
                file=sys.stderr,
                flush=True,
            )
            if not keep:
                shutil.rmtree(folder, ignore_errors=True)
    finally:
        for _, proc, _, _ in running:
            proc.kill()
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)
    return outcomes


def table(outcomes: list[Outcome]) -> str:
    """The counts as a Markdown table: per class, then per defect."""
    tried = Counter(o.probe.kind for o in outcomes)
    failing = Counter(o.probe.kind for o in outcomes if o.failed)
    lines = ["| class | probes tried | failing |", "| --- | ---: | ---: |"]
    lines += [f"| {kind} | {tried[kind]} | {failing[kind]} |" for kind in CLASSES]
    lines.append(f"| **all** | **{len(outcomes)}** | **{sum(failing.values())}** |")
    by_defect = Counter(o.probe.defect for o in outcomes)
    failing_defect = Counter(o.probe.defect for o in outcomes if o.failed)
    lines += ["", "| defect | probes tried | failing |", "| ---: | ---: | ---: |"]
    lines += [f"| {d} | {by_defect[d]} | {failing_defect[d]} |" for d in sorted(by_defect)]
    defects = {o.probe.defect for o in outcomes if o.failed}
    lines += [
        "",
        f"defects showing: {len(defects)} ({', '.join(map(str, sorted(defects))) or '-'})",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m probes", description=__doc__)
    parser.add_argument("-j", "--jobs", type=int, default=1, help="probes run at once (1)")
    parser.add_argument("-k", dest="only", default="", help="only probes whose name holds this")
    parser.add_argument("--list", action="store_true", help="list the probes and exit")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folders")
    args = parser.parse_args(argv)
    # what each probe's process had when it was started as `python -m probes.one`, and what the
    # processes a probe starts inherit
    os.environ["PYTHONPATH"] = str(ROOT)
    os.environ["MPLBACKEND"] = "Agg"
    probes = [p for p in load().values() if args.only in p.name]
    if args.list:
        for found in probes:
            print(f"{found.kind:<10} #{found.defect:<2} {found.name}")
        print(f"{len(probes)} probes")
        return 0
    if not probes:
        print(f"no probe's name holds {args.only!r}", file=sys.stderr)
        return 2
    outcomes = run(probes, max(1, args.jobs), args.keep)
    print(table(outcomes))
    failed = [o for o in outcomes if o.failed]
    for outcome in failed:
        print(f"failing: {outcome.probe.name}: {outcome.reason}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
