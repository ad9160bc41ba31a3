"""The ``ctxlab`` command line: ``run`` (replay, offline), ``record`` (live), ``compact`` (a saved
session, by hand), ``serve-local``."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import CtxlabError, MissingAPIKeyError

if TYPE_CHECKING:  # the commands import what they need: `ctxlab --help` stays fast (no pandas)
    from experiments.base import RunSettings
    from harness.model import ChatModel

if TYPE_CHECKING:
    from harness.timeouts import Timeouts

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
    _timeout_options(record)
    compact = commands.add_parser(
        "compact", help="compact a saved session by hand (snapshot, audit, undo)"
    )
    compact.add_argument("--workspace", type=Path, required=True, help="the workspace root")
    compact.add_argument("--user", default="default", help="the user id (folder)")
    compact.add_argument("--session", required=True, help="the session id")
    compact.add_argument("--engine", choices=("agentscope", "dsh"), default="agentscope")
    compact.add_argument("--keep", type=_at_least_one, default=2, help="messages kept (agentscope)")
    compact.add_argument("--instructions", default="", help="extra instructions for the summary")
    compact.add_argument("--undo", action="store_true", help="restore the latest snapshot")
    compact.add_argument("--provider", choices=PROVIDERS, default="deepseek")
    compact.add_argument("--model", help="model name (default: the provider's)")
    compact.add_argument("--base-url", help="server base URL")
    compact.add_argument("--api-key-env", help="environment variable holding the key")
    _timeout_options(compact)
    _cassettes_parser(commands)
    serve = commands.add_parser("serve-local", help="run the local model server until Ctrl-C")
    serve.add_argument("--port", type=int, default=8011)
    serve.add_argument(
        "--server", choices=("llama-cpp-python", "llama-server"), default="llama-cpp-python"
    )
    return parser


def _cassette_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cassettes", type=Path, default=PROJECT_ROOT / "cassettes", help="cassette folder"
    )


def _cassettes_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cassettes = commands.add_parser(
        "cassettes", help="seal cassettes (digest of their interactions) or check them"
    )
    cassettes.add_argument(
        "action",
        choices=("seal", "check"),
        help="seal: write the digest into each unsealed cassette's provenance; "
        "check: verify every cassette as replay does",
    )
    cassettes.add_argument("files", nargs="*", type=Path, help="cassette files (default: all)")
    _cassette_option(cassettes)


def _cassettes(args: argparse.Namespace) -> int:
    from harness.errors import CassetteError
    from harness.recording.seal import check_cassette, seal_cassette

    files = args.files or sorted(args.cassettes.rglob("*.json"))
    if not files:
        print(f"No cassettes under {args.cassettes}.")
    failed = 0
    for path in files:
        try:
            if args.action == "seal":
                print(f"{path}: {seal_cassette(path)}")
            else:
                check_cassette(path)
                print(f"{path}: sealed and unedited")
        except CassetteError as exc:
            print(f"ctxlab: {exc}", file=sys.stderr)
            failed += 1
    return 2 if failed else 0


def _timeout_options(parser: argparse.ArgumentParser) -> None:
    """--timeout / --connect-timeout / --read-timeout (see harness.timeouts)."""
    for flag, what, var in (
        ("--timeout", "total seconds per model request, retries included", "CTXLAB_TIMEOUT"),
        ("--connect-timeout", "seconds to wait for a connection", "CTXLAB_CONNECT_TIMEOUT"),
        ("--read-timeout", "seconds of silence allowed mid-answer", "CTXLAB_READ_TIMEOUT"),
    ):
        parser.add_argument(
            flag, type=_positive_seconds, help=f"{what} (default: ${var} or built in)"
        )


def _positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds above 0."""
    from harness.errors import ConfigError
    from harness.validation import seconds

    try:
        return seconds("the value", float(text))
    except (ValueError, ConfigError):
        raise argparse.ArgumentTypeError(
            f"must be a finite number of seconds above 0, not {text!r}"
        ) from None


def _at_least_one(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return value


def _timeouts(args: argparse.Namespace) -> Timeouts:
    """The environment's timeouts with the command's options on top."""
    from harness.timeouts import Timeouts

    return Timeouts.from_env().updated(
        total=args.timeout, connect=args.connect_timeout, read=args.read_timeout
    )


def _run(args: argparse.Namespace) -> int:
    from experiments.base import RunSettings
    from experiments.runner import run_experiments

    settings = RunSettings(cassette_root=args.cassettes)
    summary = run_experiments(args.experiments, args.out, settings)
    print(summary.line())
    return 0


def _record(args: argparse.Namespace) -> int:
    from experiments.base import RunSettings
    from harness.recording import local_server, provider_spec

    if args.provider == "local" and not args.base_url:
        for server_kind, ids in _by_local_server(args.experiments).items():
            with local_server(server=server_kind) as server:
                spec = provider_spec(
                    "local", model=args.model or server.model, base_url=server.base_url
                )
                settings = RunSettings(
                    args.cassettes, "record", spec, server.as_dict(), timeouts=_timeouts(args)
                )
                _record_with(argparse.Namespace(**{**vars(args), "experiments": ids}), settings)
    else:
        spec = provider_spec(
            args.provider, model=args.model, base_url=args.base_url, api_key_env=args.api_key_env
        )
        _record_with(args, RunSettings(args.cassettes, "record", spec, timeouts=_timeouts(args)))
    return 0


def _by_local_server(ids: Sequence[str]) -> dict[str, list[str]]:
    from experiments.registry import EXPERIMENTS
    from experiments.runner import select

    groups: dict[str, list[str]] = {}
    for experiment_id in select(ids):
        groups.setdefault(EXPERIMENTS[experiment_id].local_server, []).append(experiment_id)
    return groups


def _record_with(args: argparse.Namespace, settings: RunSettings) -> None:
    import dataclasses

    from experiments.base import RunSettings
    from experiments.runner import record_experiments, run_experiments

    settings = dataclasses.replace(settings, force=args.force)
    recorded = record_experiments(args.experiments, settings)
    if recorded:
        print("replaying what was recorded:")
        summary = run_experiments(recorded, args.out, RunSettings(cassette_root=args.cassettes))
        print(summary.line())


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
    from harness.safe_paths import check_name

    base = args.workspace / check_name("user id", args.user)
    check_name("session id", args.session)
    if args.undo:
        record = ManualCompaction(base, args.session, _no_model()).undo()
        print(f"restored {args.session} from {record.snapshot}")
        return 0
    _sigterm_as_interrupt()  # a terminated compact is audited as cancelled and cleaned up
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


def _sigterm_as_interrupt() -> None:
    import signal

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)


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
                spec.model,
                base_url=spec.base_url,
                api_key="no-key",
                params=spec.params,
                timeout=_timeouts(args),
            ) as client:
                yield client
        return
    spec = provider_spec(
        args.provider, model=args.model, base_url=args.base_url, api_key_env=args.api_key_env
    )
    key = os.environ.get(spec.api_key_env, "") if spec.api_key_env else "no-key"
    if not key:
        raise MissingAPIKeyError(spec.api_key_env or "")
    with ChatClient(
        spec.model, base_url=spec.base_url, api_key=key, params=spec.params, timeout=_timeouts(args)
    ) as client:
        yield client


COMMANDS = {
    "run": _run,
    "record": _record,
    "compact": _compact,
    "cassettes": _cassettes,
    "serve-local": _serve_local,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ctxlab`` console script; returns the exit status."""
    args = _parser().parse_args(argv)
    import logging  # after parsing: --help and --version never need it

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
