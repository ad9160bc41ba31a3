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

:attr:`Definition.tier` says who said it (:func:`spoken_definitions`), because a tight budget
has to choose, and X-BENCH measured what the choice cost: on English conversations the
assistant's own phrasing (``Keep the status mail to five lines: what moved, what is blocked,
what is next``, said in three replies) took the gate's room before the user's name and password,
and after three compactions the carried list was mostly such phrases. Best first:

0. a rule or a reason and what its sentence says (a decision with its reason), whoever
   said it, or anything the user said;
1. carried: listed in an earlier gated section (its rank there is its order in the list);
2. said by the assistant, or in a summary's own text, in one message;
3. said by the assistant in more than one message: its boilerplate.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from harness.compaction.guards.text_memo import ShortTextMemo

__all__ = ["Definition", "Speaker", "extract_definitions", "spoken_definitions"]

Speaker = Literal["user", "assistant", "summary"]
"""Who said a text: ``summary`` is an earlier compaction's summary message (a user message by
role, the model's words and the gate's list by origin)."""

_HAN = "\u4e00-\u9fff"
_ZH_STOP = "，。；！？、\n,;!?"
_EN_STOP = ",.;!?\n"
_DEFINITIONS = (
    # 暗号：夜莺 / 硬性要求：不要直接给收货人发邮件 (a short Chinese label, either colon)
    re.compile(rf"(?<![{_HAN}])[{_HAN}]{{1,8}}[：:]\s*(?P<v>[^{_ZH_STOP}：:]{{1,30}})"),
    # 对接人是林晓雯
    re.compile(rf"[{_HAN}]{{2,12}}是(?P<v>[^{_ZH_STOP}是]{{1,12}})"),
    # Change of plan: the meeting moves to room Birch (a label of one to four words)
    re.compile(rf"(?<![A-Za-z])[A-Za-z]+(?: [A-Za-z]+){{0,3}}: (?P<v>[^{_EN_STOP}:]{{2,60}})"),
    # the password is falcon / our contact is Margaret Oyelaran
    re.compile(rf"\b(?:is|are) (?P<v>[^{_EN_STOP}]{{2,40}})"),
)
_RULES = (
    # 因为审计要求行级锁
    re.compile(rf"因为(?P<v>[^{_ZH_STOP}]{{2,30}})"),
    # 绝对不要动生产库 / 不要直接给收货人发邮件 / 绝不重启计费服务
    re.compile(rf"(?P<v>(?:绝对不要|不要|绝不|禁止|不能|千万别)[^{_ZH_STOP}]{{2,30}})"),
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
    tier: int = 0
    """Who said it, best first (see the module docstring): 0 a rule, a reason or the user's
    words, 1 carried from an earlier gated section, 2 the assistant's once, 3 its boilerplate."""


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
    """The phrases of ``texts``, all taken as said by the user (:func:`spoken_definitions`)."""
    return spoken_definitions(((text, "user") for text in texts), heading)


def _values(patterns: tuple[re.Pattern[str], ...], sentence: str) -> list[str]:
    """What ``patterns`` find in ``sentence`` that is worth keeping, in order."""
    found = (m.group("v").strip() for p in patterns for m in p.finditer(sentence))
    return [v for v in found if _worth_keeping(v)]


def _read_phrases(text: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The phrases of ``text`` worth keeping, in order, and those said in a sentence with a rule
    or a reason (a decision and its reason go together)."""
    found: list[str] = []
    ruled: set[str] = set()
    for sentence in _statements(text):
        here = _values(_DEFINITIONS, sentence)
        rules = _values(_RULES, sentence)
        found += [*here, *rules]
        ruled.update([*here, *rules] if rules else ())
    return tuple(found), frozenset(ruled)


_phrases = ShortTextMemo(_read_phrases)
""":func:`_read_phrases`, a pure function of the text: remembered for the shorter ones."""


def spoken_definitions(said: Iterable[tuple[str, Speaker]], heading: str) -> list[Definition]:
    """The phrases of ``said`` (``(text, speaker)`` pairs: what users and assistants said,
    earlier summaries included), each once, in order of first appearance, with the number of
    texts each occurs in and its :attr:`~Definition.tier`."""
    found: dict[str, int] = {}
    counts: Counter[str] = Counter()
    by_assistant: Counter[str] = Counter()
    strong: set[str] = set()
    carried: set[str] = set()
    for text, speaker in said:
        phrases, rules = _phrases(text)
        listed = _listed(text, heading)
        strong |= rules | (set(phrases) if speaker == "user" else set())
        carried.update(listed)
        for value in dict.fromkeys([*phrases, *listed]):
            counts[value] += 1
            by_assistant[value] += speaker != "user" and value not in listed
            found.setdefault(value, len(found))
    return [
        Definition(text, position, counts[text], _tier(text, strong, carried, by_assistant))
        for text, position in found.items()
    ]


def _tier(text: str, strong: set[str], carried: set[str], by_assistant: Counter[str]) -> int:
    if text in strong:
        return 0
    if text in carried:
        return 1
    return 2 if by_assistant[text] <= 1 else 3
