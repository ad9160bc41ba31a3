"""Cassettes per provider and model, side by side: one folder per recorded set.

An experiment's cassettes live in ``cassettes/<experiment>/<set>/<name>.json``, where ``<set>``
is ``<provider>-<model>`` (:func:`set_name`), for example
``cassettes/E3/local-qwen2.5-coder-1.5b-instruct-q4_k_m/rounds.json``. Recording with another
provider or model adds a folder beside the others; ``--force`` only replaces the files of the
same set. Replay runs the experiment once per set (:func:`list_sets`), and each set's claims
carry the set's model (:func:`model_label`).

A variant of a recording (the same experiment with a ctxlab switch on, such as the identifier
gate) lives in the same set folder under ``<name>-<variant>.json``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "DEFAULT_SET",
    "list_sets",
    "model_label",
    "set_name",
    "split_set",
    "variant_name",
]

DEFAULT_SET = "local-qwen2.5-coder-1.5b-instruct-q4_k_m"
"""The set replayed when no set is named: the model the project's cassettes were first recorded
with (listed first in reports)."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def set_name(provider: str, model: str) -> str:
    """The folder of a provider's model: ``<provider>-<model>``, one path component (any
    character but letters, digits, ``.``, ``_`` and ``-`` becomes ``_``)."""
    name = _UNSAFE.sub("_", f"{provider}-{model}").strip("._")
    if not name:
        raise ValueError(f"no cassette folder name for provider {provider!r}, model {model!r}")
    return name


def split_set(name: str) -> tuple[str, str]:
    """``(provider, model)`` of a set folder ``<provider>-<model>`` (the model as
    :func:`model_label` gives it for the set's cassettes), or ``("", name)`` when no known
    provider prefixes it."""
    from lab.recorder.providers import PROVIDERS

    for provider in sorted(PROVIDERS, key=len, reverse=True):
        if name.startswith(f"{provider}-"):
            return provider, name[len(provider) + 1 :]
    return "", name


def variant_name(name: str, variant: str) -> str:
    """The cassette name of a variant: ``rounds`` + ``gate`` is ``rounds-gate``."""
    return f"{name}-{variant}" if variant else name


def list_sets(cassette_root: Path, experiment_id: str, names: Iterable[str] = ()) -> list[str]:
    """The recorded sets of an experiment: the folders under ``cassette_root/<experiment>``
    holding a cassette (every one of ``names``, when given), the default set first, then by
    name."""
    folder = Path(cassette_root) / experiment_id
    if not folder.is_dir():
        return []
    wanted = list(names)
    found = [
        child.name
        for child in folder.iterdir()
        if child.is_dir()
        and not child.is_symlink()
        and (
            all((child / f"{n}.json").is_file() for n in wanted)
            if wanted
            else any(child.glob("*.json"))
        )
    ]
    return sorted(found, key=lambda name: (name != DEFAULT_SET, name))


def model_label(source: str, others: Iterable[str] = ()) -> str:
    """The ``model`` of a claim from its ``provider/model`` source: the model's name, or the
    whole source when another provider in ``others`` recorded a model of the same name;
    ``scripted`` for scripted experiments."""
    if "/" not in source:
        return source or "scripted"
    _, model = source.split("/", 1)
    clash = [o for o in others if o != source and "/" in o and o.split("/", 1)[1] == model]
    return source if clash else model
