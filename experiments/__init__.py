"""The experiment suite: one folder per experiment, listed in :mod:`experiments.manifest`.

Importing the package hands the suite to lab (:func:`lab.suite.use`), so a script that imports
an experiment directly finds it listed; the ``ctxlab`` command (:mod:`experiments.cli`) and the
pytest plugin (:mod:`experiments.pytest_plugin`) hand it explicitly where they start.
"""

from __future__ import annotations

from experiments.manifest import SUITE
from lab import use

use(SUITE)
