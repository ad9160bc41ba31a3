"""The suite lab is handed: its experiments in report order, as a value (Inspect's ``eval``).

lab names no experiment. The suite's own package lists its experiments (its manifest builds one
:class:`Suite`) and hands that value to lab where it starts: the ``ctxlab`` entry point calls
:func:`lab.cli.main` with it, its pytest plugin calls :func:`use` before lab's plugin collects.
From the suite lab loads an experiment only when it is asked for (:mod:`lab.registry`), its page
only when a report shows it (:mod:`lab.report.experiments`), the mutation catalogue only for
``ctxlab mutations`` and an experiment's extra subcommand only when it is run.

This module imports nothing of lab or the harness, so a manifest that builds a suite stays light
(``ctxlab --help`` imports no pandas).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import NamedTuple

__all__ = ["Command", "Entry", "Suite", "current", "entry_of", "from_module", "use"]


@dataclass(frozen=True)
class Command:
    """A subcommand an experiment adds to ``ctxlab``: its name and one-line help are read for
    ``ctxlab --help``; ``module``, a module of the experiment's folder imported only when the
    subcommand is asked for, defines ``add_options(parser)``, which adds its arguments, and
    ``run(args) -> int``."""

    name: str
    help: str
    module: str = "cli"
    live: bool = False
    """It talks to a live model: the client's retry waits are printed."""


class Entry(NamedTuple):
    """One experiment: its id, its folder in the suite's package, its one-line title and the
    subcommands it adds to ``ctxlab``."""

    id: str
    folder: str
    title: str
    commands: tuple[Command, ...] = ()


@dataclass(frozen=True)
class Suite:
    """The experiments of a suite, in report order, and what they add to lab."""

    home: str
    """The module that defines this suite as ``SUITE`` (a worker process loads it from there:
    :func:`from_module`)."""
    package: str
    """The package whose sub-folders hold the experiments (``<package>.<folder>``)."""
    entries: tuple[Entry, ...]
    mutations: str = ""
    """The module whose ``CATALOGUE`` is the suite's mutation catalogue (:mod:`lab.mutations`)."""

    def ids(self) -> list[str]:
        return [listed.id for listed in self.entries]

    def entry(self, experiment_id: str) -> Entry:
        """The entry of ``experiment_id``; KeyError when the suite does not list it."""
        for listed in self.entries:
            if listed.id == experiment_id:
                return listed
        raise KeyError(experiment_id)

    def module(self, listed: Entry, part: str = "") -> str:
        """The module of ``listed``'s folder, or of ``part`` in it (``page``)."""
        return ".".join(p for p in (self.package, listed.folder, part) if p)

    def commands(self) -> list[tuple[str, Command]]:
        """Every subcommand the experiments add, with the module that defines it."""
        return [(self.module(e, c.module), c) for e in self.entries for c in e.commands]

    def entry_of(self, module: str) -> Entry:
        """The entry of the experiment whose folder holds ``module``; KeyError otherwise."""
        for listed in self.entries:
            folder = self.module(listed)
            if module == folder or module.startswith(f"{folder}."):
                return listed
        raise KeyError(module)


_current: list[Suite] = []


def use(suite: Suite) -> Suite:
    """Hand ``suite`` to lab: every later question about experiments is answered from it."""
    _current[:] = [suite]
    return suite


def current() -> Suite:
    """The suite lab was handed; an error naming how to hand one when none was."""
    if not _current:
        from lab.errors import ExperimentError

        raise ExperimentError(
            "lab was handed no suite: start from the suite's entry point (the ctxlab command, "
            "python -m experiments) or its pytest plugin, or call lab.suite.use(SUITE)"
        )
    return _current[0]


def entry_of(module: str) -> Entry:
    """The entry of the experiment that ``module`` belongs to, in the current suite."""
    return current().entry_of(module)


def from_module(home: str) -> Suite:
    """The ``SUITE`` that module ``home`` defines (what :attr:`Suite.home` names)."""
    suite = getattr(import_module(home), "SUITE", None)
    if not isinstance(suite, Suite):
        raise TypeError(f"{home} must define SUITE = Suite(...)")
    return suite
