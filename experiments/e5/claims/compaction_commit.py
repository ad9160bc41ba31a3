"""E5's rows for what happens around one compaction's commit, as the seeds state it, judged on
:class:`~experiments.e5.view.compaction_commit.CompactionCommit` (measured by
:mod:`experiments.e5.measures.compaction_commit`): AgentScope's pre-compaction hooks,
``disableCompaction`` and the overflow retry, its missing size check and where a user's files
land; DeepSeek-Harness's commit events, pricing and stability checks and overflow
bookkeeping."""

from __future__ import annotations

from experiments.e5.common import SOURCE, USER
from experiments.e5.view.compaction_commit import CompactionCommit
from lab import AS_SEED, DSH_SEED, Claim, ClaimSpec, Verdict, cite, evaluate, every

__all__ = ["COMMIT_SPECS", "compaction_commit_claims"]

FOUR = ("compaction/start", "compaction/summary", "user/message", "compaction/end")


def compaction_commit_claims(data: CompactionCommit) -> tuple[Claim, ...]:
    """The rows of :data:`COMMIT_SPECS` judged on ``data``."""
    return evaluate("E5", COMMIT_SPECS, data, SOURCE)


def _hooks_row(data: CompactionCommit) -> Verdict:
    h = data.hooks
    return every(
        ("flush on", h.flush_default),
        ("offload on", h.offload_default),
        ("truncateArgs off", not h.truncate_args_default),
        (f"flush sent {h.flushed_messages} of {h.prefix_messages} prefix messages",
         h.prefix_messages > 0 and h.flushed_messages == h.prefix_messages),
        (f"transcript holds {h.offloaded_messages} of {h.prefix_messages}",
         h.prefix_messages > 0 and h.offloaded_messages == h.prefix_messages),
    )  # fmt: skip


def _best_effort_row(data: CompactionCommit) -> Verdict:
    ok = data.hooks.compacted_despite_failing_flush
    return Verdict(
        "a failing flush: the compaction " + ("went on" if ok else "did not replace the prefix"),
        ok,
    )


def _disabled_row(data: CompactionCommit) -> Verdict:
    d = data.disabled_overflow
    return Verdict(
        f"{d.agent_requests} agent request(s) in the overflowing call, the overflow {d.outcome}",
        d.agent_requests == 1 and d.outcome == "raised",
    )


def _back_to_back_row(data: CompactionCommit) -> Verdict:
    c = data.commit
    return Verdict(
        " → ".join(c.event_types)
        + ("; summary and replace adjacent" if c.summary_then_replace else "; not adjacent"),
        c.event_types == FOUR and c.summary_then_replace,
    )


def _sources_row(data: CompactionCommit) -> Verdict:
    c = data.commit
    return Verdict(
        f"sourceEventSeqs {list(c.source_event_seqs)}; start, summary, shadowed: "
        f"{list(c.expected_sources)}",
        len(c.expected_sources) > 2 and c.source_event_seqs == c.expected_sources,
    )


def _stale_row(data: CompactionCommit) -> Verdict:
    error = data.commit.stale_pricing_error
    return Verdict(f"error: {error or 'none, the range was selected'}", "stale pricing" in error)


def _prune_progress_row(data: CompactionCommit) -> Verdict:
    p = data.prune_progress
    return Verdict(
        f"summary stage fails: pruned first → {p.with_prune} ({p.with_prune_trigger or '-'}); "
        f"nothing to prune → {p.without_prune}",
        (p.with_prune, p.with_prune_trigger, p.without_prune)
        == ("retry", "overflow-prune", "raised"),
    )


def _retry_reset_row(data: CompactionCommit) -> Verdict:
    r = data.retry_reset
    return Verdict(
        f"two overflows with a tool round between: {r.outcome}"
        + (f", {r.recoveries} recoveries" if r.outcome == "answered" else ""),
        r.outcome == "answered" and r.recoveries == 2,
    )


def _larger_row(data: CompactionCommit) -> Verdict:
    big = data.larger_summary
    return Verdict(
        f"a {big.summary_chars}-character summary for a {big.prefix_chars}-character prefix: "
        + ("accepted" if big.committed else "refused"),
        big.committed and big.summary_chars > big.prefix_chars,
    )


def _namespace_row(data: CompactionCommit) -> Verdict:
    ns = data.namespace
    return Verdict(
        f"under the root: {', '.join(ns.top_level) or 'nothing'}; MEMORY.md at "
        + (", ".join(ns.memory_files) or "nowhere"),
        ns.top_level == (USER,) and ns.memory_files == (f"{USER}/MEMORY.md",),
    )


def _stability_row(data: CompactionCommit) -> Verdict:
    st = data.stability
    return Verdict(
        "a message appended outside the span during the summary: automatic "
        + (f"refused ({st.automatic_error[:60]})" if st.automatic_error else "committed")
        + "; manual "
        + ("committed" if st.manual_committed else "refused"),
        "surface changed" in st.automatic_error and st.manual_committed,
    )


_SCRIPTED = "run on a scripted agent: "
COMMIT_SPECS: tuple[ClaimSpec[CompactionCommit], ...] = (
    ClaimSpec(
        "AS-COMPACT-HOOKS",
        "By default the memory flush and the transcript record run on the prefix before it is "
        "summarised (flushBeforeCompact, offloadBeforeCompact on); we also check truncateArgs "
        "is off, as the seed's listing of the config gives it.",
        _hooks_row,
        "flushBeforeCompact on, offloadBeforeCompact on",
        cite(
            AS_SEED,
            "压前 flush 默认开，会把将被压掉的前缀先抽到 daily；offloadBeforeCompact 默认也开",
        ),
        kind="article-computed",
        note=_SCRIPTED + "trigger 5, keep 2 with the three defaults; the flush must be sent "
        "every message of the prefix and the transcript's compaction line must hold them",
        differs_note="a default is not the seed's, or the flush or the transcript missed "
        "messages of the prefix; see E5.json more.hooks",
    ),
    ClaimSpec(
        "AS-FLUSH-BEST-EFFORT",
        "The pre-compaction flush is best effort: a flush that fails does not block the "
        "compaction.",
        _best_effort_row,
        "best effort: a failed flush does not block",
        cite(AS_SEED, "压前抽事实，best-effort，失败不阻断"),
        kind="article-computed",
        note=_SCRIPTED + "its memory model raises on the flush; the compaction must replace "
        "the same prefix as with a working flush",
        differs_note="the failed flush stopped the compaction",
    ),
    ClaimSpec(
        "AS-DISABLE-NO-RETRY",
        "disableCompaction also turns off the overflow retry: a context-length error reaches "
        "the caller after one request.",
        _disabled_row,
        "no threshold compaction and no overflow retry",
        cite(AS_SEED, "disableCompaction 关掉的不只是阈值压缩，还有溢出兜底那一次重试"),
        kind="article-computed",
        note=_SCRIPTED + "HarnessAgent(disable_compaction=True), the server overflowing once",
        differs_note="the disabled agent retried the request",
    ),
    ClaimSpec(
        "DSH-BACK-TO-BACK",
        "A DSH compaction appends the summary event and the replace message back to back, "
        "between compaction/start and compaction/end.",
        _back_to_back_row,
        "summary and replace appended back to back",
        cite(DSH_SEED, "摘要与替换消息之间一次让出都不给"),
        note=_SCRIPTED.replace("agent", "event log") + "one manual compaction",
        differs_note="another event came between the summary and the replace, or the four "
        "events are out of order",
    ),
    ClaimSpec(
        "DSH-SOURCE-SEQS",
        "The replace message's sourceEventSeqs chain the start, the summary and every "
        "shadowed event.",
        _sources_row,
        "sourceEventSeqs = [start, summary, ...shadowed]",
        cite(DSH_SEED, "sourceEventSeqs 把开标记、摘要和全部被遮蔽事件的 seq 串成因果链"),
        differs_note="the chain misses the start, the summary or a shadowed seq",
    ),
    ClaimSpec(
        "DSH-STALE-PRICING",
        "When the meter's priced nodes do not match the current surface seq by seq, selecting "
        "the range throws.",
        _stale_row,
        "priced nodes ≠ surface → error",
        cite(DSH_SEED, "对不上直接抛错"),
        note="the newest node's price left out of the measurement",
        differs_note="a stale pricing was used to select the range",
    ),
    ClaimSpec(
        "DSH-PRUNE-PROGRESS",
        "In overflow recovery a reduction the prune already made durable counts as progress "
        "even when the summary stage throws.",
        _prune_progress_row,
        "a durable prune counts: retry even though the summary failed",
        cite(DSH_SEED, "如果剪枝已经产生了持久的表面缩减，摘要这段却抛错了，已落盘的缩减不算白干"),
        note="a 20,000-character tool result (over the prune line) and a summariser that "
        "fails; without a prunable result the error must reach the caller",
        differs_note="the prune's reduction was dropped, or a recovery without progress retried",
    ),
    ClaimSpec(
        "DSH-RETRY-RESET",
        "The overflow-retry count starts again when an assistant message lands, even inside "
        "the same turn.",
        _retry_reset_row,
        "reset by any assistant/message",
        cite(DSH_SEED, "任何一条 assistant/message 落盘"),
        note=_SCRIPTED + "a DSH agent whose server overflows, asks for a tool, overflows "
        "again, then answers; the seed's other reset point (the agent going idle) is not "
        "probed",
        differs_note="the second overflow was not recovered: the count held for the turn",
    ),
)
COMMIT_SPECS += (
    ClaimSpec(
        "AS-WORKSPACE-USER",
        "In local mode a user's memory lives under workspace/<userId>/, not at the workspace "
        "root the docs draw.",
        _namespace_row,
        "workspace/<userId>/ (lab-user/), not the root",
        cite(AS_SEED, "2.0.3 本地模式实际在 workspace/<userId>/"),
        note=_SCRIPTED + "HarnessAgent(user_id='lab-user') whose model calls memory_save once",
        differs_note="a file of the session landed outside workspace/<userId>/",
    ),
    ClaimSpec(
        "AS-NO-SIZE-CHECK",
        "AgentScope 2.0.3 has no size check: a summary larger than the prefix it replaces "
        "is accepted.",
        _larger_row,
        "no size check: a larger summary is accepted",
        cite(AS_SEED, '它没有"摘要不比原会话小就保留"的 size 检查'),
        kind="article-computed",
        note=_SCRIPTED + "trigger 5, keep 2, the size check as AgentScope's defaults set "
        "it (refuse_larger_summary off; ctxlab's check is opt-in)",
        differs_note="the larger summary was refused",
    ),
    ClaimSpec(
        "DSH-STABILITY-CHECK",
        "After the summary call, automatic compaction requires the whole surface unchanged; "
        "manual compaction requires only the selected span unchanged.",
        _stability_row,
        "automatic: whole-surface; manual: selected-span",
        cite(
            DSH_SEED,
            "自动压缩用 whole-surface（region.ts:387-396，深比较整个度量节点列表），因为步间边界内"
            "表面本就不该动，动了就是有并发写人；手动压缩用 selected-span",
        ),
        note="run on scripted event logs: the summariser appends a message after the span "
        "while it answers",
        differs_note="the automatic path committed over a changed surface, or the manual "
        "path refused a change outside its span",
    ),
)
"""The rows around a compaction's commit; seed 002's are article-computed by
:mod:`lab.claims.specs`."""
