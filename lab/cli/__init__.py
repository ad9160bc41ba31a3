"""The ``ctxlab`` command line: ``run`` (replay, offline), ``record`` (live), ``compact`` (a saved
session, by hand), ``cassettes`` (seal or check), ``serve-local``, and the subcommands the
suite's experiments add (:class:`lab.suite.Command`).

:func:`main` is handed the suite (the suite's entry point calls it); commands import what they
need when they run, so ``ctxlab --help`` imports no pandas."""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from harness import CtxlabError
from lab.cli.check import check, check_folder, read_baseline
from lab.cli.models import live_model as _live_model
from lab.cli.models import no_model as _no_model
from lab.cli.options import folders, timeouts
from lab.cli.session import saved_session, show_session
from lab.cli.subcommands import SUBCOMMANDS, suite_command
from lab.suite import Suite, current, use

if TYPE_CHECKING:
    import logging

__all__ = ["main", "sigterm_as_interrupt"]


def _parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser of every subcommand; a subcommand an experiment adds gets its options (its
    module imported) only when ``argv`` asks for it."""
    from lab.cli.help import HelpFormatter, VersionAction

    parser = argparse.ArgumentParser(
        prog="ctxlab",
        description="Reproduce the context-management experiments and write the reports.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action=VersionAction)
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show harness log lines (and, for `cassettes check`, every cassette)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add_subcommand in SUBCOMMANDS:
        add_subcommand(commands)
    asked = next((a for a in argv if not a.startswith("-")), None)
    for module, command in current().commands():
        suite_command(commands, command, module if command.name == asked else None)
    return parser


def _run(args: argparse.Namespace) -> int:
    from lab.experiment import RunSettings
    from lab.runner import run_experiments

    if args.cassette_match == "order":
        from lab.cli.mutations import run_in_order

        return run_in_order(args)

    explicit_out = args.out
    args.out, args.cassettes = folders(args)
    baseline = read_baseline(args) if args.check else None
    out = check_folder(args, explicit_out) if args.check else args.out
    settings = RunSettings(cassette_root=args.cassettes)
    summary = run_experiments(args.experiments, out, settings, _jobs(args), force=args.force)
    if summary.results:
        print(f"reports written to {out}")
    print(summary.line())
    for line in summary.failure_lines():
        print(f"ctxlab: {line}", file=sys.stderr)
    if summary.failures:
        return 2
    if baseline is None:
        return 0
    status = check(args, baseline, summary)
    if status:
        print(f"{args.baseline.parent} was not written; accept the change with `ctxlab run`.")
    return status


def _check_conditions(args: argparse.Namespace) -> None:
    """``record --conditions``: the condition names of an experiment that has conditions, and
    only when such an experiment records."""
    if not args.conditions:
        return
    from harness import ConfigError
    from lab.registry import EXPERIMENTS

    chosen = [EXPERIMENTS[i] for i in args.experiments if i in EXPERIMENTS]
    having = [e for e in chosen if e.conditions]
    if not having:
        named = " or ".join(i for i, e in EXPERIMENTS.items() if e.conditions)
        raise ConfigError(f"--conditions chooses {named}'s conditions: name {named} to record.")
    known = [name for e in having for name in e.conditions]
    unknown = [name for name in args.conditions if name not in known]
    if unknown:
        raise ConfigError(f"--conditions takes {', '.join(known)}; not {', '.join(unknown)}.")


def _jobs(args: argparse.Namespace) -> int:
    from lab.parallel import default_jobs

    jobs: int | None = getattr(args, "jobs", None)
    return jobs if jobs is not None else default_jobs()


def _mutations(args: argparse.Namespace) -> int:
    from lab.cli.mutations import mutations

    return mutations(args)


def _record(args: argparse.Namespace) -> int:
    import time

    from lab.recording import Recording, record

    out, args.cassettes = folders(args)
    _check_conditions(args)
    sigterm_as_interrupt()  # a terminated recording stops the local server it started
    source = Recording(
        args.provider,
        args.model,
        args.base_url,
        args.api_key_env,
        timeouts=timeouts(args),
        threads=args.threads,
        variant=args.variant or "",
        max_tokens=args.max_tokens,
        slice=args.slice,
        concurrency=args.concurrency,
        conditions=args.conditions,
        shard=args.shard,
    )
    started = time.time()
    recorded = record(args.experiments, source, args.cassettes, force=args.force)
    if recorded and args.no_replay:
        print(f"not replayed (--no-replay): `ctxlab run {' '.join(recorded)} --cassettes "
              f"{args.cassettes}` replays what was recorded")  # fmt: skip
    elif recorded:
        _replay_recorded(args, _record_reports(args, out), recorded, started)
    return 0


def _replay_recorded(
    args: argparse.Namespace, out: Path, recorded: list[str], started: float
) -> None:
    """Replay what ``record`` recorded, and the experiments that replay its cassettes, into
    ``out``; then say which of the recorded sets no replay read."""
    from lab.experiment import RunSettings
    from lab.recording import dependents, unreplayed_sets
    from lab.runner import run_experiments

    stale = dependents(recorded, Path(args.cassettes))
    also = f", and {', '.join(stale)}, which replay its cassettes" if stale else ""
    print(f"replaying what was recorded{also} (reports → {out}):")
    summary = run_experiments(
        [*recorded, *stale], out, RunSettings(cassette_root=args.cassettes), _jobs(args)
    )
    print(summary.line())
    for line in summary.failure_lines():
        print(f"ctxlab: {line}", file=sys.stderr)
    for line in unreplayed_sets(recorded, Path(args.cassettes), started):
        print(line)


def _record_merge(args: argparse.Namespace) -> int:
    from lab.cli.record_merge import merge

    return merge(args)


def _record_reports(args: argparse.Namespace, reports: Path) -> Path:
    """Where ``record`` writes the reports: ``--out``; else the project's ``reports/`` when the
    cassettes are the project's; else a temporary copy of it (scratch cassettes never touch
    the committed reports)."""
    import shutil
    import tempfile

    if args.out is not None:
        return Path(args.out)
    if Path(args.cassettes).resolve() == (reports.parent / "cassettes").resolve():
        return reports
    from lab.staging import mark

    scratch = Path(tempfile.mkdtemp(prefix="ctxlab-reports-"))
    if reports.is_dir():
        shutil.copytree(reports, scratch, dirs_exist_ok=True)
    mark(scratch)  # a reports folder of ours, which the replay may replace
    return scratch


def _serve_local(args: argparse.Namespace) -> int:
    from lab.recorder import local_server
    from lab.recorder.local.modelfile import local_model

    sigterm_as_interrupt()
    with local_server(local_model(args.model), port=args.port, server=args.server) as server:
        print(f"serving {server.model} at {server.base_url} (Ctrl-C stops it)")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("stopping")
    return 0


def _compact(args: argparse.Namespace) -> int:
    from harness.compaction.manual import ManualCompaction

    base, session, name = saved_session(args)  # before asking for any key
    if args.undo:
        record = ManualCompaction(base, session, _no_model(), events_name=name).undo()
        print(f"undid the last compaction of {session} ({record.snapshot})")
        return 0
    sigterm_as_interrupt()  # a terminated compact is audited as cancelled and cleaned up
    with _live_model(args) as model:
        record = ManualCompaction(base, session, model, args.keep, events_name=name).compact(
            args.engine, args.instructions
        )
    if record.outcome == "nothing to compact":
        print("No compactable history yet.")
    else:
        print(
            f"Compacted {session} with {record.engine}: {record.messages_before} → "
            f"{record.messages_after} messages, summary {record.summary_chars} chars "
            f"(undo: ctxlab compact --undo …; snapshot {record.snapshot})"
        )
    return 0


def sigterm_as_interrupt() -> None:
    """SIGTERM raises KeyboardInterrupt: a terminated command cleans up as on Ctrl-C."""
    import signal

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)


def _cassettes(args: argparse.Namespace) -> int:
    from lab.cli.options import cassettes

    return cassettes(args, folders(args)[1])


COMMANDS = {
    "run": _run,
    "mutations": _mutations,
    "record": _record,
    "record merge": _record_merge,
    "compact": _compact,
    "show": show_session,
    "cassettes": _cassettes,
    "serve-local": _serve_local,
}


def _arguments(argv: list[str]) -> argparse.Namespace:
    """The parsed command line; ``record merge`` has a parser of its own (``record`` takes
    experiment ids where ``merge`` would be one)."""
    from lab.cli.record_merge import MERGE, merge_parser

    if tuple(argv[:2]) != MERGE:
        return _parser(argv).parse_args(argv)
    args = merge_parser().parse_args(argv[2:])
    args.command = "record merge"
    return args


def _suite_command(args: argparse.Namespace) -> int:
    """A subcommand an experiment adds: its module's ``run``."""
    module = dict((c.name, m) for m, c in current().commands())[args.command]
    status: int = import_module(module).run(args)
    return status


def main(argv: Sequence[str] | None = None, suite: Suite | None = None) -> int:
    """The ``ctxlab`` command over ``suite`` (default: the suite lab was handed already); returns
    the exit status. The suite's entry point calls it (pyproject.toml's ``[project.scripts]``)."""
    if suite is not None:
        use(suite)
    args = _arguments(list(sys.argv[1:] if argv is None else argv))
    import logging  # after parsing: --help and --version never need it

    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.ERROR,
        format="%(levelname)s %(name)s: %(message)s",
    )
    live = LIVE_COMMANDS | {c.name for _, c in current().commands() if c.live}
    if args.command in live:  # minutes of live calls: say each wait for a retry
        logging.getLogger("harness.client").setLevel(logging.WARNING)
    for handler in logging.getLogger().handlers:
        handler.addFilter(_no_url_password)
    try:
        return COMMANDS.get(args.command, _suite_command)(args)
    except CtxlabError as exc:
        print(f"ctxlab: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"ctxlab: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ctxlab: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as exc:
        if exc.name not in SUITE_MODULES:
            raise
        print(
            f"ctxlab: {exc.name} is not installed; the ctxlab command needs the suite extra: "
            "from your ctxlab clone, pip install -c constraints.txt -e '.[suite]'.",
            file=sys.stderr,
        )
        return 2


LIVE_COMMANDS = frozenset({"record"})
"""Commands that talk to a live model (and an experiment's subcommands marked ``live``): the
client's retry waits are printed (``WARNING``)."""
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@")


def _no_url_password(record: logging.LogRecord) -> bool:
    """Print a log line with no user or password in the URLs it names (httpx's request lines
    name the URL as given: ``--base-url https://user:KEY@proxy/v1`` would show the key)."""
    text = record.getMessage()
    if "@" in text:
        record.msg, record.args = _URL_USERINFO.sub(r"\1", text), None
    return True


SUITE_MODULES = frozenset({"pandas", "matplotlib", "numpy", "vcr", "yaml", "PIL"})
"""The modules of the ``suite`` extra (pyproject.toml): the library does not need them."""
