"""Where a session's history lives: the :class:`~harness.store.history.History` protocol and
its two stores.

* :mod:`~harness.store.history` — the protocol and :class:`StateHistory` (working context in a
  state checkpoint + journal, full transcript beside it);
* :mod:`~harness.store.statefile` — the JSON state checkpoint, its journal and the transcript;
* :mod:`~harness.store.eventlog` — the append-only event log (DeepSeek-Harness's design), whose
  surface is folded from the log.
"""
