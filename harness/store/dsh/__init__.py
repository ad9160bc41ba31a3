"""DeepSeek-Harness's own session files, read and written by ctxlab's event log.

* :mod:`~harness.store.eventlog.dsh_format` — ``DshCodec``, dsh's JSONL session file as an
  event-log format, kept beside the codec seam it implements (``EventLog(path, format="dsh")``;
  ``EventLog.open`` and ``replay`` tell the formats apart by the first line);
* :mod:`~harness.store.dsh.messages` — dsh's content-block messages and ctxlab's
  :class:`~harness.messages.Message`, and dsh's price of a message's blocks;
* :mod:`~harness.store.eventlog.turns` — the ``turn/*`` and ``step/*`` events ctxlab's history
  writes in dsh's format;
* :mod:`~harness.store.dsh.surface` — the folded surface of a log of either format as a user
  sees it (seqs, roles, texts, prices, compactions), what ``ctxlab show`` prints.

See ``docs/dsh-sessions.md``.
"""
