"""Find secrets in text before it is written anywhere durable (cassettes above all).

:func:`scan_text` looks for API keys (``sk-...``), bearer tokens, filled-in ``authorization``
values, ``api_key = ...`` assignments and any literal secret the caller knows about. Findings are
described by line number and pattern only; the secret itself is never repeated. Obvious
placeholders (``REDACTED``, ``FILTERED``, ``<your key>``, ``xxxx``) are not findings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

__all__ = ["scan_file", "scan_text"]

MIN_KNOWN_SECRET = 8
"""Known secrets shorter than this are not searched for (too many false alarms)."""

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("sk- API key", re.compile(r"(?<![A-Za-z0-9])(sk-[A-Za-z0-9]{16,})")),
    ("Bearer token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/=\-]{16,})")),
    ("authorization value", re.compile(r'(?i)"authorization"\s*:\s*\[?\s*"([^"]+)"')),
    (
        "API key assignment",
        re.compile(r"""(?i)api[_-]?key["']?\s*[:=]\s*["']?([A-Za-z0-9_\-]{16,})"""),
    ),
)
_PLACEHOLDER = re.compile(r"(?i)redacted|filtered|^<[^<>]*>$|^\[[^\[\]]*\]$|^[x*.\-]+$")


def scan_text(text: str, known_secrets: Iterable[str] = ()) -> list[str]:
    """Describe every secret-looking thing in ``text``, e.g. ``"line 12: Bearer token"``.

    ``known_secrets`` are literal values (the API key in use) that must not appear anywhere;
    those of fewer than 8 characters are ignored. The descriptions never contain the secret.
    """
    literals = [secret for secret in known_secrets if len(secret) >= MIN_KNOWN_SECRET]
    findings: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        labels = [label for label, pattern in _PATTERNS if _real_match(pattern, line)]
        labels += ["the API key in use"] if any(secret in line for secret in literals) else []
        findings += [f"line {number}: {label}" for label in labels]
    return findings


def scan_file(path: Path, known_secrets: Iterable[str] = ()) -> list[str]:
    """:func:`scan_text` over the file at ``path`` (read as UTF-8, bad bytes replaced)."""
    return scan_text(Path(path).read_text(encoding="utf-8", errors="replace"), known_secrets)


def _real_match(pattern: re.Pattern[str], line: str) -> bool:
    """Whether ``pattern`` matches ``line`` with a value that is not a placeholder."""
    return any(not _is_placeholder(match.group(1)) for match in pattern.finditer(line))


def _is_placeholder(value: str) -> bool:
    value = value.strip()
    if value.lower().startswith("bearer "):
        value = value[len("bearer ") :].strip()
    return not value or bool(_PLACEHOLDER.search(value))
