"""Every error ctxlab raises, in one hierarchy.

::

    CtxlabError
    ├── ConfigError                  bad configuration or input, raised before any work starts
    │   └── MissingAPIKeyError       no key in the environment variable the provider reads
    ├── PairingError                 a history where a tool result and its call do not pair up
    ├── ContentFormatError           a message's content holds a block ctxlab cannot read
    ├── ModelError                   talking to a model server failed
    │   ├── APIConnectionError       the server could not be reached (refused, DNS, reset)
    │   │   └── APITimeoutError      the server did not answer in time
    │   ├── ResponseFormatError      the server answered 2xx with a body we cannot read
    │   └── APIStatusError           the server answered with an error status
    │       ├── BadRequestError          400
    │       │   └── ContextLengthExceededError   413, or 400 saying the context is too long
    │       ├── AuthenticationError      401
    │       ├── InsufficientBalanceError 402
    │       ├── UnprocessableEntityError 422
    │       ├── RateLimitError           429
    │       └── ServerError              5xx
    ├── ModelOutputError             a model's answer cannot be used: cut at max_tokens, or empty
    ├── AgentError                   the agent loop could not finish a call
    │   └── StepLimitExceededError   the model kept calling tools past the step limit
    ├── ScriptError                  a scripted test model met an unexpected or unused step
    ├── LockTimeoutError             an OS file lock (harness.fs.locks) was not free in time
    │   └── SessionBusyError         another caller held the session's writer lock too long
    ├── MemoryStoreError             a memory file is damaged or a write would lose data
    │   └── PathEscapeError          a file tool was asked for a path outside the workspace
    ├── EventLogError                the append-only event log refused an event or is damaged
    │   ├── SurfaceError             an invalid surface op or provenance (nothing was written)
    │   │   └── UnbalancedSurfaceError   a tool result on the surface answers no call on it
    │   ├── EventLogLockError        the OS file lock on the log could not be taken
    │   ├── CompactionBusyError      an unclosed compaction/start holds the lock
    │   └── LogCorruptError          a line of the log cannot be read (not a torn last line)
    ├── StateStoreError              a state checkpoint or journal cannot be read (names the file)
    ├── StorageError                 the disk refused a read or write (full, read-only, denied)
    └── CompactionError              a compaction attempt failed; the surface is as it was
        ├── SummaryError             the summary call failed, was cut off, or did not shrink
        ├── SurfaceChangedError      the history changed while the summary was being written
        ├── CommitError              appending the result failed part-way; inspect the log
        ├── CompactionThrashError    compactions kept refilling the context; the guard stopped
        └── ManualCompactionError    a manual compaction failed: missing, busy, damaged, changed,
                                     summary, commit, no-snapshot, persistence or cancelled

Three kinds of failure drive the agent loop differently: provider errors (``ModelError``) are
raised to the caller after the client's retries; a model's own mistakes (a bad tool argument, an
unknown tool) are not exceptions at all but are fed back to the model as tool results; and
``ConfigError`` / ``PairingError`` mean the caller or ctxlab itself is wrong, so they are raised.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a type-only edge: harness.results never imports this module's importers
    from harness.results import CallResult

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AgentError",
    "AuthenticationError",
    "BadRequestError",
    "CommitError",
    "CompactionBusyError",
    "CompactionError",
    "CompactionThrashError",
    "ConfigError",
    "ContentFormatError",
    "ContextLengthExceededError",
    "CtxlabError",
    "EventLogError",
    "EventLogLockError",
    "InsufficientBalanceError",
    "LockTimeoutError",
    "LogCorruptError",
    "ManualCompactionError",
    "MemoryStoreError",
    "MissingAPIKeyError",
    "ModelError",
    "ModelOutputError",
    "PairingError",
    "PathEscapeError",
    "RateLimitError",
    "ResponseFormatError",
    "ScriptError",
    "ServerError",
    "SessionBusyError",
    "StateStoreError",
    "StepLimitExceededError",
    "StorageError",
    "SummaryError",
    "SurfaceChangedError",
    "SurfaceError",
    "UnbalancedSurfaceError",
    "UnprocessableEntityError",
]


class CtxlabError(Exception):
    """Base class of every error ctxlab raises on purpose."""


class ConfigError(CtxlabError, ValueError):
    """A configuration value or an argument is invalid; the message says which and why."""


class MissingAPIKeyError(ConfigError):
    """The provider needs an API key and the environment variable holding it is empty."""

    def __init__(self, env_var: str) -> None:
        self.env_var = env_var
        super().__init__(f"No API key: set the environment variable {env_var}.")


class PairingError(CtxlabError):
    """A tool result without an earlier call, or a tool call without its result.

    ``index`` is the position of the offending message in the list that was checked.
    """

    def __init__(self, message: str, index: int) -> None:
        self.index = index
        super().__init__(message)


class ContentFormatError(CtxlabError, ValueError):
    """A message's content is neither text nor a list of content blocks ctxlab can read (text,
    reasoning, tool calls, tool results): an image, an unknown block, a block missing its text.
    Never read as an empty message; the reader that meets it names the event or response."""


class ModelError(CtxlabError):
    """Talking to a model server failed."""


class APIConnectionError(ModelError):
    """The server could not be reached at all."""


class APITimeoutError(APIConnectionError):
    """The server did not answer within the client's timeout."""


class ResponseFormatError(ModelError):
    """The server answered with a success status but the body is not a chat completion."""


class APIStatusError(ModelError):
    """The server answered with an error status.

    Carries the status code, the parsed error body (``{}`` when it was not JSON), the provider's
    request id when it sent one, and the error message the provider gave.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        body: dict[str, Any] | None = None,
        request_id: str | None = None,
    ) -> None:
        self.status_code = status_code
        self.body = body or {}
        self.request_id = request_id
        super().__init__(message)


class BadRequestError(APIStatusError):
    """400: the request was malformed."""


class ContextLengthExceededError(BadRequestError):
    """400 whose message says the maximum context length was exceeded, or 413 (payload too large).

    DeepSeek sends ``code: invalid_request_error`` for this, not a dedicated code, so the client
    recognises it from the message text (DeepSeek's, OpenAI's, Anthropic's, Gemini's and
    llama.cpp's wordings). ``status_code`` says which status it was.
    """


class AuthenticationError(APIStatusError):
    """401: the API key is wrong or missing."""


class InsufficientBalanceError(APIStatusError):
    """402: the account has no balance left."""


class UnprocessableEntityError(APIStatusError):
    """422: a parameter has an invalid value."""


class RateLimitError(APIStatusError):
    """429: too many requests; retried by the client before it reaches you."""


class ServerError(APIStatusError):
    """5xx: the server failed; retried by the client before it reaches you."""


class ModelOutputError(CtxlabError):
    """The model answered, but its answer cannot be used: cut off at max_tokens, or empty.

    Not a :class:`ModelError` (the call itself succeeded). The summary-like calls turn it into
    a failed :class:`harness.summary_outcome.SummaryOutcome`."""


class AgentError(CtxlabError):
    """The agent loop could not finish a call.

    ``partial`` is what the call had produced when it stopped (its requests, tool calls and
    messages, with ``text`` empty), as openai-agents' ``run_data``; None when nothing ran."""

    def __init__(self, message: str, partial: CallResult | None = None) -> None:
        self.partial = partial
        super().__init__(message)


class StepLimitExceededError(AgentError):
    """The model was still calling tools when the call's step limit was reached."""

    def __init__(self, steps: int, partial: CallResult | None = None) -> None:
        self.steps = steps
        super().__init__(
            f"The model was still calling tools after {steps} steps (model requests and "
            "tool calls past the per-reply cap).",
            partial,
        )


class ScriptError(CtxlabError, AssertionError):
    """A scripted test model got a request it had no step for, or a step was never used."""


class MemoryStoreError(CtxlabError):
    """A memory file is damaged, or a write would lose or reorder data."""


class PathEscapeError(MemoryStoreError):
    """A file tool was asked for a path that leaves the workspace (``..`` or a symlink)."""


class EventLogError(CtxlabError):
    """The append-only event log refused an event, or a line of it cannot be read."""


class SurfaceError(EventLogError):
    """An event with an invalid surface op or provenance; it was not written."""


class CompactionBusyError(EventLogError):
    """A ``compaction/start`` without its ``compaction/end`` holds the lock."""


class LogCorruptError(EventLogError):
    """A line of the event log cannot be read (a torn last line is recovered instead)."""


class UnbalancedSurfaceError(SurfaceError):
    """A tool result on the surface answers no call on it: the surface is corrupt, and
    compaction refuses it instead of compacting around it (DeepSeek-Harness's negative
    balance)."""


class EventLogLockError(EventLogError):
    """The event log's OS file lock could not be taken (the file system refused it)."""


class StateStoreError(CtxlabError):
    """A state store's checkpoint or journal cannot be read (bad JSON, bad bytes, a missing
    field, a record that is not a message); the message names the file and what to do."""


class StorageError(CtxlabError):
    """The disk refused a read or a write of a store's file: it is full, mounted read-only,
    or the permissions forbid it. ``path`` is the file (or folder) and ``errno`` the OS error
    number; the message says what to do. What was saved before is kept."""

    def __init__(self, message: str, *, path: Path, errno: int | None) -> None:
        self.path = path
        self.errno = errno
        super().__init__(message)


class CompactionError(CtxlabError):
    """A compaction attempt failed and was closed with its error; the surface is unchanged
    (except for :class:`CommitError`)."""


class SummaryError(CompactionError):
    """The summary call failed, was cut off at max_tokens, returned nothing, or did not
    shrink the shadowed content."""


class SurfaceChangedError(CompactionError):
    """The history changed while the summary was being written."""


class CommitError(CompactionError):
    """Appending the summary or the replacement failed part-way; inspect the log."""


class CompactionThrashError(CompactionError):
    """The context refilled to the trigger right after several compactions in a row; the
    thrash guard (:mod:`harness.compaction.guards.thrash`) stopped before running another."""


class ManualCompactionError(CompactionError):
    """A manual compaction failed; ``code`` says how.

    ``missing`` (no saved session, or none of the kind the engine needs: nothing was done),
    ``busy`` (not idle, locked, or a tool call pending: nothing was done), ``damaged`` (the
    session's log or state file cannot be read: nothing was done), ``changed`` (the
    history moved during the summary call), ``summary`` (the summary call failed or was
    refused), ``commit`` (writing the result failed part-way), ``no-snapshot`` (undo of a
    state-file session whose snapshot is gone: nothing was restored), ``persistence`` (a
    snapshot or the audit could not be written) or ``cancelled``.
    """

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(f"{code}: {message}")


class NothingToUndoError(ManualCompactionError):
    """Undo found no compaction of this session still in effect (code ``commit``)."""

    def __init__(self, session_id: str) -> None:
        super().__init__("commit", "there is no committed compaction to undo")
        self.args = (
            f"Nothing to undo: session {session_id!r} has no compaction in effect (it was never "
            "compacted by hand, or its last compaction was already undone).",
        )


class LockTimeoutError(CtxlabError):
    """Another process or thread held an OS file lock (:mod:`harness.fs.locks`) past the timeout."""


class SessionBusyError(LockTimeoutError):
    """Another caller (an agent call, a manual compaction or an undo, in this process or
    another) held the session's writer lock (:mod:`harness.store.session_lock`) for longer than
    this caller would wait. Nothing was written; ``holder`` is what the lock file named (pid,
    host, action, start), ``path`` the lock file, ``waited`` the seconds waited."""

    def __init__(self, path: Any, holder: dict[str, Any], waited: float) -> None:
        self.path = path
        self.holder = dict(holder)
        self.waited = waited
        super().__init__(
            f"the session is busy: pid {holder.get('pid', '?')} on {holder.get('host', '?')} "
            f"has held it for {holder.get('action', 'a write')} since "
            f"{holder.get('started', '?')} ({path}); waited {waited:g} s, nothing was written"
        )
