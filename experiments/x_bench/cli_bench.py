"""``ctxlab bench``: X-BENCH for users, against a live endpoint or on their own conversations
(the subcommand's options and work; :mod:`experiments.x_bench.cli` registers it).

``ctxlab bench --provider deepseek|openai-compatible|local --model M --sizes 2k,8k --seeds 1-3
--conditions agentscope,ctxlab,masking`` plays the generated conversations (or ``--conversations
FILE``, :mod:`experiments.x_bench.schema`) under each condition, prints the table and writes
``bench-runs.csv``, ``bench-kinds.csv`` and ``bench.md`` to ``--out``. Without ``--provider``
only the conditions that need no model run (survival only; no probe is asked). A missing key,
an unreachable server and a bad file or argument each get one sentence (exit status 2).

``ctxlab --help`` never imports this module; ``ctxlab bench --help`` does (X-BENCH with it).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.x_bench.cli_grid import Grid, grid_options, play
from experiments.x_bench.cli_import import import_options, imported, unanchored_markdown
from experiments.x_bench.cli_split import generated, split_options
from experiments.x_bench.equal_budget import NEVER_COMPACTED, never_compacted

if TYPE_CHECKING:
    from experiments.x_bench.journal import RunJournal
    from experiments.x_bench.runs import Failure
    from experiments.x_bench.schema import Conversation
    from experiments.x_bench.view import ConditionRecord, RunRecord
    from harness.model import ChatModel

__all__ = ["bench", "bench_options", "parse_seeds", "write_report"]

LiveModel = Callable[
    [argparse.Namespace, Callable[[Any], None] | None], AbstractContextManager["ChatModel"]
]
"""The live client for the options, with an httpx response hook (the limiter's)."""


def bench_options(parser: argparse.ArgumentParser, providers: Sequence[str]) -> None:
    parser.add_argument(
        "--provider",
        choices=providers,
        help="the summary (and probe) model's provider; without it only the conditions that "
        "need no model run",
    )
    parser.add_argument("--model", help="model name (default: the provider's)")
    parser.add_argument("--base-url", help="server base URL (default: the provider's)")
    parser.add_argument("--api-key-env", help="environment variable holding the key")
    parser.add_argument("--sizes", help="comma-separated: 2k, 8k, 24k (default: 2k)")
    parser.add_argument("--seeds", help="seeds: 1-3 or 1,4,7 (default: 1-2)")
    parser.add_argument("--langs", help="comma-separated: zh, en (default: zh,en)")
    parser.add_argument(
        "--conditions",
        help="comma-separated condition names (default: all that can run; see docs/bench.md)",
    )
    parser.add_argument(
        "--conversations",
        type=Path,
        help="your own conversations instead of generated ones: ctxlab's JSON (docs/bench.md), "
        "LongMemEval or LoCoMo JSON, or CompactBench templates (a .yaml file or a folder)",
    )
    import_options(parser)
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("bench-results"),
        help="where the CSV and Markdown go; a stopped bench run again with the same --out "
        "keeps the runs it finished (bench-runs.jsonl)",
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="play every run again, discarding the runs an earlier bench left in --out",
    )
    split_options(parser)
    grid_options(parser)


def _bad(message: str) -> Exception:
    from harness import ConfigError

    return ConfigError(message)


def parse_seeds(text: str) -> list[int]:
    """``1-3`` → [1, 2, 3]; ``1,4`` → [1, 4]; anything else is a one-sentence ConfigError."""
    seeds: list[int] = []
    try:
        for part in text.split(","):
            low, _, high = part.strip().partition("-")
            first, last = int(low), int(high or low)
            if first < 0 or last < first:
                raise ValueError(part)
            seeds += range(first, last + 1)
    except ValueError:
        raise _bad(f"--seeds must look like 1-3 or 1,4,7, not {text!r}.") from None
    return seeds


def _choices(text: str, known: Sequence[str], option: str) -> list[str]:
    chosen = [c.strip() for c in text.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in known]
    if unknown or not chosen:
        raise _bad(f"{option} takes {', '.join(known)}; not {', '.join(unknown) or 'nothing'}.")
    return chosen


def _conversations(args: argparse.Namespace) -> list[Conversation]:
    from experiments.x_bench.corpus import LANGS, SIZES
    from experiments.x_bench.turns import priced

    chosen = {"--sizes": args.sizes, "--seeds": args.seeds, "--langs": args.langs}
    chosen |= {"--split": args.split, "--shapes": args.shapes}
    given = [option for option, value in chosen.items() if value is not None]
    if args.conversations is not None and given:
        raise _bad(f"{', '.join(given)} choose generated conversations; --conversations "
                   "plays the file's own, so leave them out.")  # fmt: skip
    if (own := imported(args)) is not None:
        return [priced(c) for c in own]
    sizes = _choices(args.sizes or "2k", list(SIZES), "--sizes")
    langs = _choices(args.langs or "zh,en", list(LANGS), "--langs")
    return generated(args, sizes, parse_seeds(args.seeds or "1-2"), langs, _choices)


def _preflight(model: ChatModel, where: str) -> None:
    """One tiny request, so an unreachable server is one sentence before anything runs (a
    summary call that fails is otherwise a placeholder summary, AgentScope's fail-open)."""
    from harness import Message, ModelError
    from harness.model import ChatRequest

    try:
        model.complete(ChatRequest((Message.user("ping"),), max_tokens=1, purpose="probe"))
    except ModelError as exc:
        raise _bad(f"The model server {where} did not answer ({exc}).") from None


def bench(args: argparse.Namespace, live_model: LiveModel) -> int:
    """Run the benchmark as ``args`` say; print the table; write CSV and Markdown. A run that
    failed every attempt is named, and the status is 2 (its table rows are missing)."""
    from experiments.x_bench.journal import RunJournal

    names = _condition_names(args)
    conversations = _conversations(args)
    server = _shown_url(args.base_url or "")
    grid = Grid.of(args, server or args.provider or "none")
    context = live_model(args, grid.limiter.observe) if args.provider else nullcontext(None)
    # the journal first: a second bench on the same --out is refused before a server starts
    with RunJournal(args.out, fresh=args.fresh) as journal:
        _say_resumed(journal)
        try:
            with context as model:
                if model is not None:
                    _preflight(model, server or args.provider)
                label = model.model_name if model is not None else "none"
                journal.model = f"{args.provider or 'none'}|{server}|{label}"
                outcome = play(args, grid, conversations, names, model, label, journal)
        except KeyboardInterrupt:
            _note(f"the runs finished so far are kept in {journal.path}: the same command goes "
                  "on from there")  # fmt: skip
            raise
        write_report(conversations, outcome.records, names, args.out)
        _write_shard(args, conversations, names, label, outcome.records)
    _warn(outcome.records)
    return _failed(outcome.failed, journal.path)


def _write_shard(
    args: argparse.Namespace,
    conversations: Sequence[Conversation],
    names: Sequence[str],
    label: str,
    records: Sequence[RunRecord],
) -> None:
    from experiments.x_bench.grid import parse_shard
    from experiments.x_bench.shards import ShardManifest, write_shard

    shard = parse_shard(args.shard) if args.shard else (1, 1)
    manifest = ShardManifest.of(conversations, names, f"{args.provider or 'none'}|{label}", shard)
    write_shard(args.out, manifest, conversations, records)


def _failed(failed: Sequence[Failure], journal: Path) -> int:
    if not failed:
        return 0
    runs = "; ".join(f"{f.conversation} {f.condition} ({f.error})" for f in failed)
    _note(f"{len(failed)} run(s) failed every attempt and are not in the tables: {runs}. Run "
          f"the same command again to play just those ({journal} keeps the rest).")  # fmt: skip
    return 2


def _shown_url(url: str) -> str:
    """``url`` as the journal keeps it and a message shows it: no user or password (a key may
    be the password); a query, which may hold a key too, as a digest of it, so servers that
    differ only there are still told apart."""
    import hashlib
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    query = hashlib.sha256(parts.query.encode()).hexdigest()[:12] if parts.query else ""
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, f"sha256-{query}" if query else "", ""))


def _condition_names(args: argparse.Namespace) -> list[str]:
    """The conditions asked for (all by default), those needing a model left out without a
    provider (asked for by name: one sentence)."""
    from experiments.x_bench.conditions import CONDITIONS

    known = list(CONDITIONS)
    names = _choices(args.conditions, known, "--conditions") if args.conditions else known
    if args.provider is None:
        needy = [n for n in names if CONDITIONS[n].needs_model]
        if args.conditions and needy:
            raise _bad(f"The conditions {', '.join(needy)} need a model: pass --provider.")
        names = [n for n in names if not CONDITIONS[n].needs_model]
    return names


def _warn(records: Sequence[RunRecord]) -> None:
    stopped = sum(r.stopped_at is not None for r in records)
    if stopped:
        _note(f"warning: the thrash guard stopped {stopped} run(s) before their last turn; "
              "see stopped_at in bench-runs.csv")  # fmt: skip
    failed = sum(r.failed_summaries for r in records)
    if failed:
        _note(f"warning: {failed} summary call(s) failed; see failed_summaries in "
              "bench-runs.csv")  # fmt: skip


def _say_resumed(journal: RunJournal) -> None:
    where = journal.path
    if journal.discarded:
        _note(f"--fresh: {journal.discarded} earlier line(s) of {where} discarded, unread")
    elif journal.kept:
        _note(f"{len(journal.kept)} run(s) in {where}: those of this bench are kept (--fresh "
              "plays them again)")  # fmt: skip
    if journal.torn:
        _note(f"{journal.torn} line(s) of {where} cut short by a stop were skipped; their runs "
              "play again")  # fmt: skip


def _note(line: str) -> None:
    print(f"ctxlab: {line}", file=sys.stderr, flush=True)


def _lines(conditions: Sequence[ConditionRecord], records: Sequence[RunRecord]) -> Iterator[str]:
    yield f"{'condition':<16} {'conv.':>5} {'survival [95% CI]':>20} {'answers':>8} {'carried':>8}"
    for c in conditions:
        if c.status != "run":
            continue
        runs = [r for r in records if r.condition == c.name]
        answered = [r for r in runs if r.correct is not None]
        facts = sum(r.questions for r in answered)  # an unanchored fact is no question judged
        answers = (
            f"{sum(r.correct or 0 for r in answered) / facts:.0%}" if answered and facts else "—"
        )
        share = f"{c.survival:.0%} [{c.low:.0%}, {c.high:.0%}]"
        # a condition that never compacted carried nothing forward: it kept everything
        carried = f"{c.mean_carried_tokens:.0f}" if c.compactions else "—"
        yield f"{c.name:<16} {c.conversations:>5} {share:>20} {answers:>8} {carried:>8}"
    never = Counter(r.condition for r in records if never_compacted(r))
    if never:
        which = ", ".join(f"{name} on {n}" for name, n in never.items())
        yield (f"{NEVER_COMPACTED}: {which} conversation(s); left out of the paired differences "
               "(no comparison at equal budget)")  # fmt: skip


def _run_note(run: RunRecord) -> str:
    return NEVER_COMPACTED if never_compacted(run) else ""


def write_report(
    conversations: Sequence[Conversation],
    records: Sequence[RunRecord],
    names: Sequence[str],
    out: Path,
) -> None:
    import dataclasses

    import pandas as pd

    from experiments.x_bench import scored_view
    from experiments.x_bench.conditions import budget_for
    from experiments.x_bench.page import bench_markdown
    from experiments.x_bench.view import BudgetRecord
    from harness.fs.files import write_atomic
    from lab import safe_text_columns

    # each budget once (conversations of your own, of any size, each get one from their tokens)
    used = [(c.size, budget_for(c.size, c.tokens)) for c in conversations]
    budgets = list(dict.fromkeys(BudgetRecord(s, b.trigger_tokens, b.keep_tokens) for s, b in used))
    view = scored_view(conversations, records, names, budgets)
    lines = list(_lines(view.conditions, records))
    print("\n".join(lines))
    out.mkdir(parents=True, exist_ok=True)
    runs = pd.DataFrame([dataclasses.asdict(r) | {"note": _run_note(r)} for r in records])
    kinds = pd.DataFrame([dataclasses.asdict(c) for c in [*view.by_kind, *view.by_band]])
    # the user's text (ids, sizes, bands, the model's name) is never a spreadsheet formula
    write_atomic(out / "bench-runs.csv", safe_text_columns(runs).to_csv(index=False))
    write_atomic(out / "bench-kinds.csv", safe_text_columns(kinds).to_csv(index=False))
    write_atomic(out / "bench.md", bench_markdown(view) + unanchored_markdown(conversations))
    print(f"wrote {out / 'bench-runs.csv'}, {out / 'bench-kinds.csv'} and {out / 'bench.md'}")
