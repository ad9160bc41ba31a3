"""What lab's mutation engine is handed: :class:`Mutation` (a behaviour of the harness broken on
purpose, and the claims that must notice) and :class:`Catalogue` (a suite's mutations with the
rows no mutation can flip and why), as pytest-recording's ``MutationGroup`` is handed its
mutations. The suite holds its catalogue (:attr:`lab.suite.Suite.mutations`); lab names none of
its mutations or claims."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import import_module

from lab.mutations.patching import Patch

__all__ = ["ALREADY_DIFFERS", "Catalogue", "Mutation", "suite_catalogue"]


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


ALREADY_DIFFERS = (
    "differs already: a broken harness cannot make it fail (its judge says differs today); it "
    "would flip only if the harness got the recorded output right"
)


@dataclass(frozen=True)
class Catalogue:
    """A suite's mutations, and why the rows no mutation flips are not flipped."""

    mutations: tuple[Mutation, ...]
    guards: Mapping[str, str] = field(default_factory=dict)
    """Claim id → why no mutation of the harness can flip it (it reads a constant, say)."""
    uncovered: Mapping[str, str] = field(default_factory=dict)
    """``<id>@<model>`` (or ``<id>`` for its scripted row) → why no mutation flips it yet,
    though a change of the harness could."""

    def by_name(self, name: str) -> Mutation:
        """The mutation called ``name``; KeyError naming the known ones otherwise."""
        for mutation in self.mutations:
            if mutation.name == name:
                return mutation
        known = ", ".join(m.name for m in self.mutations)
        raise KeyError(f"no mutation {name!r}; known: {known}")

    def guard_reason(self, claim_id: str, status: str) -> str:
        """Why no mutation flips the row, or "" when nothing explains it."""
        if claim_id in self.guards:
            return self.guards[claim_id]
        return ALREADY_DIFFERS if status == "differs" else ""

    def uncovered_reason(self, claim: str) -> str:
        """Why no mutation flips ``claim`` (``<id>@<model>``) yet, from :attr:`uncovered`."""
        claim_id, _, model = claim.partition("@")
        found = self.uncovered.get(claim, "")
        return found or (self.uncovered.get(claim_id, "") if model == "scripted" else "")


def suite_catalogue() -> Catalogue:
    """The ``CATALOGUE`` of the current suite's mutation module (:mod:`lab.suite`)."""
    from lab.suite import current

    module = current().mutations
    catalogue = getattr(import_module(module), "CATALOGUE", None) if module else None
    if not isinstance(catalogue, Catalogue):
        raise TypeError(f"the suite's mutation module {module!r} must define CATALOGUE")
    return catalogue
