"""E5's five small mechanisms, one module each: its measuring and its table of
:class:`~lab.claims.specs.ClaimSpec` (grid, tool_calls, failures, flush_order, fallback); their
parts of the view are in :mod:`experiments.e5.view`."""
