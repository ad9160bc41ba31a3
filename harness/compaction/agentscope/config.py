"""Compaction settings and how their dynamic values resolve for a model.

The defaults are AgentScope Java 2.0.3's, as the article read them from the bytecode: compact at
50 messages or at a dynamic token threshold (context window − 20,000 reserved), keep the last 20
messages (or a dynamic token budget), prune old tool results, flush and offload the prefix first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from harness.compaction.guards.budget import check_share
from harness.compaction.guards.gate import GateConfig
from harness.compaction.guards.pin import PinConfig
from harness.compaction.guards.quotes import QuoteConfig
from harness.compaction.guards.recall import RecallConfig
from harness.compaction.guards.thrash import ThrashConfig
from harness.errors import ConfigError
from harness.meter import METERS
from harness.meter.windows import CTXLAB_WINDOWS, RESERVED_TOKENS, lookup_window
from harness.summary_outcome import SummaryPolicy

__all__ = [
    "DYNAMIC",
    "FALLBACK_TRIGGER_TOKENS",
    "CompactionConfig",
    "PruneConfig",
    "Thresholds",
    "TruncateArgsConfig",
    "resolve_thresholds",
]

DYNAMIC: Literal["dynamic"] = "dynamic"
"""``keep_tokens`` value meaning: derive the tail budget from the model's context window."""

FALLBACK_TRIGGER_TOKENS = 160_000
"""Token trigger used when the model's context window is unknown (window 0)."""

PRUNE_EXCLUDED_TOOLS = frozenset({"read_file", "memory_search", "memory_get", "session_search"})


@dataclass(frozen=True)
class PruneConfig:
    """Step 2: shrink old tool results without a model call (on by default)."""

    protect_tokens: int = 40_000
    """The newest tool results up to this many tokens are never pruned."""
    minimum_tokens: int = 20_000
    """Prune only when at least this many tokens of older results can be pruned."""
    max_output_chars: int = 2_000
    """Results longer than this are pruned to a head and a tail of half this size each."""
    excluded_tools: frozenset[str] = PRUNE_EXCLUDED_TOOLS
    """Tools whose results are never pruned."""

    def __post_init__(self) -> None:
        _check_fields("PruneConfig", self, whole=("protect_tokens", "minimum_tokens"))
        _check_fields("PruneConfig", self, positive=("max_output_chars",))


@dataclass(frozen=True)
class TruncateArgsConfig:
    """Step 1: shorten long string arguments of old tool calls (off by default)."""

    trigger_messages: int = 25
    trigger_tokens: int = 40_000
    keep_messages: int = 20
    """The newest messages whose arguments are left alone."""
    max_arg_length: int = 2_000
    truncation_text: str = "...(argument truncated)"

    def __post_init__(self) -> None:
        whole = ("trigger_messages", "trigger_tokens")
        positive = ("keep_messages", "max_arg_length")
        _check_fields("TruncateArgsConfig", self, whole=whole, positive=positive)


@dataclass(frozen=True)
class CompactionConfig:
    """When to compact and how much to keep.

    Invalid combinations raise :class:`harness.errors.ConfigError` at construction.
    """

    trigger_messages: int = 50
    """Compact when the history (system prompt excluded) has at least this many messages;
    0 turns the message trigger off."""
    trigger_tokens: int | None = 0
    """Compact when the estimated tokens reach this; 0 = dynamic (window − reserved, or
    160,000 when the window is unknown); None = token trigger off."""
    keep_messages: int = 20
    """Messages kept verbatim after the summary, in count mode (at least 1 when the tail may be
    counted in messages: ``keep_tokens`` 0, or ``dynamic``, which falls back to it)."""
    keep_tokens: int | Literal["dynamic"] = DYNAMIC
    """Tail budget in tokens; 0 = count mode (keep ``keep_messages``); ``"dynamic"`` =
    ``clamp(ratio × (window − reserved), min, max)``, and count mode when the window is unknown."""
    reserved: int = RESERVED_TOKENS
    """Tokens kept free under the window by the dynamic trigger."""
    keep_tokens_min: int = 2_000
    keep_tokens_max: int = 8_000
    keep_tokens_ratio: float = 0.25
    prune: PruneConfig | None = field(default_factory=PruneConfig)
    """Step 2 settings; None turns pruning off."""
    truncate_args: TruncateArgsConfig | None = None
    """Step 1 settings; None (the default) turns it off."""
    flush_before_compact: bool = True
    """Step 5: hand the prefix to the memory flush before it is summarised."""
    offload_before_compact: bool = True
    """Step 5: write a compaction record with the prefix to the session transcript."""
    summary_prompt: str | None = None
    """Prompt for the summary call; must contain ``{messages}``. None = the default prompt."""
    summary_policy: SummaryPolicy = "fail-open"
    """A failed summary call: ``fail-open`` (AgentScope 2.0.3: compact with the ``(Summary
    unavailable)`` placeholder) or ``fail-closed`` (raise SummaryError, change nothing; what
    manual compaction uses)."""
    meter: str = "ctxlab-anchored"
    """The token meter of the token trigger, the token-mode tail and the event's numbers
    (:mod:`harness.meter`): ``ctxlab-anchored`` (default: anchored on the provider's usage),
    ``agentscope-2.0.3`` (the article's estimator, over the working history only), ``dsh`` or
    ``tokenizer-anchored``."""
    gate: GateConfig | None = None
    """ctxlab's identifier-survival gate (:mod:`harness.compaction.guards.gate`): exact values the
    summary dropped are appended to it. None (the seed's behaviour) turns it off."""
    refuse_larger_summary: bool = False
    """ctxlab's size check: a summary (gated, as it would replace the span) that is not smaller
    than the span it replaces, priced by the config's meter, is refused and nothing is compacted
    (the summary call was still made). False is AgentScope 2.0.3's behaviour: it has no size
    check."""
    thrash: ThrashConfig | None = None
    """ctxlab's thrash guard (:mod:`harness.compaction.guards.thrash`): compactions that cannot
    shorten the context enough are not run, and a loop of them stops with an error. None (the
    seed's behaviour) turns it off."""
    summary_budget: float | None = None
    """ctxlab's summary budget (:mod:`harness.compaction.guards.budget`): the summary message,
    gate section included, may cost at most this share of the room between the tail and the
    token trigger; the call asks for no more and the model's text is cut, at a line, to leave
    the gate its part. None (the seeds' behaviour): the summary is taken at any size."""
    strip_echo: bool = False
    """ctxlab's echo filter (:mod:`harness.compaction.guards.echo`): the lines of the model's
    summary that only repeat the prompt's instructions or copy the transcript it read
    (``Human:`` / ``AI:`` / ``Tool:`` lines), and the sections left empty, are dropped before
    the budget and the gate see it. False (the seeds' behaviour): the summary is
    taken as written."""
    drop_unsourced: bool = False
    """ctxlab's source check (:mod:`harness.compaction.guards.unsourced`): the lines of the
    model's summary that name an identifier found nowhere in the compacted context are dropped
    before the echo filter, the budget and the gate see it. False (the seeds' behaviour): the
    summary is taken as written."""
    summary_max_tokens: int | None = None
    """A cap on the summary call's answer (sent as ``max_tokens``; with a summary budget the
    smaller of the two), for a summary prompt whose own call names one (X-BENCH's reference
    prompt: CompactBench's request default of 2,048). None (the seeds' behaviour): the call
    names no cap. Not applied to the calls of ``summary_chunk_tokens``'s chunked path."""
    summary_chunk_tokens: int | None = None
    """ctxlab's backlog chunking (:mod:`harness.compaction.agentscope.chunked`): a prefix whose
    transcript is longer than this many estimated tokens is summarised in chunks that fit, and
    a failed chunk keeps the history as it was. None (the seed's behaviour): one call."""
    pin: PinConfig | None = None
    """ctxlab's pin (:mod:`harness.compaction.guards.pin`): the user's own turns of the span,
    verbatim, within a share of the room, what a later turn replaced left out. None: off."""
    recall: RecallConfig | None = None
    """ctxlab's recall (:mod:`harness.compaction.guards.recall`): the replaced originals that best
    match the newest user message, as reference material within a budget. None: off."""
    quotes: QuoteConfig | None = None
    """ctxlab's verified quotes (:mod:`harness.compaction.guards.quotes`): the summary model
    proposes the span's lines that matter; only those found verbatim in it are kept. None: off."""

    def __post_init__(self) -> None:
        for problem in _problems(self):
            raise ConfigError(f"invalid CompactionConfig: {problem}")

    @classmethod
    def count_only(cls, trigger: int, keep: int, **changes: Any) -> CompactionConfig:
        """Compaction by message count alone, with no side effect: compact at ``trigger``
        messages, keep the last ``keep``; no token trigger, no pruning, no memory flush, no
        transcript record. ``changes`` set any other field (``meter=...``)."""
        fields: dict[str, Any] = {
            "trigger_messages": trigger,
            "trigger_tokens": None,
            "keep_messages": keep,
            "keep_tokens": 0,
            "prune": None,
            "flush_before_compact": False,
            "offload_before_compact": False,
        }
        return cls(**(fields | changes))

    @property
    def count_mode(self) -> bool:
        """True when the tail is measured in messages (``keep_tokens == 0``)."""
        return self.keep_tokens == 0


def _check_fields(
    owner: str, config: object, whole: tuple[str, ...] = (), positive: tuple[str, ...] = ()
) -> None:
    """Refuse, naming the field, a value of ``whole`` that is not an int >= 0, or of
    ``positive`` that is not an int >= 1 (bools, floats, NaN and infinities included)."""
    for names, least in ((whole, 0), (positive, 1)):
        for name in names:
            value = getattr(config, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ConfigError(
                    f"invalid {owner}: {name} must be a whole number of at least {least}, "
                    f"not {value!r}"
                )


def _field_problems(config: CompactionConfig) -> list[str]:
    """Problems of single fields, checked first so the message names the field that was set."""
    problems = [
        f"{name} must be True or False"
        for name in ("refuse_larger_summary", "strip_echo", "drop_unsourced")
        if not isinstance(getattr(config, name), bool)
    ]
    if isinstance(config.keep_messages, bool) or not isinstance(config.keep_messages, int):
        problems.append(f"keep_messages must be a whole number, not {config.keep_messages!r}")
    elif config.keep_messages < 0 or (
        config.keep_messages == 0 and config.keep_tokens in (0, DYNAMIC)
    ):
        # a tail of 0 messages would fold the request being answered into the summary; with a
        # static keep_tokens the count is never used, and 0 is accepted, as AgentScope does
        problems.append(
            f"keep_messages must be at least 1 when the tail may be counted in messages "
            f"(keep_tokens 0 or 'dynamic'), not {config.keep_messages}"
        )
    ints = {
        "trigger_messages": config.trigger_messages,
        "trigger_tokens": config.trigger_tokens if config.trigger_tokens is not None else 0,
        "keep_tokens": config.keep_tokens if config.keep_tokens != DYNAMIC else 0,
        "reserved": config.reserved,
        "keep_tokens_min": config.keep_tokens_min,
        "keep_tokens_max": config.keep_tokens_max,
    }
    for name, value in ints.items():
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"{name} must be a whole number, not {value!r}")
    budget = check_share(config.summary_budget)
    if budget is not None:
        problems.append(budget)
    for name in ("summary_chunk_tokens", "summary_max_tokens"):
        n = getattr(config, name)
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            problems.append(f"{name} must be None or a whole number >= 1, not {n!r}")
    ratio = config.keep_tokens_ratio
    if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not 0 < ratio <= 1:
        problems.append(f"keep_tokens_ratio must be in (0, 1], not {ratio!r}")
    return problems


def _problems(config: CompactionConfig) -> list[str]:
    problems = _field_problems(config)
    if problems:
        return problems
    if config.trigger_messages < 0:
        problems.append("trigger_messages must be 0 (off) or positive")
    if config.trigger_tokens is not None and config.trigger_tokens < 0:
        problems.append("trigger_tokens must be None (off), 0 (dynamic) or positive")
    if config.trigger_messages == 0 and config.trigger_tokens is None:
        problems.append(
            "both triggers are off; to turn compaction off pass engine=None to Agent "
            "(or disable_compaction=True to HarnessAgent)"
        )
    if config.keep_tokens != DYNAMIC and (
        not isinstance(config.keep_tokens, int) or config.keep_tokens < 0
    ):
        problems.append("keep_tokens must be 'dynamic', 0 (count mode) or positive")
    if config.count_mode and 0 < config.trigger_messages <= config.keep_messages:
        problems.append(
            f"keep_messages ({config.keep_messages}) must be below trigger_messages "
            f"({config.trigger_messages}), or compaction could never shorten the history"
        )
    keep, trigger = config.keep_tokens, config.trigger_tokens
    if isinstance(keep, int) and keep > 0 and trigger and keep >= trigger:
        problems.append("keep_tokens must be below a static trigger_tokens")
    if config.reserved < 0:
        problems.append("reserved must not be negative")
    if not 0 < config.keep_tokens_min <= config.keep_tokens_max:
        problems.append("need 0 < keep_tokens_min <= keep_tokens_max")
    if config.summary_prompt is not None and "{messages}" not in config.summary_prompt:
        problems.append("summary_prompt must contain {messages}")
    if config.summary_policy not in get_args(SummaryPolicy):
        problems.append(
            f"summary_policy must be fail-open or fail-closed, not {config.summary_policy!r}"
        )
    if config.meter not in METERS:
        problems.append(f"meter must be one of {', '.join(METERS)}, not {config.meter!r}")
    return problems


@dataclass(frozen=True)
class Thresholds:
    """A config's values after the dynamic ones were resolved for one model."""

    model: str
    context_window: int
    """The window the table gave for the model; 0 = unknown."""
    trigger_messages: int
    """0 = off."""
    trigger_tokens: int | None
    """None = off."""
    keep_messages: int
    keep_tokens: int
    """0 = count mode."""
    explanation: str
    """How the values were derived, in one sentence (for logs and reports)."""


def resolve_thresholds(
    config: CompactionConfig, model: str, windows: Mapping[str, int] = CTXLAB_WINDOWS
) -> Thresholds:
    """Resolve the dynamic trigger and keep values the way AgentScope 2.0.3 does."""
    window = lookup_window(model, windows)
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise ConfigError(
            f"the context window of {model} must be a whole number of tokens (0 = unknown), "
            f"not {window!r}"
        )
    trigger, trigger_why = _resolve_trigger(config, window)
    keep, keep_why = _resolve_keep(config, window)
    if keep == 0 and 0 < config.trigger_messages <= config.keep_messages:
        raise ConfigError(
            f"for {model} the tail falls back to {config.keep_messages} messages (window "
            f"unknown), which is not below trigger_messages ({config.trigger_messages}): "
            "compaction could never shorten the history; set keep_messages or keep_tokens"
        )
    return Thresholds(
        model=model,
        context_window=window,
        trigger_messages=config.trigger_messages,
        trigger_tokens=trigger,
        keep_messages=config.keep_messages,
        keep_tokens=keep,
        explanation=f"{model}: window {window:,}; {trigger_why}; {keep_why}",
    )


def _resolve_trigger(config: CompactionConfig, window: int) -> tuple[int | None, str]:
    if config.trigger_tokens is None:
        return None, "token trigger off"
    if config.trigger_tokens > 0:
        return config.trigger_tokens, f"static token trigger {config.trigger_tokens:,}"
    if window == 0:
        return FALLBACK_TRIGGER_TOKENS, (
            f"window unknown, token trigger falls back to {FALLBACK_TRIGGER_TOKENS:,}"
        )
    trigger = window - config.reserved
    if trigger <= 0:
        trigger = max(1, window // 2)
        return trigger, f"window ≤ reserved, token trigger clamped to window/2 = {trigger:,}"
    return trigger, f"token trigger = window − reserved = {trigger:,}"


def _resolve_keep(config: CompactionConfig, window: int) -> tuple[int, str]:
    if config.keep_tokens == 0:
        return 0, f"keep {config.keep_messages} messages"
    if isinstance(config.keep_tokens, int):
        return config.keep_tokens, f"keep {config.keep_tokens:,} tokens"
    if window == 0:
        return 0, f"dynamic keep unknown, retention falls back to {config.keep_messages} messages"
    budget = (window - config.reserved) * config.keep_tokens_ratio
    keep = int(min(config.keep_tokens_max, max(config.keep_tokens_min, budget)))
    return keep, f"dynamic keep {keep:,} tokens"
