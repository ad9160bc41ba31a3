"""The one secret scanner: find secrets in text before it is written anywhere durable.

Every durable output passes it: recorded cassettes (refused when it finds anything), reports
(refused) and memory files (the flush's daily entries, ``memory_save`` and the consolidated
MEMORY.md, where the secret is redacted and the rest kept).

:func:`scan_text` looks for API keys (``sk-...``, ``sk-ant-...``, GitHub, AWS, Google and Slack
tokens), bearer tokens, filled-in ``authorization`` values, ``api_key = ...`` assignments,
private-key blocks and any literal secret the caller knows about. Findings are described by line
number and pattern only; the secret itself is never repeated. Obvious placeholders
(``REDACTED``, ``FILTERED``, ``<your key>``, ``xxxx``) are not findings. :func:`redact_text`
replaces what :func:`scan_text` finds with ``[REDACTED]``.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

__all__ = [
    "REDACTED",
    "environment_secrets",
    "redact_for_storage",
    "redact_text",
    "scan_file",
    "scan_text",
]

logger = logging.getLogger("harness.secrets")

MIN_KNOWN_SECRET = 8
"""Known secrets shorter than this are not searched for (too many false alarms)."""
REDACTED = "[REDACTED]"
"""What :func:`redact_text` puts where a secret was."""

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("sk- API key", re.compile(r"(?<![A-Za-z0-9])(sk-[A-Za-z0-9_\-]{16,})")),
    ("GitHub token", re.compile(r"(?<![A-Za-z0-9])(gh[pousr]_[A-Za-z0-9]{30,})")),
    ("AWS access key", re.compile(r"(?<![A-Za-z0-9])(AKIA[0-9A-Z]{16})(?![A-Za-z0-9])")),
    ("Google API key", re.compile(r"(?<![A-Za-z0-9])(AIza[0-9A-Za-z_\-]{35})")),
    ("Slack token", re.compile(r"(?<![A-Za-z0-9])(xox[abprs]-[A-Za-z0-9\-]{10,})")),
    ("private key", re.compile(r"(-----BEGIN [A-Z ]*PRIVATE KEY-----)")),
    ("Bearer token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/=\-]{16,})")),
    ("authorization value", re.compile(r'(?i)"authorization"\s*:\s*\[?\s*"([^"]+)"')),
    (
        "API key assignment",
        re.compile(r"""(?i)api[_-]?key["']?\s*[:=]\s*["']?([A-Za-z0-9_\-]{16,})"""),
    ),
)
_HINTS: dict[str, Callable[[str], object]] = {
    "sk- API key": lambda text: "sk-" in text,
    "GitHub token": lambda text: any(f"gh{kind}_" in text for kind in "pousr"),
    "AWS access key": lambda text: "AKIA" in text,
    "Google API key": lambda text: "AIza" in text,
    "Slack token": lambda text: "xox" in text,
    "Bearer token": re.compile(r"(?i)bearer").search,
}
"""What a text must hold for a pattern to match in it, found by a substring search in C: a
pattern starting with a lookbehind is tried at every position of a text, 30 times slower
(a report of several MB is scanned before it is written). A hint only skips a search that
could not match."""
_PLACEHOLDER = re.compile(r"(?i)redacted|filtered|^<[^<>]*>$|^\[[^\[\]]*\]$|^[x*.\-]+$")
_SECRET_ENV_NAME = re.compile(r"(?i)(api_?key|token|secret)$")


def scan_text(text: str, known_secrets: Iterable[str] = ()) -> list[str]:
    """Describe every secret-looking thing in ``text``, e.g. ``"line 12: Bearer token"``.

    ``known_secrets`` are literal values (the API key in use) that must not appear anywhere;
    those of fewer than 8 characters are ignored. The descriptions never contain the secret.
    """
    literals = _literals(known_secrets)
    # a pattern that matches one line matches the whole text there too (its lookarounds see a
    # line break where the line starts or ends): only the patterns found at all run line by line
    present = [
        (label, pattern)
        for label, pattern in _PATTERNS
        if (label not in _HINTS or _HINTS[label](text)) and pattern.search(text)
    ]
    if not present and not any(secret in text for secret in literals):
        return []
    findings: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        labels = [label for label, pattern in present if _real_match(pattern, line)]
        labels += ["the API key in use"] if any(secret in line for secret in literals) else []
        findings += [f"line {number}: {label}" for label in labels]
    return findings


def scan_file(path: Path, known_secrets: Iterable[str] = ()) -> list[str]:
    """:func:`scan_text` over the file at ``path`` (read as UTF-8, bad bytes replaced)."""
    return scan_text(Path(path).read_text(encoding="utf-8", errors="replace"), known_secrets)


def redact_text(text: str, known_secrets: Iterable[str] = ()) -> tuple[str, list[str]]:
    """``text`` with every finding of :func:`scan_text` replaced by ``[REDACTED]``, and the
    findings (described as :func:`scan_text` describes them, in the original text)."""
    literals = _literals(known_secrets)
    findings = scan_text(text, literals)
    if not findings:
        return text, []
    for secret in sorted(literals, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    for _, pattern in _PATTERNS:
        text = pattern.sub(_redact_match, text)
    return text, findings


def redact_for_storage(text: str, where: str, known_secrets: Iterable[str] | None = None) -> str:
    """``text`` made safe to write to ``where`` (a memory file): every secret :func:`scan_text`
    finds, and every value of a secret-named environment variable (``known_secrets`` when
    given), replaced by ``[REDACTED]``; each redaction is logged by line and pattern only."""
    secrets = environment_secrets() if known_secrets is None else list(known_secrets)
    clean, findings = redact_text(text, secrets)
    if findings:
        logger.warning(
            "Redacted what looks like a secret from %s (%s)", where, "; ".join(findings[:5])
        )
    return clean


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables named like a secret (``*_API_KEY``, ``*_TOKEN``,
    ``*_SECRET``): the keys a user might paste into a prompt."""
    environ = os.environ if environ is None else environ
    return [
        value.strip()
        for name, value in environ.items()
        if _SECRET_ENV_NAME.search(name) and len(value.strip()) >= MIN_KNOWN_SECRET
    ]


def _literals(known_secrets: Iterable[str]) -> list[str]:
    return [secret for secret in known_secrets if len(secret) >= MIN_KNOWN_SECRET]


def _redact_match(match: re.Match[str]) -> str:
    value = match.group(1)
    if _is_placeholder(value):
        return match.group(0)
    start, end = match.span(1)
    whole = match.group(0)
    offset = match.start(0)
    return whole[: start - offset] + REDACTED + whole[end - offset :]


def _real_match(pattern: re.Pattern[str], line: str) -> bool:
    """Whether ``pattern`` matches ``line`` with a value that is not a placeholder."""
    return any(not _is_placeholder(match.group(1)) for match in pattern.finditer(line))


def _is_placeholder(value: str) -> bool:
    value = value.strip()
    if value.lower().startswith("bearer "):
        value = value[len("bearer ") :].strip()
    return not value or bool(_PLACEHOLDER.search(value))
