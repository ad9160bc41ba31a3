"""The ``ctxlab`` command line: ``run`` (replay, offline), ``record`` (live), ``serve-local``."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from experiments.base import RunSettings
from harness.errors import CtxlabError

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
    record = commands.add_parser("record", help="run experiments live and write their cassettes")
    record.add_argument("experiments", nargs="+", help="experiment ids")
    record.add_argument("--provider", choices=PROVIDERS, required=True)
    record.add_argument("--model", help="model name (default: the provider's)")
    record.add_argument("--base-url", help="server base URL (local: start none, use this one)")
    record.add_argument("--api-key-env", help="environment variable holding the key")
    record.add_argument("--force", action="store_true", help="overwrite recorded cassettes")
    record.add_argument("--out", type=Path, default=PROJECT_ROOT / "reports", help="reports folder")
    _cassette_option(record)
    serve = commands.add_parser("serve-local", help="run the local model server until Ctrl-C")
    serve.add_argument("--port", type=int, default=8011)
    return parser


def _cassette_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cassettes", type=Path, default=PROJECT_ROOT / "cassettes", help="cassette folder"
    )


def _run(args: argparse.Namespace) -> int:
    from experiments.runner import run_experiments

    settings = RunSettings(cassette_root=args.cassettes)
    summary = run_experiments(args.experiments, args.out, settings)
    print(summary.line())
    return 0


def _record(args: argparse.Namespace) -> int:
    from harness.recording import local_server, provider_spec

    if args.provider == "local" and not args.base_url:
        with local_server() as server:
            spec = provider_spec(
                "local", model=args.model or server.model, base_url=server.base_url
            )
            _record_with(args, RunSettings(args.cassettes, "record", spec, server.as_dict()))
    else:
        spec = provider_spec(
            args.provider, model=args.model, base_url=args.base_url, api_key_env=args.api_key_env
        )
        _record_with(args, RunSettings(args.cassettes, "record", spec))
    return 0


def _record_with(args: argparse.Namespace, settings: RunSettings) -> None:
    from experiments.runner import record_experiments, run_experiments

    settings = dataclasses.replace(settings, force=args.force)
    recorded = record_experiments(args.experiments, settings)
    if recorded:
        print("replaying what was recorded:")
        summary = run_experiments(recorded, args.out, RunSettings(cassette_root=args.cassettes))
        print(summary.line())


def _serve_local(args: argparse.Namespace) -> int:
    from harness.recording import local_server

    with local_server(port=args.port) as server:
        print(f"serving {server.model} at {server.base_url} (Ctrl-C stops it)")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print("stopping")
    return 0


COMMANDS = {"run": _run, "record": _record, "serve-local": _serve_local}


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
