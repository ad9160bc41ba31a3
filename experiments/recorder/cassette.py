"""Replay recorded model traffic offline, or record it live, through vcrpy cassettes.

:func:`cassette_client` hands out a :class:`~harness.client.ChatClient` wired to one cassette:

* ``replay`` first checks the cassette is whole and sealed (the digest of its interactions in
  its provenance matches; see :mod:`~experiments.recorder.seal`), then serves every request from
  the file, never touching the network. Requests are matched on method, path and the *parsed*
  JSON body, each recorded answer is played once, in order, and a request the recording does
  not hold, or a recorded one never asked for, raises :class:`CassetteMismatchError` with the
  command that re-records it (:mod:`~experiments.recorder.matching`).
* ``record`` sends the requests to a live provider and writes the cassette only when the block
  ends without error: secrets are filtered from headers and query strings, loopback addresses
  are replaced by the provider's public URL, the finished file is scanned for anything that
  still looks like a secret, and a ``provenance`` block says which provider and model (and, for
  the local server, which model file and flags) produced it.

Cassettes are JSON: JSON bodies are stored parsed, readable and diffable (Chinese text stays
Chinese), and turned back into the exact bytes on load (:mod:`~experiments.recorder.format`).
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import logging
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import httpx
import vcr

from experiments.errors import (
    CassetteError,
    CassetteExistsError,
    CassetteMissingError,
    RecordingIncompleteError,
    SecretLeakError,
)
from experiments.recorder.attempts import AttemptLog
from experiments.recorder.format import (
    PROVENANCE_KEY,
    CassetteSerializer,
    Utf8Persister,
    decode_body,
    encode_body,
    load_cassette_json,
    read_recording,
    with_provenance,
)
from experiments.recorder.matching import (
    MATCH_ON,
    ReplayTransport,
    check_all_played,
    describe_difference,
    json_body_matcher,
)
from experiments.recorder.order_replay import CassetteMatch, replay_in_order
from experiments.recorder.providers import ProviderSpec, is_loopback_url
from experiments.recorder.recording_lock import recording_lock
from experiments.recorder.scrubbing import (
    FILTERED_QUERY_PARAMETERS,
    FILTERED_REQUEST_HEADERS,
    request_scrubber,
    scrub_response,
)
from experiments.recorder.seal import check_cassette, interactions_digest
from experiments.recorder.secrets import scan_text
from harness.client import ChatClient, RetryPolicy
from harness.errors import ConfigError, MissingAPIKeyError
from harness.files import write_atomic
from harness.timeouts import Timeouts

__all__ = [
    "CassetteClient",
    "CassetteSerializer",
    "Provenance",
    "cassette_client",
    "decode_body",
    "describe_difference",
    "encode_body",
    "json_body_matcher",
    "read_provenance",
]

REPLAY_KEY = "replay-no-key"
VCR_LOGGER = "vcr"
"""vcrpy's logger: at INFO it prints every request and recorded response."""


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
    (see :mod:`~experiments.recorder.seal`)."""

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


def read_provenance(path: Path) -> Provenance:
    """The provenance block of the cassette at ``path``.

    Raises :class:`CassetteMissingError` when there is no file and :class:`CassetteError` when
    it is not a ctxlab cassette (unreadable, or without a complete provenance block).
    """
    path = Path(path)
    if not path.is_file():
        raise CassetteMissingError(f"No cassette at {path}.")
    data = load_cassette_json(path)
    try:
        return Provenance.from_dict(data[PROVENANCE_KEY])
    except (KeyError, TypeError, ValueError) as exc:
        raise CassetteError(
            f"Cassette {path} has no complete provenance block ({exc}); re-record it."
        ) from None


def _ctxlab_version() -> str:
    try:
        return importlib.metadata.version("ctxlab")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _provenance(
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
        ctxlab_version=_ctxlab_version(),
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


@contextmanager
def cassette_client(
    path: Path,
    *,
    mode: Literal["replay", "record"],
    provider: ProviderSpec | None = None,
    server_info: Mapping[str, Any] | None = None,
    force: bool = False,
    rerecord_hint: str = "",
    progress: Callable[[str], None] | None = None,
    timeouts: Timeouts | None = None,
    match: CassetteMatch = "body",
) -> Iterator[CassetteClient]:
    """A chat client that replays the cassette at ``path``, or records it from ``provider``.

    ``rerecord_hint`` is the command that (re-)records the cassette; error messages quote it.
    ``server_info`` (from the local server) goes into the provenance; ``progress`` gets one
    line per recorded request; ``timeouts`` bound each recorded request (None: the defaults
    and ``CTXLAB_*TIMEOUT``). See the module docstring for what each mode guarantees.
    """
    path = Path(path)
    if mode == "replay":
        with (_replay if match == "body" else replay_in_order)(path, rerecord_hint) as handle:
            yield handle
    elif mode == "record":
        if provider is None:
            raise ConfigError("Recording a cassette needs a provider.")
        with (  # checked, recorded and written under the cassette's lock
            recording_lock(path),
            _record(path, provider, server_info, force, progress, timeouts) as handle,
        ):
            yield handle
    else:
        raise ConfigError(f"Unknown cassette mode {mode!r}; use 'replay' or 'record'.")


def _vcr(**options: Any) -> vcr.VCR:
    # Keep vcrpy's INFO lines (whole requests and responses) out of `ctxlab -v`; the
    # loggers below "vcr" (vcr.stubs, vcr.cassette, ...) inherit the level.
    logging.getLogger(VCR_LOGGER).setLevel(logging.WARNING)
    recorder = vcr.VCR(serializer="ctxlab-json", match_on=MATCH_ON, **options)
    recorder.register_serializer("ctxlab-json", CassetteSerializer)
    recorder.register_matcher("json_body", json_body_matcher)
    recorder.register_persister(Utf8Persister)
    return recorder


def _hint(rerecord_hint: str, verb: str = "re-record") -> str:
    return f"{verb} it with `{rerecord_hint}`" if rerecord_hint else f"{verb} it"


# --- replay --------------------------------------------------------------------------------


@contextmanager
def _replay(path: Path, rerecord_hint: str) -> Iterator[CassetteClient]:
    if not path.is_file():
        raise CassetteMissingError(f"No cassette at {path}; {_hint(rerecord_hint, 'record')}.")
    check_cassette(path)  # whole, counted right, and not edited since it was recorded
    provenance = read_provenance(path)
    transport = ReplayTransport(path, _hint(rerecord_hint))
    with httpx.Client(transport=transport, trust_env=False) as http:
        client = ChatClient(
            model=provenance.model,
            base_url=provenance.base_url,
            api_key=REPLAY_KEY,
            params=provenance.params,
            retry=RetryPolicy(max_retries=0),
            http_client=http,
        )
        recorder = _vcr(record_mode="none")
        with recorder.use_cassette(str(path), allow_playback_repeats=False) as cassette:
            yield CassetteClient(client, path, provenance)
    check_all_played(cassette, path, _hint(rerecord_hint))


# --- record --------------------------------------------------------------------------------


@contextmanager
def _record(
    path: Path,
    provider: ProviderSpec,
    server_info: Mapping[str, Any] | None,
    force: bool,
    progress: Callable[[str], None] | None,
    timeouts: Timeouts | None = None,
) -> Iterator[CassetteClient]:
    if path.exists() and not force:
        raise CassetteExistsError(f"Cassette {path} exists already; pass --force to re-record it.")
    key = _api_key(provider)
    started = datetime.now(UTC)
    temp = _temp_beside(path)
    attempts = AttemptLog(progress)
    http = httpx.Client(
        event_hooks=attempts.hooks,
        trust_env=not is_loopback_url(provider.base_url),  # no proxy for a local server
    )
    try:
        client = ChatClient(
            model=provider.model,
            base_url=provider.base_url,
            api_key=key,
            params=provider.params,
            http_client=http,
            timeout=timeouts,
        )
        handle = CassetteClient(client, path, None)
        with _record_vcr(provider, key).use_cassette(str(temp)):
            yield handle
        _refuse_unanswered(path, attempts)
        handle._provenance = _finish(temp, path, provider, server_info, started, key)
    finally:
        http.close()
        temp.unlink(missing_ok=True)


def _refuse_unanswered(path: Path, attempts: AttemptLog) -> None:
    missing = attempts.never_answered()
    if missing:
        numbers = ", ".join(map(str, missing))
        raise RecordingIncompleteError(
            f"Request {numbers} of the recording for {path} got no answer (a timeout or a "
            "dropped connection) and the run went on without it, so its replay would differ; "
            "nothing was written. Give the model more time (--read-timeout, --timeout) or "
            "check the server, and record again."
        )


def _temp_beside(path: Path) -> Path:
    """A new empty file next to ``path`` (vcrpy treats an empty cassette as a new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".recording", dir=path.parent)
    os.close(fd)
    return Path(name)


def _api_key(provider: ProviderSpec) -> str:
    if provider.api_key_env is None:
        return "no-key"
    key = os.environ.get(provider.api_key_env, "").strip()
    if not key:
        raise MissingAPIKeyError(provider.api_key_env)
    return key


def _record_vcr(provider: ProviderSpec, key: str) -> vcr.VCR:
    return _vcr(
        record_mode="all",
        record_on_exception=False,
        decode_compressed_response=True,
        filter_headers=FILTERED_REQUEST_HEADERS,
        filter_query_parameters=FILTERED_QUERY_PARAMETERS,
        before_record_request=request_scrubber(provider, key),
        before_record_response=scrub_response,
    )


def _finish(
    temp: Path,
    path: Path,
    provider: ProviderSpec,
    server_info: Mapping[str, Any] | None,
    started: datetime,
    key: str,
) -> Provenance:
    """Add the provenance to the recording, scan it for secrets and move it onto ``path``."""
    recording = read_recording(temp)
    provenance = _provenance(provider, server_info, started, recording["interactions"])
    final = with_provenance(provenance.to_dict(), recording)
    findings = scan_text(final, known_secrets=[key])
    if findings:
        raise SecretLeakError(
            f"The recording for {path} contains what looks like a secret "
            f"({'; '.join(findings[:5])}); nothing was written."
        )
    write_atomic(path, final)
    return provenance
