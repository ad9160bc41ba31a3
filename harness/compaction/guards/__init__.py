"""ctxlab's own guards around a compaction, which neither seed has and which are off in the
seed profiles (``CompactionConfig()``, ``DshConfig()``):

* :mod:`~harness.compaction.guards.gate`, the identifier-survival gate that appends the exact
  values a summary dropped (with :mod:`~harness.compaction.guards.gate_definitions`, the
  definitions, reasons and rules no identifier pattern sees);
* :mod:`~harness.compaction.guards.budget`, the summary budget;
* :mod:`~harness.compaction.guards.echo`, the echo filter (a summary's lines that repeat its
  instructions);
* :mod:`~harness.compaction.guards.unsourced`, the source check (a summary's lines naming a
  value found nowhere in the compacted context);
* :mod:`~harness.compaction.guards.thrash`, the thrash guard that skips compactions which cannot
  help and stops a loop of them.

All are on in ctxlab's own profile (:func:`harness.compaction.agentscope.ctxlab_profile`,
``HarnessAgent``'s default).
"""
