"""Options and the ``cassettes`` command shared by the ``ctxlab`` commands: request timeouts,
whole-number arguments, and sealing or checking cassettes. Light to import (no pandas)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.timeouts import Timeouts

__all__ = ["at_least_one", "cassettes", "cassettes_parser", "timeout_options", "timeouts"]


def timeout_options(parser: argparse.ArgumentParser) -> None:
    """--timeout / --connect-timeout / --read-timeout (see harness.timeouts)."""
    for flag, what, var in (
        ("--timeout", "total seconds per model request, retries included", "CTXLAB_TIMEOUT"),
        ("--connect-timeout", "seconds to wait for a connection", "CTXLAB_CONNECT_TIMEOUT"),
        ("--read-timeout", "seconds of silence allowed mid-answer", "CTXLAB_READ_TIMEOUT"),
    ):
        parser.add_argument(
            flag, type=_positive_seconds, help=f"{what} (default: ${var} or built in)"
        )


def timeouts(args: argparse.Namespace) -> Timeouts:
    """The environment's timeouts with the command's options on top."""
    from harness.timeouts import Timeouts

    return Timeouts.from_env().updated(
        total=args.timeout, connect=args.connect_timeout, read=args.read_timeout
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


def at_least_one(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return value


def cassettes_parser(command: argparse.ArgumentParser) -> None:
    """The arguments of ``ctxlab cassettes``."""
    command.add_argument(
        "action",
        choices=("seal", "check"),
        help="seal: write the digest into each unsealed cassette's provenance; "
        "check: verify every cassette as replay does",
    )
    command.add_argument("files", nargs="*", type=Path, help="cassette files (default: all)")


def cassettes(args: argparse.Namespace, folder: Path) -> int:
    """``ctxlab cassettes seal|check`` over ``args.files`` or every cassette under ``folder``."""
    from experiments.errors import CassetteError
    from experiments.recorder.seal import check_cassette, seal_cassette

    files = args.files or sorted(folder.rglob("*.json"))
    if not files:
        print(f"No cassettes under {folder}.")
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
