"""Who produced a cassette (its ``provenance`` block) and the chat-client handle that carries
it: :class:`Provenance`, :func:`read_provenance`, :class:`CassetteClient`."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from harness import ChatClient
from lab.errors import (
    CassetteError,
    CassetteMissingError,
)
from lab.recorder.format import (
    PROVENANCE_KEY,
    load_cassette_json,
)
from lab.recorder.providers import ProviderSpec
from lab.recorder.seal import interactions_digest
from lab.version import ctxlab_version

__all__ = ["REPLAY_KEY", "CassetteClient", "Provenance", "provenance_of", "read_provenance"]

REPLAY_KEY = "replay-no-key"
"""The key a replaying client sends (no secret: the cassette answers, not a server)."""


# --- provenance ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Provenance:
    """Which provider, model and server produced a cassette, and when."""

    provider: str
    model: str
    base_url: str
    """The public base URL (what replay sends requests to)."""
    params: dict[str, Any]
    """The extra body fields sent with every request."""
    recorded_at: str
    """ISO-8601 UTC time the recording started."""
    ctxlab_version: str
    requests: int
    """How many request/response pairs the cassette holds."""
    server: str | None = None
    server_version: str | None = None
    model_file: str | None = None
    """The model file's name (not its path) when a local server served it."""
    model_sha256: str | None = None
    server_flags: tuple[str, ...] = field(default_factory=tuple)
    interactions_sha256: str | None = None
    """SHA-256 of the recorded interactions; replay refuses a cassette that does not match it
    (see :mod:`~lab.recorder.seal`)."""

    @property
    def source(self) -> str:
        """``provider/model``, as reports name the origin of a measurement."""
        return f"{self.provider}/{self.model}"

    def to_dict(self) -> dict[str, Any]:
        """The provenance as the JSON object a cassette stores."""
        data = dataclasses.asdict(self)
        data["server_flags"] = list(self.server_flags)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Provenance:
        """Read a stored provenance object; raises ``TypeError``/``KeyError`` when malformed."""
        names = {f.name for f in dataclasses.fields(cls)}
        values = {key: value for key, value in data.items() if key in names}
        values["server_flags"] = tuple(values.get("server_flags") or ())
        values["params"] = dict(values["params"])
        return cls(**values)


def read_provenance(path: Path, data: Mapping[str, Any] | None = None) -> Provenance:
    """The provenance block of the cassette at ``path`` (``data``: the file, already loaded).

    Raises :class:`CassetteMissingError` when there is no file and :class:`CassetteError` when
    it is not a ctxlab cassette (unreadable, or without a complete provenance block).
    """
    path = Path(path)
    if data is None:
        if not path.is_file():
            raise CassetteMissingError(f"No cassette at {path}.")
        data = load_cassette_json(path)
    try:
        return Provenance.from_dict(data[PROVENANCE_KEY])
    except (KeyError, TypeError, ValueError) as exc:
        raise CassetteError(
            f"Cassette {path} has no complete provenance block ({exc}); re-record it."
        ) from None


def provenance_of(
    provider: ProviderSpec,
    server_info: Mapping[str, Any] | None,
    started: datetime,
    interactions: list[Any],
) -> Provenance:
    info = dict(server_info or {})
    model_file = info.get("model_file")
    return Provenance(
        provider=provider.name,
        model=provider.model,
        base_url=provider.public_base_url,
        params=json.loads(json.dumps(dict(provider.params))),
        recorded_at=started.isoformat(timespec="seconds").replace("+00:00", "Z"),
        ctxlab_version=ctxlab_version(),
        requests=len(interactions),
        server=info.get("server"),
        server_version=info.get("server_version"),
        model_file=Path(model_file).name if model_file else None,
        model_sha256=info.get("model_sha256"),
        server_flags=tuple(info.get("server_flags") or info.get("flags") or ()),
        interactions_sha256=interactions_digest(interactions),
    )


# --- the client handle ---------------------------------------------------------------------


class CassetteClient:
    """A chat client wired to one cassette, and the cassette's provenance.

    In record mode the provenance exists only once the recording block has ended.
    """

    def __init__(self, client: ChatClient, path: Path, provenance: Provenance | None) -> None:
        self.client = client
        """The :class:`~harness.client.ChatClient` to hand to the agent."""
        self.path = path
        """The cassette file."""
        self._provenance = provenance

    @property
    def provenance(self) -> Provenance:
        """Who produced the cassette; raises :class:`CassetteError` while still recording."""
        if self._provenance is None:
            raise CassetteError(f"Cassette {self.path} is still being recorded.")
        return self._provenance

    def __repr__(self) -> str:
        return f"CassetteClient(path={str(self.path)!r}, client={self.client!r})"
