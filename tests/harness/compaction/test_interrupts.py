"""Tests of harness.compaction.interrupts: an interrupt is found wherever a chain carries it."""

from __future__ import annotations

import pytest

from harness.compaction.interrupts import carries_interrupt
from harness.errors import APIConnectionError


def raised_from(outer: BaseException, inner: BaseException) -> BaseException:
    try:
        try:
            raise inner
        except BaseException as exc:
            raise outer from exc
    except BaseException as caught:
        return caught


def raised_while_handling(outer: BaseException, inner: BaseException) -> BaseException:
    try:
        try:
            raise inner
        except BaseException:
            raise outer  # noqa: B904 - the implicit chain is what is tested
    except BaseException as caught:
        return caught


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt(), SystemExit(1)])
def test_an_interrupt_is_found_itself_and_through_either_chain(interrupt: BaseException) -> None:
    assert carries_interrupt(interrupt)
    assert carries_interrupt(raised_from(RuntimeError("wrapper"), interrupt))
    assert carries_interrupt(raised_while_handling(OSError("cleanup failed"), interrupt))
    deep = raised_from(APIConnectionError("aborted"), raised_from(ValueError("x"), interrupt))
    assert carries_interrupt(deep)


def test_an_ordinary_error_carries_none() -> None:
    assert not carries_interrupt(RuntimeError("boom"))
    assert not carries_interrupt(raised_from(RuntimeError("a"), ValueError("b")))


def test_a_cycle_in_the_chain_ends() -> None:
    error = RuntimeError("loops")
    error.__cause__ = error
    assert not carries_interrupt(error)
    a, b = RuntimeError("a"), RuntimeError("b")
    a.__cause__, b.__cause__ = b, a
    assert not carries_interrupt(a)
