"""Rules that reject a plausible wrong answer the lenient rules let through (a row no wrong answer
can move is no test): a flush that only copies what the user typed, and a summary request that lost
the summary before it.

Like :mod:`lab.claims.judges`: pure functions over text, each returning what it
found, never a verdict; each has hand-made inputs in ``tests/experiments/test_answer_judges.py``
on which it passes and on which it fails.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["carries_previous", "copied_messages"]

_BULLET = " \t-*•"


def copied_messages(written: str, said: Iterable[str]) -> list[str]:
    """The lines of ``written`` (a flush, say) that hold a whole message of ``said`` as it was
    typed, bullet and surrounding blanks aside: a copy of the user's words, instruction and
    all, is not an extracted fact."""
    messages = [m.strip() for m in said if m.strip()]
    copied = []
    for line in written.splitlines():
        text = line.strip(_BULLET)
        if text and any(message in text for message in messages):
            copied.append(text)
    return copied


def carries_previous(request: str, previous: str) -> bool:
    """Whether a summary ``request`` carries the body of the ``previous`` summary (the text
    after its fixed opening), so that the new summary can merge it: a summariser that dropped
    the old summary leaves it out."""
    body = previous.strip()
    return bool(body) and body in request
