"""The suite's pytest plugin (the root ``conftest.py`` names it): hands :data:`SUITE
<experiments.manifest.SUITE>` to lab, then loads lab's plugin, which collects one test per claim
of this suite (:mod:`lab.pytest_plugin`)."""

from __future__ import annotations

from experiments.manifest import SUITE
from lab import use

use(SUITE)

pytest_plugins = ["lab.pytest_plugin"]
