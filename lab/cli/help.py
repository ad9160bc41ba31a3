"""What ``ctxlab --help`` and ``--version`` say, kept light: nothing here imports pandas,
matplotlib or the experiments themselves, so ``ctxlab --help`` stays fast.

``ctxlab run --help`` lists the experiments from the suite lab was handed (:mod:`lab.suite`),
whose list imports nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from lab.suite import current

__all__ = ["HelpFormatter", "VersionAction", "experiments_epilog", "version"]


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the epilog's line breaks and appends ``(default: ...)`` to options that have a
    meaningful default (not None, not False, not already named in the help text)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            "%(default)" in text
            or "default:" in text
            or default in (None, False, argparse.SUPPRESS)
            or not action.option_strings
        ):
            return text
        return f"{text} (default: %(default)s)"


def experiments_epilog() -> str:
    """The list of experiment ids with their descriptions, for ``run`` and ``record``."""
    lines = ["experiments:"]
    lines += [f"  {entry.id}  {entry.title}" for entry in current().entries]
    return "\n".join(lines)


class VersionAction(argparse.Action):
    """``--version``: print ``ctxlab <version>`` and exit. The version is looked up when asked
    for, not each time the parser is built: importlib.metadata's look-up was about 50 ms of CPU
    at the start of every ``ctxlab`` command (issue 48)."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(
            option_strings, dest, nargs=0, default=argparse.SUPPRESS,
            help=help or "show program's version number and exit",
        )  # fmt: skip

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"ctxlab {version()}", file=sys.stdout)
        parser.exit()


def version() -> str:
    """The installed ctxlab's version, or ``unknown`` when it is run without being installed."""
    from lab.version import ctxlab_version

    return ctxlab_version()
