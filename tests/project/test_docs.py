"""The README and the pages under ``docs/``: every relative link resolves (file and heading),
every page is reachable from the README, the README's quick start holds the commands CI runs,
and the library example of ``docs/harness.md`` runs and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
import unicodedata
from pathlib import Path

import pytest
from support.paths import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
LINK = re.compile(r"(?<!!)\[(?:[^\]\n]|\n(?!\n))*\]\(([^()\s]+)\)")
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.M | re.S)


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def prose(text: str) -> str:
    """The text without its fenced code blocks, where ``[x](y)`` is code, not a link."""
    return FENCE.sub("", text)


def links(page: Path) -> list[str]:
    return LINK.findall(prose(page.read_text(encoding="utf-8")))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in ("L", "N", "M"))
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose(page.read_text(encoding="utf-8")).splitlines():
        if match := re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line):
            base = slug(match.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def broken(page: Path, target: str) -> str | None:
    """Why ``target`` (a link on ``page``) does not resolve, or None when it does."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: …: not ours to check
        return None
    path, _, anchor = target.partition("#")
    file = (page.parent / path).resolve() if path else page
    if not file.is_relative_to(ROOT):
        return f"{target} leaves the checkout"
    if not file.exists():
        return f"{target}: no such file"
    if anchor and (file.suffix != ".md" or anchor not in anchors(file)):
        return f"{target}: no heading #{anchor} in {file.relative_to(ROOT).as_posix()}"
    return None


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    problems = [why for target in links(page) if (why := broken(page, target))]
    assert problems == []


def test_the_link_check_sees_a_broken_file_and_a_broken_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# A `b`: c\n\n## Same\n\n## Same\n", encoding="utf-8")
    assert {"a-b-c", "same", "same-1"} <= anchors(page)
    assert broken(README, "docs/none.md") == "docs/none.md: no such file"
    assert broken(README, "docs/sessions.md#nowhere") is not None
    assert broken(README, "docs/sessions.md#concurrent-use-what-is-safe") is None
    assert broken(README, "../outside.md") is not None
    assert links(page) == [] and LINK.findall("see [x](y.md#z)") == ["y.md#z"]
    assert len(links(README)) >= len(list(DOCS.glob("*.md")))  # the pattern finds the README's


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in links(README)}
    orphans = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert orphans == []


def quick_start() -> list[str]:
    """The commands of the README's quick-start block, without their comments."""
    section = README.read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ")[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "the quick start has no bash block"
    return [line.split("  #", 1)[0].strip() for line in block.group(1).splitlines() if line]


def test_the_quick_start_installs_reproduces_and_tests() -> None:
    install, run, test = quick_start()
    assert install.endswith("pip install -c constraints.txt -e '.[test]'")
    assert run == "ctxlab run"
    assert test == "pytest -n 2"


def test_ci_runs_the_readmes_test_command() -> None:
    """``.ci/run`` runs the README's test command (an environment assignment may precede it),
    itself or in one of the ``.ci/steps`` scripts it runs."""
    test = quick_start()[-1]
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = ci_run.splitlines()
    for name in re.findall(r"^bash \.ci/steps/([a-z-]+)\.sh", ci_run, re.MULTILINE):
        lines += (ROOT / ".ci" / "steps" / f"{name}.sh").read_text(encoding="utf-8").splitlines()
    commands = [
        " ".join(w for w in line.split() if not re.match(r"[A-Z_]+=", w))
        for line in lines
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert test in commands


def test_the_library_example_prints_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # its workspace, below tmp_path
    text = (DOCS / "harness.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code, "docs/harness.md has no python example"
    expected = [
        m.group(1)
        for line in code.group(1).splitlines()
        if line.startswith("print(") and (m := re.search(r"#\s*(.*?)\s*$", line))
    ]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code.group(1), "docs/harness.md", "exec"), {})
    assert expected and printed.getvalue().splitlines() == expected
