"""The secret scanner every recorded cassette passes: :mod:`harness.secrets`, re-exported here
(one scanner for cassettes, reports and memory files)."""

from __future__ import annotations

from harness.secrets import redact_text, scan_file, scan_text

__all__ = ["redact_text", "scan_file", "scan_text"]
