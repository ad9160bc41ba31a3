"""Playing X-BENCH's grid (:mod:`experiments.x_bench.grid`): each run once, up to ``concurrency``
runs at a time, each run's own requests in order.

:func:`play_grid` plays every run the grid asks for that is not kept from an earlier bench
(``cached``) and whose condition gets a model where it needs one, in a thread pool over the
existing client (:mod:`concurrent.futures`). The records come back in the grid's order whatever
finished first, so the tables do not depend on the concurrency; ``finished`` (the journal) sees
each run as it is scored, in the order they finish. A run whose model calls fail (a lost
connection, a timeout, an error status that may pass) is played again from its start, at most
:data:`ATTEMPTS` times in all; then it is returned as failed, with its error, never dropped.

Every run's net tokens are counted against ``full``'s agent turns: those need no model (the
probe is not an agent turn), so a run of another condition gets them from a model-free ``full``
of its conversation, played once per conversation when no ``full`` run gave them first.

A condition that needs no model plays the same turns whatever model answers its probe (the model
is asked the probe only), so grids given the same :class:`FreeRuns` (``hooks.free_runs``: X-BENCH's
passes, model-free and once per recorded set) play each conversation under it once and ask each
pass's model only the probe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from experiments.x_bench.conditions import CONDITIONS, budget_for
from experiments.x_bench.grid import Cell, grid_cells
from experiments.x_bench.replay import ConversationRun, probed, run_conversation
from experiments.x_bench.schema import Conversation
from experiments.x_bench.scoring import score_run
from experiments.x_bench.suite import NO_MODEL, run_record
from experiments.x_bench.view import RunRecord
from harness import ModelError
from harness.errors import APIConnectionError, APIStatusError, ResponseFormatError
from harness.model import ChatModel

__all__ = [
    "ATTEMPTS",
    "Failure",
    "FreeRuns",
    "GridHooks",
    "GridOutcome",
    "play_grid",
    "run_all",
]

ATTEMPTS = 3
"""How often a run whose model calls failed is played, in all, before it is reported."""

ModelFor = Callable[[Conversation, str], ChatModel | None]
Cached = Callable[[Conversation, str], RunRecord | None]
"""An earlier run of a conversation under a condition (``ctxlab bench``'s journal), or None."""
Finished = Callable[[Conversation, RunRecord], None]
"""Called with each run as soon as it is scored (``ctxlab bench`` journals it)."""
Status = Callable[[int, int, int], None]
"""Called after each run ends with the runs done, running and in all."""


class FreeRuns:
    """Each conversation played once under each condition that needs no model, without a
    probe, shared by the grids that are given it (thread-safe)."""

    def __init__(self) -> None:
        self._runs: dict[tuple[str, str], ConversationRun] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()
        self.played = 0
        """How many conversations were played (each key once)."""

    def run(self, conversation: Conversation, name: str) -> ConversationRun:
        """``conversation`` under the model-free condition ``name``, as played the first time."""
        key = (conversation.id, name)
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._runs:
                budget = budget_for(conversation.size, conversation.tokens)
                self._runs[key] = run_conversation(conversation, CONDITIONS[name], budget)
                self.played += 1
            return self._runs[key]


@dataclass(frozen=True)
class GridHooks:
    progress: Callable[[str], None] | None = None
    cached: Cached | None = None
    finished: Finished | None = None
    status: Status | None = None
    concurrency: int = 1
    select: Callable[[Cell], bool] | None = None
    """Which runs of the grid to play (``--shard``); None: all."""
    free_runs: FreeRuns | None = None
    """Model-free plays shared with other grids; None: each run plays its own."""

    def say(self, line: str) -> None:
        if self.progress is not None:
            self.progress(line)


@dataclass(frozen=True)
class Failure:
    """A run that failed :data:`ATTEMPTS` times."""

    conversation: str
    condition: str
    error: ModelError


@dataclass
class GridOutcome:
    records: list[RunRecord] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[Failure] = field(default_factory=list)


@dataclass(frozen=True)
class _Task:
    index: int
    cell: Cell


Played = tuple[RunRecord, float] | Failure | None
"""A run's record and seconds, its failure, or None: it needed a model and got none."""


def run_all(
    conversations: Sequence[Conversation],
    conditions: Sequence[str],
    model_for: ModelFor,
    model_label: str,
    hooks: GridHooks | None = None,
) -> tuple[list[RunRecord], list[str]]:
    """Every run of the grid, serially unless ``hooks`` say otherwise; the conditions that
    needed a model and got none are returned as not run. A failed run raises its error."""
    outcome = play_grid(conversations, conditions, model_for, model_label, hooks or GridHooks())
    if outcome.failed:
        raise outcome.failed[0].error
    return outcome.records, outcome.skipped


def play_grid(
    conversations: Sequence[Conversation],
    conditions: Sequence[str],
    model_for: ModelFor,
    model_label: str,
    hooks: GridHooks,
) -> GridOutcome:
    """The grid's runs played (or kept) as :mod:`this module <experiments.x_bench.runs>` says."""
    cells = grid_cells(conversations, conditions)
    if hooks.select is not None:
        cells = [c for c in cells if hooks.select(c)]
    outcome = GridOutcome()
    done: dict[int, RunRecord] = {}
    tasks: list[_Task] = []
    for index, cell in enumerate(cells):
        kept = _kept(cell, hooks)
        if kept is not None:
            done[index] = kept
        else:
            tasks.append(_Task(index, cell))
    pool = _Pool(hooks, model_for, model_label, len(done))
    pool.play(tasks, done, outcome)
    outcome.records = [done[i] for i in sorted(done)]
    order = list(dict.fromkeys(c.condition for c in cells))
    outcome.skipped = sorted(pool.skipped, key=order.index)
    return outcome


def _kept(cell: Cell, hooks: GridHooks) -> RunRecord | None:
    """The run an earlier bench finished, said as kept; None: it plays."""
    found = hooks.cached(cell.conversation, cell.condition) if hooks.cached else None
    if found is not None:
        hooks.say(
            f"{cell.conversation.id} {cell.condition}: survival {found.survival:.0%} "
            "(kept: run before)"
        )
    return found


class _FullTurns:
    """Each conversation's agent-turn tokens under ``full``, played without a model at most once
    per conversation (thread-safe)."""

    def __init__(self, free_runs: FreeRuns | None = None) -> None:
        self.free_runs = free_runs
        self._turns: dict[str, list[int]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def of(self, conversation: Conversation) -> list[int]:
        with self._lock:
            lock = self._locks.setdefault(conversation.id, threading.Lock())
        with lock:
            if conversation.id not in self._turns:
                if self.free_runs is not None:
                    run = self.free_runs.run(conversation, "full")
                else:
                    budget = budget_for(conversation.size, conversation.tokens)
                    run = run_conversation(conversation, CONDITIONS["full"], budget)
                self._turns[conversation.id] = run.agent_prompt_tokens
            return self._turns[conversation.id]

    def put(self, conversation: Conversation, turns: list[int]) -> None:
        with self._lock:
            self._turns.setdefault(conversation.id, turns)


def _transient(error: ModelError) -> bool:
    """Whether a run failing with ``error`` may pass when played again."""
    if isinstance(error, APIConnectionError | ResponseFormatError):
        return True
    return isinstance(error, APIStatusError) and (
        error.status_code in (408, 409, 429) or error.status_code >= 500
    )


def _weight(task: _Task) -> int:
    """How long a run is likely to take: its conversation's tokens, twice for a condition that
    calls the summary model."""
    cell = task.cell
    return cell.conversation.tokens * (2 if CONDITIONS[cell.condition].needs_model else 1)


class _Pool:
    """Plays tasks, ``hooks.concurrency`` at a time; collects records and failures. A run's
    model is asked for just before it plays, in the thread that plays it (a replayed cassette
    is the one entered last)."""

    def __init__(self, hooks: GridHooks, model_for: ModelFor, label: str, kept: int) -> None:
        self.hooks, self.model_for, self.label = hooks, model_for, label
        self.full = _FullTurns(hooks.free_runs)
        self.finished = self.total = kept
        self.skipped: set[str] = set()

    def play(self, tasks: list[_Task], done: dict[int, RunRecord], outcome: GridOutcome) -> None:
        self.total += len(tasks)
        if self.hooks.concurrency <= 1:
            for task in tasks:
                self._collect(task, self._attempt_safely(task), done, outcome, running=0)
            return
        pool = ThreadPoolExecutor(self.hooks.concurrency, thread_name_prefix="bench-run")
        try:
            longest_first = sorted(tasks, key=_weight, reverse=True)  # no long run starts last
            pending = {pool.submit(self._attempt_safely, t): t for t in longest_first}
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    task = pending.pop(future)
                    running = min(len(pending), self.hooks.concurrency)
                    self._collect(task, future.result(), done, outcome, running)
        except BaseException:  # Ctrl-C: no queued run starts; the running ones end by themselves
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)

    def _collect(
        self, task: _Task, result: Played, done: dict[int, RunRecord], outcome: GridOutcome,
        running: int,
    ) -> None:  # fmt: skip
        """A run's end, in the calling (main) thread: journaled, said, counted."""
        cell = task.cell
        where = f"{cell.conversation.id} {cell.condition}"
        if result is None:
            self.skipped.add(cell.condition)
            self.total -= 1
            return
        if isinstance(result, Failure):
            outcome.failed.append(result)
            self.hooks.say(f"{where}: failed {ATTEMPTS} time(s), left out ({result.error})")
        else:
            record, seconds = result
            done[task.index] = record
            if self.hooks.finished is not None:
                self.hooks.finished(cell.conversation, record)
            stop = "" if record.stopped_at is None else (
                f", stopped by the thrash guard at turn {record.stopped_at}"
            )  # fmt: skip
            self.hooks.say(f"{where}: survival {record.survival:.0%}{stop} ({seconds:.1f} s)")
        self.finished += 1
        if self.hooks.status is not None:
            self.hooks.status(self.finished, running, self.total)

    def _attempt_safely(self, task: _Task) -> Played:
        """``task`` played, again after a transient model error, :data:`ATTEMPTS` times at most;
        None when it needs a model and gets none."""
        cell = task.cell
        model = self.model_for(cell.conversation, cell.condition)
        if CONDITIONS[cell.condition].needs_model and model is None:
            return None
        for attempt in range(1, ATTEMPTS + 1):
            if attempt > 1:  # a fresh model: a run played again is its requests from the start
                model = self.model_for(cell.conversation, cell.condition)
            try:
                return self._play(cell, model)
            except ModelError as error:
                if attempt == ATTEMPTS or not _transient(error):
                    return Failure(cell.conversation.id, cell.condition, error)
                self.hooks.say(
                    f"{cell.conversation.id} {cell.condition}: attempt {attempt} of "
                    f"{ATTEMPTS} failed ({error}); playing it again from its start"
                )
        raise AssertionError("unreachable")  # pragma: no cover

    def _play(self, cell: Cell, model: ChatModel | None) -> tuple[RunRecord, float]:
        conversation, name = cell.conversation, cell.condition
        started = time.perf_counter()
        run = self._conversation_run(conversation, name, model)
        if name == "full":
            self.full.put(conversation, run.agent_prompt_tokens)
            full_turns = run.agent_prompt_tokens
        else:
            full_turns = self.full.of(conversation)
        score = score_run(conversation, run)
        label = self.label if model is not None else NO_MODEL
        record = run_record(conversation, name, label, run, score, full_turns)
        return record, time.perf_counter() - started

    def _conversation_run(
        self, conversation: Conversation, name: str, model: ChatModel | None
    ) -> ConversationRun:
        """The run: played here, or a model-free one's shared play with the probe asked of
        ``model``."""
        free_runs = self.hooks.free_runs
        if free_runs is None or CONDITIONS[name].needs_model:
            budget = budget_for(conversation.size, conversation.tokens)
            return run_conversation(conversation, CONDITIONS[name], budget, model)
        return probed(conversation, free_runs.run(conversation, name), model)
