"""``ctxlab compactbench``: CompactBench's own runner and scorer, ctxlab's engines beside its
built-in methods, on one model (:mod:`experiments.x_bench.compactbench_side`).

``ctxlab compactbench --benchmarks-dir DIR --suite starter --provider local --model qwen0.5b
--out OUT`` runs every method on the cases CompactBench generates from the user's copy of its
templates (``DIR/<suite>/*.yaml``) and writes ``OUT/<method>.jsonl`` (CompactBench's results) and
``OUT/compactbench.md`` (the side-by-side). ``--cassette FILE`` replays a recorded run offline, and
with ``--record`` records it. Needs the ``compactbench`` extra; without it, one sentence says so.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.model import ChatModel

__all__ = ["add_options", "run"]

DEFAULT_METHODS = "ctxlab,agentscope,dsh,hybrid-ledger,naive-summary"


def add_options(parser: argparse.ArgumentParser) -> None:
    """``ctxlab compactbench``'s options."""
    from lab import PROVIDERS, timeout_options

    add = parser.add_argument
    add("--benchmarks-dir", type=Path, required=True, help="your copy of CompactBench's suites")
    add("--suite", default="starter", help="the suite's folder under --benchmarks-dir")
    add("--methods", default=DEFAULT_METHODS, help=f"comma-separated (default: {DEFAULT_METHODS})")
    add("--cases", type=int, default=1, help="cases per template (default: 1)")
    add("--drift-cycles", type=int, default=1, help="drift cycles per case (default: 1)")
    add("--difficulty", default="medium", help="easy, medium, hard or elite (default: medium)")
    add("--seed-group", default="default", help="CompactBench's seed group (default: default)")
    add("--provider", choices=PROVIDERS, help="the model's provider (live, or to record)")
    add("--model", help="model name (default: the provider's)")
    add("--base-url", help="server base URL (default: the provider's)")
    add("--api-key-env", help="environment variable holding the key")
    add("--cassette", type=Path, help="replay this recording (or write it, with --record)")
    add("--record", action="store_true", help="record --cassette from --provider")
    add("--out", type=Path, default=Path("compactbench-results"), help="where results go")
    timeout_options(parser)


def _plan(args: argparse.Namespace) -> object:
    from experiments.x_bench.compactbench_side.side_by_side import SideBySide
    from harness import ConfigError

    methods = tuple(m.strip() for m in args.methods.split(",") if m.strip())
    if not methods:
        raise ConfigError("--methods names no method")
    for name, value in (("--cases", args.cases), ("--drift-cycles", args.drift_cycles)):
        if value < (1 if name == "--cases" else 0):
            raise ConfigError(f"{name} must be at least {1 if name == '--cases' else 0}")
    if args.difficulty not in ("easy", "medium", "hard", "elite"):
        raise ConfigError(f"--difficulty {args.difficulty!r}: use easy, medium, hard or elite")
    if not (args.benchmarks_dir / args.suite).is_dir():
        raise ConfigError(f"no suite folder {args.benchmarks_dir / args.suite}")
    return SideBySide(
        args.benchmarks_dir, args.suite, methods, args.cases, args.drift_cycles,
        args.difficulty, args.seed_group,
    )  # fmt: skip


@contextmanager
def _model(args: argparse.Namespace) -> Iterator[ChatModel]:
    from harness import ConfigError
    from lab import live_model

    if args.cassette is None:
        if args.provider is None:
            raise ConfigError("ctxlab compactbench needs --provider (live) or --cassette")
        with live_model(args) as model:
            yield model
        return
    from lab.recorder import cassette_client, provider_spec

    if not args.record:
        with cassette_client(args.cassette, mode="replay", rerecord_hint="--record") as handle:
            yield handle.client
        return
    if args.provider is None or (args.provider == "local" and not args.base_url):
        raise ConfigError("--record needs --provider with --base-url (a running server)")
    spec = provider_spec(
        args.provider, model=args.model, base_url=args.base_url, api_key_env=args.api_key_env
    )
    with cassette_client(args.cassette, mode="record", provider=spec, progress=print) as handle:
        yield handle.client


def _command(args: argparse.Namespace) -> str:
    """The command line that gives the same table (from the parsed options, no key)."""
    words = ["ctxlab", "compactbench", "--benchmarks-dir", str(args.benchmarks_dir)]
    words += ["--suite", args.suite, "--methods", args.methods, "--cases", str(args.cases)]
    words += ["--drift-cycles", str(args.drift_cycles), "--difficulty", args.difficulty]
    words += ["--seed-group", args.seed_group]
    for option in ("provider", "model", "base_url", "cassette"):
        if getattr(args, option) is not None:
            words += [f"--{option.replace('_', '-')}", str(getattr(args, option))]
    return shlex.join(words + (["--record"] if args.record else []))


def run(args: argparse.Namespace) -> int:
    """``ctxlab compactbench`` as ``args`` say; the exit status."""
    from harness import CtxlabError

    try:
        import compactbench  # noqa: F401
    except ImportError:
        print(
            "ctxlab compactbench needs CompactBench: pip install 'ctxlab[compactbench]'",
            file=sys.stderr,
        )
        return 2
    from experiments.x_bench.compactbench_side.side_by_side import run_side_by_side, table

    try:
        plan = _plan(args)
        with _model(args) as model:
            scores = run_side_by_side(plan, model, args.out)  # type: ignore[arg-type]
            name = model.model_name
    except CtxlabError as exc:
        print(f"ctxlab compactbench: {exc}", file=sys.stderr)
        return 2
    text = table(scores, name, _command(args))
    (args.out / "compactbench.md").write_text(text, "utf-8")
    print(text)
    return 0
