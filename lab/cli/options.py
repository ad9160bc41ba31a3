"""Options and the ``cassettes`` command shared by the ``ctxlab`` commands: request timeouts,
whole-number arguments, and sealing or checking cassettes. Light to import (no pandas)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.timeouts import Timeouts

__all__ = [
    "at_least_one",
    "cassettes",
    "cassettes_parser",
    "names_option",
    "slice_option",
    "timeout_options",
    "timeouts",
]


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
    from harness import ConfigError
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


def names_option(text: str) -> tuple[str, ...]:
    """Comma-separated names, for ``--conditions``: at least one, none empty."""
    names = tuple(name.strip() for name in text.split(","))
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected NAME[,NAME...], not {text!r}")
    return names


def slice_option(text: str) -> tuple[int, int]:
    """``K/N`` with 1 ≤ K ≤ N, for ``--slice``."""
    part, _, whole = text.partition("/")
    try:
        k, n = int(part), int(whole)
    except ValueError:
        k = n = 0
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N, not {text!r}")
    return k, n


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
    """``ctxlab cassettes seal|check`` over ``args.files`` or every cassette under ``folder``:
    one line per problem (and, with ``--verbose`` or for ``seal``, per cassette), then a count."""
    from lab.errors import CassetteError
    from lab.recorder.seal import check_cassette, seal_cassette

    files = args.files or sorted(folder.rglob("*.json"))
    if not files:
        print(f"No cassettes under {folder}.")
        return 0
    failed = 0
    for path in files:
        try:
            if args.action == "seal":
                print(f"{path}: {seal_cassette(path)}")
            else:
                check_cassette(path)
                if args.verbose:
                    print(f"{path}: sealed and unedited")
        except CassetteError as exc:
            print(f"ctxlab: {exc}", file=sys.stderr)
            failed += 1
    done = "sealed" if args.action == "seal" else "sealed and unedited"
    print(f"{len(files) - failed} of {len(files)} cassettes {done}; {failed} refused.")
    return 2 if failed else 0


def folder_options(parser: argparse.ArgumentParser, out_help: str, out: bool = True) -> None:
    if out:
        parser.add_argument(
            "--out", type=folder, help=f"{out_help} (default: reports/ of the project)"
        )
    else:
        parser.set_defaults(out=None)
    parser.add_argument(
        "--cassettes", type=folder, help="the cassette folder (default: cassettes/ of the project)"
    )
    parser.add_argument(
        "--project",
        type=folder,
        metavar="DIR",
        help="the ctxlab checkout (default: the one holding the current directory)",
    )


def folder(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("needs a folder name, not an empty string")
    return Path(text)


def folders(args: argparse.Namespace) -> tuple[Path, Path]:
    """``--out`` and ``--cassettes``, defaulting to the project's ``reports/`` and
    ``cassettes/``; the project is looked up only when one of them is not given."""
    from lab.project import find_project

    out, cassettes = args.out, args.cassettes
    if out is None or cassettes is None or args.project is not None:
        root = find_project(args.project)
        out = out if out is not None else root / "reports"
        cassettes = cassettes if cassettes is not None else root / "cassettes"
    if out.exists() and not out.is_dir():
        from harness import ConfigError

        raise ConfigError(f"--out {out} is a file; give a folder (it is created if missing).")
    return out, cassettes


def check_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--check",
        action="store_true",
        help="read only: run into a temporary folder (or --out), print the per-claim diff "
        "against the baseline and exit 1 when a claim changed; the baseline's folder is "
        "never written",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="the claims table --check compares with (default: reports/claims.csv of the project)",
    )


def match_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cassette-match",
        choices=("body", "order"),
        default="body",
        help="body: each request must equal the recorded one (a reproduction); order: the "
        "recorded answers in recorded order, requests not matched (mutation testing only, "
        "never a reproduction: never writes reports/, default --out a scratch folder)",
    )


def order_replay_out(args: argparse.Namespace) -> Path:
    """Where an order replay writes: ``--out`` unless it is a ``reports/`` folder (refused),
    else a new scratch folder."""
    import tempfile

    from harness import ConfigError
    from lab.project import find_project

    if args.out is None:
        return Path(tempfile.mkdtemp(prefix="ctxlab-order-replay-"))
    out = Path(args.out)
    try:
        project_reports = (find_project(args.project) / "reports").resolve()
    except ConfigError:  # outside a checkout only the folder's name can say
        project_reports = None
    if out.name == "reports" or out.resolve() == project_reports:
        raise ConfigError(
            f"--cassette-match order never writes {out}: it is not a reproduction; give a "
            "scratch folder as --out, or none (a new temporary folder)."
        )
    return out
