"""History compaction: two engines behind one seam, plus manual compaction.

* :mod:`~harness.compaction.engine` — the :class:`CompactionEngine` protocol the agent loop
  calls before every request, and the adapters for both engines;
  :mod:`~harness.compaction.factory` — ``make_engine``, which builds either from its config and
  refuses the combinations an engine cannot honour;
* :mod:`~harness.compaction.agentscope` — AgentScope Java 2.0.3: prune, **safe cutoff**,
  **memory flush** hook, summary and **summary merge**;
* :mod:`~harness.compaction.dsh` — DeepSeek-Harness: **four-event compaction** on the event log,
  the **prefix-cache summary call**, the tool-result pruner and the range selection;
* :mod:`~harness.compaction.manual` — ``ctxlab compact``: **manual compaction** under a lock,
  with an audit line per attempt; :mod:`~harness.compaction.manual_undo` — **manual compaction
  undo**;
* :mod:`~harness.compaction.cost` — the **compaction cost ledger** (summary-call usage against
  the tokens each compaction removed), fed from a session by :mod:`~harness.compaction.cost_tap`.

Large tool result offload is not a compaction step (it runs when a tool returns):
see :mod:`harness.tool_offload`.
"""
