"""Seed rows no mutation flips, and why: guards, not reproductions.

A row listed in :data:`GUARDS` reads a configuration constant (a default of AgentScope 2.0.3 as
the seed read it from bytecode), so no change of the harness's behaviour can move it; a change of
the constant itself would, and that is what the row guards. A row ``differs`` in the baseline is
labelled by :func:`guard_reason` too: it already fails, so breaking the harness cannot make it
fail (it shows its judge can say ``differs``); it would flip only if the harness got the model's
output right.
"""

from __future__ import annotations

__all__ = ["ALREADY_DIFFERS", "GUARDS", "guard_reason"]

_DEFAULT = "a guard of a configuration constant: it reads a default of AgentScope 2.0.3 "
GUARDS: dict[str, str] = {
    "AS-DEFAULTS": _DEFAULT + "(trigger 50, keep 20 …), which no behaviour of the harness moves",
    "AS-MEMORY-CAP": _DEFAULT + "(consolidationMaxTokens 4000), sent as the request's max_tokens",
    "AS-OFFLOAD-PATH": "a guard of a naming constant: large_tool_results/<16 hex>.txt, the path "
    "the offloader builds from the text's SHA-256",
    "AS-OFFLOAD-EXCLUDED": _DEFAULT + "(the tools never offloaded), a constant list",
}
ALREADY_DIFFERS = (
    "differs already: a broken harness cannot make it fail (its judge says differs today); it "
    "would flip only if the harness got the recorded output right"
)


def guard_reason(claim_id: str, status: str) -> str:
    """Why no mutation flips the row, or "" when nothing explains it."""
    if claim_id in GUARDS:
        return GUARDS[claim_id]
    return ALREADY_DIFFERS if status == "differs" else ""
