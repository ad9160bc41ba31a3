"""X-BENCH's ``reference`` condition takes CompactBench's prompt from the installed package, and
no file of the repository but a recorded cassette holds that prompt's text (recorded traffic
is what our client sent; the source tree, docs and reports quote none of it)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from experiments.x_bench.conditions import reference_prompt
from harness import ConfigError

ROOT = Path(__file__).resolve().parents[2]


Plant = Callable[[str], Path]


@pytest.fixture
def plant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Plant]:
    """Plants a package ``compactbench`` whose ``compactors/hybrid_ledger.py`` is the source
    given, found before the installed one; the modules of either are forgotten for the test and
    the installed ones put back after it."""
    saved = {n: m for n, m in sys.modules.items() if n.split(".")[0] == "compactbench"}

    def planted(source: str) -> Path:
        for name in [n for n in sys.modules if n.split(".")[0] == "compactbench"]:
            del sys.modules[name]
        module = tmp_path / "compactbench" / "compactors" / "hybrid_ledger.py"
        module.parent.mkdir(parents=True)
        (tmp_path / "compactbench" / "__init__.py").write_text("", "utf-8")
        (module.parent / "__init__.py").write_text("", "utf-8")
        module.write_text(source, "utf-8")
        monkeypatch.syspath_prepend(str(tmp_path))
        importlib.invalidate_caches()
        return module

    yield planted
    for name in [n for n in sys.modules if n.split(".")[0] == "compactbench"]:
        del sys.modules[name]
    sys.modules.update(saved)


def test_the_prompt_is_the_installed_packages(plant: Plant) -> None:
    plant('_DELTA_PROMPT = (\n    "Planted.\\n"\n    "{transcript}\\nEnd."\n)\n')
    assert reference_prompt() == "Planted.\n{messages}\nEnd."


def test_the_prompt_read_from_the_source_is_the_one_the_import_gives() -> None:
    from compactbench.compactors import hybrid_ledger

    assert reference_prompt() == hybrid_ledger._DELTA_PROMPT.replace("{transcript}", "{messages}")


def test_the_prompt_is_read_without_importing_the_package(plant: Plant) -> None:
    """The module raises when imported: the prompt must come from its source (an import would
    bring in pydantic, 0.17 s per process)."""
    plant('raise ImportError("imported")\n_DELTA_PROMPT = "A {transcript}"\n')
    assert reference_prompt() == "A {messages}"
    assert "compactbench.compactors.hybrid_ledger" not in sys.modules


def test_a_prompt_built_at_import_is_read_from_the_module(plant: Plant) -> None:
    plant('_DELTA_PROMPT = "B " + "{transcript}"\n')
    assert reference_prompt() == "B {messages}"


def test_a_changed_module_is_read_again(plant: Plant) -> None:
    module = plant('_DELTA_PROMPT = "C {transcript}"\n')
    assert reference_prompt() == "C {messages}"
    module.write_text('_DELTA_PROMPT = "Changed: {transcript}"\n', "utf-8")
    assert reference_prompt() == "Changed: {messages}"


@pytest.mark.parametrize(
    "source", ['_DELTA_PROMPT = "no placeholder here"\n', "OTHER = 1\n", "_DELTA_PROMPT = 3\n"]
)
def test_a_prompt_without_its_placeholder_is_refused(plant: Plant, source: str) -> None:
    plant(source)
    with pytest.raises(ConfigError, match="no single"):
        reference_prompt()


def test_without_the_package_one_sentence_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "compactbench", None)
    with pytest.raises(ConfigError, match=r"pip install 'ctxlab\[compactbench\]'"):
        reference_prompt()


def third_party_lines() -> list[str]:
    """The lines of CompactBench's prompts long enough to be a copy, read from the package."""
    from compactbench.compactors import hybrid_ledger, naive_summary

    texts = [hybrid_ledger._DELTA_PROMPT, hybrid_ledger._HEADER_PROMPT, naive_summary._PROMPT]
    return [line for text in texts for line in text.splitlines() if len(line) >= 30]


def tracked_text_files() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / n for n in names if not n.startswith("cassettes/")]


def copies(files: list[Path], lines: list[str]) -> list[str]:
    found = []
    for path in files:
        try:
            text = path.read_text("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        found += [f"{path.name}: {line[:40]}" for line in lines if line in text]
    return found


def test_no_file_outside_the_cassettes_copies_compactbenchs_prompts() -> None:
    lines = third_party_lines()
    assert len(lines) >= 3
    assert copies(tracked_text_files(), lines) == []


def test_the_scan_finds_a_planted_copy(tmp_path: Path) -> None:
    lines = third_party_lines()
    planted = tmp_path / "quoted.md"
    planted.write_text(f"quoted: {lines[0]}\n", "utf-8")
    assert copies([planted], lines) == [f"quoted.md: {lines[0][:40]}"]
