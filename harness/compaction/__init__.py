"""History compaction: two engines behind one seam, plus manual compaction.

* :mod:`~harness.compaction.engine` — the :class:`CompactionEngine` protocol the agent loop
  calls before every request, and the :class:`Turn` it gives an engine (each engine lives in its
  own package: ``agentscope.engine``, ``dsh.engine``);
  :mod:`~harness.compaction.factory` — ``make_engine``, which builds either from its config and
  refuses the combinations an engine cannot honour;
* :mod:`~harness.compaction.agentscope` — AgentScope Java 2.0.3: prune, **safe cutoff**,
  **memory flush** hook, summary and **summary merge**;
* :mod:`~harness.compaction.dsh` — DeepSeek-Harness: **four-event compaction** on the event log,
  the **prefix-cache summary call**, the tool-result pruner and the range selection;
* :mod:`~harness.compaction.manual` — ``ctxlab compact``: **manual compaction** under a lock,
  with an audit line per attempt; :mod:`~harness.compaction.manual.undo` — **manual compaction
  undo**;
* :mod:`~harness.compaction.guards` — ctxlab's own, off in the seed profiles: the
  identifier-survival gate and the thrash guard.

The compaction cost ledger, ctxlab's own and used only by X-COST, lives with its experiment
(``experiments/x_cost/ledger.py``): the library holds the seeds' mechanisms and their seams.

Large tool result offload is not a compaction step (it runs when a tool returns):
see :class:`harness.tools.LargeResultOffloader`.
"""
