"""The ``ctxlab`` command line: ``run`` (replay, offline), ``record`` (live), ``compact`` (a saved
session, by hand), ``serve-local``."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from experiments.base import RunSettings
from harness.errors import CtxlabError, MissingAPIKeyError
from harness.model import ChatModel

if TYPE_CHECKING:
    from experiments.runner import RunSummary

__all__ = ["main"]

PROJECT_ROOT = Path(__file__).resolve().parent.parent
PROVIDERS = ("deepseek", "local", "openai-compatible")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxlab",
        description="Reproduce the context-management experiments and write the reports.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show harness log lines")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="replay experiments offline and write reports/")
    run.add_argument("experiments", nargs="*", help="experiment ids (default: all)")
    run.add_argument("--out", type=Path, default=PROJECT_ROOT / "reports", help="output folder")
    _cassette_option(run)
    _check_options(run)
    record = commands.add_parser("record", help="run experiments live and write their cassettes")
    record.add_argument("experiments", nargs="+", help="experiment ids")
    record.add_argument("--provider", choices=PROVIDERS, required=True)
    record.add_argument("--model", help="model name (default: the provider's)")
    record.add_argument("--base-url", help="server base URL (local: start none, use this one)")
    record.add_argument("--api-key-env", help="environment variable holding the key")
    record.add_argument("--force", action="store_true", help="overwrite recorded cassettes")
    record.add_argument(
        "--out",
        type=Path,
        help="reports folder (default: reports/, or a temporary folder with --cassettes)",
    )
    _cassette_option(record)
    compact = commands.add_parser(
        "compact", help="compact a saved session by hand (snapshot, audit, undo)"
    )
    compact.add_argument("--workspace", type=Path, required=True, help="the workspace root")
    compact.add_argument("--user", default="default", help="the user id (folder)")
    compact.add_argument("--session", required=True, help="the session id")
    compact.add_argument("--engine", choices=("agentscope", "dsh"), default="agentscope")
    compact.add_argument("--keep", type=int, default=2, help="messages kept (agentscope)")
    compact.add_argument("--instructions", default="", help="extra instructions for the summary")
    compact.add_argument("--undo", action="store_true", help="restore the latest snapshot")
    compact.add_argument("--provider", choices=PROVIDERS, default="deepseek")
    compact.add_argument("--model", help="model name (default: the provider's)")
    compact.add_argument("--base-url", help="server base URL")
    compact.add_argument("--api-key-env", help="environment variable holding the key")
    serve = commands.add_parser("serve-local", help="run the local model server until Ctrl-C")
    serve.add_argument("--port", type=int, default=8011)
    serve.add_argument(
        "--server", choices=("llama-cpp-python", "llama-server"), default="llama-cpp-python"
    )
    return parser


def _check_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 and print the per-claim diff when claims changed against the baseline",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        default=PROJECT_ROOT / "reports" / "claims.csv",
        help="the claims table --check compares with (default: the committed reports/)",
    )


def _read_baseline(args: argparse.Namespace) -> list[dict[str, str]]:
    from experiments.baseline import read_baseline

    return read_baseline(args.baseline)  # read before the run rewrites it


def _check(args: argparse.Namespace, baseline: list[dict[str, str]], summary: RunSummary) -> int:
    from experiments.baseline import baseline_changes, claim_row, diff_lines

    fresh = [claim_row(claim) for result in summary.results for claim in result.claims]
    ran = [result.experiment for result in summary.results]
    changes = baseline_changes(baseline, fresh, ran)
    print("\n".join(diff_lines(changes, args.baseline)))
    return 1 if changes else 0


def _cassette_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cassettes", type=Path, default=PROJECT_ROOT / "cassettes", help="cassette folder"
    )


def _run(args: argparse.Namespace) -> int:
    from experiments.runner import run_experiments

    baseline = _read_baseline(args) if args.check else None
    settings = RunSettings(cassette_root=args.cassettes)
    summary = run_experiments(args.experiments, args.out, settings)
    print(summary.line())
    return _check(args, baseline, summary) if baseline is not None else 0


def _record(args: argparse.Namespace) -> int:
    from experiments.recording import Recording, record
    from experiments.runner import run_experiments

    source = Recording(args.provider, args.model, args.base_url, args.api_key_env)
    recorded = record(args.experiments, source, args.cassettes, force=args.force)
    if recorded:
        out = _record_reports(args)
        print(f"replaying what was recorded (reports → {out}):")
        summary = run_experiments(recorded, out, RunSettings(cassette_root=args.cassettes))
        print(summary.line())
    return 0


def _record_reports(args: argparse.Namespace) -> Path:
    """Where ``record`` writes the reports: ``--out``; else reports/ when the cassettes are
    the project's; else a temporary copy of reports/ (scratch cassettes never touch it)."""
    import shutil
    import tempfile

    reports = PROJECT_ROOT / "reports"
    if args.out is not None:
        return Path(args.out)
    if Path(args.cassettes).resolve() == (PROJECT_ROOT / "cassettes").resolve():
        return reports
    scratch = Path(tempfile.mkdtemp(prefix="ctxlab-reports-"))
    if reports.is_dir():
        shutil.copytree(reports, scratch, dirs_exist_ok=True)
    return scratch


def _serve_local(args: argparse.Namespace) -> int:
    from harness.recording import local_server

    with local_server(port=args.port, server=args.server) as server:
        print(f"serving {server.model} at {server.base_url} (Ctrl-C stops it)")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("stopping")
    return 0


def _compact(args: argparse.Namespace) -> int:
    from harness.manual import ManualCompaction

    base = args.workspace / args.user
    if args.undo:
        record = ManualCompaction(base, args.session, _no_model()).undo()
        print(f"restored {args.session} from {record.snapshot}")
        return 0
    with _live_model(args) as model:
        record = ManualCompaction(base, args.session, model, args.keep).compact(
            args.engine, args.instructions
        )
    if record.outcome == "nothing to compact":
        print("No compactable history yet.")
    else:
        print(
            f"Compacted {args.session} with {record.engine}: {record.messages_before} → "
            f"{record.messages_after} messages, summary {record.summary_chars} chars "
            f"(undo: ctxlab compact --undo …; snapshot {record.snapshot})"
        )
    return 0


def _no_model() -> ChatModel:
    from harness.testing import ScriptedModel

    return ScriptedModel([], model_name="none")  # undo never calls a model


@contextlib.contextmanager
def _live_model(args: argparse.Namespace) -> Iterator[ChatModel]:
    from harness.client import ChatClient
    from harness.recording import local_server, provider_spec

    if args.provider == "local" and not args.base_url:
        with local_server() as server:
            spec = provider_spec(
                "local", model=args.model or server.model, base_url=server.base_url
            )
            with ChatClient(
                spec.model, base_url=spec.base_url, api_key="no-key", params=spec.params
            ) as client:
                yield client
        return
    spec = provider_spec(
        args.provider, model=args.model, base_url=args.base_url, api_key_env=args.api_key_env
    )
    key = os.environ.get(spec.api_key_env, "") if spec.api_key_env else "no-key"
    if not key:
        raise MissingAPIKeyError(spec.api_key_env or "")
    with ChatClient(spec.model, base_url=spec.base_url, api_key=key, params=spec.params) as client:
        yield client


COMMANDS = {
    "run": _run,
    "record": _record,
    "compact": _compact,
    "serve-local": _serve_local,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ctxlab`` console script; returns the exit status."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.ERROR,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return COMMANDS[args.command](args)
    except CtxlabError as exc:
        print(f"ctxlab: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"ctxlab: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ctxlab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
