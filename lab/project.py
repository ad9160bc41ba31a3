"""Where the ctxlab checkout is: the folder whose ``cassettes/`` and ``reports/`` a command uses.

The project is found from the current directory, never from where ctxlab is installed: after a
plain ``pip install .`` the code lives in ``site-packages``, and a venv shared by two clones
must use the clone it is run from. :func:`find_project` walks up from a folder to the first
``pyproject.toml`` whose ``[project] name`` is ``ctxlab``; ``--project DIR`` names one directly.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from harness import ConfigError

__all__ = ["PROJECT_NAME", "SOURCE_ROOT", "find_project", "is_project"]

PROJECT_NAME = "ctxlab"

SOURCE_ROOT = Path(__file__).resolve().parents[1]
"""The folder that holds the ``lab`` and ``experiments`` packages: the checkout when ctxlab
runs from one (an editable install), ``site-packages`` otherwise."""


def is_project(folder: Path) -> bool:
    """Whether ``folder`` holds a ``pyproject.toml`` naming the ``ctxlab`` project."""
    path = folder / "pyproject.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return False  # not TOML we can read (tomllib recurses once per nested array or table)
    project = data.get("project")
    return isinstance(project, dict) and project.get("name") == PROJECT_NAME


def find_project(explicit: Path | None = None, start: Path | None = None) -> Path:
    """The ctxlab checkout: ``explicit`` when given, else the nearest one above ``start``.

    ``start`` defaults to the current directory. Raises :class:`ConfigError`, in one sentence
    saying what to do, when there is none; nothing is created either way.
    """
    if explicit is not None:
        folder = explicit.expanduser().resolve()
        if not is_project(folder):
            raise ConfigError(
                f"--project {explicit} is not a ctxlab checkout (it has no pyproject.toml "
                "naming ctxlab); give the folder of a ctxlab clone."
            )
        return folder
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if is_project(folder):
            return folder
    raise ConfigError(
        f"No ctxlab checkout at or above {here}: run ctxlab from inside a clone of ctxlab "
        "(the folder with its pyproject.toml, cassettes/ and reports/), or pass --project DIR."
    )
