"""The secret scanner's substring hints (:data:`harness.secrets._HINTS`) only skip searches
that could not match: on any text, the findings are those of the patterns alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import secrets
from harness.secrets import scan_text

_PIECES = st.sampled_from(
    [
        "sk-", "ghp_", "gho_", "ghx_", "AKIA", "AIza", "xoxb-", "xox", "Bearer ", "BEARER\t",
        "bearer", "api_key=", '"authorization": "', "-----BEGIN RSA PRIVATE KEY-----", "REDACTED",
        "0123456789abcdef", "ABCDEFGHIJKLMNOP", "\n", " ", "-", "_", "x", "K", "ı", "ſ", "K",
    ]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=30).map("".join))
def test_the_hints_never_change_the_findings(text: str) -> None:
    with_hints = scan_text(text)
    hints = secrets._HINTS
    try:
        secrets._HINTS = {}
        assert scan_text(text) == with_hints
    finally:
        secrets._HINTS = hints


@pytest.mark.parametrize(
    "secret",
    [
        "sk-" + "a" * 20, "ghp_" + "a" * 30, "AKIA" + "A" * 16, "AIza" + "a" * 35,
        "xoxb-" + "a" * 10, "Bearer " + "a" * 16, "bEaReR " + "a" * 16,
    ],
)  # fmt: skip
def test_each_hinted_pattern_still_finds_its_secret_in_a_large_text(secret: str) -> None:
    text = ("an ordinary line of a report\n" * 20_000) + f"x {secret} y\n"
    found = scan_text(text)  # once: each scan of the 580 KB text is the test's cost
    assert found and found[0].startswith("line 20001: ")
