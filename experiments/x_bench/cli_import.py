"""``ctxlab bench --conversations FILE --format …``: the options that choose how a user's file
is read (:mod:`experiments.x_bench.formats`) and the reading, with its summary line.

Nothing here imports the harness at import time: ``ctxlab --help`` stays fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from experiments.x_bench.schema import Conversation

__all__ = ["import_options", "imported", "imported_json", "unanchored_markdown"]

FORMAT_CHOICES = ("auto", "ctxlab", "compactbench", "longmemeval", "locomo")
DEFAULTS = {"format": "auto", "limit": None, "cases": 1, "difficulty": "medium"}
"""Each option's default: one given without ``--conversations`` is refused."""


def import_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=FORMAT_CHOICES,
        default="auto",
        help="the --conversations file's format (auto: detected where unambiguous)",
    )
    parser.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="play only the file's first N conversations (a LongMemEval item is one)",
    )
    parser.add_argument(
        "--cases",
        type=int,
        default=1,
        metavar="N",
        help="CompactBench: cases generated per template (slots 0..N-1)",
    )
    parser.add_argument(
        "--difficulty",
        choices=("easy", "medium", "hard", "elite"),
        default="medium",
        help="CompactBench: the difficulty its engine generates the cases at",
    )


def _refuse_stray(args: argparse.Namespace) -> None:
    from harness import ConfigError

    if args.conversations is None:
        stray = [f"--{k}" for k, v in DEFAULTS.items() if getattr(args, k, v) != v]
        if stray:
            verb = "chooses" if len(stray) == 1 else "choose"
            raise ConfigError(f"{', '.join(stray)} {verb} how --conversations is read; pass it.")
    if args.cases < 1:
        raise ConfigError(f"--cases must be at least 1, not {args.cases}.")


def imported(args: argparse.Namespace) -> list[Conversation] | None:
    """The conversations of ``--conversations`` (None without it), read in ``--format``; says
    what was read and how many facts were left unanchored."""
    from experiments.x_bench.formats.reader import read_conversations, unanchored_line

    _refuse_stray(args)
    if args.conversations is None:
        return None
    found = read_conversations(
        args.conversations,
        args.format,
        limit=args.limit,
        cases=args.cases,
        difficulty=args.difficulty,
        say=_note,
    )
    _note(unanchored_line(found, args.conversations))
    return found.conversations


def imported_json(args: argparse.Namespace) -> bytes | None:
    """The ``--conversations`` file read and written back in ctxlab's own format (what a Ray
    task reads: ``--format ctxlab``, every item), None without it."""
    from experiments.x_bench.shards import conversations_json

    conversations = imported(args)
    if conversations is None:
        return None
    args.format, args.limit = "ctxlab", None
    return conversations_json(conversations).encode("utf-8")


LISTED = 20
"""The most unanchored facts ``bench.md`` names one by one (the rest are counted)."""


def unanchored_markdown(conversations: Sequence[Conversation]) -> str:
    """``bench.md``'s section on the facts left unanchored ("" when there is none)."""
    facts = [(c.id, f) for c in conversations for f in c.facts]
    left = [(cid, f) for cid, f in facts if f.unanchored]
    if not left:
        return ""
    named = "; ".join(f"`{cid}` `{f.id}`: {f.unanchored}" for cid, f in left[:LISTED])
    more = f"; and {len(left) - LISTED} more" if len(left) > LISTED else ""
    return (
        "\n### Facts left unanchored\n\n"
        f"{len(left)} of {len(facts)} fact(s) are kept in their conversations but left out of "
        "survival and of the probe's answers: their answer occurs verbatim in none of their "
        f'evidence turns (docs/bench.md, "Standard corpora"). {named}{more}.\n'
    )


def _note(line: str) -> None:
    """What was read, on stdout beside the table: stderr keeps a refusal to one sentence (a
    damaged journal refused right after the read said two lines there)."""
    print(f"ctxlab: {line}", flush=True)
