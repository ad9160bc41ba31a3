"""Hostile-input and fault probes: ``python -m probes``.

A probe is one attack or fault a user, a model, a provider or the machine can throw at ctxlab,
run in a process of its own on real files in a scratch folder, with fake models in process or
fake OpenAI-compatible servers on 127.0.0.1 (never a real provider). It passes when ctxlab holds
(nothing lost, nothing leaked, one typed sentence instead of a traceback, work bounded) and
fails otherwise. Each probe has a class (``data-loss``, ``security`` or ``robustness``) and the
defect it reproduces (1–19 as numbered in docs/probes.md's audit; 20–25 are the ones found
after it). The runner prints a table of probes tried and failing per class and per defect.

See docs/probes.md for the list, the classes and how to add one.
"""
