"""Which experiments a mutation can reach, derived from code rather than from any expected
answer, so that the matrix replays under a mutation only the experiments whose claims it can
move (X-BENCH is most of a replay; most mutations never run its code).

Two facts, each computed in its own worker process (:mod:`lab.mutations.worker`):

* what a mutation replaces (:func:`patched_code`): its patch is opened with every loaded
  module's namespace, every class's and every module-level object's attributes compared before
  and after, by identity; each replaced value must be plain code (a function, a method, a
  property's accessors, a static or class method), whose code objects are kept. Anything else
  replaced (a constant, a class, a configuration object), or nothing seen replaced at all,
  gives None: the mutation reaches every experiment;
* what an experiment runs (:func:`traced`): the unmutated experiment, alone in a fresh
  process, with a trace recording every code object that starts executing, on every thread,
  from the process's start (imports and start-up included).

A mutation reaches an experiment when one code object it replaces ran in that experiment's
unmutated run (:func:`reaches`). That is sound: until the first call of a replaced function,
the mutated run is the unmutated one step for step, and a run that never called it never gets
there. What it assumes, and the full matrix (``ctxlab mutations --every-experiment``) checks:
a patch changes behaviour only by replacing attributes (what ``mock.patch`` does), a replaced
function matters only when called, and an experiment's claims do not depend on what another
experiment left in the process.
"""

from __future__ import annotations

import sys
import threading
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from operator import is_
from typing import Any
from unittest import mock

__all__ = ["CodeKey", "code_key", "patched_code", "reaches", "traced"]

CodeKey = str
"""``<file>:<first line>:<qualified name>``: a code object named across processes."""
_MISSING = object()


def code_key(code: types.CodeType) -> CodeKey:
    return f"{code.co_filename}:{code.co_firstlineno}:{code.co_qualname}"


@contextmanager
def traced() -> Iterator[set[CodeKey]]:
    """Every code object that starts executing (any thread) while open, as keys."""
    seen: dict[int, types.CodeType] = {}  # by id, each kept alive so no id is reused

    def tracer(frame: types.FrameType, _event: str, _arg: object) -> None:
        seen[id(frame.f_code)] = frame.f_code

    found: set[CodeKey] = set()
    sys.settrace(tracer)
    threading.settrace(tracer)
    try:
        yield found
    finally:
        sys.settrace(None)
        threading.settrace(None)
        found.update(code_key(code) for code in seen.values())


def _codes_of(value: object) -> set[CodeKey] | None:
    """The code objects calling ``value`` runs first; None when it is not plain code."""
    if isinstance(value, staticmethod | classmethod | types.MethodType):
        value = value.__func__
    if isinstance(value, property):
        parts = [f for f in (value.fget, value.fset, value.fdel) if f is not None]
        found = [_codes_of(f) for f in parts]
        if not parts or any(codes is None for codes in found):
            return None
        return set().union(*(codes for codes in found if codes is not None))
    if isinstance(value, types.FunctionType):
        return {code_key(value.__code__)}
    return None


def _namespaces() -> dict[int, tuple[object, dict[str, object]]]:
    """Every loaded module's namespace and every class's defined in one (nested classes too),
    copied, by the owner's id."""
    found: dict[int, tuple[object, dict[str, object]]] = {}
    pending: list[object] = [m for m in list(sys.modules.values()) if m is not None]
    while pending:
        owner = pending.pop()
        if id(owner) in found:
            continue
        try:
            namespace = dict(vars(owner))
        except TypeError:
            continue
        found[id(owner)] = (owner, namespace)
        pending += [v for v in namespace.values() if isinstance(v, type) and id(v) not in found]
    return found


def _inherited(
    owner: object, name: str, before: Mapping[int, tuple[object, dict[str, object]]]
) -> object:
    """What ``name`` resolved to on a class before a patch set it on the class itself."""
    for base in getattr(owner, "__mro__", ())[1:]:
        value = before.get(id(base), (None, {}))[1].get(name, _MISSING)
        if value is not _MISSING:
            return value
    return _MISSING


def _replaced(before: Mapping[int, tuple[object, dict[str, object]]]) -> Iterator[object]:
    """Each value the open patch replaced (or shadowed), against ``before``."""
    for key, (owner, namespace) in _namespaces().items():
        if key not in before:
            continue
        old = before[key][1]
        if old.keys() == namespace.keys() and all(map(is_, old.values(), namespace.values())):
            continue  # the common case, at C speed
        for name in set(old) | set(namespace):
            if old.get(name, _MISSING) is namespace.get(name, _MISSING):
                continue
            value = old.get(name, _MISSING)
            yield _inherited(owner, name, before) if value is _MISSING else value


@contextmanager
def _mock_patches() -> Iterator[list[object]]:
    """The values each ``mock.patch`` entered while open replaced; a ``mock.patch.dict``
    (a dict changed in place, which no comparison of namespaces sees) as :data:`_MISSING`."""
    replaced: list[object] = []
    enter, enter_dict = mock._patch.__enter__, mock._patch_dict.__enter__

    def recording(self: Any) -> Any:
        entered = enter(self)
        replaced.append(self.temp_original)
        return entered

    def recording_dict(self: Any) -> Any:
        replaced.append(_MISSING)
        return enter_dict(self)

    with (
        mock.patch.object(mock._patch, "__enter__", recording),
        mock.patch.object(mock._patch_dict, "__enter__", recording_dict),
    ):
        yield replaced


def patched_code(patches: Mapping[str, Callable[[], Any]]) -> dict[str, set[CodeKey] | None]:
    """For each named patch, the code objects it replaces; None when it replaces anything
    else, or nothing it can see (then it reaches every experiment)."""
    for apply in patches.values():  # each once first: what they import is loaded before
        with apply():
            pass
    found: dict[str, set[CodeKey] | None] = {}
    with _mock_patches() as replaced:
        before = _namespaces()
        for name, apply in patches.items():
            replaced.clear()
            with apply():
                replaced += _replaced(before)
            codes = [_codes_of(value) for value in replaced]
            known = [c for c in codes if c is not None]
            found[name] = set().union(*known) if codes and len(known) == len(codes) else None
    return found


def reaches(
    patched: set[CodeKey] | None, ran: Mapping[str, Iterable[CodeKey]], experiments: Sequence[str]
) -> list[str]:
    """The ``experiments`` (in their order) whose unmutated run ran a code object of
    ``patched``; every one of them when ``patched`` is None."""
    if patched is None:
        return list(experiments)
    return [e for e in experiments if not patched.isdisjoint(ran.get(e, ()))]
