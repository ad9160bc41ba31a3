"""Where a session's history lives: the :class:`~harness.store.protocol.History` protocol and
its two stores.

* :mod:`~harness.store.protocol` — the one protocol both stores implement completely (append,
  replace, record_prefix, originals, search) and :func:`~harness.store.protocol.search_histories`;
* :mod:`~harness.store.history` — :class:`StateHistory` (working context in a state checkpoint
  + journal, full transcript beside it);
* :mod:`~harness.store.statefile` — the JSON state checkpoint, its journal and the transcript;
* :mod:`~harness.store.eventlog` — the append-only event log (DeepSeek-Harness's design), whose
  surface is folded from the log;
* :mod:`~harness.store.sessions` — a user's saved sessions on disk, and the one place that picks
  a session's store (the builder, manual compaction, undo and ``session_search`` go through it).

Every store file is a :class:`~harness.fs.path.WorkspacePath`: read and written without
following a symlink (:mod:`harness.fs.root`), at any moment, not only when a session opens.
"""
