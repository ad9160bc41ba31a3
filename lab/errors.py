"""Errors of the reproduction suite (experiments, cassettes, the local model server).

They extend the harness's one tree (:class:`harness.errors.CtxlabError`) but live here, beside
the code that raises them, so ``harness.errors`` describes only the harness::

    CtxlabError (harness.errors)
    ├── ExperimentError              an experiment could not run (missing cassette, bad id, ...)
    │   └── CassetteError            a cassette could not be read, replayed or recorded
    │       ├── CassetteMissingError     replay found no cassette file
    │       ├── CassetteMismatchError    a request differs from the recording, or some went unused
    │       ├── CassetteExistsError      recording would overwrite a cassette without --force
    │       ├── CassetteBusyError        another process is recording the same cassette now
    │       ├── RecordingIncompleteError a request got no answer and the run went on without it
    │       ├── SecretLeakError          a freshly recorded cassette contains a secret
    │       └── CassetteTamperedError    a cassette's digest or request count does not match
    ├── LocalServerError             the local model server could not be prepared or started
    └── RejectedAPIKeyError          the provider refused the recording's API key (401/403)
"""

from __future__ import annotations

from harness import CtxlabError

__all__ = [
    "CassetteBusyError",
    "CassetteError",
    "CassetteExistsError",
    "CassetteMismatchError",
    "CassetteMissingError",
    "CassetteTamperedError",
    "ExperimentError",
    "LocalServerError",
    "RecordingIncompleteError",
    "RejectedAPIKeyError",
    "SecretLeakError",
]


class ExperimentError(CtxlabError):
    """An experiment could not run; the message is one sentence a user can act on."""


class CassetteError(ExperimentError):
    """A cassette could not be read, replayed or recorded; the message names the file."""


class CassetteMissingError(CassetteError):
    """Replay asked for a cassette that does not exist; the message says how to record it."""


class CassetteMismatchError(CassetteError):
    """Replay met a request the cassette does not hold, or left recorded requests unused."""


class CassetteExistsError(CassetteError):
    """Recording would overwrite an existing cassette and ``--force`` was not given."""


class CassetteBusyError(CassetteError):
    """Another process holds the cassette's recording lock (it is recording it now)."""


class RecordingIncompleteError(CassetteError):
    """A request of a recording got no answer on any attempt while the run went on, so the
    cassette could not replay that run; nothing was written."""


class SecretLeakError(CassetteError):
    """A freshly recorded cassette contains something that looks like a secret; nothing was
    written. The message names the pattern and line, never the secret itself."""


class CassetteTamperedError(CassetteError):
    """A cassette is not sealed, its interactions do not match the digest in its provenance,
    or its provenance counts a different number of requests: it was edited after recording."""


class LocalServerError(CtxlabError):
    """The local model server could not be prepared (model parts, llama_cpp) or started."""


class RejectedAPIKeyError(CtxlabError):
    """The provider refused the API key in ``env_var`` (401 or 403) before a recording began."""

    def __init__(self, env_var: str, host: str, status: int) -> None:
        self.env_var = env_var
        self.status = status
        super().__init__(
            f"{host} refused the API key in {env_var} ({status}): set {env_var} to a valid, "
            "unexpired key."
        )
