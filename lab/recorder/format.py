"""The ctxlab cassette file: vcrpy's cassette as readable, diffable JSON.

A cassette is one JSON object: a ``provenance`` block (which provider, model and server produced it;
see :class:`~lab.recorder.cassette.Provenance`), then vcrpy's ``version`` and
``interactions``. Bodies that are JSON are stored parsed, so they are readable and diffable (Chinese
text stays Chinese), and turned back into the exact bytes on load; other text stays a string and
bytes that are not UTF-8 are stored as base64."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness import json_depth
from harness.fs.files import write_atomic
from lab.errors import CassetteError

# vcrpy (and lab.recorder.matching, which imports it) is imported by the persisters, when a
# cassette is played or recorded: reading a cassette's JSON (the order replay, the seal) and a
# command that only talks to a live model (``ctxlab bench``) do without its ~0.2 s (issue 48)

__all__ = [
    "PROVENANCE_KEY",
    "CassetteSerializer",
    "LoadedPersister",
    "Utf8Persister",
    "decode_body",
    "encode_body",
    "load_cassette_json",
    "read_recording",
    "with_provenance",
]

PROVENANCE_KEY = "provenance"
"""The top-level key of a cassette's provenance block."""

# How a JSON body was spelled on the wire, so that it can be re-spelled byte for byte.
_STYLES: dict[str, dict[str, Any]] = {
    "compact": {"ensure_ascii": False, "separators": (",", ":")},
    "compact-ascii": {"ensure_ascii": True, "separators": (",", ":")},
    "spaced": {"ensure_ascii": False, "separators": (", ", ": ")},
    "spaced-ascii": {"ensure_ascii": True, "separators": (", ", ": ")},
}


# --- bodies --------------------------------------------------------------------------------


def encode_body(body: str | bytes | None) -> Any:
    """A request or response body as a cassette stores it.

    JSON objects and arrays become ``{"json": <parsed>}`` (plus ``"style"`` when not spelled
    compactly with raw UTF-8) if they can be re-spelled byte for byte; other text stays a
    string; bytes that are not UTF-8 become ``{"base64": ...}``.
    """
    if body is None:
        return None
    if isinstance(body, bytes):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(body).decode("ascii")}
    else:
        text = body
    try:
        parsed = json_depth.loads(text)
    except ValueError:
        return text
    if not isinstance(parsed, dict | list):
        return text
    for style, options in _STYLES.items():
        if json.dumps(parsed, **options) == text:
            return {"json": parsed} if style == "compact" else {"json": parsed, "style": style}
    return text


def decode_body(stored: Any) -> str | bytes | None:
    """The exact body :func:`encode_body` stored (``str`` for text, ``bytes`` for binary)."""
    if stored is None or isinstance(stored, str):
        return stored
    if isinstance(stored, dict) and "base64" in stored:
        return base64.b64decode(stored["base64"])
    if isinstance(stored, dict) and "json" in stored:
        return json.dumps(stored["json"], **_STYLES[stored.get("style", "compact")])
    raise ValueError(f"unreadable cassette body: {type(stored).__name__}")


# --- vcrpy's serializer and persister ------------------------------------------------------


class CassetteSerializer:
    """The vcrpy serializer of ctxlab cassettes: indented JSON, UTF-8 kept, bodies parsed."""

    @staticmethod
    def serialize(cassette_dict: dict[str, Any]) -> str:
        """vcrpy's cassette dict as ctxlab JSON."""
        data = dict(cassette_dict)
        data["interactions"] = [_encode_interaction(i) for i in cassette_dict["interactions"]]
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"

    @staticmethod
    def deserialize(text: str) -> dict[str, Any]:
        """ctxlab JSON back into vcrpy's cassette dict (bodies as vcrpy stored them)."""
        return CassetteSerializer.decoded(json_depth.loads(text))

    @staticmethod
    def decoded(data: Mapping[str, Any]) -> dict[str, Any]:
        """A parsed ctxlab cassette as vcrpy's cassette dict; ``data`` itself is left as it
        was (each interaction is a new dict)."""
        interactions = [_decode_interaction(i) for i in data.get("interactions", [])]
        return {**data, "interactions": interactions}


def _encode_interaction(interaction: Mapping[str, Any]) -> dict[str, Any]:
    request, response = dict(interaction["request"]), dict(interaction["response"])
    request["body"] = encode_body(request.get("body"))
    response["body"] = encode_body((response.get("body") or {}).get("string"))
    return {"request": request, "response": response}


def _decode_interaction(interaction: Mapping[str, Any]) -> dict[str, Any]:
    request, response = dict(interaction["request"]), dict(interaction["response"])
    request["body"] = decode_body(request.get("body"))
    response["body"] = {"string": decode_body(response.get("body"))}
    return {"request": request, "response": response}


class Utf8Persister:
    """vcrpy's filesystem persister, but always UTF-8 and writing atomically."""

    @staticmethod
    def load_cassette(cassette_path: str | Path, serializer: Any) -> Any:
        from vcr.persisters.filesystem import CassetteNotFoundError
        from vcr.serialize import deserialize as vcr_deserialize

        path = Path(cassette_path)
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        if not text.strip():
            raise CassetteNotFoundError()
        try:
            return vcr_deserialize(text, serializer)
        except (KeyError, TypeError, ValueError) as exc:
            raise CassetteError(f"Cassette {path} cannot be read: {exc!r}; re-record it.") from None

    @staticmethod
    def save_cassette(cassette_path: str | Path, cassette_dict: Any, serializer: Any) -> None:
        from vcr.serialize import serialize as vcr_serialize

        write_atomic(Path(cassette_path), vcr_serialize(cassette_dict, serializer))


class LoadedPersister:
    """A replay's vcrpy persister over the cassette as :func:`load_cassette_json` already read
    it (and the seal was checked on): the file is parsed once per replay, not once for the
    seal and again for vcrpy (X-BENCH replays 392 cassettes)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = data
        self.loads = 0
        """How many times vcrpy asked for the cassette (once per replay)."""
        self.canonical_bodies: dict[object, str] = {}
        """The canonical form of each recorded JSON body, by the body's bytes (the replay's
        matcher reads a request made byte for byte as recorded from here, unparsed)."""

    def load_cassette(self, cassette_path: str | Path, serializer: Any) -> Any:
        from vcr.persisters.filesystem import CassetteNotFoundError
        from vcr.request import Request as VcrRequest
        from vcr.serializers.compat import convert_to_bytes

        from lab.recorder.matching import remember_canonical

        self.loads += 1
        if not self._data.get("interactions"):
            raise CassetteNotFoundError()
        try:  # what vcrpy's deserialize makes of the file's text, from the parsed file
            data = CassetteSerializer.decoded(self._data)
            requests = [VcrRequest._from_dict(i["request"]) for i in data["interactions"]]
            for request, stored in zip(requests, self._data["interactions"], strict=True):
                body = stored["request"].get("body")
                if isinstance(body, dict) and "json" in body:
                    self.canonical_bodies[request.body] = remember_canonical(request, body["json"])
            responses = [convert_to_bytes(i["response"]) for i in data["interactions"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise CassetteError(
                f"Cassette {cassette_path} cannot be read: {exc!r}; re-record it."
            ) from None
        if data.get("metadata"):
            return requests, responses, data["metadata"]
        return requests, responses

    @staticmethod
    def save_cassette(cassette_path: str | Path, cassette_dict: Any, serializer: Any) -> None:
        raise CassetteError(f"a replay never writes its cassette ({cassette_path})")


# --- whole files ---------------------------------------------------------------------------


def load_cassette_json(path: Path) -> dict[str, Any]:
    """The cassette at ``path`` as a JSON object; :class:`CassetteError` when it is not one."""
    try:
        data = json_depth.loads(path.read_text(encoding="utf-8"))  # depth bounded first
    except (OSError, ValueError) as exc:
        raise CassetteError(f"Cassette {path} cannot be read as JSON: {exc}.") from None
    if not isinstance(data, dict):
        raise CassetteError(f"Cassette {path} is not a JSON object.")
    return data


def read_recording(path: Path) -> dict[str, Any]:
    """What vcrpy recorded into ``path`` (no interactions when it wrote nothing)."""
    text = path.read_text(encoding="utf-8")
    return json_depth.loads(text) if text.strip() else {"version": 1, "interactions": []}


def with_provenance(provenance: Mapping[str, Any], recording: Mapping[str, Any]) -> str:
    """The text of the finished cassette: the provenance block, then the recording."""
    data = {PROVENANCE_KEY: dict(provenance), **recording}
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
