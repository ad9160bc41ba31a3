"""The identifiers the gate (:mod:`harness.compaction.guards.gate`) looks for: URLs, paths, ids
with digits, numbers of three or more digits and quoted code words (backticks, “…”, 「…」, 『…』,
‘…’, and "…" in what was said), each with its shape's family, and whether a summary holds one
verbatim."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.compaction.guards.text_memo import ShortTextMemo
from harness.messages import Message

__all__ = ["KIND_RANK", "Identifier", "extract_identifiers", "shape", "span_texts", "survives"]


@dataclass(frozen=True)
class Identifier:
    """One exact value found in the span."""

    text: str
    """What must survive verbatim (a quoted word without its quotes)."""
    shown: str
    """How the section lists it (a quoted word with its quotes)."""
    kind: str
    """``url``, ``path``, ``quoted``, ``id``, ``number`` or ``definition``."""
    position: int
    """Order of first appearance in the span."""
    family: int = 1
    """Identifiers of this one's shape (digits as ``#``) in the text where it first
    appeared, itself included; for a definition, the texts of the span it occurs in."""
    tier: int = 0
    """A definition's :attr:`~harness.compaction.guards.gate_definitions.Definition.tier`
    (who said it); 0 for an identifier."""
    key: str = ""
    """The JSON key whose whole value it was, where it first appeared in a tool's arguments or
    result (``seal_no`` of ``"seal_no": "SL-291623"``); empty elsewhere."""


_ALNUM = "A-Za-z0-9"
_EXTENSIONS = (
    "py|pyi|js|ts|tsx|jsx|json|jsonl|yaml|yml|toml|ini|cfg|conf|md|txt|csv|tsv|log|sh|java|"
    "kt|go|rs|c|h|cc|cpp|hpp|cs|rb|php|html|css|sql|xml|pdf|png|jpg|jpeg|gif|svg|xlsx|xls|"
    "docx|doc|zip|gz|tar|whl|lock|env|ipynb|gguf|bin|db|parquet"
)
_SEGMENT = r"[A-Za-z0-9._@%+~-]+"
_FILE = rf"[A-Za-z0-9_-][A-Za-z0-9._-]*\.(?:{_EXTENSIONS})(?![{_ALNUM}_])"
_PATHS = (
    # absolute or home/dot-relative, two segments or more: /data/exports/x.csv, ~/notes
    rf"(?<![{_ALNUM}_/])(?:~|\.{{1,2}})?/{_SEGMENT}(?:/{_SEGMENT})+/?",
    rf"(?<![{_ALNUM}_/])(?:~|\.{{1,2}})/{_SEGMENT}/?",
    # Windows
    rf"(?<![{_ALNUM}_])[A-Za-z]:\\(?:[^\\\s]+\\)*[^\\\s]+",
    # relative: src/app/main (two slashes or more) or src/main.py (ends in a file name)
    rf"(?<![{_ALNUM}_/.-]){_SEGMENT}(?:/{_SEGMENT}){{2,}}/?",
    rf"(?<![{_ALNUM}_/.-])(?:{_SEGMENT}/)+{_FILE}",
    # a bare file name with a known extension: manifest-1104.csv
    rf"(?<![{_ALNUM}_./-]){_FILE}",
)
_ALTERNATIVES = (
    # no letter or digit just before: a URL glued to a word would never read as surviving
    rf"(?P<url>(?<![{_ALNUM}])https?://[^\s<>\"'`“”‘’「」『』（）()，。；！？、\[\]{{}}]+)",
    "(?P<path>" + "|".join(_PATHS) + ")",
    r"`(?P<tick>[^`\n]{1,80})`",
    r"“(?P<cjk>[^”\n]{1,40})”",
    r"「(?P<corner>[^」\n]{1,40})」",
    r"『(?P<white>[^』\n]{1,40})』",
    r"‘(?P<single>[^’\n]{1,40})’",
    r"\"(?P<ascii>[^\"\n]{1,40})\"",
    rf"(?P<grouped>(?<![{_ALNUM}_.,])[0-9]{{1,3}}(?:,[0-9]{{3}})+(?:\.[0-9]+)?(?![{_ALNUM}_]))",
    rf"(?P<token>(?<![{_ALNUM}_])[{_ALNUM}](?:[{_ALNUM}_.:#-]*[{_ALNUM}])?(?![{_ALNUM}_]))",
)
_PROSE = re.compile("|".join(_ALTERNATIVES))
"""What a user or assistant said: ASCII double quotes mark code words too."""
_DATA = re.compile("|".join(a for a in _ALTERNATIVES if "?P<ascii>" not in a))
"""Tool arguments and results (JSON): double quotes only delimit strings."""
_QUOTES = {
    "tick": "`{}`",
    "cjk": "“{}”",
    "corner": "「{}」",
    "white": "『{}』",
    "single": "‘{}’",
    "ascii": '"{}"',
}
_TRAILING = ".,;:!?)]}'\""
KIND_RANK = {"path": 0, "url": 1, "quoted": 2, "id": 3, "number": 4, "definition": 5}


def _classify(match: re.Match[str]) -> tuple[str, str, str] | None:
    """``(text, shown, kind)`` of one match, or None when it is no identifier."""
    group = match.lastgroup or ""
    value = match.group(group)
    if group == "url":
        value = value.rstrip(_TRAILING)
        return (value, value, "url") if len(value) > len("https://") else None
    if group == "path":
        value = value.rstrip(".,;:")
        return (value, value, "path") if "/" in value or "." in value or "\\" in value else None
    if group in _QUOTES:
        if group == "ascii" and _json_key(match):
            return None  # JSON keys and values are found by the other patterns
        word = value.strip()
        return (word, _QUOTES[group].format(word), "quoted") if word else None
    return _token(value)


_KEY_BEFORE_STRING = re.compile(r'"(?P<key>[^"\\\n]{1,40})"\s*:\s*"$')
_KEY_BEFORE_NUMBER = re.compile(r'"(?P<key>[^"\\\n]{1,40})"\s*:\s*$')


def _key_of(match: re.Match[str]) -> str:
    """The JSON key whose whole value ``match`` is (a string or a number), or ``""``."""
    text, start, end = match.string, match.start(), match.end()
    before = text[max(start - 64, 0) : start]
    after = text[end : end + 1]
    if after == '"':
        found = _KEY_BEFORE_STRING.search(before)
    elif after in ("", ",", "}", "\n", " ", "\r"):
        found = _KEY_BEFORE_NUMBER.search(before)
    else:
        found = None
    return found.group("key") if found else ""


def _json_key(match: re.Match[str]) -> bool:
    rest = match.string[match.end() : match.end() + 3].lstrip()
    return rest.startswith(":")


_NO_DIGITS = str.maketrans("", "", "0123456789")


def _token(value: str) -> tuple[str, str, str] | None:
    """A token (ASCII letters, digits and ``_.:#-,``: the patterns' ``token`` and ``grouped``)
    with a digit as an id (with a letter, three characters or more) or a number (three digits
    or more). Read with C-level string methods: most tokens are words, and X-BENCH reads
    237K of them."""
    if value.isalpha():
        return None
    digits = len(value) - len(value.translate(_NO_DIGITS))
    if digits == 0:
        return None
    if value.upper() != value.lower():  # a cased character: in ASCII, a letter
        return (value, value, "id") if len(value) >= 3 else None
    return (value, value, "number") if digits >= 3 else None


_DIGITS_AS_HASH = str.maketrans(dict.fromkeys("0123456789", "#"))


def shape(text: str) -> str:
    """``text`` with each ASCII digit written ``#``."""
    return text.translate(_DIGITS_AS_HASH)


def extract_identifiers(texts: Iterable[tuple[str, bool]]) -> list[Identifier]:
    """The identifiers of ``texts`` (``(text, is_prose)`` pairs), each once, in order of first
    appearance. ASCII double quotes count only in prose (what a user or assistant said).
    :attr:`Identifier.family` counts the identifiers of the same shape in the text where it
    first appeared (40 ``CTN-10##`` in one packing list: a table, not a fact)."""
    found: dict[str, Identifier] = {}
    for text, prose in texts:
        for word, shown, kind, key, family in _identifiers_in(text, prose):
            if word not in found:
                found[word] = Identifier(word, shown, kind, len(found), family, key=key)
    return list(found.values())


def _read_identifiers(text: str, prose: bool) -> tuple[tuple[str, str, str, str, int], ...]:
    here: dict[str, tuple[str, str, str]] = {}
    for match in (_PROSE if prose else _DATA).finditer(text):
        classified = _classify(match)
        if classified is not None:
            key = "" if prose else _key_of(match)
            here.setdefault(classified[0], (*classified[1:], key))
    shapes = Counter(shape(word) for word in here)
    return tuple(
        (word, shown, kind, key, shapes[shape(word)]) for word, (shown, kind, key) in here.items()
    )


_identifiers_in = ShortTextMemo(_read_identifiers)
"""``(text, shown, kind, key, family)`` of each identifier of one text, in order of first
appearance (a pure function of the text: remembered for the shorter ones)."""


def span_texts(span: Sequence[Message]) -> list[tuple[str, bool]]:
    """What the gate reads of a compacted span: every non-system message's content (prose for
    user and assistant) and every tool call's arguments."""
    texts: list[tuple[str, bool]] = []
    for message in span:
        if message.role == "system":
            continue
        texts.append((message.content, message.role in ("user", "assistant")))
        texts.extend((call.arguments, False) for call in message.tool_calls)
    return texts


def survives(identifier: Identifier, summary: str) -> bool:
    """True when ``summary`` holds the identifier verbatim (not inside a longer ASCII word or
    number: ``183`` does not survive as part of ``1830``).

    Found with ``str.find`` and the characters either side of each occurrence, not a pattern
    per identifier: a compaction tests every identifier of its span, each a pattern of its own,
    and Python keeps 512 compiled patterns (X-BENCH compiled most of them afresh)."""
    text = identifier.text
    at = summary.find(text)
    if at < 0:
        return False
    bounded_head, bounded_tail = _ascii_alnum(text[0]), _ascii_alnum(text[-1])
    while at >= 0:
        end = at + len(text)
        head_clear = not bounded_head or at == 0 or not _ascii_alnum(summary[at - 1])
        tail_clear = not bounded_tail or end == len(summary) or not _ascii_alnum(summary[end])
        if head_clear and tail_clear:
            return True
        at = summary.find(text, at + 1)
    return False


def _ascii_alnum(char: str) -> bool:
    return char.isascii() and char.isalnum()
