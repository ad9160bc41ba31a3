"""The thrash guard: compactions that cannot help are not run, and a loop of them is stopped.

With AgentScope's defaults the kept tail can itself exceed the trigger: ``keepTokens`` dynamic
keeps up to 8,000 tokens, in a chatty session about 100 messages, against a 50-message
trigger. Every request then compacts, each time summarising the two messages the last turn
added (a scripted session measured 1,874 compactions in 962 turns). Neither seed guards
against it; Claude Code does (its CHANGELOG, 2.1.89: context refilled to the limit right after
compacting three times in a row stops with an error). The guard, once the safe cutoff is
chosen and before the flush and the summary call:

1. does not run a compaction whose kept tail would itself still meet every trigger that fired
   (a compaction fired by tokens whose tail is under the token trigger still runs, however many
   messages it keeps: it relieves the pressure that called it);
2. does not run a compaction that removes less than ``min_removed_fraction`` of the context;
3. raises :class:`~harness.errors.CompactionThrashError` when the context refilled to a trigger
   within ``refill_requests`` requests after each of ``max_refills`` compactions in a row.

A skipped compaction logs one line and leaves a :class:`ThrashSkip` record on the guard. A
forced compaction (context overflow) is never skipped. The guard only says run or skip, after
the safe cutoff moved: it never moves the cutoff, so it cannot split a tool call from its
results. ctxlab's default (:func:`harness.compaction.agentscope.ctxlab_profile`); the
AgentScope-faithful ``CompactionConfig()`` has none.
"""

from __future__ import annotations

import logging
import operator
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Protocol

from harness.errors import CompactionThrashError, ConfigError
from harness.messages import Message

__all__ = ["ThrashConfig", "ThrashGuard", "ThrashRecord", "ThrashSkip", "allows"]

logger = logging.getLogger("harness.compaction")

SKIPS_KEPT = 100
"""How many skip records a guard keeps (the counts cover all of them)."""


@dataclass(frozen=True)
class ThrashConfig:
    """The guard's switch (pass one to ``CompactionConfig.thrash``)."""

    min_removed_fraction: float = 0.1
    """A compaction must remove at least this share of the context's tokens."""
    refill_requests: int = 3
    """A compaction fired within this many requests after the previous one is a refill."""
    max_refills: int = 3
    """This many refills in a row stop the session with CompactionThrashError."""

    def __post_init__(self) -> None:
        fraction = self.min_removed_fraction
        if isinstance(fraction, bool) or not isinstance(fraction, int | float):
            raise ConfigError(f"invalid ThrashConfig: min_removed_fraction {fraction!r}")
        if not 0 <= fraction < 1:
            raise ConfigError(
                f"invalid ThrashConfig: min_removed_fraction must lie in [0, 1), not {fraction!r}"
            )
        for name in ("refill_requests", "max_refills"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(
                    f"invalid ThrashConfig: {name} must be a whole number of at least 1, "
                    f"not {value!r}"
                )


class Limits(Protocol):
    """The resolved triggers (:class:`harness.compaction.agentscope.Thresholds`)."""

    @property
    def trigger_messages(self) -> int: ...

    @property
    def trigger_tokens(self) -> int | None: ...


@dataclass(frozen=True)
class _Plan:
    """A compaction under review: what fired, where it would cut, what it would keep."""

    trigger: str
    total_messages: int
    total_tokens: int
    cutoff: int
    kept_messages: int
    """Messages after the compaction would have run: the summary and the tail."""
    kept_tokens: int
    """Tokens of the request without the prefix (the summary not counted)."""
    removed_tokens: int


@dataclass(frozen=True)
class ThrashSkip(_Plan):
    """One compaction the guard did not run (its plan), and why."""

    reason: str
    """``tail-meets-trigger`` or ``removes-too-little``."""
    line: str
    """The log line."""

    def to_dict(self) -> dict[str, object]:
        """The reason and the log line first, then the plan."""
        plan = asdict(self)
        return {"reason": plan.pop("reason"), "line": plan.pop("line"), **plan}


@dataclass(frozen=True)
class ThrashRecord:
    """What one session's guard did so far, as its engine reports it
    (:attr:`~harness.compaction.agentscope.engine.AgentScopeEngine.thrash_record`)."""

    skipped: dict[str, int]
    """Skips by reason, over the guard's whole life, sorted by reason."""
    allowed: int
    """Compactions it let run."""
    refills: int
    """Compactions in a row that followed the previous one within ``refill_requests``."""
    last_skip: ThrashSkip | None
    """The latest skip, None when there was none."""


class ThrashGuard:
    """Reviews each planned compaction of one session (it keeps the refill count)."""

    def __init__(
        self, config: ThrashConfig, limits: Limits, price: Callable[[Message], int]
    ) -> None:
        self.config = config
        self.limits = limits
        self.price = price
        self.skips: deque[ThrashSkip] = deque(maxlen=SKIPS_KEPT)
        self.skipped: Counter[str] = Counter()
        """Skips by reason, over the guard's whole life."""
        self.allowed = 0
        self.refills = 0
        """Compactions in a row that followed the previous one within ``refill_requests``."""
        self._after: int | None = None  # messages right after the last compaction ran
        self._priced = _PrefixPrices(price)

    def record(self) -> ThrashRecord:
        """What the guard did so far, as a frozen record."""
        return ThrashRecord(
            skipped=dict(sorted(self.skipped.items())),
            allowed=self.allowed,
            refills=self.refills,
            last_skip=self.skips[-1] if self.skips else None,
        )

    def review(
        self,
        messages: Sequence[Message],
        cutoff: int,
        trigger: str,
        tokens: int,
        removed: int | None = None,
    ) -> bool:
        """True to run the compaction of ``messages[:cutoff]`` that ``trigger`` fired for a
        request of ``tokens``; False (logged and recorded) to skip it. Raises
        CompactionThrashError on the ``max_refills``-th refill in a row. ``removed``, the price
        of ``messages[:cutoff]``, when the caller already has it (the engine's ledger)."""
        if removed is None:
            removed = self._priced.prefix(messages, cutoff)
        plan = _Plan(
            trigger,
            len(messages),
            tokens,
            cutoff,
            len(messages) - cutoff + 1,
            tokens - removed,
            removed,
        )
        if trigger != "overflow":
            reason = self._objection(plan)
            if reason is not None:
                self._skip(plan, *reason)
                return False
            self._count_refill(messages)
        self.allowed += 1
        self._after = plan.kept_messages
        return True

    def _objection(self, plan: _Plan) -> tuple[str, str] | None:
        still = self._still_met(plan)
        if still:
            return "tail-meets-trigger", (
                f"the kept tail ({plan.kept_messages} msgs with the summary / "
                f"{plan.kept_tokens} tokens) would itself meet the trigger ({still})"
            )
        least = self.config.min_removed_fraction * plan.total_tokens
        if plan.removed_tokens < least:
            share = plan.removed_tokens / plan.total_tokens if plan.total_tokens else 0.0
            return "removes-too-little", (
                f"it would remove {plan.removed_tokens} of {plan.total_tokens} tokens "
                f"({share:.1%}, below {self.config.min_removed_fraction:.0%})"
            )
        return None

    def _still_met(self, plan: _Plan) -> str:
        """The fired triggers the compacted history would still meet, when it meets them all;
        empty when the compaction clears at least one."""
        still = []
        for fired in plan.trigger.split("+"):
            if fired == "messages" and plan.kept_messages >= self.limits.trigger_messages:
                still.append(f"messages {plan.kept_messages} ≥ {self.limits.trigger_messages}")
            elif fired == "tokens":
                limit = self.limits.trigger_tokens
                if limit is not None and plan.kept_tokens >= limit:
                    still.append(f"tokens {plan.kept_tokens} ≥ {limit}")
        return "; ".join(still) if len(still) == len(plan.trigger.split("+")) else ""

    def _skip(self, plan: _Plan, reason: str, why: str) -> None:
        line = (
            f"Compaction skipped by the thrash guard ({plan.trigger}, cutoff {plan.cutoff} of "
            f"{plan.total_messages} msgs): {why}"
        )
        logger.info(line)
        self.skipped[reason] += 1
        # its fields are numbers and a string: vars, not asdict's deep copy of each
        self.skips.append(ThrashSkip(**vars(plan), reason=reason, line=line))

    def _count_refill(self, messages: Sequence[Message]) -> None:
        if self._refilled(messages):
            self.refills += 1
        else:
            self.refills = 0
        if self.refills >= self.config.max_refills:
            raise CompactionThrashError(
                f"compaction is thrashing: the context refilled to the trigger within "
                f"{self.config.refill_requests} requests after each of the last "
                f"{self.refills} compactions; keep fewer messages or tokens, raise the "
                "trigger, or shorten what each request adds"
            )

    def _refilled(self, messages: Sequence[Message]) -> bool:
        """True when ``messages`` still start from the last compaction's result and at most
        ``refill_requests`` replies were added since."""
        after = self._after
        if after is None or not messages or not messages[0].is_summary or len(messages) < after:
            return False
        replies = sum(m.role == "assistant" for m in messages[after:])
        return replies <= self.config.refill_requests


class _PrefixPrices:
    """Running sums of the prices of the messages last reviewed, so that the price of a prefix
    costs what changed since, not the whole history: a session whose every request meets a
    trigger the guard then skips (AgentScope's 50-message trigger under its 8,000-token tail)
    reviews the growing history once per request.

    Exact: the messages are compared with the last ones by identity, every position (one C
    loop of ``is``, no pricing), and priced again from the first that differs; a history that
    only grew prices its new messages only, a compacted or pruned one is priced again from the
    change on."""

    def __init__(self, price: Callable[[Message], int]) -> None:
        self._price = price
        self._items: list[Message] = []
        self._sums = [0]  # _sums[k]: the price of the first k items

    def prefix(self, messages: Sequence[Message], count: int) -> int:
        """The price of ``messages[:count]``."""
        same = list(map(operator.is_, self._items, messages))
        kept = same.index(False) if False in same else len(same)
        del self._items[kept:], self._sums[kept + 1 :]
        running = self._sums[-1]
        for message in messages[kept:]:
            running += self._price(message)
            self._items.append(message)
            self._sums.append(running)
        return self._sums[count]


def allows(
    guard: ThrashGuard | None,
    messages: Sequence[Message],
    cutoff: int,
    trigger: str,
    tokens: int,
    removed: int | None = None,
) -> bool:
    """The compactor's call after the safe cutoff: True when there is no guard or it lets the
    compaction run (``removed``: see :meth:`ThrashGuard.review`)."""
    return guard is None or guard.review(messages, cutoff, trigger, tokens, removed)
