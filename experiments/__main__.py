"""``python -m experiments``: the ``ctxlab`` command."""

from __future__ import annotations

from experiments.cli import main

raise SystemExit(main())
