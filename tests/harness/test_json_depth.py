"""The depth check before JSON is parsed: exact on JSON, never below what the parser would
reach on other text, and a refusal (not a RecursionError) past the limit."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import json_depth
from harness.json_depth import MAX_JSON_DEPTH, JsonTooDeepError

TRICKY = st.text(alphabet='"\\[]{}ab \n/é中', max_size=12)
"""Strings full of what a depth scan could mistake for structure."""
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=20,
)


def nesting(value: object) -> int:
    """How deep ``value`` nests lists and objects."""
    if isinstance(value, list):
        return 1 + max(map(nesting, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(nesting, value.values()), default=0)
    return 0


def scanned_depth(text: str) -> int:
    """What a parser reading ``text`` left to right reaches before it must stop: strings with
    their escapes skipped, up to a backslash outside a string or the end of an unterminated
    string (one character at a time: the oracle, not the method)."""
    depth = deepest = 0
    inside = escaped = False
    for char in text:
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
        elif char == "\\":
            break
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


@given(JSON, st.booleans(), st.sampled_from([None, 1]))
def test_the_depth_of_json_is_its_nesting(value: object, ascii: bool, indent: int | None) -> None:
    text = json.dumps(value, ensure_ascii=ascii, indent=indent)
    assert json_depth.json_depth(text) == nesting(value)
    assert json_depth.json_depth(text.encode("utf-8")) == nesting(value)


@given(st.text(alphabet='"\\[]{}a, ', max_size=40))
def test_on_any_text_the_depth_is_at_least_what_the_parser_reaches(text: str) -> None:
    assert json_depth.json_depth(text) >= scanned_depth(text)


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ('["\\\\", [1]]', 2),  # an escaped backslash ends its string: the [1] is structure
        ('["\\"[[[", 1]', 1),  # an escaped quote does not: the brackets are text
        ('{"a": "\\\\\\"[["}', 1),  # \\ then \" inside one string
        ('"[[[', 0),  # an unterminated string: the parser stops in it
        ("]]][", 0),  # closers first: never deeper than the start
        ("", 0),
    ],
)
def test_escapes_and_unterminated_strings(text: str, depth: int) -> None:
    assert json_depth.json_depth(text) == depth


def test_deeper_than_the_limit_is_refused_before_parsing() -> None:
    deep = "[" * 200_000 + "]" * 200_000
    with pytest.raises(JsonTooDeepError, match="200,000 levels deep"):
        json_depth.loads(deep)
    with pytest.raises(JsonTooDeepError):
        json_depth.loads(deep.encode("utf-8"))
    at_limit = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert nesting(json_depth.loads(at_limit)) == MAX_JSON_DEPTH


def test_brackets_inside_strings_do_not_count_toward_the_limit() -> None:
    text = json.dumps({"text": "[" * 100_000, "more": ["{" * 1_000]})
    assert json_depth.loads(text)["more"] == ["{" * 1_000]
