"""Answer mutations: a recorded answer rewritten, in a copy of its cassette, to prove that a
judge of model output fails on a wrong answer, not only on answers served to shifted requests.

A :class:`Rewrite` names one answer of one cassette (``<experiment>/<set>/<name>.json``, the
interaction's position) and what it becomes. :func:`rewritten` is a patch of the mutation
catalogue: while it is open, every rewritten cassette is a copy in a temporary folder (never
the committed one, never kept: the folder goes when the patch closes) with the answer replaced
and the digest sealed again (:func:`lab.recorder.seal.seal_cassette`: replay checks
every cassette's seal), and :meth:`RunSettings.cassette_path` hands out the copy in place of
the original. The matrix replays answers in order, so the runs ask what they always ask and get
the rewritten answer where the recording had another. Each rewrite names a phrase of the answer
it replaces: a cassette recorded again (the answer changed) stops the mutation with an error
rather than rewriting another answer.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from lab.errors import ExperimentError
from lab.experiment import RunSettings
from lab.mutations.patching import Patch
from lab.recorder.format import PROVENANCE_KEY, load_cassette_json
from lab.recorder.seal import DIGEST_KEY, seal_cassette

__all__ = ["Rewrite", "rewrite_cassette", "rewritten"]


@dataclass(frozen=True)
class Rewrite:
    """One recorded answer and what it becomes."""

    cassette: str
    """``<experiment>/<set>/<name>``, as under ``cassettes/``."""
    index: int
    """The interaction's position in the cassette (0-based)."""
    was: str
    """A phrase the recorded answer holds (checked, so a new recording is not mutated blind)."""
    answer: str
    """The answer's new text."""


def _message(interaction: dict[str, Any]) -> dict[str, Any]:
    body = interaction["response"]["body"]
    if not isinstance(body, dict) or "json" not in body:
        raise ExperimentError("an answer mutation rewrites JSON answers only")
    message: dict[str, Any] = body["json"]["choices"][0]["message"]
    return message


def rewrite_cassette(source: Path, target: Path, rewrites: Sequence[Rewrite]) -> Path:
    """``source`` copied to ``target`` with ``rewrites`` applied and the copy sealed again."""
    data = load_cassette_json(source)
    for rewrite in rewrites:
        message = _message(data["interactions"][rewrite.index])
        if rewrite.was not in (message.get("content") or ""):
            raise ExperimentError(
                f"answer mutation: answer {rewrite.index} of {rewrite.cassette} no longer holds "
                f"{rewrite.was!r} (re-recorded?); update the mutation"
            )
        message["content"] = rewrite.answer
    del data[PROVENANCE_KEY][DIGEST_KEY]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    seal_cassette(target)
    return target


def rewritten(*rewrites: Rewrite) -> Patch:
    """The patch serving copies of the cassettes ``rewrites`` name, rewritten and sealed."""

    @contextmanager
    def apply() -> Iterator[None]:
        original = RunSettings.cassette_path
        with tempfile.TemporaryDirectory(prefix="ctxlab-answers-") as scratch:
            copies: dict[tuple[str, ...], Path] = {}

            def cassette_path(self: RunSettings, experiment_id: str, name: str) -> Path:
                path = original(self, experiment_id, name)
                key = path.with_suffix("").parts[-3:]
                if key not in copies and "/".join(key) in {r.cassette for r in rewrites}:
                    mine = [r for r in rewrites if r.cassette == "/".join(key)]
                    target = Path(scratch, *key).with_suffix(".json")
                    copies[key] = rewrite_cassette(path, target, mine)
                return copies.get(key, path)

            with mock.patch.object(RunSettings, "cassette_path", cassette_path):
                yield

    return apply
