"""Seed rows no mutation flips, and why: guards, not reproductions.

A row listed in :data:`GUARDS` reads a configuration constant (a default of AgentScope 2.0.3 as
the seed read it from bytecode), so no change of the harness's behaviour can move it; a change of
the constant itself would, and that is what the row guards. A row ``differs`` in the baseline is
labelled by lab's engine too (:meth:`lab.mutations.mutation.Catalogue.guard_reason`): it already
fails, so breaking the harness cannot make it fail (it shows its judge can say ``differs``); it
would flip only if the harness got the model's output right. X-BENCH's baseline rows (no
compaction, truncation, masking) are the experiment's own conditions, which no mutation of the
harness reaches; their judges are shown to fail on a broken measurement by
``tests/experiments/test_x_bench.py``.
"""

from __future__ import annotations

__all__ = ["GUARDS", "UNCOVERED"]

_DEFAULT = "a guard of a configuration constant: it reads a default of AgentScope 2.0.3 "
GUARDS: dict[str, str] = {
    "AS-DEFAULTS": _DEFAULT + "(trigger 50, keep 20), which no behaviour of the harness moves",
    "AS-DEFAULT-RESERVE": _DEFAULT + "(the output reserve, 20,000 tokens), which no behaviour of "
    "the harness moves",
    "AS-MEMORY-CAP": _DEFAULT + "(consolidationMaxTokens 4000), sent as the request's max_tokens",
    "AS-OFFLOAD-PATH": "a guard of a naming constant: large_tool_results/<16 hex>.txt, the path "
    "the offloader builds from the text's SHA-256",
    "AS-OFFLOAD-EXCLUDED": _DEFAULT + "(the tools never offloaded), a constant list",
    **{
        claim: f"a guard of X-BENCH's own {what} (experiments/x_bench/conditions.py, "
        "baselines.py), which no harness mutation reaches; "
        "test_the_judges_fail_on_a_bad_measurement makes its judge say differs"
        for claim, what in (
            ("X-BENCH-FULL", "no-compaction baseline"),
            ("X-BENCH-TRUNCATION", "truncation baseline"),
            ("X-BENCH-MASKING", "masking baseline"),
        )
    },
}
UNCOVERED: dict[str, str] = {
    # not guards: rows a harness change could move, but no mutation of the catalogue flips yet
    # (tests/lab/test_mutations.py fails when this list is not exactly the rows nothing
    # flips, and when it holds a row that matches: a matching row is flipped by a code or an
    # answer mutation, or is a named guard). Empty: E1-TOTAL and E1-RERUN, which
    # restated our own input, are tests now; DSH-REPLAY is judged against the recording
    # (DSH_SKIPS_HEAD flips it); E2-S1-TOOLS is flipped by the answer mutation
    # ANSWER_S1_TRIES_TOOL.
}
