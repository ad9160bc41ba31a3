"""What ``ctxlab --help`` and ``--version`` say, kept light: nothing here imports pandas,
matplotlib or the experiments themselves, so ``ctxlab --help`` stays fast.

:data:`EXPERIMENT_SUMMARIES` repeats the registry's titles (a test keeps the two equal) so that
``ctxlab run --help`` can list the experiments without importing them.
"""

from __future__ import annotations

import argparse
from importlib import metadata

__all__ = ["EXPERIMENT_SUMMARIES", "HelpFormatter", "experiments_epilog", "version"]

EXPERIMENT_SUMMARIES: dict[str, str] = {
    "E1": "Compaction algorithm: 9 messages become 4, cutoff 6",
    "E2": "Memory pipeline: facts reach disk with no tool call",
    "E3": "Real agent, trigger 5 / keep 2: compaction from round 3 on",
    "E4": "One conversation, compacted once by each engine",
    "E5": "What the seeds computed or state but never ran, run with scripted models",
    "X-GATE": "Identifier-survival gate: E3 and E4 planted facts kept with and without it",
    "X-THRASH": "Compaction thrash under AgentScope defaults, with and without the guard",
    "X-COST": "Compaction cost ledger: summary calls against the tokens they remove (E3, E4)",
    "X-BENCH": "Compaction-quality benchmark: planted facts kept by each condition at one budget",
}
"""Each experiment id with its one-line description, in report order."""


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
    lines += [f"  {key}  {title}" for key, title in EXPERIMENT_SUMMARIES.items()]
    return "\n".join(lines)


def version() -> str:
    """The installed ctxlab's version, or ``unknown`` when it is run without being installed."""
    try:
        return metadata.version("ctxlab")
    except metadata.PackageNotFoundError:
        return "unknown"
