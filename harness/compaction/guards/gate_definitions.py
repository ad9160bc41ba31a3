"""What the gate's identifier patterns cannot see, as short verbatim phrases of what a user or
an assistant said: definitions (``暗号：夜莺``, ``the password is falcon``, ``对接人是林晓雯``),
reasons (``because the auditors need row-level locking``, ``因为审计要求行级锁``) and rules
(``never touch prod``, ``绝对不要动生产库``).

Used by the identifier-survival gate (:mod:`harness.compaction.guards.gate`) when
``GateConfig.definitions`` is on (ctxlab's own profile; off in ``GateConfig()``, whose output
recorded cassettes carry). Each phrase is kept verbatim, so the gate's section holds the exact
words; :attr:`Definition.count` says how often the phrase occurs in the span, so that phrases a
conversation repeats (boilerplate) rank after the ones said once, and past ``max_family`` are
left out like the rows of a table.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Definition", "extract_definitions"]

_HAN = "\u4e00-\u9fff"
_ZH_STOP = "，。；！？、\n,;!?"
_EN_STOP = ",.;!?\n"
_PATTERNS = (
    # 暗号：夜莺 / 硬性要求：不要直接给收货人发邮件 (a short Chinese label, either colon)
    re.compile(rf"(?<![{_HAN}])[{_HAN}]{{1,8}}[：:]\s*(?P<v>[^{_ZH_STOP}：:]{{1,30}})"),
    # 对接人是林晓雯
    re.compile(rf"[{_HAN}]{{2,12}}是(?P<v>[^{_ZH_STOP}是]{{1,12}})"),
    # 因为审计要求行级锁
    re.compile(rf"因为(?P<v>[^{_ZH_STOP}]{{2,30}})"),
    # 绝对不要动生产库 / 不要直接给收货人发邮件 / 绝不重启计费服务
    re.compile(rf"(?P<v>(?:绝对不要|不要|绝不|禁止|不能|千万别)[^{_ZH_STOP}]{{2,30}})"),
    # Change of plan: the meeting moves to room Birch (a label of one to four words)
    re.compile(rf"(?<![A-Za-z])[A-Za-z]+(?: [A-Za-z]+){{0,3}}: (?P<v>[^{_EN_STOP}:]{{2,60}})"),
    # the password is falcon / our contact is Margaret Oyelaran
    re.compile(rf"\b(?:is|are) (?P<v>[^{_EN_STOP}]{{2,40}})"),
    # because the auditors need row-level locking
    re.compile(rf"\b(?:because|since) (?P<v>[^{_EN_STOP}]{{3,60}})"),
    # never touch prod / do not email the consignee directly
    re.compile(rf"(?P<v>\b(?:[Nn]ever|[Dd]o not|[Dd]on't) [^{_EN_STOP}]{{3,50}})"),
)
_WORDS = re.compile(r"[A-Za-z]+")
_EN_FILLER = frozenset({"a", "an", "the", "it", "this", "that", "done", "ok", "fine"})


@dataclass(frozen=True)
class Definition:
    text: str
    """The phrase, verbatim (stripped)."""
    position: int
    """Order of first appearance."""
    count: int
    """Occurrences of the phrase in all the texts."""


_SENTENCE_END = re.compile(r"(?<=[。！？!?\n])|(?<=\.)\s+")
_ID_LIKE = re.compile(r"[0-9/]")


def _statements(text: str) -> list[str]:
    """The sentences of ``text`` that are not questions."""
    sentences = [s.strip() for s in _SENTENCE_END.split(text)]
    return [s for s in sentences if s and not s.endswith(("?", "？"))]


def _worth_keeping(value: str) -> bool:
    if value.endswith((":", "：")):
        return False  # a label introducing something (a summary's own framing), not a value
    if _ID_LIKE.search(value):
        return False  # digits and paths are the identifier patterns' (and a cut one is noise)
    if any("\u4e00" <= c <= "\u9fff" for c in value):
        return len(value) >= 2
    words = _WORDS.findall(value.lower())
    return bool(words) and not all(w in _EN_FILLER for w in words)


def _listed(text: str, heading: str) -> list[str]:
    """The items of an earlier gated section in ``text`` (``- item`` lines after ``heading``),
    so that a phrase the gate kept once is kept again by the next compaction."""
    if heading not in text:
        return []
    section = text.split(heading, 1)[1]
    return [line[2:].strip() for line in section.splitlines() if line.startswith("- ")]


def extract_definitions(texts: Iterable[str], heading: str) -> list[Definition]:
    """The phrases of ``texts`` (what users and assistants said, earlier summaries included),
    each once, in order of first appearance, with the number of texts each occurs in."""
    found: dict[str, int] = {}
    counts: Counter[str] = Counter()
    for text in texts:
        here = [
            m.group("v").strip()
            for sentence in _statements(text)
            for p in _PATTERNS
            for m in p.finditer(sentence)
        ]
        here = [v for v in here if _worth_keeping(v)] + _listed(text, heading)
        for value in dict.fromkeys(here):
            counts[value] += 1
            found.setdefault(value, len(found))
    return [Definition(text, position, counts[text]) for text, position in found.items()]
