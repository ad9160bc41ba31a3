"""A property marked ``quick_examples(n)`` runs ``n`` examples by default and its own count in
its ``[full]`` variant, which only ``-m slow`` selects (tests/support/quick_examples.py)."""

from __future__ import annotations

import pytest

PROPERTY = """
import pytest
from hypothesis import given, settings, strategies as st

@pytest.mark.quick_examples(3)
@settings(max_examples=25, database=None)
@given(st.integers())
def test_marked(x):
    print("EXAMPLE")

@settings(max_examples=5, database=None)
@given(st.integers())
def test_unmarked(x):
    print("PLAIN")
"""


def _run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, str]:
    pytester.makepyfile(test_property=PROPERTY)
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n    quick_examples(n): costly\n")
    result = pytester.runpytest_inprocess(
        "-p", "support.quick_examples", "-p", "no:cacheprovider", "-s", "-q", *args
    )
    return result, result.stdout.str()


def test_the_quick_variant_runs_its_count_and_the_full_one_is_slow(
    pytester: pytest.Pytester,
) -> None:
    result, out = _run(pytester, "-m", "not slow")
    result.assert_outcomes(passed=2)
    assert out.count("EXAMPLE") == 3 and out.count("PLAIN") == 5
    result, out = _run(pytester, "-m", "slow")
    result.assert_outcomes(passed=1, deselected=2)  # test_marked[full] alone
    assert out.count("EXAMPLE") == 25 and "PLAIN" not in out


def test_only_a_marked_function_uses_the_fixture(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        print('USES', item.name, '_property_examples' in item.fixturenames)\n"
    )
    result, out = _run(pytester, "-m", "not slow")
    result.assert_outcomes(passed=2)
    assert "USES test_marked[quick] True" in out
    assert "USES test_unmarked False" in out  # not autouse: no setup before every test


def test_a_marker_on_a_class_is_refused_by_name(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_on_class="""
import pytest
from hypothesis import given, strategies as st

@pytest.mark.quick_examples(3)
class TestProperties:
    @given(st.integers())
    def test_inside(self, x):
        pass
"""
    )
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n    quick_examples(n): costly\n")
    result = pytester.runpytest_inprocess("-p", "support.quick_examples", "-p", "no:cacheprovider")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*test_inside*put @pytest.mark.quick_examples(n) on the test*"])
