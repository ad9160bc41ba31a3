"""Where ``ctxlab run`` reads and writes: the checkout found from the current directory (or
``--project``), never the install location; and a run that keeps going past an experiment that
cannot run, writing its reports all together or not at all."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from support.paths import ROOT

import lab.runner
from harness.errors import ConfigError
from lab.cli import main
from lab.project import find_project, is_project


def test_the_project_is_found_by_walking_up(tmp_path: Path) -> None:
    assert find_project(start=ROOT / "tests") == ROOT
    assert find_project(ROOT) == ROOT
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[project]\nname = "something-else"\n')
    assert not is_project(other)
    with pytest.raises(ConfigError, match="No ctxlab checkout at or above"):
        find_project(start=other)
    with pytest.raises(ConfigError, match="is not a ctxlab checkout"):
        find_project(other)


def test_a_pyproject_nested_too_deep_is_not_a_checkout(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert not is_project(other)  # was RecursionError from tomllib, on the walk up too
    with pytest.raises(ConfigError, match="is not a ctxlab checkout"):
        find_project(other)


def test_outside_a_checkout_run_fails_in_one_sentence_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "E1", "--out", str(tmp_path / "X")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pass --project DIR" in err[0]
    assert list(tmp_path.iterdir()) == []


def test_project_option_from_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "E1", "--project", str(ROOT), "--out", str(tmp_path / "X")]) == 0
    assert (tmp_path / "X" / "E1.json").is_file()


def _cassettes_without(folder: Path, missing: str) -> Path:
    copy = folder / "cassettes"
    shutil.copytree(ROOT / "cassettes", copy)
    shutil.rmtree(copy / missing)
    return copy


def test_a_missing_cassette_does_not_stop_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassettes = _cassettes_without(tmp_path, "E2")
    out = tmp_path / "out"
    args = ["run", "E1", "E2", "E3", "--out", str(out), "--cassettes", str(cassettes)]
    assert main(args) == 2
    captured = capsys.readouterr()
    own = {p.name for p in out.glob("E*.json") if "@" not in p.name}  # E3@<model>: other sets
    assert own == {"E1.json", "E3.json"}
    assert (out / "index.html").is_file() and (out / "claims.csv").is_file()
    err = captured.err.strip().splitlines()
    assert err == [line for line in err if line.startswith("ctxlab: E2 could not run: No cassette")]
    assert len(err) == 1
    assert captured.out.strip().splitlines()[-1].startswith("claims: ")


def test_reports_are_written_all_or_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    assert main(["run", "E1", "--out", str(out)]) == 0
    before = {str(p): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def broken(
        folder: Path, jobs: int = 1, cassettes: Path | None = None, *, durable: bool = True
    ) -> list[Path]:
        (folder / "index.html").write_text("half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(lab.runner, "build_reports", broken)
    assert main(["run", "E1", "E5", "--out", str(out)]) == 2
    assert {str(p): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging folder left


def _setuptools_major() -> int:
    try:
        return int(metadata.version("setuptools").split(".")[0])
    except metadata.PackageNotFoundError:
        return 0


@pytest.mark.slow  # builds a wheel and a venv: `pytest -m slow` (.ci/run and CI run it)
@pytest.mark.skipif(
    os.environ.get("CTXLAB_SKIP_INSTALL_TEST") == "1", reason="CTXLAB_SKIP_INSTALL_TEST=1"
)
@pytest.mark.skipif(
    _setuptools_major() < 77,
    reason="building the wheel offline needs setuptools>=77: reinstall the test extra "
    "(pip install -c constraints.txt -e '.[test]')",
)
def test_a_non_editable_install_uses_the_checkout_it_is_run_from(tmp_path: Path) -> None:
    # A fresh venv with a plain (non-editable) install of this checkout: the wheel is built
    # here, offline; the dependencies come from the test venv's site-packages via a path file.
    build = tmp_path / "src"
    shutil.copytree(ROOT, build, ignore=shutil.ignore_patterns(".*", "*.egg-info", "build"))
    wheel_args = ["-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation"]
    built = _pip([sys.executable, *wheel_args, "-w", str(tmp_path / "dist"), str(build)])
    assert "SetuptoolsDeprecationWarning" not in built  # e.g. a license given as a table
    env_dir = tmp_path / "venv"
    # no pip of its own (ensurepip was 6 s of CPU): this venv's pip installs into it
    venv.create(env_dir, with_pip=False, system_site_packages=False)
    python = env_dir / "bin" / "python"
    wheel = next((tmp_path / "dist").glob("ctxlab-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        meta = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "harness/py.typed" in names  # PEP 561: the library is typed, and says so
    requires = [line for line in meta.splitlines() if line.startswith("Requires-Dist: ")]
    plain = [line for line in requires if "extra ==" not in line]
    assert plain == ["Requires-Dist: httpx<1,>=0.27"]  # the library needs only httpx
    assert 'Requires-Dist: pandas>=2.2; extra == "suite"' in requires
    assert not any("==" in line.split(";")[0] for line in requires if "record" not in line)
    _pip([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
          str(wheel)])  # fmt: skip
    site = subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True
    ).strip()
    deps = [p for p in sys.path if p.endswith("site-packages")]
    (Path(site) / "zz_test_deps.pth").write_text("\n".join(deps) + "\n")
    where = [python, "-c", "import experiments; print(experiments.__file__)"]
    assert subprocess.check_output(where, cwd=tmp_path, text=True).startswith(site)
    ctxlab = env_dir / "bin" / "ctxlab"
    inside = subprocess.run(
        [ctxlab, "run", "E1", "--out", str(tmp_path / "X")], cwd=build / "tests", **_QUIET
    )
    assert inside.returncode == 0, inside.stderr
    assert (tmp_path / "X" / "E1.json").is_file()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    done = subprocess.run([ctxlab, "run", "--out", "Y"], cwd=outside, **_QUIET)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "--project DIR" in done.stderr
    assert list(outside.iterdir()) == []
    assert not (Path(site) / "reports").exists()


def _pip(command: list) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


_QUIET: dict = {"capture_output": True, "text": True, "timeout": 300, "check": False}
