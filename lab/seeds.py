"""The two seed articles: where their texts are, their titles, and citations a reader can follow.

A claim's ``article_source`` cites a seed by **title and section**, never by the seed's file name
(``AgentScope Java v2 lesson 10, §3.6: "E1 的输入 9 条"``). The section of each quote is looked
up in :data:`lab.seed_sections.SECTIONS`, which ``python -m lab.seeds``
writes from the seed texts (they are not part of the checkout; tests check each quote occurs in the
section its citation names whenever the texts are found).

The texts are found through the ``CTXLAB_SEEDS`` environment variable, else in
``../shared/seeds`` beside the checkout (:func:`seeds_folder`).
"""

from __future__ import annotations

import csv
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from lab.project import SOURCE_ROOT

__all__ = [
    "AS_SEED",
    "DSH_SEED",
    "SEEDS",
    "SEEDS_ENV",
    "SEED_TITLES",
    "Citation",
    "citation",
    "parse_citation",
    "section_at",
    "seeds_folder",
]

AS_SEED = "000_57ecd11c05cdd079.txt"
"""The AgentScope Java 2.0.3 lesson (its file in the seeds folder)."""
DSH_SEED = "002_734e80116f68ef08.txt"
"""The DeepSeek-Harness compaction-basic reading."""
SEEDS = (AS_SEED, DSH_SEED)
SEED_TITLES = {
    AS_SEED: "AgentScope Java v2 lesson 10",
    DSH_SEED: "DeepSeek-Harness source reading 13",
}
"""The short English title a citation names each seed by (the report names both in full)."""
SEEDS_ENV = "CTXLAB_SEEDS"
"""An environment variable naming the folder that holds the seed texts."""
OPENING = "opening"
"""The section of a passage before a seed's first heading."""

_AS_HEADING = re.compile(r"^(\d+)(?:、|\.(\d+) )\S")
_DSH_HEADING = re.compile(r"^([一二三四五六七八九十]+)、\S")
_NUMERALS = {c: i for i, c in enumerate("一二三四五六七八九十", start=1)}
_HEADING_CHARS = 40
"""Headings are short lines; a paragraph that starts with a number is not one."""


@dataclass(frozen=True)
class Citation:
    """One seed passage: the seed's file, the section it is in (``""`` if unknown) and the
    quote."""

    seed: str
    section: str
    quote: str


def seeds_folder(checkout: Path | None = None) -> Path | None:
    """The folder of the seed texts: ``$CTXLAB_SEEDS`` when set, else ``../shared/seeds``
    beside the checkout (``checkout`` defaults to this one); None when it holds no seed."""
    root = checkout or SOURCE_ROOT
    named = os.environ.get(SEEDS_ENV, "").strip()
    folder = Path(named).expanduser() if named else root.parent / "shared" / "seeds"
    return folder if all((folder / seed).is_file() for seed in SEEDS) else None


def where_seeds_are_looked_for(checkout: Path | None = None) -> str:
    """Where :func:`seeds_folder` looks, in words (for a message saying they are absent)."""
    root = checkout or SOURCE_ROOT
    named = os.environ.get(SEEDS_ENV, "").strip()
    if named:
        return f"${SEEDS_ENV} = {named}"
    return f"{root.parent / 'shared' / 'seeds'} (set ${SEEDS_ENV} to the folder holding them)"


def section_at(seed: str, text: str, offset: int) -> str:
    """The section of ``seed``'s ``text`` that the character at ``offset`` is in: ``3.6`` or
    ``2`` in the AgentScope lesson, ``1`` … ``7`` in the DeepSeek-Harness reading (its
    一、…七、), :data:`OPENING` before the first heading."""
    section = OPENING
    for line in text[:offset].splitlines():
        if len(line) > _HEADING_CHARS:
            continue
        if seed == AS_SEED and (found := _AS_HEADING.match(line)):
            section = found.group(1) + (f".{found.group(2)}" if found.group(2) else "")
        elif seed == DSH_SEED and (found := _DSH_HEADING.match(line)):
            section = str(_NUMERALS.get(found.group(1), found.group(1)))
    return section


def sections_of(seed: str, text: str, quote: str) -> list[str]:
    """Every section of ``text`` in which ``quote`` occurs, in order."""
    found, start = [], text.find(quote)
    while start >= 0:
        section = section_at(seed, text, start)
        if section not in found:
            found.append(section)
        start = text.find(quote, start + 1)
    return found


def citation(seed: str, quote: str) -> str:
    """``<title>, §<section>: "<quote>"`` (``<title>: "<quote>"`` for a quote whose section is
    not in :data:`lab.seed_sections.SECTIONS` yet)."""
    from lab.seed_sections import SECTIONS

    section = SECTIONS.get(seed, {}).get(quote, "")
    where = f"{SEED_TITLES[seed]}, §{section}" if section else SEED_TITLES[seed]
    return f'{where}: "{quote}"'


def parse_citation(text: str) -> Citation | None:
    """The :class:`Citation` an ``article_source`` holds, or None when it cites no seed."""
    for seed, title in SEED_TITLES.items():
        if not text.startswith(title):
            continue
        where, separator, quoted = text.partition(': "')
        if not separator or not quoted.endswith('"'):
            return None
        section = where.removeprefix(title).removeprefix(", §")
        return Citation(seed, section, quoted[:-1])
    return None


def _quotes(claims: Path) -> list[tuple[str, str]]:
    """``(seed, quote)`` of every cited row of a claims table (titles or old file names)."""
    found = []
    with claims.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            source = row.get("article_source", "")
            cited = parse_citation(source)
            if cited is None and source.startswith(SEEDS):  # a table from before titles
                seed, _, quoted = source.partition(": ")
                cited = Citation(seed, "", quoted[1:-1])
            if cited is not None:
                found.append((cited.seed, cited.quote))
    return found


def write_sections(claims: Path, out: Path, folder: Path) -> int:
    """Write :data:`lab.seed_sections.SECTIONS` for every quote of ``claims``, from
    the seed texts in ``folder``; returns the number of quotes. A quote that is in no seed
    raises ``ValueError``."""
    texts = {seed: (folder / seed).read_text(encoding="utf-8") for seed in SEEDS}
    sections: dict[str, dict[str, str]] = {seed: {} for seed in SEEDS}
    for seed, quote in sorted(set(_quotes(claims))):
        where = sections_of(seed, texts[seed], quote)
        if not where:
            raise ValueError(f"the quote {quote!r} is not in {SEED_TITLES[seed]} ({seed})")
        sections[seed][quote] = where[0]
    lines = [
        '"""The section of every quoted seed passage (:mod:`lab.seeds`). Written by',
        '``python -m lab.seeds`` from the seed texts; do not edit by hand."""',
        "",
        "SECTIONS: dict[str, dict[str, str]] = {",
    ]
    for seed in SEEDS:
        lines.append(f"    {_literal(seed)}: {{")
        lines += [f"        {_literal(q)}: {_literal(s)}," for q, s in sections[seed].items()]
        lines.append("    },")
    lines.append("}")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return sum(len(s) for s in sections.values())


def _literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a Python string literal too


def main() -> int:
    """``python -m lab.seeds``: rewrite lab/seed_sections.py from the
    seeds and the quotes of reports/claims.csv (then ``ctxlab run`` puts the sections in the
    reports)."""
    folder = seeds_folder()
    if folder is None:
        print(f"No seed texts found at {where_seeds_are_looked_for()}.", file=sys.stderr)
        return 2
    root = SOURCE_ROOT
    out = Path(__file__).with_name("seed_sections.py")
    count = write_sections(root / "reports" / "claims.csv", out, folder)
    print(f"lab/seed_sections.py: the sections of {count} quotes, from {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
