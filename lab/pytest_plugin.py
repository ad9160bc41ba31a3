"""pytest plugin: every claim of the committed claims table is a test, judged against it.

``tests/experiments/test_claims.py`` holds ``test_claim``, parametrised here with one item per row
of the
baseline (``reports/claims.csv``), its id the claim's key: the claim id and, for a recorded
claim, the model (``test_claim[<claim-id>@<model>]``; a scripted
claim is its bare id, ``test_claim[<claim-id>]``). An item
runs its experiment (once per session, only when a selected item needs it) and compares the
reproduced claim with its row (:mod:`lab.baseline`):

- baseline ``match``, still ``match``: pass;
- baseline ``differs``, still ``differs``: ``xfail(strict=True)``, the row's note as reason;
- another status, or another value of a structural claim: a failure whose one line names the
  claim, the baseline and the new value.

``test_claims_complete[E3]`` fails when an experiment produces a claim the baseline lacks.

Options (``pytest --help``, group *ctxlab*): ``--record-mode=none`` (the default: replay, the
network blocked) or ``rewrite`` with ``--provider`` re-records the selected experiments'
cassettes before judging them (the option names pytest-recording uses); ``--report-dir`` writes
the reports of the run (default: a temporary folder, compared with the baseline's folder and
never written over it); ``--update-baseline`` accepts the changes by rewriting the baseline's
folder, as ``ctxlab run`` does. ``--cassette-match order`` serves the recorded answers in
recorded order without matching the requests (mutation testing, :mod:`lab.mutations`):
not a reproduction, so it refuses ``--update-baseline`` and a ``--report-dir`` that is the
baseline's folder, and its header and summary lines say so.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from lab.pytest_checks import (
    could_not_run,
    differing_files,
    preflight_or_usage_error,
    refuse_order_writes,
)
from lab.pytest_options import RECORD_MODES, pytest_addoption

if TYPE_CHECKING:
    from lab.baseline import ClaimChange
    from lab.experiment import ExperimentResult
    from lab.recording import Recording

# The suite (pandas, experiments) is imported where used: a record mode that cannot run fails first.

CLAIM_PARAM = "claim_row"
EXPERIMENT_PARAM = "claims_experiment"


class KnownDifference(AssertionError):
    """A claim the baseline lists as ``differs`` still differs (the expected failure)."""


# --- options: lab/pytest_options.py (pluggy finds pytest_addoption by its name here)

__all__ = ["pytest_addoption"]


def pytest_configure(config: pytest.Config) -> None:
    mode = config.getoption("record_mode") or "none"
    if mode not in RECORD_MODES:
        raise pytest.UsageError(f"--record-mode={mode} is not supported here; use none or rewrite.")
    if mode == "rewrite" and not config.getoption("provider"):
        raise pytest.UsageError("--record-mode=rewrite needs --provider local|deepseek|...")
    if config.getoption("cassette_match") == "order":
        refuse_order_writes(config)
    session = config.stash[SESSION] = ClaimSession(config, mode)
    whole_run = [
        name
        for name, given in (
            ("--record-mode=rewrite", mode == "rewrite"),
            ("--update-baseline", session.update),
            ("--report-dir", config.getoption("report_dir") is not None),
        )
        if given
    ]
    if session.distributed and whole_run:
        raise pytest.UsageError(
            f"{', '.join(whole_run)} works on the whole run, which no pytest-xdist worker has: "
            "run it without -n."
        )
    if not config.pluginmanager.hasplugin("xdist"):  # the marker is xdist's own
        config.addinivalue_line("markers", "xdist_group(name): run on one pytest-xdist worker")
    if mode == "rewrite" and not config.option.collectonly:
        preflight_or_usage_error(
            session.recording_options(), ()
        )  # a missing key fails before anything is collected


def pytest_collection_finish(session: pytest.Session) -> None:
    claims = session.config.stash[SESSION]
    if claims.mode == "rewrite" and not session.config.option.collectonly:
        from lab.recording import recordable

        wanted = recordable(_needed(session.items))
        if wanted:
            preflight_or_usage_error(claims.recording_options(), wanted, check_key=False)


# --- collection ----------------------------------------------------------------------------


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    from lab.baseline import claim_key
    from lab.registry import experiment_ids

    session = metafunc.config.stash[SESSION]
    if CLAIM_PARAM in metafunc.fixturenames:
        rows = session.baseline()
        params = [pytest.param(row, id=claim_key(row), marks=session.marks(row)) for row in rows]
        metafunc.parametrize(CLAIM_PARAM, params)
    if EXPERIMENT_PARAM in metafunc.fixturenames:
        listed = [row["experiment"] for row in session.baseline()]
        ids = list(dict.fromkeys([*experiment_ids(), *listed]))
        params = [pytest.param(i, id=i, marks=[_together(i)]) for i in ids]
        metafunc.parametrize(EXPERIMENT_PARAM, params)


def _together(experiment_id: str) -> pytest.MarkDecorator:
    """Under pytest-xdist's ``--dist loadgroup``, an experiment's items run on one worker, so
    each experiment runs once per session, not once per worker."""
    return pytest.mark.xdist_group(experiment_id)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each claim answers ``-k`` to its experiment too (a claim's id need not start with its
    experiment's), and to its model."""
    for item in items:
        params = getattr(item, "callspec", None)
        if params is not None and CLAIM_PARAM in params.params:
            row = params.params[CLAIM_PARAM]
            item.extra_keyword_matches.add(row["experiment"])
            if row.get("model"):
                item.extra_keyword_matches.add(row["model"])


@pytest.fixture(scope="session")
def ctxlab_claims(request: pytest.FixtureRequest) -> ClaimSession:
    """The session's claims: experiments run once, judged against the baseline."""
    return request.config.stash[SESSION]


# --- running -------------------------------------------------------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """With ``--record-mode=rewrite``, re-record what the selected claims need, first."""
    claims = session.config.stash[SESSION]
    if claims.mode == "rewrite" and not session.config.option.collectonly:
        claims.rerecord(_needed(session.items))


def _needed(items: list[pytest.Item]) -> list[str]:
    from lab.registry import experiment_ids

    wanted: set[str] = set()
    for item in items:
        params = getattr(item, "callspec", None)
        if params is None:
            continue
        if CLAIM_PARAM in params.params:
            wanted.add(params.params[CLAIM_PARAM]["experiment"])
        if EXPERIMENT_PARAM in params.params:
            wanted.add(params.params[EXPERIMENT_PARAM])
    return [i for i in experiment_ids() if i in wanted]


def pytest_sessionfinish(session: pytest.Session) -> None:
    session.config.stash[SESSION].write_reports()


def pytest_report_header(config: pytest.Config) -> str | None:
    if config.getoption("cassette_match") == "order":
        from lab.recorder.order_replay import NOT_A_REPRODUCTION

        return f"ctxlab: {NOT_A_REPRODUCTION}"
    return None


def pytest_terminal_summary(terminalreporter: Any) -> None:
    claims = terminalreporter.config.stash[SESSION]
    lines = [*claims.summary, *claims.stale_lines()]
    if lines:
        terminalreporter.section("ctxlab claims")
        for line in lines:
            terminalreporter.write_line(line)


class ClaimSession:
    """The experiments of one pytest session, run at most once each, and their judgement."""

    def __init__(self, config: pytest.Config, mode: str) -> None:
        self.config = config
        self.mode = mode
        self.update: bool = config.getoption("update_baseline")
        self.baseline_path = Path(config.getoption("baseline")).resolve()
        self.cassettes = Path(config.getoption("cassettes"))
        self.rows: list[dict[str, str]] = []
        self.results: dict[str, ExperimentResult] = {}
        self.errors: dict[str, BaseException] = {}
        self.accepted: list[ClaimChange] = []
        self.summary: list[str] = []
        self.stale: list[str] = []
        self.distributed = bool(getattr(config.option, "numprocesses", None)) or hasattr(
            config, "workerinput"
        )
        """Under pytest-xdist each worker runs part of the claims: no worker has the whole
        run's reports, so none are written or compared (``ctxlab run`` writes them)."""
        """Experiments that replay what this run re-recorded but were not selected."""

    def baseline(self) -> list[dict[str, str]]:
        from lab.baseline import read_baseline

        if not self.rows:
            self.rows = read_baseline(self.baseline_path)
        return self.rows

    def marks(self, row: dict[str, str]) -> list[pytest.MarkDecorator]:
        """The claim's kind as a marker (when the table has kinds), and the expected failure
        of a known difference."""
        marks = [_together(row["experiment"])]
        kind = re.sub(r"\W+", "_", row.get("kind", "").strip()).strip("_").lower()
        if kind:
            self.config.addinivalue_line("markers", f"{kind}: claims of kind {row['kind']}")
            marks.append(getattr(pytest.mark, kind))
        if row["status"] == "differs" and not self.update:
            reason = row.get("note") or "differs from the article"
            marks.append(pytest.mark.xfail(strict=True, raises=KnownDifference, reason=reason))
        return marks

    # --- experiments

    def rerecord(self, ids: list[str]) -> None:
        """Record the cassettes of ``ids`` live; a failure is kept for their claims to show."""
        from harness import CtxlabError
        from lab.recording import dependents, record, recordable

        source = self.source()
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        say = reporter.write_line if reporter else print
        wanted = recordable(ids)
        if not wanted:
            return
        say(f"ctxlab: re-recording {', '.join(wanted)} from {source.provider}")
        try:
            record(wanted, source, self.cassettes, force=True, progress=say)
        except CtxlabError as exc:
            for experiment_id in wanted:
                self.errors[experiment_id] = CtxlabError(f"could not be re-recorded: {exc}")
            return
        self.stale = [i for i in dependents(wanted, self.cassettes) if i not in ids]

    def source(self) -> Recording:
        """Where ``--record-mode=rewrite`` records from, as the options say."""
        from lab.recording import Recording

        return Recording(*self.recording_options())

    def recording_options(self) -> tuple[str, str | None, str | None, str | None]:
        """``--provider``, ``--model``, ``--base-url`` and ``--api-key-env``."""
        return (
            self.config.getoption("provider"),
            self.config.getoption("ctxlab_model"),
            self.config.getoption("ctxlab_base_url"),
            self.config.getoption("ctxlab_api_key_env"),
        )

    def result(self, experiment_id: str) -> ExperimentResult:
        """The experiment's result, run on first use (a failure fails each of its claims)."""
        from harness import CtxlabError
        from lab.experiment import RunSettings
        from lab.registry import EXPERIMENTS
        from lab.runner import run_one

        if experiment_id not in self.results and experiment_id not in self.errors:
            if experiment_id not in EXPERIMENTS:
                self.errors[experiment_id] = CtxlabError("is not a registered experiment")
            else:
                settings = RunSettings(
                    cassette_root=self.cassettes,
                    progress=lambda line: None,
                    cassette_match=self.config.getoption("cassette_match"),
                )
                try:
                    self.results[experiment_id] = run_one(experiment_id, settings)
                except CtxlabError as exc:
                    self.errors[experiment_id] = exc
        error = self.errors.get(experiment_id)
        if error is not None:
            pytest.fail(f"{experiment_id} {could_not_run(error)}", pytrace=False)
        return self.results[experiment_id]

    def stale_lines(self) -> list[str]:
        """What to run next when this run re-recorded cassettes that unselected experiments
        replay (their claims were not judged, and reports/ still holds their old rows)."""
        if not self.stale:
            return []
        names = ", ".join(self.stale)
        selection = " or ".join(self.stale)
        return [
            f"{names} replay the cassettes re-recorded here and were not judged in this run: "
            f'run `pytest -k "{selection}"` to judge them, and `ctxlab run` to rewrite reports/'
        ]

    # --- judging

    def check(self, row: dict[str, str]) -> None:
        """Judge one claim against its baseline row (the body of ``test_claim``)."""
        from lab.baseline import ClaimChange, claim_change, claim_key, claim_row, shown

        result = self.result(row["experiment"])
        fresh = {claim_key(claim_row(claim)): claim_row(claim) for claim in result.claims}
        new = fresh.get(claim_key(row))
        if new is None:
            gone = ClaimChange(claim_key(row), shown(row), "absent", "gone")
            if not self.update:
                pytest.fail(gone.line(), pytrace=False)
            self.accepted.append(gone)
            return
        change = claim_change(row, new)
        if change is not None and not self.update:
            pytest.fail(change.line(), pytrace=False)
        if change is not None:
            self.accepted.append(change)
        if new["status"] == "differs":
            if self.update:
                pytest.xfail(new.get("note", ""))
            raise KnownDifference(row.get("note", ""))

    def check_complete(self, experiment_id: str) -> None:
        """Fail when the experiment produces claims the baseline does not list."""
        from lab.baseline import baseline_changes, claim_row

        result = self.result(experiment_id)
        new = [claim_row(c) for c in result.claims]
        rows = [r for r in self.baseline() if r["experiment"] == experiment_id]
        extra = [c for c in baseline_changes(rows, new, [experiment_id]) if c.what == "new"]
        if extra and not self.update:
            pytest.fail("; ".join(change.line() for change in extra), pytrace=False)
        self.accepted += extra

    # --- reports

    def write_reports(self) -> None:
        """Write the reports of what ran: into the baseline's folder with --update-baseline,
        into --report-dir when given, else into a temporary folder compared with the
        baseline's folder (which is never written without --update-baseline)."""
        from lab.runner import write_results

        if self.distributed:
            return
        if not self.results:
            return
        committed = self.baseline_path.parent
        chosen = self.config.getoption("report_dir")
        if self.update:
            out = committed
        elif chosen is not None:
            out = Path(chosen)
        else:
            out = Path(tempfile.mkdtemp(prefix="ctxlab-reports-"))
        if out != committed and not (out.is_dir() and any(out.iterdir())):
            shutil.copytree(committed, out, dirs_exist_ok=True)  # the rows of what did not run
        summary = write_results([self.results[i] for i in sorted(self.results)], out)
        self.summary.append(f"{summary.line()} (after this run's {len(self.results)} experiments)")
        if self.config.getoption("cassette_match") == "order":
            from lab.recorder.order_replay import NOT_A_REPRODUCTION

            self.summary = [f"[{NOT_A_REPRODUCTION}] {line}" for line in self.summary]
            self.summary.append(f"[{NOT_A_REPRODUCTION}] reports written to {out}")
            return
        if self.update:
            self.summary.append(f"baseline updated: {out} rewritten from this run")
            self.summary += [f"  accepted {change.line()}" for change in self.accepted]
            return
        self._compare(out, committed, temporary=chosen is None)

    def _compare(self, out: Path, committed: Path, *, temporary: bool) -> None:
        differing = differing_files(out, committed)
        if not differing:
            self.summary.append(f"reports of this run are identical to {committed}")
            if temporary:
                shutil.rmtree(out, ignore_errors=True)
            return
        shown = ", ".join(differing[:8]) + (" …" if len(differing) > 8 else "")
        self.summary.append(f"reports written to {out} differ from {committed} in: {shown}")
        self.summary.append("accept a deliberate change with `ctxlab run` or --update-baseline")


SESSION = pytest.StashKey[ClaimSession]()
