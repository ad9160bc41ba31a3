"""Replay recorded model traffic offline, or record it live, through vcrpy cassettes.

:func:`cassette_client` hands out a :class:`~harness.client.ChatClient` wired to one cassette:

* ``replay`` first checks the cassette is whole and sealed (the digest of its interactions in
  its provenance matches; see :mod:`~lab.recorder.seal`), then serves every request from
  the file, never touching the network. Requests are matched on method, path and the *parsed*
  JSON body, each recorded answer is played once, in order, and a request the recording does
  not hold, or a recorded one never asked for, raises :class:`CassetteMismatchError` with the
  command that re-records it (:mod:`~lab.recorder.matching`).
* ``record`` sends the requests to a live provider and writes the cassette only when the block
  ends without error: secrets are filtered from headers and query strings, loopback addresses
  are replaced by the provider's public URL, the finished file is scanned for anything that
  still looks like a secret, and a ``provenance`` block says which provider and model (and, for
  the local server, which model file and flags) produced it.

Cassettes are JSON: JSON bodies are stored parsed, readable and diffable (Chinese text stays
Chinese), and turned back into the exact bytes on load (:mod:`~lab.recorder.format`).
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import httpx
import vcr

from harness import ChatClient, ConfigError
from harness.client import RetryPolicy
from harness.errors import MissingAPIKeyError
from harness.fs.files import write_atomic
from harness.secrets import scan_text
from harness.timeouts import Timeouts
from lab.errors import (
    CassetteExistsError,
    CassetteMissingError,
    RecordingIncompleteError,
    SecretLeakError,
)
from lab.recorder.absent_backends import mark_absent_backends
from lab.recorder.attempts import AttemptLog
from lab.recorder.format import (
    CassetteSerializer,
    LoadedPersister,
    Utf8Persister,
    decode_body,
    encode_body,
    load_cassette_json,
    read_recording,
    with_provenance,
)
from lab.recorder.matching import (
    MATCH_ON,
    ReplayTransport,
    check_all_played,
    describe_difference,
    json_body_matcher,
)
from lab.recorder.order_replay import CassetteMatch, OrderPart, OrderTransport
from lab.recorder.provenance import (
    REPLAY_KEY,
    CassetteClient,
    Provenance,
    provenance_of,
    read_provenance,
)
from lab.recorder.providers import ProviderSpec, is_loopback_url
from lab.recorder.recording_lock import recording_lock
from lab.recorder.scrubbing import (
    FILTERED_QUERY_PARAMETERS,
    FILTERED_REQUEST_HEADERS,
    request_scrubber,
    scrub_response,
)
from lab.recorder.seal import check_cassette

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

VCR_LOGGER = "vcr"
"""vcrpy's logger: at INFO it prints every request and recorded response."""


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
    order_part: OrderPart | None = None,
) -> Iterator[CassetteClient]:
    """A chat client that replays the cassette at ``path``, or records it from ``provider``.

    ``rerecord_hint`` is the command that (re-)records the cassette; error messages quote it.
    ``server_info`` (from the local server) goes into the provenance; ``progress`` gets one
    line per recorded request; ``timeouts`` bound each recorded request (None: the defaults
    and ``CTXLAB_*TIMEOUT``). ``order_part``: which answers an order replay serves
    (:class:`~lab.recorder.order_replay.OrderPart`). See the module docstring for
    what each mode guarantees.
    """
    path = Path(path)
    if mode == "replay" and match == "body":
        with _replay(path, rerecord_hint) as handle:
            yield handle
    elif mode == "replay":
        with _replay_in_order(path, rerecord_hint, order_part) as handle:
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


REPLAY_SKIPS = ("httplib", "requests", "boto3", "urllib3", "httplib2", "tornado", "aiohttp")
"""vcrpy's patchers a replay does without: the chat client speaks httpx only, and patching
every HTTP library vcrpy knows, for each of X-BENCH's 392 cassettes, was a tenth of its replay
(recording keeps them all, so nothing another library sends is left out of a recording)."""


def _hint(rerecord_hint: str, verb: str = "re-record") -> str:
    return f"{verb} it with `{rerecord_hint}`" if rerecord_hint else f"{verb} it"


# --- replay --------------------------------------------------------------------------------


@contextmanager
def _replay(path: Path, rerecord_hint: str) -> Iterator[CassetteClient]:
    loaded: dict[str, Any] = {}

    def transport(data: Mapping[str, Any]) -> ReplayTransport:  # the file as read once
        loaded.update(data)
        return ReplayTransport(path, _hint(rerecord_hint))

    with _client_over(path, transport, rerecord_hint) as handle:
        mark_absent_backends()  # vcrpy looks for them on every cassette entered
        recorder = _vcr(record_mode="none", skip_patchers=REPLAY_SKIPS)
        _compare_as_made(recorder)
        persister = LoadedPersister(loaded)  # the file as _client_over read it: parsed once
        recorder.register_matcher("json_body", _matcher_knowing(persister.canonical_bodies))
        with recorder.use_cassette(
            str(path), allow_playback_repeats=False, persister=persister
        ) as cassette:
            yield handle
    check_all_played(cassette, path, _hint(rerecord_hint))


def _matcher_knowing(known: Mapping[object, str]) -> Callable[[Any, Any], None]:
    """The replay's body matcher, given the canonical forms of the cassette's recorded bodies
    (filled as vcrpy loads it): a request made as recorded is then never parsed."""

    def json_body(r1: Any, r2: Any) -> None:  # vcrpy names a failed matcher by __name__
        json_body_matcher(r1, r2, known)

    return json_body


def _compare_as_made(recorder: vcr.VCR) -> None:
    """Keep each request as it was made, and each recorded one as it was loaded: vcrpy
    deep-copies a request before every lookup (three per request) and every recorded request
    as the cassette loads, so that its filters may edit the copy, and a replay has no filters.
    The matchers only read the request; the same object each time also lets
    :func:`~lab.recorder.matching.canonical_body` canonicalise its body once."""
    recorder._build_before_record_request = _no_filters


def _no_filters(options: Mapping[str, Any]) -> Callable[[Any], Any]:
    return _as_made


def _as_made(request: Any) -> Any:
    return request


@contextmanager
def _replay_in_order(
    path: Path, rerecord_hint: str, part: OrderPart | None
) -> Iterator[CassetteClient]:
    """The recorded answers in recorded order, requests not matched (the seal still checked):
    :mod:`lab.recorder.order_replay`."""

    def answers(data: Mapping[str, Any]) -> OrderTransport:  # the file as read once
        return OrderTransport(path, part, data["interactions"])

    with _client_over(path, answers, rerecord_hint) as handle:
        yield handle


@contextmanager
def _client_over(
    path: Path,
    transport: Callable[[Mapping[str, Any]], httpx.BaseTransport],
    rerecord_hint: str,
) -> Iterator[CassetteClient]:
    """A chat client for the cassette at ``path`` whose requests go to ``transport(file)``,
    given the file as read (once) and checked."""
    if not path.is_file():
        raise CassetteMissingError(f"No cassette at {path}; {_hint(rerecord_hint, 'record')}.")
    data = load_cassette_json(path)  # read once for the seal, the provenance and the replay
    check_cassette(path, data)  # whole, counted right, and not edited since it was recorded
    provenance = read_provenance(path, data)
    with httpx.Client(transport=transport(data), trust_env=False) as http:
        client = ChatClient(
            model=provenance.model,
            base_url=provenance.base_url,
            api_key=REPLAY_KEY,
            params=provenance.params,
            retry=RetryPolicy(max_retries=0),
            http_client=http,
        )
        yield CassetteClient(client, path, provenance)


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
        # plain HTTP never uses TLS (redirects are not followed): no CA bundle to load, which
        # took 40 ms of CPU per cassette, a sixth of recording an X-BENCH cassette
        verify=not provider.base_url.lower().startswith("http://"),
    )
    try:
        client = ChatClient(
            model=provider.model,
            base_url=provider.base_url,
            api_key=key,
            params=provider.params,
            http_client=http,
            timeout=timeouts,
            retry=_recording_retries(provider),
        )
        handle = CassetteClient(client, path, None)
        with _record_vcr(provider, key).use_cassette(str(temp)):
            yield handle
        _refuse_unanswered(path, attempts)
        handle._provenance = _finish(temp, path, provider, server_info, started, key)
    finally:
        http.close()
        temp.unlink(missing_ok=True)


def _recording_retries(provider: ProviderSpec) -> RetryPolicy | None:
    """No retry against the llama.cpp server ctxlab starts (``--provider local``), else the
    client's default. It serves one request at a time and goes on writing an answer nobody
    waits for any more, so a retry after a timeout only waits behind it: recording X-BENCH, a
    1.5B probe timed out after 25 minutes and its retry began another 25."""
    return RetryPolicy(max_retries=0) if provider.name == "local" else None


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
    provenance = provenance_of(provider, server_info, started, recording["interactions"])
    final = with_provenance(provenance.to_dict(), recording)
    findings = scan_text(final, known_secrets=[key])
    if findings:
        raise SecretLeakError(
            f"The recording for {path} contains what looks like a secret "
            f"({'; '.join(findings[:5])}); nothing was written."
        )
    write_atomic(path, final)
    return provenance
