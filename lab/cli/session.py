"""Naming a saved session on the command line (``compact`` and ``show``): a workspace, user and
session id, or a session file given by path (``--file``, e.g. a DeepSeek-Harness
``session.jsonl``); and ``ctxlab show``, which prints what the model sees of it."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness import ConfigError

__all__ = ["saved_session", "session_options", "show_session"]


def session_options(parser: argparse.ArgumentParser) -> None:
    """--workspace / --user / --session, or --file."""
    parser.add_argument("--workspace", type=Path, help="the workspace root")
    parser.add_argument("--user", default="default", help="the user id (folder)")
    parser.add_argument("--session", help="the session id")
    parser.add_argument(
        "--file",
        type=Path,
        help="a session log file instead (either format: ctxlab's, or DeepSeek-Harness's "
        "session.jsonl, worked on in place; audit.jsonl and locks/ go beside it)",
    )
    parser.add_argument(
        "--log-format",
        choices=("ctxlab", "dsh"),
        help="refuse the session unless its event log is in this format (default: either; a "
        "log keeps the format it was written in)",
    )


def saved_session(args: argparse.Namespace) -> tuple[Path, str, str | None]:
    """``(user folder, session id, session file name or None)``; one sentence (ConfigError),
    creating nothing, when the session was never saved or its log is not in ``--log-format``."""
    base, session, name = _named_session(args)
    path = base / (name or f"events/{session}.jsonl")
    if args.log_format is not None and path.is_file():
        from harness.store.eventlog.codec import detect

        with path.open("rb") as handle:
            found = detect(handle.read(4096))
        if found != args.log_format:
            raise ConfigError(f"{path} is a {found} session log, not {args.log_format}.")
    return base, session, name


def _named_session(args: argparse.Namespace) -> tuple[Path, str, str | None]:
    from harness.fs.root import check_name

    if args.file is not None:
        if args.workspace is not None or args.session is not None:
            raise ConfigError("Give --file, or --workspace and --session, not both.")
        file: Path = args.file
        if not file.is_file():
            raise ConfigError(f"The session file {file} does not exist; check --file.")
        session = file.parent.name if file.name == "session.jsonl" else file.stem
        return file.parent, check_name("session id", session), file.name
    if args.workspace is None or args.session is None:
        raise ConfigError("Name the session: --workspace and --session, or --file.")
    base = args.workspace / check_name("user id", args.user)
    _require_session(args.workspace, args.user, check_name("session id", args.session))
    return base, args.session, None


def _require_session(workspace: Path, user: str, session: str) -> None:
    if not workspace.is_dir():
        raise ConfigError(f"The workspace {workspace} does not exist; check --workspace.")
    from harness.fs.root import SafeRoot
    from harness.store.sessions import saved_store

    if saved_store(SafeRoot(workspace / user), session) is None:
        raise ConfigError(
            f"Session {session!r} of user {user!r} does not exist in {workspace} (neither "
            f"events/{session}.jsonl nor state/{session}.json); check --user and --session."
        )


def show_session(args: argparse.Namespace) -> int:
    """``ctxlab show``: the folded surface, node by node with its price, the compactions and
    the totals of an event-log session of either format; read only (nothing is locked,
    repaired or appended)."""
    from harness.store.dsh.surface import render, view
    from harness.store.eventlog import EventLog

    base, session, name = saved_session(args)
    path = base / (name or f"events/{session}.jsonl")
    if not path.is_file():
        raise ConfigError(
            f"Session {session!r} has no event log ({path}); ctxlab show reads event logs only."
        )
    log = EventLog.replay(path)
    for note in log.recovered:
        print(f"note: {note}")
    print(render(view(log)))
    return 0
