"""X-BENCH: a compaction-quality benchmark (issue 23).

* :mod:`experiments.bench.corpus` — the seeded corpus generator (scripted conversations with
  planted facts; ``python -m experiments.bench.corpus``);
* :mod:`experiments.bench.turns` — turns as the agent loop's messages, and where planted turns
  go;
* :mod:`experiments.bench.schema` — the conversation JSON format (bring your own) and its
  loader;
* :mod:`experiments.bench.conditions` — the compaction conditions, all at one budget
  (:mod:`experiments.bench.baselines`: truncation and masking as engines);
* :mod:`experiments.bench.replay` — one conversation through the real agent loop;
* :mod:`experiments.bench.scoring` — deterministic scores (no model judge) and the paired
  bootstrap;
* :mod:`experiments.bench.suite` — every conversation under every condition, tabulated.
"""
