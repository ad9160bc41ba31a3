"""Every probe module, imported once so that their :func:`~probes.registry.probe` calls run."""

from __future__ import annotations

from probes.registry import PROBES, Probe


def load() -> dict[str, Probe]:
    from probes import concurrency, data_loss, robustness, security  # noqa: F401 (they register)

    return PROBES
