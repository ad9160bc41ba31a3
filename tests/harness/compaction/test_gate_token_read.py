"""The gate's token reading (``_token``) and survival test (``survives``), read with C-level
string methods, answer as their definitions (a generator per character, a pattern per
identifier) do."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from harness.compaction.guards import gate_identifiers
from harness.compaction.guards.gate_identifiers import Identifier, extract_identifiers, survives

TOKEN_ALPHABET = "abcXYZ0123456789_.:#-,"


def _defined(value: str) -> tuple[str, str, str] | None:
    """The definition: a digit makes it an id (with a letter, 3+ characters) or a number (3+
    digits)."""
    digits = sum(c.isdigit() for c in value)
    if digits == 0:
        return None
    if any(c.isalpha() for c in value):
        return (value, value, "id") if len(value) >= 3 else None
    return (value, value, "number") if digits >= 3 else None


@given(st.text(alphabet=TOKEN_ALPHABET, min_size=1, max_size=12))
def test_a_token_is_read_as_defined(value: str) -> None:
    assert gate_identifiers._token(value) == _defined(value)


def test_ids_and_numbers_are_found_and_words_are_not() -> None:
    found = extract_identifiers([("seal SL-291623 at 2024, Q3 v1.2.3 x9 and 1,234.5 kg", True)])
    assert [(i.text, i.kind) for i in found] == [
        ("SL-291623", "id"),
        ("2024", "number"),
        ("v1.2.3", "id"),
        ("1,234.5", "number"),
    ]


def _survives_by_pattern(text: str, summary: str) -> bool:
    """The definition: the text, with no ASCII letter or digit glued to an end that is one."""
    alnum = "A-Za-z0-9"
    head = rf"(?<![{alnum}])" if text[0].isascii() and text[0].isalnum() else ""
    tail = rf"(?![{alnum}])" if text[-1].isascii() and text[-1].isalnum() else ""
    return re.search(head + re.escape(text) + tail, summary) is not None


SURVIVAL_ALPHABET = "ab1-9 .“”中"


@given(
    st.text(alphabet=SURVIVAL_ALPHABET, min_size=1, max_size=4),
    st.text(alphabet=SURVIVAL_ALPHABET, max_size=30),
)
def test_survival_is_found_as_the_pattern_finds_it(text: str, summary: str) -> None:
    identifier = Identifier(text, text, "id", 0)
    assert survives(identifier, summary) == _survives_by_pattern(text, summary)


def test_a_number_inside_a_longer_one_does_not_survive() -> None:
    number = Identifier("183", "183", "number", 0)
    assert not survives(number, "we shipped 1830 boxes")
    assert survives(number, "1830 boxes, then 183 more")
    assert survives(Identifier("-a", "-a", "id", 0), "x-a")  # an end that is no letter: open
