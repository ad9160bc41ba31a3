"""CompactBench's own runner and scorer, with ctxlab's engines as compactors beside its own.

CompactBench 0.1.0 (Apache-2.0, ``pip install ctxlab[compactbench]``) generates cases from a
user's copy of its templates, asks a compactor for an artifact each drift cycle, puts the
artifact alone in front of the model with each evaluation question, and scores the answers. This
package plugs into it without copying any of its text:

* :mod:`.provider`: a CompactBench ``Provider`` that sends each completion through ctxlab's own
  :class:`~harness.model.ChatModel` (the HTTP client, or a cassette's), so one recorded model
  answers every method's calls;
* :mod:`.methods`: ctxlab's profile, AgentScope 2.0.3 and DeepSeek-Harness as CompactBench
  ``Compactor`` classes (each compacts by its own rules and hands over the context it leaves);
* :mod:`.side_by_side`: every method through ``compactbench.runner.run_experiment`` on the same
  cases and the same model, and one table of CompactBench's own aggregate scores.

``ctxlab compactbench`` (:mod:`experiments.x_bench.cli_compactbench`) is the command.
"""
