"""The report's JSON files: deterministic text, checked for secrets, written atomically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.fs.files import write_atomic
from harness.secrets import environment_secrets, scan_text
from lab.errors import ExperimentError

__all__ = ["dump_json", "refuse_secrets", "write_json"]


def dump_json(data: Any) -> str:
    """Deterministic, human-readable JSON (UTF-8 text kept, not escaped)."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def write_json(path: Path, data: Any) -> None:
    text = dump_json(data)
    refuse_secrets(path, text)
    write_atomic(path, text)


def refuse_secrets(path: Path, text: str) -> None:
    """Raise :class:`ExperimentError` if ``text``, about to be written to the report file
    ``path``, holds what looks like a secret (:mod:`harness.secrets`, the cassettes' scanner)."""
    findings = scan_text(text, environment_secrets())
    if findings:
        raise ExperimentError(
            f"The report {path} would contain what looks like a secret "
            f"({'; '.join(findings[:5])}); it was not written."
        )
