"""Where the tests find the checkout, whatever folder a test module sits in."""

from __future__ import annotations

from pathlib import Path

__all__ = ["ROOT", "TESTS"]

TESTS = Path(__file__).resolve().parents[1]
"""The ``tests/`` folder."""
ROOT = TESTS.parent
"""The checkout."""
