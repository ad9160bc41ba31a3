"""Costly properties run fewer examples in the default run, and their own count under ``-m slow``.

A property test marked ``@pytest.mark.quick_examples(n)`` is collected twice: ``[quick]`` runs
``n`` examples (in ``pytest -n 2``, the README's command), ``[full]`` runs the count its own
settings give (the ``fast`` profile's 60, or its ``@settings``) and is marked ``slow``, so CI's
slow step (``pytest -m slow``) runs it on every change. Only properties whose examples are costly
are marked (a snapshot written and reopened, an index built, per example). The root
``conftest.py`` loads this plugin.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

QUICK_EXAMPLES = "quick_examples"
"""The marker of a property whose examples are costly: ``@pytest.mark.quick_examples(n)``."""
USES = "_property_examples"
"""The fixture a marked function uses (:func:`pytest_pycollect_makeitem`)."""


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> None:
    """A function marked :data:`QUICK_EXAMPLES` uses :func:`_property_examples` (before its
    items are made, so that :func:`pytest_generate_tests` sees the fixture). The fixture is
    not autouse: set up before each of about 3,000 tests, it cost 0.17 ms of CPU a test (0.5 s
    for 3,000 empty tests, ``pytest -n 0``), and 18 tests carry the marker."""
    marks = getattr(obj, "pytestmark", None)
    if not inspect.isfunction(obj) or not isinstance(marks, list):
        return
    used = {arg for mark in marks if mark.name == "usefixtures" for arg in mark.args}
    if any(mark.name == QUICK_EXAMPLES for mark in marks) and USES not in used:
        pytest.mark.usefixtures(USES)(obj)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A property marked :data:`QUICK_EXAMPLES` runs twice: ``[quick]`` with the marker's count
    of examples in the default run, ``[full]`` with its own settings under ``-m slow``."""
    marker = metafunc.definition.get_closest_marker(QUICK_EXAMPLES)
    if marker is None:
        return
    if USES not in metafunc.fixturenames:  # marked on its class or module, not on itself
        raise pytest.UsageError(
            f"{metafunc.definition.nodeid}: put @pytest.mark.{QUICK_EXAMPLES}(n) on the test "
            "function itself (tests/support/quick_examples.py)"
        )
    quick = pytest.param(marker.args[0], id="quick")
    full = pytest.param(None, id="full", marks=pytest.mark.slow)
    metafunc.parametrize(USES, [quick, full], indirect=True)


@pytest.fixture
def _property_examples(request: pytest.FixtureRequest) -> Iterator[None]:
    """The quick variant's count of examples, set on the hypothesis test for this call only
    (hypothesis reads a test's settings when it is called)."""
    examples = getattr(request, "param", None)
    test: Any = request.function
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if examples is None or own is None:
        yield
        return
    test._hypothesis_internal_use_settings = settings(own, max_examples=examples)
    try:
        yield
    finally:
        test._hypothesis_internal_use_settings = own


__all__ = ["QUICK_EXAMPLES", "USES", "pytest_generate_tests", "pytest_pycollect_makeitem"]
