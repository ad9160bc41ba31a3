"""The suite's machinery, with no experiment inside it.

Settings and the experiment type (:mod:`.experiment`), claims and their judges (:mod:`.claims`),
the typed views' codec (:mod:`.views`), the runner and the all-or-nothing report commit
(:mod:`.runner`, :mod:`.staging`), the baseline check (:mod:`.baseline`), the CLI (:mod:`.cli`),
the pytest plugin (:mod:`.pytest_plugin`), recording (:mod:`.recording`, :mod:`.recorder`), the
mutation matrix (:mod:`.mutations`) and the report builder (:mod:`.report`). Each experiment is a
folder of its own beside this one (``experiments/e3/`` …), listed in :mod:`experiments.manifest`.
"""
