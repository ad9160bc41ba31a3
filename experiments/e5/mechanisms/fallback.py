"""The 160K fallback: the thresholds a model missing from the window table resolves to.

AgentScope 2.0.3's table has no ``deepseek-flash``, so its window is 0 and the token trigger
falls back to 160,000 with a 20-message retention; ctxlab's table knows the 1M window.
"""

from __future__ import annotations

from experiments.e5.view import E5View, FallbackProfile
from harness import CompactionConfig
from harness.compaction.agentscope import resolve_thresholds
from harness.meter.windows import AGENTSCOPE_2_0_3_WINDOWS, CTXLAB_WINDOWS
from lab import AS_SEED, ClaimSpec, Verdict, cite

__all__ = ["FALLBACK_SPECS", "measure_fallback"]

MODEL = "deepseek-flash"
TABLES = (("agentscope-2.0.3", AGENTSCOPE_2_0_3_WINDOWS), ("ctxlab", CTXLAB_WINDOWS))


def measure_fallback() -> dict[str, FallbackProfile]:
    """The default config's thresholds for ``deepseek-flash`` under each window table."""
    config = CompactionConfig()
    resolved = [(name, resolve_thresholds(config, MODEL, table)) for name, table in TABLES]
    return {
        name: FallbackProfile(
            window=t.context_window,
            trigger_tokens=t.trigger_tokens,
            keep_tokens=t.keep_tokens,
            keep_messages=t.keep_messages,
            explanation=t.explanation,
        )
        for name, t in resolved
    }


def _retention(thresholds: FallbackProfile) -> str:
    """Messages when no token budget is kept, tokens otherwise."""
    if thresholds.keep_tokens == 0:
        return f"{thresholds.keep_messages} messages"
    return f"{thresholds.keep_tokens} tokens"


def _theirs(view: E5View) -> Verdict:
    theirs = view.fallback["agentscope-2.0.3"]
    return Verdict(
        f"window {theirs.window}, trigger {theirs.trigger_tokens}, keep {_retention(theirs)}"
    )


def _window(view: E5View) -> Verdict:
    return Verdict(f"window {view.fallback['ctxlab'].window}")


def _ours(view: E5View) -> Verdict:
    ours = view.fallback["ctxlab"]
    return Verdict(f"window {ours.window}, trigger {ours.trigger_tokens}")


FALLBACK_SPECS: tuple[ClaimSpec[E5View], ...] = (
    ClaimSpec(
        "E5-FALLBACK-160K",
        "With AgentScope 2.0.3's table, deepseek-flash resolves to "
        "window 0: token trigger 160,000, retention 20 messages.",
        _theirs,
        "window 0, trigger 160000, keep 20 messages",
        cite(
            AS_SEED,
            "getContextWindowSize() 返回 0，动态 token 触发落到 160000 兜底；keepTokens 的"
            "动态值也算不出来，退回按条数保留 20 条",
        ),
        kind="article-computed",
    ),
    ClaimSpec(
        "E5-FALLBACK-1M",
        "deepseek-flash's context window is 1M tokens (the vendor's figure, as the seed "
        "states it); ctxlab's window table holds it.",
        _window,
        "window 1000000",
        cite(AS_SEED, "官方把 deepseek-flash 标到 1M 上下文、384K 最大输出"),
        differs_note="ctxlab's window table does not give deepseek-flash the 1M window the "
        "seed states",
    ),
    ClaimSpec(
        "E5-FALLBACK-OURS",
        "With ctxlab's own window table, deepseek-flash resolves to its 1M window minus "
        "the 20,000 reserve.",
        _ours,
        kind="ctxlab",
        expected="window 1000000, trigger 980000",
        note="the 1M window is the vendor's figure the seed quotes; the table is ours",
        article_source=cite(AS_SEED, "官方把 deepseek-flash 标到 1M 上下文、384K 最大输出"),
    ),
)
