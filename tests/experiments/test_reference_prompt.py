"""X-BENCH's ``reference`` condition takes CompactBench's prompt from the installed package, and
no file of the repository but a recorded cassette holds that prompt's text (recorded traffic
is what our client sent; the source tree, docs and reports quote none of it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from experiments.x_bench.conditions import reference_prompt
from harness import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_the_prompt_is_the_installed_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    from compactbench.compactors import hybrid_ledger

    monkeypatch.setattr(hybrid_ledger, "_DELTA_PROMPT", "Planted.\n{transcript}\nEnd.")
    assert reference_prompt() == "Planted.\n{messages}\nEnd."


def test_a_prompt_without_its_placeholder_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from compactbench.compactors import hybrid_ledger

    monkeypatch.setattr(hybrid_ledger, "_DELTA_PROMPT", "no placeholder here")
    with pytest.raises(ConfigError, match="no single"):
        reference_prompt()


def test_without_the_package_one_sentence_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "compactbench.compactors", None)
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
