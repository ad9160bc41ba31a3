"""The gate's token reading (``_token``), read with C-level string methods, answers as the
character-by-character definition does for every token its patterns can give."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from harness.compaction.guards import gate_identifiers
from harness.compaction.guards.gate_identifiers import extract_identifiers

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
