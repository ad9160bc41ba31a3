"""Run experiments and write what they measured: ``<id>.json`` and ``claims.csv``.

An experiment that cannot run (a missing cassette, say) does not stop the others: every
experiment that can run runs, and the reports are built in a staging folder and moved into place
together (:mod:`lab.staging`), so a failure never leaves new files beside old ones.

With ``jobs`` of 2 or more the experiments replay side by side in forked worker processes
(:mod:`lab.parallel`), and so are the plots rendered; the results, the files and the
order of the progress lines are those of a run one after the other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab.cassette_sets import model_label
from lab.claims import claims_frame, merge_claims, read_claims, write_claims
from lab.claims.reason_classes import classified
from lab.errors import ExperimentError
from lab.experiment import ExperimentResult, RunSettings, write_json
from lab.gc_tuning import fewer_collections
from lab.parallel import in_order, workers_for
from lab.registry import EXPERIMENTS, experiment_ids
from lab.staging import staged

if TYPE_CHECKING:  # the report (pandas, matplotlib) is imported when reports are built
    from lab.report.tables import ClaimCounts

__all__ = [
    "RunSummary",
    "combine_sets",
    "record_experiments",
    "run_experiments",
    "run_one",
    "select",
    "write_results",
]


@dataclass(frozen=True)
class RunSummary:
    """The outcome of one ``ctxlab run``: what ran, and the counts of the whole claims table."""

    results: tuple[ExperimentResult, ...]
    counts: ClaimCounts
    failures: tuple[tuple[str, str], ...] = ()
    """``(experiment id, why it could not run)`` for each experiment that could not run."""

    def line(self) -> str:
        return self.counts.line()

    def failure_lines(self) -> list[str]:
        """One sentence per experiment that could not run."""
        return [f"{key} could not run: {why}" for key, why in self.failures]


def select(ids: Sequence[str]) -> list[str]:
    """The experiments to run, in report order; all of them when ``ids`` is empty."""
    wanted = [i.upper() for i in ids] or experiment_ids()
    unknown = [i for i in wanted if i not in EXPERIMENTS]
    if unknown:
        raise ExperimentError(
            f"Unknown experiment {', '.join(unknown)}; known: {', '.join(experiment_ids())}."
        )
    return [i for i in experiment_ids() if i in wanted]


def run_experiments(
    ids: Sequence[str], out_dir: Path, settings: RunSettings, jobs: int = 1, force: bool = False
) -> RunSummary:
    """Run the experiments, write their JSON, merge their claims into ``claims.csv`` and build
    the reports, all moved into ``out_dir`` together once everything is written; ``jobs``
    worker processes side by side (:mod:`lab.parallel`); ``force`` replaces an
    ``out_dir`` that is not a reports folder of ours (:func:`~lab.staging.staged`).

    An experiment raising :class:`ExperimentError` is reported in :attr:`RunSummary.failures`
    and the others still run; when none ran, ``out_dir`` is left as it was. The whole run
    collects garbage less often (:func:`~lab.gc_tuning.fewer_collections`).
    """
    chosen = select(ids)
    with staged(out_dir, force=force) as stage:
        if workers_for(jobs, len(chosen)):
            _import_before_forking(settings)
        with fewer_collections():  # what is imported by now is frozen, in the workers too
            results, failures = _run_each(chosen, settings, jobs)
            if results:
                summary = write_results(  # the commit syncs the staged files: written plainly
                    results, stage.folder, jobs, settings.cassette_root, durable=False
                )
            else:
                from lab.report.tables import count_claims

                stage.discard()
                summary = RunSummary((), count_claims(read_claims(stage.folder / "claims.csv")))
    return dataclasses.replace(summary, failures=tuple(failures))


def _import_before_forking(settings: RunSettings) -> None:
    """Import here, once, what each forked worker would import for itself: the replay's
    recorder (vcrpy, httpx) and the report (pandas, matplotlib and numpy, which X-BENCH's
    scoring reads; this process imports it after the run anyway). The workers start with it
    (:mod:`lab.parallel`), and the collector's freeze covers it: a ``ctxlab run`` imported
    vcrpy's chain in both workers and numpy in X-BENCH's (issue 48)."""
    from lab.report import preload

    preload()
    if settings.mode == "replay":
        import lab.recorder.cassette  # noqa: F401


@dataclass(frozen=True)
class _Outcome:
    """One experiment's run, as a worker hands it back: its result or why it could not run,
    and the progress lines it printed."""

    experiment: str
    result: ExperimentResult | None
    error: str
    lines: tuple[str, ...]


def _run_quietly(job: tuple[str, RunSettings]) -> _Outcome:
    """:func:`run_one`, its progress lines kept for the parent to print in report order."""
    experiment_id, settings = job
    lines: list[str] = []
    try:
        result = run_one(experiment_id, dataclasses.replace(settings, progress=lines.append))
    except ExperimentError as error:
        return _Outcome(experiment_id, None, str(error), tuple(lines))
    return _Outcome(experiment_id, result, "", tuple(lines))


def _run_each(
    chosen: Sequence[str], settings: RunSettings, jobs: int = 1
) -> tuple[list[ExperimentResult], list[tuple[str, str]]]:
    results, failures = [], []
    # the callback stays here (it need not pickle); each worker collects its own lines
    sendable = dataclasses.replace(settings, progress=print)
    jobs_of = [(experiment_id, sendable) for experiment_id in chosen]
    for outcome in in_order(_run_quietly, jobs_of, jobs, lambda j: EXPERIMENTS[j[0]].weight):
        for line in outcome.lines:
            settings.progress(line)
        if outcome.result is not None:
            results.append(outcome.result)
        else:
            settings.progress(f"{outcome.experiment}  could not run")
            failures.append((outcome.experiment, outcome.error))
    return results, failures


def run_one(experiment_id: str, settings: RunSettings) -> ExperimentResult:
    """Run one experiment, once per recorded set of cassettes
    (:mod:`lab.cassette_sets`), and print one line per run; the claims of every set come
    back together, each with its model, and the result carries the experiment's version."""
    experiment = EXPERIMENTS[experiment_id]
    sets: list[str | None] = [None]
    if experiment.needs_cassettes and settings.mode == "replay" and settings.cassette_set is None:
        sets = list(experiment.sets(settings.cassette_root)) or [None]
    results = []
    for chosen in sets:
        result = experiment.run(dataclasses.replace(settings, cassette_set=chosen))
        matched = sum(c.status == "match" for c in result.claims)
        settings.progress(
            f"{experiment_id}  {experiment.title}: {matched}/{len(result.claims)} claims match "
            f"[{result.source}]"
        )
        results.append(result)
    return dataclasses.replace(combine_sets(results), version=experiment.version)


def combine_sets(results: Sequence[ExperimentResult]) -> ExperimentResult:
    """One experiment's results, one per recorded set, as one: every claim carries its set's
    model; the first set's data is the experiment's, the others' ride along in
    :attr:`ExperimentResult.per_model`."""
    sources = [r.source for r in results]
    labelled = [(model_label(r.source, sources), r) for r in results]
    claims = tuple(  # a claim the experiment judged on one recorded model keeps it (X-BENCH)
        dataclasses.replace(claim, model=claim.model or label)
        for label, r in labelled
        for claim in r.claims
    )
    first = results[0]
    return dataclasses.replace(
        first,
        claims=claims,
        provenance=tuple(p for r in results for p in r.provenance),
        per_model=tuple((label, r.data) for label, r in labelled[1:]),
    )


def write_results(
    results: Sequence[ExperimentResult],
    out_dir: Path,
    jobs: int = 1,
    cassettes: Path | None = None,
    durable: bool = True,
) -> RunSummary:
    """Write each result's ``<id>.json``, merge its claims into ``out_dir/claims.csv`` (rows
    of the other experiments are kept, with the version they were measured at) and rebuild the
    reports of ``out_dir`` (its plots rendered by ``jobs`` workers, its evidence pages read from
    ``cassettes``, the project's by default; written plainly, not synced, unless ``durable``:
    :func:`~lab.report.build_reports`). Each file and row carries the version of the
    experiment that measured it."""
    for result in results:
        write_json(out_dir / f"{result.experiment}.json", versioned(result.data, result.version))
        for label, data in result.per_model:
            write_json(
                out_dir / f"{result.experiment}@{label}.json", versioned(data, result.version)
            )
    fresh = claims_frame(classified(c for r in results for c in r.claims))
    fresh["version"] = fresh["experiment"].map({r.experiment: r.version for r in results})
    claims_path = out_dir / "claims.csv"
    merged = merge_claims(read_claims(claims_path), fresh, experiment_ids())
    write_claims(merged, claims_path)
    from lab.report.tables import count_claims

    build_reports(out_dir, jobs, cassettes, durable=durable)
    return RunSummary(tuple(results), count_claims(merged))


def versioned(data: dict[str, Any], version: int | None) -> dict[str, Any]:
    """``data`` with the experiment's ``version`` after its ``experiment`` key (first when it
    has none), as Inspect's eval log and lm-eval's results carry the task's version."""
    head = {"experiment": data["experiment"]} if "experiment" in data else {}
    return {**head, "version": version, **data}


def record_experiments(ids: Sequence[str], settings: RunSettings) -> list[str]:
    """Run the cassette-backed experiments live, writing their cassettes; returns their ids:
    ``settings.concurrency`` cassettes or experiments at once, only ``settings.shard``'s when
    set (:mod:`lab.record_pool`).

    Scripted experiments have nothing to record and are skipped with a note.
    """
    from lab.record_pool import record_all

    return record_all(select(ids), settings)


def build_reports(
    out_dir: Path, jobs: int = 1, cassettes: Path | None = None, *, durable: bool = True
) -> list[Path]:
    """:func:`lab.report.build_reports`, imported here when reports are built: a run refused
    before anything ran never imports the report (pandas, matplotlib)."""
    from lab.report import build_reports as build

    return build(out_dir, jobs, cassettes, durable=durable)
