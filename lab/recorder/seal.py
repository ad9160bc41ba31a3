"""Sealed cassettes: a digest of the recorded interactions in the provenance, checked on replay.

A cassette is real recorded traffic; an edited response text or usage figure would silently
change every result derived from it. So the provenance carries ``interactions_sha256``, the
SHA-256 of the interactions as canonical JSON (keys sorted, no spaces, UTF-8), and replay
refuses a cassette

* whose interactions are not the list of request/response objects replay needs (a ``null``
  body, a response without ``status``, ...),
* whose provenance ``requests`` is not the number of interactions, or
* whose digest is missing or does not match,

each with one sentence naming the file. Recording writes the digest; :func:`seal_cassette`
(``ctxlab cassettes seal``) adds it to a cassette recorded before digests existed, computed from
the file, changing nothing else, and refuses one whose digest no longer matches.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from harness.fs.files import write_atomic
from lab.errors import CassetteError, CassetteTamperedError
from lab.recorder.format import PROVENANCE_KEY, load_cassette_json

__all__ = ["DIGEST_KEY", "check_cassette", "interactions_digest", "seal_cassette"]

DIGEST_KEY = "interactions_sha256"
"""The provenance field holding the digest of the interactions."""


def interactions_digest(interactions: Any) -> str:
    """The SHA-256 (hex) of ``interactions`` as canonical JSON."""
    text = json.dumps(interactions, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_cassette(path: Path, data: Mapping[str, Any] | None = None) -> None:
    """Raise a one-sentence :class:`CassetteError` unless the cassette at ``path`` is whole,
    counted right and sealed with a matching digest (``data``: the file, already loaded)."""
    data = load_cassette_json(path) if data is None else data
    provenance = _check_shape(path, data)
    digest = provenance.get(DIGEST_KEY)
    if not digest:
        raise CassetteTamperedError(
            f"Cassette {path} is not sealed (its provenance has no {DIGEST_KEY}); "
            "seal it with `ctxlab cassettes seal` if it is unedited recorded traffic."
        )
    if digest != interactions_digest(data["interactions"]):
        raise CassetteTamperedError(
            f"Cassette {path} was edited after it was recorded (its interactions no longer "
            f"match the {DIGEST_KEY} in its provenance); re-record it."
        )


def seal_cassette(path: Path) -> Literal["sealed", "already sealed"]:
    """Write the digest of the interactions into the provenance of the cassette at ``path``.

    Nothing else in the file changes. A cassette whose digest is already there and matches is
    left alone; one whose digest does not match, or whose shape or request count is wrong, is
    refused with :class:`CassetteError` (sealing must never bless an edit).
    """
    data = load_cassette_json(path)
    provenance = _check_shape(path, data)
    if provenance.get(DIGEST_KEY):
        check_cassette(path, data)
        return "already sealed"
    provenance[DIGEST_KEY] = interactions_digest(data["interactions"])
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    return "sealed"


def _check_shape(path: Path, data: Mapping[str, Any]) -> dict[str, Any]:
    """The provenance block, after checking the interactions' shape and count."""
    provenance = data.get(PROVENANCE_KEY)
    if not isinstance(provenance, dict):
        raise CassetteError(f"Cassette {path} has no provenance block; re-record it.")
    interactions = data.get("interactions")
    if not isinstance(interactions, list):
        raise CassetteError(f"Cassette {path} has no list of interactions; re-record it.")
    for number, interaction in enumerate(interactions, start=1):
        if problem := _interaction_problem(interaction):
            raise CassetteError(f"Cassette {path}: interaction {number} {problem}; re-record it.")
    count = provenance.get("requests")
    if isinstance(count, bool) or count != len(interactions):
        raise CassetteTamperedError(
            f"Cassette {path} says it holds {count!r} requests but holds {len(interactions)}; "
            "re-record it."
        )
    return provenance


def _interaction_problem(interaction: Any) -> str | None:
    """What makes ``interaction`` unplayable, or None."""
    if not isinstance(interaction, dict):
        return "is not an object"
    request, response = interaction.get("request"), interaction.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict):
        return "lacks its request or its response"
    if not isinstance(request.get("method"), str) or not isinstance(request.get("uri"), str):
        return "has a request without method or uri"
    status = response.get("status")
    if not isinstance(status, dict) or not isinstance(status.get("code"), int):
        return "has a response without a status code"
    if response.get("body") is None:
        return "has a response whose body is null"
    if not isinstance(response.get("body"), str | dict):
        return "has a response body that is neither text nor an object"
    return None
