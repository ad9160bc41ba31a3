"""The claims table as tests: one item per row of the committed baseline, ``reports/claims.csv``.

The items are made and judged by the plugin :mod:`lab.pytest_plugin` (handed the suite by
:mod:`experiments.pytest_plugin`, which the root ``conftest.py`` loads): ``pytest -k
E3-RECALL`` runs one claim, ``pytest -k E3`` all of E3's. A ``match`` row passes while it
reproduces, a ``differs`` row is an expected failure whose reason is its note, and any change
fails naming the claim, the baseline and the new value.
"""

from __future__ import annotations

from lab.pytest_plugin import ClaimSession


def test_claim(claim_row: dict[str, str], ctxlab_claims: ClaimSession) -> None:
    ctxlab_claims.check(claim_row)


def test_claims_complete(claims_experiment: str, ctxlab_claims: ClaimSession) -> None:
    ctxlab_claims.check_complete(claims_experiment)
