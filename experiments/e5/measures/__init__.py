"""E5's families of seed rows, as they are measured: one module each (a package for
``compaction_commit``, whose three kinds of run do not fit one), each running scripted agents or
event logs and returning its part of :class:`~experiments.e5.view.E5View`; the module of the
same name in :mod:`experiments.e5.claims` judges it."""
