"""The command-line options of the claims plugin (:mod:`lab.pytest_plugin`), group
*ctxlab* in ``pytest --help``. Light to import: pytest only."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from lab.project import SOURCE_ROOT

__all__ = ["PROJECT_ROOT", "PROVIDERS", "RECORD_MODES", "pytest_addoption"]

PROJECT_ROOT = SOURCE_ROOT
RECORD_MODES = ("none", "rewrite")
PROVIDERS = ("local", "deepseek", "openai-compatible")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ctxlab", "ctxlab claims (judged against the committed baseline)")
    _record_mode_option(parser)
    _recording_options(group)
    _baseline_options(group)


def _record_mode_option(parser: pytest.Parser) -> None:
    """--record-mode, in pytest-recording's group."""
    # pytest-recording, when installed, adds the same option to the same group first: a
    # ValueError then, and its option (same name, same dest) serves.
    with contextlib.suppress(ValueError):
        parser.getgroup("recording").addoption(
            "--record-mode",
            dest="record_mode",
            default=None,
            choices=RECORD_MODES,
            help="none (default): replay cassettes, network blocked; rewrite: re-record the "
            "selected experiments' cassettes from --provider, then judge them",
        )


def _recording_options(group: pytest.OptionGroup) -> None:
    """Where cassettes are recorded from and kept."""
    group.addoption("--provider", choices=PROVIDERS, help="where --record-mode=rewrite records")
    group.addoption(
        "--model", dest="ctxlab_model", metavar="NAME", help="model to record (default: provider's)"
    )
    group.addoption(
        "--base-url", dest="ctxlab_base_url", metavar="URL", help="server base URL for recording"
    )
    group.addoption(
        "--api-key-env", dest="ctxlab_api_key_env", metavar="VAR", help="variable holding the key"
    )
    group.addoption(
        "--cassettes",
        type=Path,
        default=PROJECT_ROOT / "cassettes",
        metavar="DIR",
        help="cassette folder",
    )


def _baseline_options(group: pytest.OptionGroup) -> None:
    """What the claims are judged against, how cassettes are matched, where reports go."""
    group.addoption(
        "--baseline",
        type=Path,
        metavar="PATH",
        default=PROJECT_ROOT / "reports" / "claims.csv",
        help="the claims table the claims are judged against (default: reports/claims.csv)",
    )
    group.addoption(
        "--update-baseline",
        action="store_true",
        help="accept changed claims: rewrite the baseline's folder from this run",
    )
    group.addoption(
        "--cassette-match",
        choices=("body", "order"),
        default="body",
        help="order: the recorded answers in recorded order, requests not matched (mutation "
        "testing, NOT a reproduction; refuses --update-baseline and a --report-dir that is the "
        "baseline's folder)",
    )
    group.addoption(
        "--report-dir",
        type=Path,
        metavar="DIR",
        help="write this run's reports here (default: a temporary folder)",
    )
