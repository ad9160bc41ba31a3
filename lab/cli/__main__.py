"""``python -m lab.cli``: the ``ctxlab`` command."""

from __future__ import annotations

from lab.cli import main

raise SystemExit(main())
