"""The main cause of each differing claim, as a short class of its own (``claims.csv``'s
``reason_class`` column; :data:`lab.claims.REASON_CLASSES` lists the classes).

The note of a ``differs`` row says in full why it differs; the class says it in a few words so
that a reader (and the report's verdict lines) can count causes. The classes were read from the
notes of the recorded sets: :data:`BY_CLAIM` gives each claim's cause, and :data:`BY_SET` the
claims whose cause is another one for one recorded set (the 0.5B model's DSH summary was cut at
the recording's token cap, so DSH did not compact and what follows from it differs for that
reason, not for the model's wording). A claim that differs for a set recorded later gets its
claim's class. ``tests/lab/test_reason_classes.py`` checks that every ``differs`` row of
``reports/claims.csv`` has a class: a new claim that can differ needs a line here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from lab.claims import REASON_CLASSES, Claim

__all__ = ["BY_CLAIM", "BY_SET", "classified", "reason_class"]

MODEL = "model"
CAP = "recording cap"
ENDS = "recording ends"
DEVIATION = "deliberate deviation"
FORMULA = "seed's formula wrong"
OWN_INPUT = "own input"

BY_CLAIM: dict[str, str] = {
    # E1: the seed states a token total but does not publish the nine messages.
    "E1-TOKENS": OWN_INPUT,
    # E2: what the model wrote and which tools it called; the header stamp is ours on purpose.
    "E2-FLUSH-HEADER": DEVIATION,
    "E2-S2-MEMORY": MODEL,
    "E2-SIZES": MODEL,
    "E2-S4-SIZES": MODEL,
    "E2-S3-RECALL": MODEL,
    "E2-S3-SEARCHES": MODEL,
    "E2-S4-REBUILD": MODEL,
    "E2-S4-SAVE": MODEL,
    # the flush stored a value a model answer gave (extraction, not invention), and the 0.5B
    # model wrote its memory_save call as broken JSON text
    "E2-FLUSH-INVENTS": MODEL,
    "E2-S1-TOOLS": MODEL,
    # the 0.5B model's flush copied the user's instruction word for word
    "E2-S1-FLUSH": MODEL,
    # E3: the summaries and answers are model output.
    "E3-FINAL-TOKENS": MODEL,
    "E3-SUMMARY": MODEL,
    "E3-RECALL-ROUTE": MODEL,
    "E3-SUMMARY-KEEPS": MODEL,
    "E3-REVERSE": MODEL,
    "E3-WORDING": MODEL,
    "E3-SUMMARY-LEN": MODEL,
    # E4: the summaries are model output; the DSH rows differ when DSH did not compact.
    "DSH-SUMMARY-SECTIONS": MODEL,
    "DSH-SUMMARY-EXACT": MODEL,
    "DSH-EVENTS": CAP,
    "DSH-SUMMARY-EVENT": CAP,
    "DSH-RANGE": CAP,
    # E5: scripted; the seed's formula, or a deliberate deviation.
    "E5-CADENCE-GRID": FORMULA,
    "AS-OFFLOAD-EXCLUDED": DEVIATION,
    "AS-CONSOLIDATE-FRESHNESS": DEVIATION,
    "DSH-LOCK-STALE": DEVIATION,
    "DSH-IMAGE-REFUSED": DEVIATION,
    "AS-PEER-KEEP-AT-TRIGGER": DEVIATION,
    "AS-PEER-KEEP-NO-MESSAGES": DEVIATION,
    "AS-PEER-TRIGGERS-OFF": DEVIATION,
    "AS-PEER-SUMMARISER-BUG": DEVIATION,
    # X-GATE: facts the model's summaries dropped.
    "X-GATE-E3-OFF": MODEL,
    "X-GATE-E3-ON": MODEL,
    "X-GATE-E4-AS-OFF": MODEL,
    "X-GATE-E4-AS-ON": MODEL,
    "X-GATE-E4-DSH-OFF": MODEL,
    "X-GATE-E4-DSH-ON": MODEL,
    # X-COST: E3's summaries grew the context (model); E4's recording ends at the compaction.
    "X-COST-E3-AGENTSCOPE-NET": MODEL,
    "X-COST-E3-AGENTSCOPE-SHRINK": MODEL,
    "X-COST-E4-AGENTSCOPE-NET": ENDS,
    "X-COST-E4-DSH-NET": ENDS,
    "X-COST-E4-AGENTSCOPE-SHRINK": MODEL,
    "X-COST-E4-DSH-SHRINK": MODEL,
    "X-COST-E4-AGENTSCOPE-BREAKEVEN": MODEL,
    "X-COST-E4-DSH-BREAKEVEN": MODEL,
    # X-BENCH: what the recorded model's summaries kept, and what it wrote under the reference
    # prompt (the 0.5B's are short ledgers that carry fewer tokens than ctxlab's budget).
    "X-BENCH-GATE-ADDS": MODEL,
    "X-BENCH-AS-OVERSIZE": MODEL,
    "X-BENCH-DSH-OVER-AS": MODEL,
    "X-BENCH-CTXLAB-WINS": MODEL,
}
"""A claim's main cause when it differs, by claim id."""

SMALL = "qwen2.5-coder-0.5b-instruct-q4_k_m"
BY_SET: dict[tuple[str, str], str] = {
    # The 0.5B model's DSH summary hit the 1,024-token cap: DSH refused it and did not compact.
    ("X-GATE-E4-DSH-OFF", SMALL): CAP,
    ("DSH-REPLAY", SMALL): CAP,
    ("X-GATE-E4-DSH-ON", SMALL): CAP,
    ("X-COST-E4-DSH-SHRINK", SMALL): CAP,
    ("X-COST-E4-DSH-BREAKEVEN", SMALL): CAP,
}
"""``(claim id, model)``: the main cause for that recorded set when it is not the claim's."""

if not set(BY_CLAIM.values()) | set(BY_SET.values()) <= set(REASON_CLASSES):
    raise AssertionError("reason_classes names a class that claims.REASON_CLASSES lacks")


def reason_class(claim: Claim) -> str:
    """The claim's reason class: empty when it matches, the experiment's own when it set one,
    else :data:`BY_SET`'s, else :data:`BY_CLAIM`'s (empty when neither knows the claim)."""
    if claim.status == "match":
        return ""
    if claim.reason_class:
        return claim.reason_class
    return BY_SET.get((claim.claim_id, claim.model), BY_CLAIM.get(claim.claim_id, ""))


def classified(claims: Iterable[Claim]) -> list[Claim]:
    """The claims, each differing one with its :func:`reason_class`."""
    return [dataclasses.replace(c, reason_class=reason_class(c)) for c in claims]
