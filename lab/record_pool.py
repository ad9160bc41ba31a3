"""Record experiments' cassettes side by side: the code behind ``ctxlab record --concurrency N``
and ``--shard i/n``.

A recording is a list of jobs in one fixed order: an experiment that records its cassettes one
at a time (X-BENCH, :attr:`~lab.experiment.Experiment.record_plan`) gives one job per
cassette of its plan that is not there yet (a cassette already recorded is kept unless
``--force``), any other experiment one job that runs it whole. ``--shard i/n`` keeps the jobs
whose digest falls to shard ``i`` (:mod:`lab.record_shards`). The jobs run N at a
time in forked worker processes (:func:`lab.parallel.in_order`; vcrpy patches httpx
for a whole process, so threads could not record side by side), the longest first, and their
progress lines are printed in the plan's order: what a recording prints and the cassettes it
writes (but for their ``recorded_at``) do not depend on N.

A cassette that fails (a model error, a request never answered, another recorder holding it) is
left out and the others go on; the recording then ends with one sentence naming the cassettes
left out. An experiment recorded whole that fails stops the recording, as it did one at a time.
Where a worker cannot be forked (a process with other threads, such as one that started a local
llama.cpp server) the jobs run one after the other here, their lines printed as they come.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness import CtxlabError, ModelError
from harness.errors import APIConnectionError
from lab.errors import CassetteBusyError, RecordingIncompleteError
from lab.experiment import RunSettings
from lab.parallel import in_order, workers_for
from lab.record_shards import in_shard

__all__ = ["RecordJob", "RecordPlan", "Recorded", "record_all"]

WHOLE_WEIGHT = 1e9
"""An experiment recorded whole is one long chain of requests: it starts first."""


@dataclass(frozen=True)
class RecordPlan:
    """What an experiment that records one cassette at a time would record, in order."""

    label: str
    """How its progress lines name the plan (X-BENCH: ``all``, ``slice 3/33``, …)."""
    cassettes: tuple[str, ...]
    weights: tuple[float, ...] = ()
    """How long each cassette is likely to take (the longest start first); empty: alike."""


@dataclass(frozen=True)
class RecordJob:
    """One cassette of an experiment's plan, or (``cassette`` empty) a whole experiment."""

    experiment: str
    cassette: str = ""
    number: int = 1
    """Its place in the experiment's plan (1-based), of :attr:`total`."""
    total: int = 1
    weight: float = WHOLE_WEIGHT

    @property
    def where(self) -> str:
        return f"{self.experiment} [{self.number}/{self.total}] {self.cassette}"


@dataclass
class Recorded:
    """A job's outcome as a worker hands it back (plain, picklable)."""

    seconds: float
    error: str | None = None
    fatal: bool = False
    """The error stops the recording (an experiment recorded whole failed)."""
    blocks: bool = False
    """The error left the local server busy: the recording stops (:func:`_blocks_the_server`)."""
    lines: tuple[str, ...] = ()
    """The progress lines the job printed, when a worker ran it (else they were printed live)."""
    raised: BaseException | None = field(default=None, repr=False)
    """The error itself, when the job ran in this process (it is not sent between processes)."""

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "raised": None}


@dataclass
class _Experiment:
    """One experiment's part of a recording: the lines before its jobs, and its jobs."""

    id: str
    before: list[str]
    jobs: list[RecordJob]
    label: str = ""
    """The plan's label for an experiment recorded one cassette at a time; "" when whole."""
    records: bool = True
    """Whether it counts as recorded (False: it had nothing to record)."""


def record_all(ids: Sequence[str], settings: RunSettings) -> list[str]:
    """Record the experiments ``ids`` (known ids, in report order:
    :func:`lab.runner.select`), ``settings.concurrency`` jobs at a time, only
    ``settings.shard``'s when set; returns the ids recorded."""
    plans = [_plan(experiment_id, settings) for experiment_id in ids]
    jobs = [job for plan in plans for job in plan.jobs]
    live = not workers_for(settings.concurrency, len(jobs))
    sendable = settings if live else dataclasses.replace(settings, progress=print)
    items = [(sendable, job, live) for job in jobs]
    outcomes = in_order(_record_job, items, settings.concurrency, lambda item: item[1].weight)
    started, failed, stopped = time.monotonic(), [], False
    try:
        for plan in plans:
            for line in plan.before:
                settings.progress(line)
            lost, stopped = _report(plan, outcomes, settings.progress)
            failed += lost
            if plan.label:
                elapsed = time.monotonic() - started
                settings.progress(f"{plan.id} {plan.label} recorded in {elapsed:.1f} s")
            if stopped:
                break
    finally:
        outcomes.close()  # an early stop cancels the jobs not started
    if failed:
        raise _not_recorded(plans, failed, stopped)
    return [plan.id for plan in plans if plan.records]


def _plan(experiment_id: str, settings: RunSettings) -> _Experiment:
    """The experiment's jobs (``settings.shard``'s only) and the lines printed before them."""
    from lab.registry import EXPERIMENTS
    from lab.variants import cassette_variant

    experiment = EXPERIMENTS[experiment_id]
    if not experiment.needs_cassettes and not experiment.records:
        note = f"{experiment_id}  scripted; nothing to record"
        return _Experiment(experiment_id, [note], [], "", False)
    if experiment.cassettes_of:
        note = f"{experiment_id}  replays {experiment.cassettes_of}'s cassettes; nothing to record"
        return _Experiment(experiment_id, [note], [], "", False)
    if settings.variant and not cassette_variant(experiment_id, settings.variant):
        note = (
            f"{experiment_id}  the {settings.variant} variant changes none of its requests; "
            "its plain cassettes serve (nothing to record)"
        )
        return _Experiment(experiment_id, [note], [], "", False)
    model = settings.provider.model if settings.provider is not None else ""
    if experiment.record_plan is None:
        if in_shard(experiment_id, "", model, settings.shard):
            return _Experiment(experiment_id, [], [RecordJob(experiment_id)])
        assert settings.shard is not None
        note = f"{experiment_id}  in another shard than {settings.shard[0]}/{settings.shard[1]}"
        return _Experiment(experiment_id, [note], [], "", False)
    return _cassettes_plan(experiment_id, experiment.record_plan(settings), model, settings)


def _cassettes_plan(
    experiment_id: str, plan: RecordPlan, model: str, settings: RunSettings
) -> _Experiment:
    """The jobs of an experiment recorded one cassette at a time: its plan's cassettes of the
    shard that are not recorded yet (or all of them with ``force``)."""
    total = len(plan.cassettes)
    weights = plan.weights or (1.0,) * total
    before, jobs = [], []
    for number, (name, weight) in enumerate(zip(plan.cassettes, weights, strict=True), 1):
        if not in_shard(experiment_id, name, model, settings.shard):
            continue
        job = RecordJob(experiment_id, name, number, total, weight)
        if settings.cassette_path(experiment_id, name).is_file() and not settings.force:
            before.append(f"{job.where}: kept (already recorded)")
        else:
            jobs.append(job)
    shard = f" (shard {settings.shard[0]}/{settings.shard[1]})" if settings.shard else ""
    header = f"{experiment_id} {plan.label}{shard}: {len(jobs) + len(before)} cassette(s)"
    return _Experiment(experiment_id, [header, *before], jobs, plan.label)


def _report(
    plan: _Experiment, outcomes: Any, progress: Callable[[str], None]
) -> tuple[list[str], bool]:
    """Print the outcomes of ``plan``'s jobs as they come, in order; returns the cassettes left
    out and whether the recording stops. An experiment recorded whole that failed raises."""
    failed: list[str] = []
    for job in plan.jobs:
        done: Recorded = next(outcomes)
        for line in done.lines:
            progress(line)
        if done.error is None:
            if job.cassette:
                progress(f"{job.where}: {done.seconds:.1f} s")
            continue
        if done.fatal:
            raise done.raised or RecordingIncompleteError(done.error)
        failed.append(job.cassette)
        progress(f"{job.where}: not recorded{'' if done.blocks else ', going on'} ({done.error})")
        if done.blocks:  # one model call that never ends must not cost the rest of hours
            return failed, True
    return failed, False


def _record_job(item: tuple[RunSettings, RecordJob, bool]) -> Recorded:
    """Record one job (in a worker process, or here when ``live``: lines printed as they come)."""
    settings, job, live = item
    lines: list[str] = []
    if not live:
        settings = dataclasses.replace(settings, progress=lines.append)
    began = time.monotonic()
    try:
        _run_job(settings, job)
    except (ModelError, RecordingIncompleteError, CassetteBusyError) as error:
        blocks = bool(job.cassette) and _blocks_the_server(settings, error)
        return _failed(began, error, lines, fatal=not job.cassette, blocks=blocks)
    except CtxlabError as error:
        return _failed(began, error, lines, fatal=True)
    return Recorded(time.monotonic() - began, lines=tuple(lines))


def _failed(
    began: float, error: CtxlabError, lines: list[str], *, fatal: bool, blocks: bool = False
) -> Recorded:
    seconds = time.monotonic() - began
    return Recorded(seconds, str(error), fatal, blocks, tuple(lines), raised=error)


def _run_job(settings: RunSettings, job: RecordJob) -> None:
    from lab.registry import EXPERIMENTS

    experiment = EXPERIMENTS[job.experiment]
    if job.cassette:
        assert experiment.record_one is not None
        experiment.record_one(settings, job.cassette)
        return
    started = time.monotonic()
    settings.progress(f"{job.experiment}  recording: {experiment.title}")
    experiment.run(settings)
    settings.progress(f"{job.experiment}  recorded in {time.monotonic() - started:.1f} s")


def _blocks_the_server(settings: RunSettings, error: Exception) -> bool:
    """A request that got no answer from a local server ctxlab started: the server (one
    request at a time, no cancel) goes on writing that answer, so every later request of the
    recording would wait behind it and time out too; or the server is gone."""
    return settings.server_info is not None and isinstance(
        error, APIConnectionError | RecordingIncompleteError
    )


def _not_recorded(
    plans: Sequence[_Experiment], failed: list[str], stopped: bool
) -> RecordingIncompleteError:
    why = (
        " The local server was still writing the answer that timed out (or was gone), so the "
        "rest of the slice would have waited behind it: the slice stopped there; --max-tokens "
        "cuts a model that never stops."
        if stopped
        else ""
    )
    which = ", ".join(p.id for p in plans if p.label and set(failed) & {j.cassette for j in p.jobs})
    return RecordingIncompleteError(
        f"{which}: {len(failed)} cassette(s) of the slice were not recorded "
        f"({', '.join(failed)}).{why} Run the same command again to retry them (recorded ones "
        "are kept), with more time (--read-timeout, --timeout) if they timed out."
    )
