"""The main cause of each differing claim, as a short class of its own (``claims.csv``'s
``reason_class`` column; :data:`lab.claims.REASON_CLASSES` lists the classes and what each
means).

The note of a ``differs`` row says in full why it differs; the class says it in a few words so
that a reader (and the report's verdict lines) can count causes. Each claim's spec names its
class (:attr:`~lab.claims.specs.ClaimSpec.reason_class`), and, for a recorded model whose
cause is another one, that model's (:attr:`~lab.claims.specs.ClaimSpec.reason_by_model`: the
0.5B model's DSH summary was cut at the recording's token cap, so DSH did not compact and what
follows from it differs for that reason, not for the model's wording). This module holds the
classes' names, for the specs to use, and the runner's step that applies a model's own cause
once the rows carry their model. ``tests/lab/test_reason_classes.py`` checks that every
``differs`` row of ``reports/claims.csv`` has a class: a new claim that can differ names one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from lab.claims import REASON_CLASSES, Claim

__all__ = [
    "CAP",
    "DEVIATION",
    "ENDS",
    "FORMULA",
    "MODEL",
    "OWN_INPUT",
    "TARGET",
    "classified",
    "reason_class",
]

MODEL = "model"
CAP = "recording cap"
ENDS = "recording ends"
DEVIATION = "deliberate deviation"
FORMULA = "seed's formula wrong"
OWN_INPUT = "own input"
TARGET = "target missed"

if not {MODEL, CAP, ENDS, DEVIATION, FORMULA, OWN_INPUT, TARGET} <= set(REASON_CLASSES):
    raise AssertionError("reason_classes names a class that claims.REASON_CLASSES lacks")


def reason_class(claim: Claim) -> str:
    """The claim's reason class: empty when it matches, its model's own when its spec names
    one for that model, else the claim's."""
    if claim.status == "match":
        return ""
    return dict(claim.reason_by_model).get(claim.model, claim.reason_class)


def classified(claims: Iterable[Claim]) -> list[Claim]:
    """The claims, each differing one with its :func:`reason_class`."""
    return [dataclasses.replace(c, reason_class=reason_class(c)) for c in claims]
