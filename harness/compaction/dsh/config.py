"""DeepSeek-Harness compaction settings (``BasicCompactionConfig``'s defaults)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from harness.compaction.guards.gate import GateConfig
from harness.errors import ConfigError
from harness.meter import METERS

__all__ = ["DshConfig"]

_DEFAULT_RETAIN_RATIO = 0.16


@dataclass(frozen=True)
class DshConfig:
    """When the DSH engine compacts and how much tail it keeps verbatim."""

    context_window: int = 1_000_000
    """The model's window in tokens (dsh's DeepSeek adapter says 1,000,000); experiments set a
    small one to make compaction happen."""
    threshold_ratio: float = 0.8
    """Compact when the measured request reaches ``floor(window × threshold_ratio)``."""
    retain_ratio: float = _DEFAULT_RETAIN_RATIO
    """Keep a verbatim tail of ``floor(window × retain_ratio)`` tokens..."""
    retain_tokens: int | None = None
    """...unless a tail budget in tokens is given instead (must be below the threshold; with a
    ratio other than the default it is refused: dsh holds the two mutually exclusive)."""
    max_tokens: int = 8_192
    """Output cap of the summary call; hitting it fails the compaction (incomplete summary)."""
    compaction_retries: int = 1
    """Extra pressure attempts after the first when one compaction is not enough."""
    max_overflow_retries: int = 1
    """Retries after a provider-confirmed context overflow; 0 turns overflow recovery off. The
    count starts again whenever an assistant message lands."""
    prune: bool = True
    """Prune over-long tool results (no model call) before summarising, once pressure or an
    overflow has qualified."""
    meter: str = "ctxlab-anchored"
    """The token meter (:mod:`harness.meter`) that prices pressure, the retain budget and the
    events: ``ctxlab-anchored`` (default), ``dsh`` (DeepSeek-Harness's own), ``agentscope-2.0.3``
    or ``tokenizer-anchored``."""
    gate: GateConfig | None = None
    """ctxlab's identifier-survival gate (:mod:`harness.compaction.guards.gate`): exact values the
    checkpoint dropped are appended to it. None (the seed's behaviour) turns it off."""

    def __post_init__(self) -> None:
        for problem in _field_problems(self):
            raise ConfigError(f"invalid DshConfig: {problem}")
        problems = []
        if self.context_window <= 0:
            problems.append("context_window must be positive")
        if self.retain_tokens is not None and self.retain_ratio != _DEFAULT_RETAIN_RATIO:
            problems.append("retain_ratio and retain_tokens are mutually exclusive: give one")
        if self.retain_tokens is None and self.retain_ratio >= self.threshold_ratio:
            problems.append("retain_ratio must be below threshold_ratio")
        if self.retain_tokens is not None and not 0 <= self.retain_tokens < self.threshold:
            problems.append("retain_tokens must be >= 0 and below the threshold")
        if self.max_tokens <= 0 or self.compaction_retries < 0 or self.max_overflow_retries < 0:
            problems.append("max_tokens must be positive and the retry counts not negative")
        if self.meter not in METERS:
            problems.append(f"meter must be one of {', '.join(METERS)}, not {self.meter!r}")
        for problem in problems:
            raise ConfigError(f"invalid DshConfig: {problem}")

    @property
    def threshold(self) -> int:
        return math.floor(self.context_window * self.threshold_ratio)

    @property
    def retain(self) -> int:
        if self.retain_tokens is not None:
            return self.retain_tokens
        return math.floor(self.context_window * self.retain_ratio)


def _field_problems(config: DshConfig) -> list[str]:
    """Problems of single fields (type, NaN, infinity), named before any combination is judged."""
    problems = []
    ints = {
        "context_window": config.context_window,
        "retain_tokens": 0 if config.retain_tokens is None else config.retain_tokens,
        "max_tokens": config.max_tokens,
        "compaction_retries": config.compaction_retries,
        "max_overflow_retries": config.max_overflow_retries,
    }
    for name, value in ints.items():
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"{name} must be a whole number, not {value!r}")
    for name in ("threshold_ratio", "retain_ratio"):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
            problems.append(f"{name} must lie in (0, 1], not {value!r}")
    return problems
