"""Costly properties run fewer examples in the default run, and their own count under ``-m slow``.

A property test marked ``@pytest.mark.quick_examples(n)`` is collected twice: ``[quick]`` runs
``n`` examples (in ``pytest -n 2``, the README's command), ``[full]`` runs the count its own
settings give (the ``fast`` profile's 60, or its ``@settings``) and is marked ``slow``, so CI's
slow step (``pytest -m slow``) runs it on every change. Only properties whose examples are costly
are marked (a snapshot written and reopened, an index built, per example). The root
``conftest.py`` loads this plugin.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

QUICK_EXAMPLES = "quick_examples"
"""The marker of a property whose examples are costly: ``@pytest.mark.quick_examples(n)``."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A property marked :data:`QUICK_EXAMPLES` runs twice: ``[quick]`` with the marker's count
    of examples in the default run, ``[full]`` with its own settings under ``-m slow``."""
    marker = metafunc.definition.get_closest_marker(QUICK_EXAMPLES)
    if marker is None or "_property_examples" not in metafunc.fixturenames:
        return
    quick = pytest.param(marker.args[0], id="quick")
    full = pytest.param(None, id="full", marks=pytest.mark.slow)
    metafunc.parametrize("_property_examples", [quick, full], indirect=True)


@pytest.fixture(autouse=True)
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


__all__ = ["QUICK_EXAMPLES", "pytest_generate_tests"]
