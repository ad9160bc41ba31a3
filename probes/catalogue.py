"""Every probe module, imported once so that their :func:`~probes.registry.probe` calls run."""

from __future__ import annotations

from probes.registry import PROBES, Probe


def load() -> dict[str, Probe]:
    from probes import (  # noqa: F401 (they register)
        concurrency,
        damaged_files,
        data_loss,
        out_folder,
        robustness,
        security,
    )

    return PROBES
