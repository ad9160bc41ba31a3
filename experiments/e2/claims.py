"""E2's claims, judged from what :mod:`experiments.e2` recorded (model output as recorded).

Every ``article`` row cites the AgentScope seed (:data:`~lab.claims.AS_SEED`). Rules
about model output live in :mod:`lab.claims.judges`.
"""

from __future__ import annotations

from collections import Counter

from experiments.e2 import answer_rules
from experiments.e2.answer_rules import FACTS, has_facts
from experiments.e2.memory_rows import DAILY, header_bytes, injected_previous, s4_sizes
from experiments.e2.view import E2View
from lab import (
    AS_SEED,
    DEVIATION,
    MODEL,
    Claim,
    ClaimSpec,
    Verdict,
    call_attempts,
    cite,
    evaluate,
    invented_codes,
    verbatim_copy,
    yes,
)

__all__ = ["DAILY", "FACTS", "SEED_FLUSH_HEADER", "SPECS", "claims", "has_facts"]

SEED_FLUSH_HEADER = "## Memory Flush — 2026-10-30T12:33:04Z"
"""The daily entry header as the seed shows it (seconds, no fraction)."""
STRUCTURAL = "structural: decided by the harness, whatever the model says"


def _rule(source: str) -> str:
    return (
        f"model output as recorded ({source}); it writes tool calls as JSON text, not API "
        "tool_calls, and the harness reads them (judge `text-call-reader`); "
        "judged by judge `e2-rules`"
    )


def claims(view: E2View) -> tuple[Claim, ...]:
    """E2's claims: :data:`SPECS` judged on ``view``."""
    return evaluate("E2", SPECS, view, view.source)


def _s1_tools(view: E2View) -> Verdict:
    source = view.source
    s1 = view.steps[0]
    unread = len(call_attempts(s1.answer)) - len(s1.tool_calls)
    value = str(len(s1.tool_calls))
    if unread > 0:  # a call written so badly the reader skipped it is still a call tried
        value = f"{value} read, {unread} more tried in text ({', '.join(call_attempts(s1.answer))})"
    return Verdict(
        value,
        note=_rule(source),
        differs_note=f"the model tried to call a tool (read: {list(s1.tool_calls)}; answer "
        f"{s1.answer[:80]!r}); judge `call_attempts`; {_rule(source)}",
    )


def _s1_no_memory(view: E2View) -> Verdict:
    return Verdict("present" if view.steps[0].files["MEMORY.md"].exists else "absent")


def _s1_skip_log(view: E2View) -> Verdict:
    maintenance = view.steps[0].maintenance
    return Verdict(maintenance[0] if maintenance else "no maintenance ran")


def _header(view: E2View) -> Verdict:
    lines = view.final_daily_text.splitlines()
    return Verdict(next((line for line in lines if line.startswith("## Memory")), "none"))


def _s2_memory(view: E2View) -> Verdict:
    source = view.source
    s2 = view.steps[1]
    memory = s2.memory_text or ""
    copy = verbatim_copy(memory, s2.consolidation_input)
    reproduced = (
        "no MEMORY.md"
        if not memory
        else f"both facts: {yes(has_facts(memory))}; "
        + ("verbatim copy of the consolidation input" if copy else "rewritten")
    )
    why = (
        f"MEMORY.md is a verbatim copy of the daily entry it was built from: {copy}; the "
        "seed says consolidation is a rewrite, not the daily file appended"
        if copy
        else "the consolidation model dropped a fact"
    )
    return Verdict(
        reproduced,
        has_facts(memory) and copy is None,
        note=_rule(source),
        differs_note=f"{why}; {_rule(source)}",
    )


def _s2_watermark(view: E2View) -> Verdict:
    return Verdict(f"{view.steps[1].size('memory/.consolidation_state')} B")


def _s2_daily(view: E2View) -> Verdict:
    return Verdict("unchanged" if view.steps[1].daily_unchanged else "changed")


def _sizes(view: E2View) -> Verdict:
    source = view.source
    s2 = view.steps[1]
    sizes = (
        " / ".join(f"{name} {s2.size(name)} B" for name in (DAILY, "MEMORY.md"))
        + f" / watermark {s2.size('memory/.consolidation_state')} B"
    )
    daily_extra = header_bytes(s2.consolidation_input)
    memory_extra = header_bytes(s2.memory_text or "")
    return Verdict(
        sizes,
        differs_note="daily and MEMORY.md hold model-written text, so their sizes follow the "
        f"model ({source}); of the gap, our header format (nine fraction digits, see "
        f"E2-FLUSH-HEADER) adds {daily_extra} B to the daily file and {memory_extra} B to "
        "MEMORY.md (which copies the header, see E2-S2-MEMORY); the rest is the model's "
        "wording; the watermark size is fixed by its format",
    )


def _s3_recall(view: E2View) -> Verdict:
    source = view.source
    s3 = view.steps[2]
    found = s3.tool_result_facts
    saved = _section(s3.daily_added, "Memory Save")
    injected = "with both facts" if has_facts(s3.memory_at_start) else "without them"
    had = (
        f"MEMORY.md injected {injected}; "
        f"memory_search returned {', '.join(found) or 'neither'}; memory_save "
        f"{'saved both' if has_facts(saved) else 'saved neither' if not saved else 'saved part'}"
    )
    empty = "an empty completion" if not s3.answer.strip() else repr(s3.answer[:100])
    # a recall needs a source: the facts injected from MEMORY.md or returned by a memory tool
    sourced = has_facts(s3.memory_at_start) or has_facts("\n".join(found))
    if has_facts(s3.answer) and not sourced:
        return Verdict(
            "yes, with no memory holding the facts",
            False,
            differs_note=f"the answer names the facts but no memory gave them ({had}): not a "
            f"recall from memory; {_rule(source)}",
        )
    return Verdict(
        yes(has_facts(s3.answer)),
        note=_rule(source),
        differs_note=f"the model had the facts ({had}) and then returned {empty}; {_rule(source)}",
    )


def _section(text: str, kind: str) -> str:
    """The bodies of the ``## <kind> — …`` sections of a daily text, joined."""
    parts = text.split("\n## ")
    return "\n".join(p for p in parts if p.lstrip("#").lstrip().startswith(kind))


def _s4_rebuild(view: E2View) -> Verdict:
    source = view.source
    s4 = view.steps[3]
    tools4 = Counter(s4.tool_calls)
    from_daily = any(src.startswith("memory/") for src in s4.sources)
    evidence = (
        f"answer has both facts: {yes(has_facts(s4.answer))}; tools: "
        f"{', '.join(f'{k}×{v}' for k, v in sorted(tools4.items())) or 'none'}; sources: "
        f"{', '.join(s4.sources) or 'none'}; MEMORY.md rebuilt: {yes(bool(s4.memory_rebuilt))}"
    )
    return Verdict(
        evidence,
        has_facts(s4.answer) and bool(tools4) and from_daily,
        note=_rule(source),
        differs_note=f"the evidence chain is incomplete; {_rule(source)}",
    )


def _s4_save(view: E2View) -> Verdict:
    source = view.source
    s3, s4 = view.steps[2], view.steps[3]
    saved = bool(_section(s4.daily_added, "Memory Save"))
    kept = s4.watermark == s3.watermark
    elsewhere = [str(s.step) for s in view.steps if _section(s.daily_added, "Memory Save")]
    return Verdict(
        f"## Memory Save added: {yes(saved)}, watermark {'unchanged' if kept else 'moved'}",
        saved and kept,
        note=_rule(source),
        differs_note=f"the model did not call memory_save in step 4 (it did in step(s) "
        f"{', '.join(elsewhere) or 'none'}); the watermark is "
        f"{'unchanged' if kept else 'moved'}, which the harness decides; {_rule(source)}",
    )


def _extra_calls(view: E2View) -> Verdict:
    calls = view.model_calls
    return Verdict(
        f"flush {calls.get('flush', 0)} + consolidation {calls.get('consolidation', 0)}",
        note=f"counted from the requests' purposes ({calls}); {STRUCTURAL}",
    )


def _flush_invents(view: E2View) -> Verdict:
    """The seed: a date "never in the conversation" — so the whole conversation counts, the
    model's answers included, not only what the user said."""
    source = view.source
    said = "\n".join(s.user for s in view.steps)
    conversation = "\n".join(f"{s.user}\n{s.answer}" for s in view.steps)
    flushed = _section(view.final_daily_text, "Memory Flush")
    invented = invented_codes(flushed, conversation)
    if invented:
        return Verdict(
            f"a flush wrote customer code(s) never in the conversation: {', '.join(invented)}",
            True,
            note="caught live: neither the user nor any answer said the flushed code; judged "
            f"by judge `invented_codes` on the whole conversation; {_rule(source)}",
        )
    from_answers = [c for c in invented_codes(flushed, said) if c in conversation]
    how = (
        f"the flush stored {', '.join(from_answers)}, which the user never said but a model "
        "answer did, so it was in the conversation: extraction, not invention"
        if from_answers
        else "this run's flushes only wrote codes the conversation holds"
    )
    return Verdict(
        "no flushed customer code that the conversation never held",
        False,
        differs_note=f"{how}; judge `invented_codes` on the whole conversation; {_rule(source)}",
    )


SPECS: tuple[ClaimSpec[E2View], ...] = (
    ClaimSpec(
        "E2-S1-TOOLS",
        "Step 1 makes 0 tool calls.",
        _s1_tools,
        "0",
        cite(AS_SEED, "0 次工具调用，daily 140 B"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E2-S1-FLUSH",
        "After step 1 the daily file has a Memory Flush section naming both facts.",
        lambda v: answer_rules.s1_flush(v, _rule(v.source)),
        "yes",
        cite(AS_SEED, "出现 ## Memory Flush — 2026-10-30T12:33:04Z"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E2-S1-NO-MEMORY",
        "MEMORY.md does not exist after step 1 (maintenance ran before the flush and skipped).",
        _s1_no_memory,
        "absent",
        cite(AS_SEED, "MEMORY.md 不存在"),
        note=STRUCTURAL,
    ),
    ClaimSpec(
        "E2-S1-SKIP-LOG",
        "The first maintenance finds no fresh daily entry, skips without a model call and "
        "logs the article's line.",
        _s1_skip_log,
        "No fresh daily entries since 1970-01-01T00:00:00Z — skipping consolidation",
        cite(AS_SEED, "No fresh daily entries since 1970-01-01T00:00:00Z — skipping consolidation"),
        note=STRUCTURAL,
    ),
    ClaimSpec(
        "E2-FLUSH-HEADER",
        "A flush section starts with the header '## Memory Flush — <ISO instant>'.",
        _header,
        SEED_FLUSH_HEADER,
        cite(AS_SEED, "## Memory Flush — 2026-10-30T12:33:04Z"),
        differs_note="deviation kept on purpose (harness.memory.clock): ctxlab stamps entries "
        "to the nanosecond because consolidation decides freshness per entry from this "
        "stamp, and a seconds-only stamp would tie a later entry of the same second with the "
        "watermark and lose it; AgentScope can use seconds because it decides per file (mtime). "
        "The header is also part of the recorded consolidation and search requests, so "
        "changing it needs a new E2 recording",
        reason_class=DEVIATION,
    ),
    ClaimSpec(
        "E2-S2-MEMORY",
        "Consolidation rewrites MEMORY.md whole, holding both facts; it does not append "
        "the daily entries to it.",
        _s2_memory,
        "rewritten: a heading and the two facts",
        cite(AS_SEED, "正文是 ## 业务与物流 加两条事实：出口港口、客户代号"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E2-S2-WATERMARK",
        "The watermark file is 30 bytes.",
        _s2_watermark,
        "30 B",
        cite(AS_SEED, "水位 30 B"),
        note=STRUCTURAL,
    ),
    ClaimSpec(
        "E2-S2-DAILY",
        "Consolidation leaves the daily file unchanged.",
        _s2_daily,
        "unchanged",
        cite(AS_SEED, "daily 140 B 原样"),
        note=STRUCTURAL,
    ),
    ClaimSpec(
        "E2-SIZES",
        "File sizes after consolidation: daily / MEMORY.md / watermark.",
        _sizes,
        f"{DAILY} 140 B / MEMORY.md 158 B / watermark 30 B",
        cite(AS_SEED, "MEMORY.md 从无到 158 B，整篇重写；daily 140 B 原样；水位 30 B"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E2-S3-RECALL",
        "A new session answers both facts.",
        _s3_recall,
        "yes",
        cite(AS_SEED, "3 次搜索、Source 指向 MEMORY.md，答对"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E2-S3-SEARCHES",
        "Step 3 searches memory and the search's Source lines point to MEMORY.md (the "
        "number of searches is not the result).",
        lambda v: answer_rules.s3_searches(v, _rule(v.source)),
        "3 searches (0 in the other run); Source: MEMORY.md",
        cite(AS_SEED, "两次窗口分别 3 次和 0 次搜索，Source 都指向 MEMORY.md"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E2-S4-REBUILD",
        "With MEMORY.md deleted, the answer is recovered from the "
        "daily file through tools (MEMORY.md rebuilt in one of the article's runs).",
        _s4_rebuild,
        "via tools, Source: the daily file (memory/2026-10-30.md)",
        cite(AS_SEED, "18:26 那次是 5 次工具、4909 ms，Source 指向 memory/2026-10-30.md#3-4"),
        note="judged by the answer naming both facts, tools called and a Source in the daily "
        "file (the answer's facts are our stricter reading)",
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E2-S4-SAVE",
        "Step 4 ends with memory_save: the daily file gains a '## Memory Save' section and "
        "the watermark does not move.",
        _s4_save,
        "## Memory Save added, watermark unchanged",
        cite(AS_SEED, "新增一段 ## Memory Save，水位不变"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E2-S4-SIZES",
        "After step 4, MEMORY.md is rebuilt and the daily file has grown: MEMORY.md / daily sizes.",
        s4_sizes,
        f"MEMORY.md 127 B / {DAILY} 317 B",
        cite(AS_SEED, "MEMORY.md 被重建到 127 B，daily 涨到 317 B"),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "E2-INJECT-PREVIOUS",
        "The MEMORY.md a call sees is the one the previous call left: every request of a call "
        "carries the version found at the call's start.",
        injected_previous,
        "the version the previous call left",
        cite(AS_SEED, "你在一次请求里看到的 MEMORY.md，是上一次 call 结束后留下的版本"),
        kind="article-computed",
    ),
    ClaimSpec(
        "E2-EXTRA-CALLS",
        "Besides the three chats, memory costs extra model calls: one flush per chat and "
        "one consolidation.",
        _extra_calls,
        "flush 3 + consolidation 1",
        cite(AS_SEED, "E2 的三次主对话，额外四笔：flush 3、consolidation 1"),
    ),
    ClaimSpec(
        "E2-FLUSH-INVENTS",
        "A flush can write a 'fact' the user never stated (memory is extraction, not a ledger).",
        _flush_invents,
        "a flush invented a date that never occurred in the conversation",
        cite(AS_SEED, "这个日期在对话里从未出现"),
        reason_class=MODEL,
    ),
)
