"""English glosses for the Chinese quoted in the reports: prompts, answers and code words.

The study is Chinese, so the claims quote Chinese words and the recorded model answers in
Chinese. Every run of Chinese text a report shows gets its English gloss beside it, from
:func:`glosses`: the data of each experiment's ``glossary.toml`` (in its folder) and of this
module's own (the seeds' titles). A run with no gloss is left bare, and a test over the built
reports fails, so a new prompt or a re-recorded answer needs its gloss added to the
``glossary.toml`` of the experiment that quotes it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from html import escape
from pathlib import Path

import pandas as pd

__all__ = [
    "SOURCES",
    "chinese_runs",
    "english_column",
    "gloss_html",
    "gloss_note",
    "gloss_text",
    "glosses",
    "read_glossary",
    "unglossed",
]

_LAB_GLOSSARY = Path(__file__).with_name("glossary.toml")


def read_glossary(path: Path) -> dict[str, str]:
    """The glosses of one ``glossary.toml`` (its top-level ``"<Chinese>" = "<English>"`` keys)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {key: value for key, value in data.items() if isinstance(value, str)}


SOURCES: tuple[tuple[str, str, str], ...] = tuple(
    (source["role"], source["title"], source["english"])
    for source in tomllib.loads(_LAB_GLOSSARY.read_text(encoding="utf-8"))["sources"]
)
"""The two seed articles: what the report calls each, its Chinese title, the title in English
(``glossary.toml`` beside this module)."""


@cache
def glosses() -> dict[str, str]:
    """Each Chinese text the reports quote, exactly as quoted, with its English meaning: lab's
    own ``glossary.toml`` and every experiment's (read on first use)."""
    from lab.report.experiments import glossary_files

    found = read_glossary(_LAB_GLOSSARY)
    for path in glossary_files():
        found.update(read_glossary(path))
    return found


_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef“”‘’"
_RUN = re.compile(rf"[“‘]?[\u3400-\u9fff](?:[{_CJK}0-9A-Za-z \-/.×→:$,()]*[{_CJK}])?")
"""A run of Chinese: from a Chinese character to the last Chinese character or punctuation mark
before anything else than numbers, Latin words, spaces and simple signs (so ``两个 40 尺高柜``
is one run, and a quote, a ``|`` or an ellipsis ends one)."""


def chinese_runs(text: str) -> list[str]:
    """The runs of Chinese text (with their Chinese punctuation and quotes) in ``text``."""
    return _RUN.findall(text)


def unglossed(text: str) -> list[str]:
    """The Chinese runs of ``text`` that :func:`glosses` has no gloss for."""
    return [run for run in chinese_runs(text) if run.strip("“”‘’") not in glosses()]


def _replace(text: str, each: Callable[[str, str | None], str], plain: Callable[[str], str]) -> str:
    parts, last = [], 0
    for match in _RUN.finditer(text):
        parts.append(plain(text[last : match.start()]))
        run = match.group()
        parts.append(each(run, glosses().get(run.strip("“”‘’"))))
        last = match.end()
    parts.append(plain(text[last:]))
    return "".join(parts)


def gloss_html(text: str) -> str:
    """``text`` escaped for HTML, each Chinese run marked ``lang="zh"`` and glossed beside it."""

    def each(run: str, english: str | None) -> str:
        shown = f'<span lang="zh">{escape(run)}</span>'
        if english is None:
            return shown
        return f'{shown} <span class="gloss">(“{escape(english)}”)</span>'

    return _replace(text, each, escape)


def gloss_text(text: str) -> str:
    """``text`` with each Chinese run followed by its gloss in brackets, for Markdown."""
    return _replace(text, lambda run, en: run if en is None else f"{run} (“{en}”)", lambda t: t)


def _glosses(texts: Iterable[str]) -> list[tuple[str, str]]:
    found: dict[str, str] = {}
    for text in texts:
        for run in chinese_runs(text):
            english = glosses().get(run.strip("“”‘’"))
            if english is not None:
                found.setdefault(run, english)
    return list(found.items())


def english_column(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` with a last column ``English`` glossing the Chinese of ``columns`` in each row;
    unchanged when no row quotes any."""

    def row_gloss(row: pd.Series) -> str:
        return " / ".join(english for _, english in _glosses(str(row[c]) for c in columns))

    if frame.empty:
        return frame
    glosses = frame.apply(row_gloss, axis=1)
    if not glosses.any():
        return frame
    return frame.assign(English=glosses)


def gloss_note(text: str) -> str:
    """A line glossing the Chinese quoted in ``text`` (a verbatim block), or empty."""
    found = _glosses([text])
    if not found:
        return ""
    return "English for the Chinese above: " + "; ".join(f"{r} (“{e}”)" for r, e in found) + "\n"
