"""One mutation of the catalogue (:mod:`lab.mutations.catalogue`): a behaviour of the
harness broken on purpose, and the claims that must notice."""

from __future__ import annotations

from dataclasses import dataclass

from lab.mutations.patches import Patch

__all__ = ["Mutation"]


@dataclass(frozen=True)
class Mutation:
    """One behaviour of the harness broken, and the claims that must notice."""

    name: str
    what: str
    """The behaviour broken, in one sentence."""
    apply: Patch
    must_flip: tuple[str, ...]
    """Claims whose status must change (``ID`` for every model, ``ID@model`` for one)."""
    gap: str = ""
    """Why no claim catches this mutation yet (its test is then an expected failure, strict:
    it fails the day a claim starts catching it, so the gap is closed on purpose)."""
