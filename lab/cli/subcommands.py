"""The ``ctxlab`` subcommands' arguments, one function per subcommand, in the order ``ctxlab
--help`` lists them (:data:`SUBCOMMANDS`). Light to import (no pandas)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from importlib import import_module
from typing import TypeAlias

from lab.cli.options import (
    at_least_one,
    cassettes_parser,
    check_options,
    folder,
    folder_options,
    match_options,
    names_option,
    slice_option,
    timeout_options,
)
from lab.cli.session import session_options
from lab.suite import Command

__all__ = ["API_KEY_HELP", "PROVIDERS", "SUBCOMMANDS", "Commands", "suite_command"]

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What ``add_subparsers`` returns: each subcommand is added to it."""

PROVIDERS = ("deepseek", "local", "openai-compatible")
API_KEY_HELP = (
    "environment variable holding the key (default: DEEPSEEK_API_KEY for deepseek, "
    "OPENAI_API_KEY for openai-compatible unless its --base-url is on this machine)"
)


def _command(
    commands: Commands, name: str, text: str, epilog: str | None = None
) -> argparse.ArgumentParser:
    from lab.cli.help import HelpFormatter

    return commands.add_parser(
        name, help=text, description=text, epilog=epilog, formatter_class=HelpFormatter
    )


def run_parser(commands: Commands) -> None:
    from lab.cli.help import experiments_epilog

    run = _command(
        commands, "run", "replay experiments offline and write the reports", experiments_epilog()
    )
    run.add_argument("experiments", nargs="*", help="experiment ids, listed below (default: all)")
    folder_options(run, "the folder the reports are written to")
    check_options(run)
    match_options(run)
    run.add_argument(
        "--jobs",
        type=at_least_one,
        default=None,
        help="worker processes replaying experiments and rendering plots side by side; 1 runs "
        "everything in this process (default: the cores it may use, at most 2); the reports "
        "are the same bytes either way",
    )
    run.add_argument(
        "--force",
        action="store_true",
        help="replace --out even when it is not a reports folder of ctxlab (one without the "
        ".ctxlab-reports marker that is not empty): the run replaces the folder as a whole",
    )


def mutations_parser(commands: Commands) -> None:
    mutations = _command(
        commands,
        "mutations",
        "judge every claim under every mutation of the harness (order replay, not a "
        "reproduction) and write the matrix mutations.csv",
    )
    mutations.add_argument("experiments", nargs="*", help="experiment ids (default: all)")
    mutations.add_argument("--jobs", type=at_least_one, default=2, help="runs side by side")
    mutations.add_argument(
        "--every-experiment",
        action="store_true",
        help="run each mutation over every experiment, not only those it can reach (a check)",
    )
    folder_options(mutations, "the folder mutations.csv is written to")


def record_parser(commands: Commands) -> None:
    from lab.cli.help import experiments_epilog

    epilog = experiments_epilog() + (
        "\n\nctxlab record merge DIR… --out D combines the --cassettes folders of the shards\n"
        'of one recording (--shard I/N) into one (docs/bench.md, "Shards of a recording").'
    )
    record = _command(commands, "record", "run experiments live and write their cassettes", epilog)
    record.add_argument("experiments", nargs="+", help="experiment ids, listed below")
    record.add_argument("--provider", choices=PROVIDERS, required=True, help="where to record from")
    record.add_argument(
        "--model",
        help="model name (default: the provider's; local: qwen1.5b, the default, or qwen0.5b)",
    )
    record.add_argument("--base-url", help="server base URL (local: start none, use this one)")
    record.add_argument("--api-key-env", help=API_KEY_HELP)
    _recording_switches(record)
    _concurrency_switch(record)
    record.add_argument(
        "--out",
        type=folder,
        help="reports folder (default: reports/ of the project, or a temporary folder when "
        "--cassettes names another folder)",
    )
    folder_options(record, "", out=False)
    timeout_options(record)


def _recording_switches(record: argparse.ArgumentParser) -> None:
    """``record``'s --force, --threads, --max-tokens, --variant, --slice and --conditions."""
    record.add_argument(
        "--force",
        action="store_true",
        help="overwrite the cassettes of the same provider and model (others are kept)",
    )
    record.add_argument(
        "--threads",
        type=int,
        default=2,
        help="local: the server's threads (1 records faster on a busy machine; kept in the "
        "cassette's provenance)",
    )
    record.add_argument(
        "--max-tokens",
        type=at_least_one,
        help="cap every answer at this many tokens (sent as max_tokens; a request's own "
        "smaller limit wins; kept in the cassette's provenance), for a model that never stops",
    )
    record.add_argument(
        "--variant",
        choices=("gate",),
        help="record with a ctxlab switch on, beside the plain cassettes (gate: the "
        "identifier-survival gate, compared by X-GATE)",
    )
    record.add_argument(
        "--slice",
        type=slice_option,
        help="X-BENCH: record part K of N of its cassettes (K/N, e.g. 1/30); resumable: "
        "cassettes already there are kept",
    )
    record.add_argument(
        "--conditions",
        type=names_option,
        default=(),
        help="X-BENCH: record only these conditions (comma-separated, e.g. full,dsh); "
        "--slice then cuts the plan of these alone",
    )


def _concurrency_switch(record: argparse.ArgumentParser) -> None:
    record.add_argument(
        "--concurrency",
        type=at_least_one,
        default=1,
        metavar="N",
        help="cassettes (X-BENCH's) and experiments recorded at once, each in a process of its "
        "own (the cassettes are the same as one at a time)",
    )
    record.add_argument(
        "--shard",
        type=slice_option,
        metavar="I/N",
        help="record only shard I of N (each cassette's shard is a digest of its experiment, "
        "its name and the model); the folder gets record-shard.json, combine the shards' "
        "--cassettes folders with `ctxlab record merge DIR… --out D`",
    )
    record.add_argument(
        "--no-replay",
        action="store_true",
        help="write the cassettes alone: no replay of them and no reports (a shard, replayed "
        "with `ctxlab run` once the shards are merged)",
    )


def compact_parser(commands: Commands) -> None:
    compact = _command(
        commands, "compact", "compact a saved session by hand (snapshot, audit, undo)"
    )
    session_options(compact)
    compact.add_argument(
        "--engine", choices=("agentscope", "dsh"), default="agentscope", help="compaction engine"
    )
    compact.add_argument("--keep", type=at_least_one, default=2, help="messages kept (agentscope)")
    compact.add_argument("--instructions", default="", help="extra instructions for the summary")
    compact.add_argument(
        "--undo", action="store_true", help="undo this session's last committed compaction"
    )
    compact.add_argument(
        "--provider", choices=PROVIDERS, default="deepseek", help="the model that summarises"
    )
    compact.add_argument("--model", help="model name (default: the provider's)")
    compact.add_argument("--base-url", help="server base URL (default: the provider's)")
    compact.add_argument("--api-key-env", help=API_KEY_HELP)
    timeout_options(compact)


def show_parser(commands: Commands) -> None:
    show = _command(
        commands,
        "show",
        "print a session's folded surface (what the model sees), compactions and prices",
    )
    session_options(show)


def cassettes_command_parser(commands: Commands) -> None:
    cassettes = _command(
        commands, "cassettes", "seal cassettes (a digest of their interactions) or check them"
    )
    cassettes_parser(cassettes)
    folder_options(cassettes, "unused by this command", out=False)


def suite_command(commands: Commands, command: Command, module: str | None) -> None:
    """The subcommand an experiment adds (:class:`lab.suite.Command`); its options from
    ``module``'s ``add_options`` when it is the one asked for (None: listed by ``--help``
    alone, nothing imported)."""
    parser = _command(commands, command.name, command.help)
    if module is not None:
        import_module(module).add_options(parser)


def serve_local_parser(commands: Commands) -> None:
    serve = _command(commands, "serve-local", "run the local model server until Ctrl-C")
    serve.add_argument("--port", type=int, default=8011, help="port on 127.0.0.1")
    serve.add_argument(
        "--server",
        choices=("llama-cpp-python", "llama-server"),
        default="llama-cpp-python",
        help="which llama.cpp server to run",
    )
    serve.add_argument(
        "--model",
        choices=("qwen1.5b", "qwen0.5b"),
        default="qwen1.5b",
        help="which local model to serve",
    )


SUBCOMMANDS: tuple[Callable[[Commands], None], ...] = (
    run_parser,
    mutations_parser,
    record_parser,
    compact_parser,
    show_parser,
    cassettes_command_parser,
    serve_local_parser,
)
"""Each adds one of lab's subcommands, in the order of ``ctxlab --help`` (the experiments'
subcommands follow: :func:`suite_command`)."""
