"""E5's rows for where the DeepSeek-Harness checks and recovery fire, judged on
:class:`~experiments.e5.view.dsh_steps.DshSteps` (measured by
:mod:`experiments.e5.measures.dsh_steps`). Seed 002's rows are article-computed
(:mod:`lab.claims.specs`)."""

from __future__ import annotations

from experiments.e5.common import SOURCE
from experiments.e5.view.dsh_steps import DshSteps, ErrorOutcome
from lab import DSH_SEED, Claim, ClaimSpec, Verdict, cite, evaluate, yes

__all__ = ["DSH_STEP_SPECS", "dsh_step_claims"]

CONTEXT = "400 context length"


def dsh_step_claims(data: DshSteps) -> tuple[Claim, ...]:
    """The rows of :data:`DSH_STEP_SPECS` judged on ``data``."""
    return evaluate("E5", DSH_STEP_SPECS, data, SOURCE)


def _pre_step_row(data: DshSteps) -> Verdict:
    p = data.pre_step
    before = ", ".join(map(str, p.compacted_before)) or "none"
    return Verdict(
        f"{p.checks} checks for {p.requests} requests of one call; the tool result crossed "
        f"the threshold: compacted before request {before}; the next request carries the "
        f"checkpoint: {yes(p.checkpoint_in_next)}",
        p.requests == 2 and p.checks == p.requests and p.compacted_before == (2,)
        and p.checkpoint_in_next,
    )  # fmt: skip


def _prefix_row(data: DshSteps) -> Verdict:
    p = data.prefix
    return Verdict(
        f"the routed request's tools ({p.tools}): {yes(p.same_tools)}; its system head: "
        f"{yes(p.same_head)}; the shadowed messages as sent: {yes(p.shadowed_as_sent)}; the "
        f"directive as the final user message: {yes(p.directive_last)}",
        p.tools > 0 and p.same_tools and p.same_head and p.shadowed_as_sent and p.directive_last,
    )


def _pressure_edge_row(data: DshSteps) -> Verdict:
    e = data.pressure_edge
    return Verdict(
        f"a request of {e.tokens} tokens: window {e.at_window} (threshold {e.tokens}) "
        f"{e.at_events} compaction; window {e.below_window} (threshold {e.tokens + 1}) "
        f"{e.below_events}",
        e.at_events >= 1 and e.below_events == 0,
    )


def _retain_edge_row(data: DshSteps) -> Verdict:
    r = data.retain_edge
    return Verdict(
        f"nodes of {r.node_tokens} tokens: retain {r.budget} keeps {r.kept_at_budget}, "
        f"retain {r.budget + 1} keeps {r.kept_one_over}",
        r.kept_at_budget == r.budget // r.node_tokens and r.kept_one_over == r.kept_at_budget + 1,
    )


def _merged_row(data: DshSteps) -> Verdict:
    m = data.merged
    return Verdict(
        f"the earlier checkpoint in the next summary request: {yes(m.carried)}; the directive "
        f"says merge, not copy: {yes(m.directive_merges)}; checkpoints on the surface after: "
        f"{m.checkpoints_after}, holding {m.blocks_in_last} compacted block",
        m.carried and m.directive_merges and m.checkpoints_after == m.blocks_in_last == 1,
    )


def _smaller_edge_row(data: DshSteps) -> Verdict:
    s = data.smaller_edge
    return Verdict(
        f"a framed summary of {s.framed_tokens} tokens for {s.framed_tokens}: "
        f"{'refused' if s.equal_refused else 'accepted'}; for {s.framed_tokens + 1}: "
        f"{'accepted' if s.one_less_accepted else 'refused'}",
        bool(s.equal_refused) and s.one_less_accepted,
    )


def _untouched(o: ErrorOutcome) -> bool:
    return o.reached_caller and o.summaries == 0 and o.agent_requests == 1


def _overflow_only_row(data: DshSteps) -> Verdict:
    others = [o for o in data.errors if o.error != CONTEXT]
    context = [o for o in data.errors if o.error == CONTEXT]
    touched = [f"{o.engine} {o.error}" for o in others if not _untouched(o)]
    recovered = [o for o in context if o.summaries >= 1 and o.agent_requests == 2]
    kinds = sorted({o.error.split(" (")[0] for o in others})
    return Verdict(
        f"{', '.join(kinds)}: "
        + (f"recovery entered for {', '.join(touched)}" if touched else "each reached the "
           "caller, 0 compactions, 0 retries")
        + f"; {CONTEXT}: {len(recovered)} of {len(context)} engines compacted and retried once",
        bool(others) and not touched and len(recovered) == len(context) == 2,
    )  # fmt: skip


_SCRIPTED = "run on a scripted DSH agent: "
DSH_STEP_SPECS: tuple[ClaimSpec[DshSteps], ...] = (
    ClaimSpec(
        "DSH-PRESTEP",
        "The pressure check runs at agent/pre-step, before every model request of a call "
        "(between two requests, never mid-request).",
        _pre_step_row,
        "checked before every step, between two model requests",
        cite(DSH_SEED, "在 agent 每一步开始前，也就是两次模型请求之间的安全边界，做一次压力检查"),
        note=_SCRIPTED + "one call whose tool result takes the request from below the "
        "threshold to above it between its two requests (pruning off); the engine's checks "
        "are counted",
        differs_note="the check did not run before each request, or the pressure the tool "
        "result made was not compacted before the next request; see E5.json dsh_steps.pre_step",
    ),
    ClaimSpec(
        "DSH-SUMMARY-PREFIX",
        "The summary request is the last routed request's system and tools, the shadowed "
        "messages as real requests carry them, and the directive as the final user message.",
        _prefix_row,
        "the routed request's system + tools + the shadowed messages + the directive last",
        cite(
            DSH_SEED, "取最近一次路由请求的 system 和 tools，再逐节点把被压缩区段的事件派生成消息"
        ),
        note=_SCRIPTED + "the same call, with one tool offered (E4's recorded DSH-CACHE "
        "offers none, so only this row sees the tools)",
        differs_note="the summary request lost the routed request's tools or head, or "
        "re-wrote the shadowed messages; see E5.json dsh_steps.prefix",
    ),
    ClaimSpec(
        "DSH-PRESSURE-EDGE",
        "A request exactly at the threshold compacts; only one below it (totalTokens < "
        "thresholdTokens) is left alone.",
        _pressure_edge_row,
        "below the threshold: nothing; at the threshold: compact",
        cite(
            DSH_SEED, "measurement.totalTokens < spec.thresholdTokens\u00a0就返回 null"
        ),  # a no-break space
        note="run on a scripted event log with dsh's meter: the windows put floor(window × "
        "0.8) exactly at the measured request, then one token above it",
        differs_note="a request exactly at the threshold was not compacted, or one below it "
        "was; see E5.json dsh_steps.pressure_edge",
    ),
    ClaimSpec(
        "DSH-RETAIN-EDGE",
        "The verbatim tail is the newest nodes whose tokens, added from the newest backwards, "
        "first reach the retain budget: a tail exactly at the budget stops there.",
        _retain_edge_row,
        "add tokens from the newest node back; stop once the retain budget is reached",
        cite(DSH_SEED, "从最新一条往老的方向累加 token，攒够保留预算就停"),
        note="run on the range selection: six plain messages of 10 tokens each, retain 20 "
        "(exactly two nodes) and 21",
        differs_note="the tail stopped before reaching the budget, or went on past a tail "
        "that reached it exactly; see E5.json dsh_steps.retain_edge",
    ),
    ClaimSpec(
        "DSH-SUMMARY-MERGE",
        "An earlier compacted block is merged into the one new summary, not copied forward "
        "or nested.",
        _merged_row,
        "an earlier compacted block merged into one new summary",
        cite(DSH_SEED, "不许原样照抄，要把仍然为真的事实合并进单个新摘要，嵌套压缩不滚雪球"),
        note="run on a scripted event log: two manual compactions, the second over the "
        "first's checkpoint; the merge itself is the model's, so what is judged is that the "
        "old block reaches the summary request with the directive to merge it and that one "
        "checkpoint is left",
        differs_note="the earlier checkpoint did not reach the next summary request, the "
        "directive does not ask to merge it, or two checkpoints were left; see E5.json "
        "dsh_steps.merged",
    ),
    ClaimSpec(
        "DSH-SMALLER-EDGE",
        "A framed summary exactly as large as what it replaces is refused (greater or equal "
        "is a hard failure); one a token smaller is accepted.",
        _smaller_edge_row,
        "framed summary ≥ shadowed content → error",
        cite(DSH_SEED, "大于等于就报错"),
        note="run on the DSH summarizer with dsh's meter: the shadowed tokens set to the "
        "framed summary's own price, then one more (DSH-SMALLER samples 5,050 against 777)",
        differs_note="a summary as large as what it replaces was accepted, or a smaller one "
        "refused; see E5.json dsh_steps.smaller_edge",
    ),
    ClaimSpec(
        "DSH-OVERFLOW-ONLY",
        "Only a context-length error (CONTEXT_WINDOW_EXCEEDED) enters overflow recovery; any "
        "other error reaches the caller untouched.",
        _overflow_only_row,
        "only CONTEXT_WINDOW_EXCEEDED enters recovery; other errors pass through",
        cite(
            DSH_SEED,
            "只有上下文超限这一种才进入恢复分支。注意看这里，其他错误原样放行，恢复逻辑不碰",
        ),
        note="run on scripted agents of both engines (AgentScope's catches "
        "context_length_exceeded alone as well, AS §3.5): an ordinary 400 (a bad tool name), "
        "a 429 and a 500 each must reach the caller as raised, with no summary call and no "
        "retry; a context-length 400 must compact and retry once",
        differs_note="an error that is not a context overflow set off a compaction or a "
        "retry, or an overflow did not; see E5.json dsh_steps.errors",
    ),
)
