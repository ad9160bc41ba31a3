"""``python -m experiments.lab.cli``: the ``ctxlab`` command."""

from __future__ import annotations

from experiments.lab.cli import main

raise SystemExit(main())
