"""E5's rows for the AgentScope seed's memory switches and timing, judged on
:class:`~experiments.e5.view.memory_switches.MemorySwitches` (measured by
:mod:`experiments.e5.measures.memory_switches`)."""

from __future__ import annotations

from experiments.e5.common import SOURCE
from experiments.e5.view.memory_switches import MemorySwitches
from lab import AS_SEED, Claim, ClaimSpec, Verdict, cite, evaluate, yes

__all__ = ["MEMORY_SWITCH_SPECS", "memory_switch_claims"]


def memory_switch_claims(data: MemorySwitches) -> tuple[Claim, ...]:
    """The rows of :data:`MEMORY_SWITCH_SPECS` judged on ``data``."""
    return evaluate("E5", MEMORY_SWITCH_SPECS, data, SOURCE)


def _after_success_row(data: MemorySwitches) -> Verdict:
    a = data.after_success
    return Verdict(
        f"a failed call ({a.failed_error or 'no error'}): {a.failed_flushes} flushes, "
        f"{a.failed_maintenance} maintenance runs; a successful call: {a.ok_flushes} flush, "
        f"{a.ok_maintenance} maintenance run",
        bool(a.failed_error)
        and a.failed_flushes == a.failed_maintenance == 0
        and a.ok_flushes == a.ok_maintenance == 1,
    )


def _tools_off_row(data: MemorySwitches) -> Verdict:
    t = data.tools_off
    return Verdict(
        f"memory tools offered: {', '.join(t.memory_tools_offered) or 'none'} (with the switch "
        f"off: {', '.join(t.memory_tools_when_on)}); flush after the call: {t.flushes} "
        f"request, ## Memory Flush written: {yes(t.flush_written)}",
        not t.memory_tools_offered
        and "memory_save" in t.memory_tools_when_on
        and t.flushes == 1
        and t.flush_written,
    )


def _flush_trigger_row(data: MemorySwitches) -> Verdict:
    f = data.flush_switches
    minutes = ", ".join(map(str, f.throttled_minutes))
    return Verdict(
        f"throttled(10min), calls at minutes {minutes}: flushed at "
        f"{', '.join(map(str, f.throttled_flushed_at)) or 'none'}; never(): "
        f"{f.never_after_call} after-call, {f.never_before_compaction} pre-compaction flush; "
        f"disableMemoryHooks: {f.hooks_off_flushes} flushes, {f.hooks_off_maintenance} "
        "maintenance runs",
        f.throttled_flushed_at == (0, 10, 21)
        and f.never_after_call == 0
        and f.never_before_compaction >= 1
        and f.hooks_off_flushes == f.hooks_off_maintenance == 0,
    )


def _archive_row(data: MemorySwitches) -> Verdict:
    a = data.archive
    ages = ", ".join(map(str, a.ages_days))
    kept = [age for age in a.ages_days if age not in a.archived_ages]
    return Verdict(
        f"daily files {ages} days old: archived {', '.join(map(str, a.archived_ages)) or 'none'}"
        f"; kept {', '.join(map(str, kept)) or 'none'}",
        a.archived_ages == tuple(age for age in a.ages_days if age > 90),
    )


def _source_row(data: MemorySwitches) -> Verdict:
    s = data.source_lines
    return Verdict(
        f"{len(s.sources)} hits: {', '.join(s.sources)}; {s.numbered} with a line number, "
        f"{s.pointing_right} pointing at the line that holds the hit",
        len(s.sources) >= 2 and s.numbered == s.pointing_right == len(s.sources),
    )


def _invented_row(data: MemorySwitches) -> Verdict:
    i = data.invented
    return Verdict(
        f"{i.invented}: in the conversation: {yes(i.in_conversation)}; in the daily ledger: "
        f"{yes(i.in_ledger)}; in the consolidation request: {yes(i.in_consolidation_request)}; "
        f"in MEMORY.md: {yes(i.in_memory)}",
        not i.in_conversation and i.in_ledger and i.in_consolidation_request and i.in_memory,
    )


def _injection_edge_row(data: MemorySwitches) -> Verdict:
    e = data.injection_edge
    return Verdict(
        f"a MEMORY.md of {e.cap_chars:,} characters (8,000 tokens): "
        f"{'whole' if e.at_cap_whole else 'cut'}; of {e.cap_chars + 1:,}: "
        + ("whole" if e.over_cap_whole else "cut" if e.over_cap_carried else "dropped"),
        e.at_cap_whole and not e.over_cap_whole and e.over_cap_carried,
    )


_SCRIPTED = "run on a scripted HarnessAgent (memory on, compaction off): "
MEMORY_SWITCH_SPECS: tuple[ClaimSpec[MemorySwitches], ...] = (
    ClaimSpec(
        "AS-FLUSH-AFTER-SUCCESS",
        "The flush and maintenance run after a successful call only (onAgent, like "
        "afterCompletion): a call that fails sets off neither.",
        _after_success_row,
        "after a successful call only",
        cite(AS_SEED, "onAgent 在 call 成功结束之后"),
        kind="article-computed",  # the seed read the hook point; it never ran a failing call
        note=_SCRIPTED + "the first call's model request fails with a 500, the second answers",
        differs_note="a failed call set off a flush or maintenance, or a successful one did "
        "not; see E5.json memory_switches.after_success",
    ),
    ClaimSpec(
        "AS-TOOLS-OFF-FLUSH",
        "disableMemoryTools removes the memory tools (the model's own hand), not the flush: "
        "the call is still flushed to today's ledger.",
        _tools_off_row,
        "memory tools removed; the flush still runs",
        cite(AS_SEED, "disableMemoryTools 关掉的是这只手，不影响 flush"),
        kind="article-computed",  # read from the switch's docs; E3 turned hooks off as well
        note=_SCRIPTED + "one call with disable_memory_tools=True beside one without it",
        differs_note="a memory tool was still offered, or the flush stopped with the tools; "
        "see E5.json memory_switches.tools_off",
    ),
    ClaimSpec(
        "AS-FLUSH-TRIGGER",
        "flushTrigger(throttled(10min)) flushes at most once per 10 minutes, never() leaves "
        "only the pre-compaction flush, and disableMemoryHooks() stops flush and maintenance "
        "alike.",
        _flush_trigger_row,
        "throttled: at most every 10 minutes; never: pre-compaction flush only; "
        "disableMemoryHooks: no flush, no maintenance",
        cite(
            AS_SEED,
            "flushTrigger(throttled(10min)) 限频，never() 只留压前那笔，disableMemoryHooks() "
            "全停（连维护一起）",
        ),
        kind="article-computed",  # the seed lists the switches; it ran none of them
        note="our probe minutes (a flush is due exactly when 10 minutes have passed, as "
        "maintenance's 30); never() and disableMemoryHooks over three calls of trigger 5 / "
        "keep 2 with the pre-compaction flush on (one compaction, in the third)",
        differs_note="a switch let through a flush or maintenance it should stop, or stopped "
        "one it should keep; see E5.json memory_switches.flush_switches",
    ),
    ClaimSpec(
        "AS-ARCHIVE-90",
        "Maintenance moves daily files older than 90 days into memory/archive/.",
        _archive_row,
        "older than 90 days → memory/archive/",
        cite(AS_SEED, "daily 超过 90 天移进 archive"),
        kind="article-computed",  # the seed: "archive/ 是 90 天规则，本次没触发"
        note=_SCRIPTED + "daily files 89, 90, 91 and 120 days old, then one call: the edge "
        "(exactly 90 days stays) and both sides of it",
        differs_note="a file of 90 days or less was archived, or an older one stayed; see "
        "E5.json memory_switches.archive",
    ),
    ClaimSpec(
        "AS-SOURCE-LINES",
        "memory_search's Source lines carry line numbers (read material, not instructions).",
        _source_row,
        "Source with line numbers",
        cite(AS_SEED, "Source 带行号，说明它是被读进来的材料，不是指令"),
        note=_SCRIPTED + "a fact in MEMORY.md and twice in a daily file, searched; each "
        "cited line is read back from its file and must hold the hit (the seed's run cites a "
        "range, memory/2026-10-30.md#3-4; ctxlab cites each hit's line)",
        differs_note="a Source line had no line number, or one that does not point at the "
        "hit; see E5.json memory_switches.source_lines",
    ),
    ClaimSpec(
        "AS-CONSOLIDATE-CARRIES",
        "Memory is extraction, not a ledger: a date a flush invented is carried by "
        "consolidation into MEMORY.md, nothing checks it against the conversation.",
        _invented_row,
        "an invented date carried into MEMORY.md",
        cite(AS_SEED, "consolidation 把它原样并进了 562 B 版的 MEMORY.md"),
        note=_SCRIPTED + "the flush model is scripted to write the seed's invented date "
        "(2026-02-13), the consolidation model to keep every bullet it is sent (as E2's "
        "recorded 0.5B model does); what the row measures is the harness: no step between "
        "the flush and MEMORY.md drops or checks a fact the conversation never held. Whether a "
        "real model invents one is E2-FLUSH-INVENTS",
        differs_note="the invented date did not travel ledger → consolidation request → "
        "MEMORY.md; see E5.json memory_switches.invented",
    ),
    ClaimSpec(
        "AS-INJECT-EDGE",
        "MEMORY.md is cut at maxContextTokens (8,000): a file of exactly 8,000 tokens is "
        "injected whole, one a character longer is cut.",
        _injection_edge_row,
        "cut at maxContextTokens (8000)",
        cite(AS_SEED, "按 maxContextTokens（默认 8000）截断"),
        kind="article-computed",  # the seed read the cap from the memory docs, never ran it
        note=_SCRIPTED + "a MEMORY.md of exactly 20,000 characters (8,000 tokens at the "
        "estimator's 2.5 characters each), then 20,001, whose last line must or must not reach "
        "the request (AS-INJECT samples a 32,400-token file); that a file of exactly the cap "
        "stays whole is our reading of 'cut at'",
        differs_note="a MEMORY.md of exactly the cap was cut, or a longer one reached the "
        "request whole; see E5.json memory_switches.injection_edge",
    ),
)
