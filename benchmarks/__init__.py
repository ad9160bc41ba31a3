"""ctxlab's benchmark suite: ratios measured side by side in one run (``python -m benchmarks``).

Every section measures through public interfaces and reports ratios; a row with a gate fails
the run (exit status 1) only when its ratio is over the gate and the gate is enforced. Gates are
complexity ratios or deterministic figures, never absolute times.
"""
