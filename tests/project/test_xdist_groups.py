"""Under ``pytest -n 2`` (``--dist loadgroup``) an ``xdist_group`` reaches pytest-xdist's
scheduler: it reads the group from a ``@<group>`` suffix of the node id, which pytest 9.2
silently drops (pytest-xdist issue 1386), and then each experiment's claims ran on both workers
and every experiment twice (hence ``pytest<9.2`` in pyproject.toml)."""

from __future__ import annotations

import pytest


@pytest.mark.xdist_group("xdist-probe")
def test_a_grouped_test_carries_its_group_to_the_scheduler(request: pytest.FixtureRequest) -> None:
    if getattr(request.config.option, "loadgroup", False):  # a worker of --dist loadgroup
        assert request.node.nodeid.endswith("@xdist-probe"), request.node.nodeid
