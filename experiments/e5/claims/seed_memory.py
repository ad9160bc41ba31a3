"""The AgentScope rows of E5 as data: what the seed states about compaction and memory mechanics,
judged on :class:`~experiments.e5.view.seed_memory.SeedMemory` (measured by
:mod:`experiments.e5.measures.seed_memory`)."""

from __future__ import annotations

from experiments.e5.common import SOURCE
from experiments.e5.view.seed_memory import SeedMemory
from lab import AS_SEED, DEVIATION, Claim, ClaimSpec, Verdict, cite, evaluate, every, yes

__all__ = ["SEED_SPECS", "seed_memory_claims"]


def seed_memory_claims(data: SeedMemory) -> tuple[Claim, ...]:
    """The AgentScope seed rows: :data:`SEED_SPECS` judged on ``data``."""
    return evaluate("E5", SEED_SPECS, data, SOURCE)


def _defaults_row(data: SeedMemory) -> Verdict:
    d = data.defaults
    return Verdict(f"trigger {d.trigger_messages} / keep {d.keep_messages}")


def _reserve_row(data: SeedMemory) -> Verdict:
    return Verdict(f"reserve {data.defaults.reserved}")


def _prune_row(data: SeedMemory) -> Verdict:
    p = data.prune
    return Verdict(
        f"on; protect {p.protect_tokens}, at least {p.minimum_tokens}, "
        f"{p.max_output_chars} preview; {p.messages_before} → {p.messages_after} "
        f"messages, {p.pruned} results pruned to ≤ {p.pruned_chars} chars "
        f"(previews of {', '.join(map(str, p.preview_chars))} chars)",
        (p.protect_tokens, p.minimum_tokens, p.max_output_chars) == (40_000, 20_000, 2_000)
        and p.preview_chars == (2_000,)  # the seed's 2K preview, head and tail together
        and p.messages_before == p.messages_after
        and p.pruned > 0
        and p.newest_kept_whole,
    )


def _offload_path_row(data: SeedMemory) -> Verdict:
    path = data.offload.path
    parts = path.split("/")
    seed_shape = (
        len(parts) == 2
        and parts[0] == "large_tool_results"
        and parts[1].endswith(".txt")
        and all(c in "0123456789abcdef" for c in parts[1].removesuffix(".txt"))
    )
    return Verdict(path, seed_shape)


def _offload_excluded_row(data: SeedMemory) -> Verdict:
    excluded = data.offload.excluded
    named = [t for t in ("read_file", "memory_search") if t in excluded]
    return Verdict(
        f"{len(excluded)} tools, {' and '.join(named) or 'neither'} among them",
        len(excluded) == 7 and len(named) == 2,
    )


def _inject_row(data: SeedMemory) -> Verdict:
    inj = data.injection
    cut = inj.injected_chars <= inj.cap_chars + 200 < inj.memory_tokens * 2.5
    return Verdict(
        f"{'/'.join(inj.roles) or 'absent'}-side, a {inj.memory_tokens}-token "
        f"MEMORY.md cut to {inj.injected_chars} chars (cap {inj.cap_tokens} tokens)",
        inj.roles == ("user",) and not inj.in_system and cut,
    )


def _no_reply_row(data: SeedMemory) -> Verdict:
    nr = data.no_reply
    return Verdict(
        f"entry written: {yes(nr.entry)}, daily files: {nr.daily_files}",
        not nr.entry and nr.daily_files == 0,
    )


def _memory_save_row(data: SeedMemory) -> Verdict:
    save = data.memory_save
    return every(
        ("MEMORY.md", save.memory_has_it), ("daily '## Memory Save'", save.daily_save_section)
    )


def _cadence_row(data: SeedMemory) -> Verdict:
    cadence = data.cadence.granted_minutes
    return Verdict(
        "claims tried at minutes 0, 10, 29, 30, 45, 61 granted at " + ", ".join(map(str, cadence)),
        cadence == (0, 30, 61),
    )


def _freshness_row(data: SeedMemory) -> Verdict:
    sends = data.freshness.second_run_sends
    # per file: today's whole file again, and the day before's (untouched since the
    # watermark) not at all; a watermark that never moved sends the old file too
    per_file = sends == ("first-fact", "second-fact", "third-fact")
    shape = "per file" if per_file else "per entry" if sends == ("third-fact",) else "other"
    return Verdict(
        f"after a third entry in today's file the second run sends: {', '.join(sends)} "
        f"({shape}; the day before's untouched file "
        + ("re-sent)" if "old-day-fact" in sends else "not re-sent)"),
        per_file,
    )


def _memory_cap_row(data: SeedMemory) -> Verdict:
    cap = data.consolidation_cap
    return Verdict(
        f"default {cap.default_max_tokens}, request max_tokens {cap.request_max_tokens}",
        cap.default_max_tokens == 4_000 and cap.request_max_tokens == 4_000,
    )


SEED_SPECS: tuple[ClaimSpec[SeedMemory], ...] = (
    ClaimSpec(
        "AS-DEFAULTS",
        "AgentScope 2.0.3's compaction defaults: trigger at 50 messages, keep 20 (the token "
        "trigger and keepTokens are dynamic: E5-FALLBACK-160K).",
        _defaults_row,
        "trigger 50 / keep 20",
        cite(AS_SEED, "50 触发、20 保留"),
        kind="article-computed",
        differs_note="harness.compaction.agentscope.config's defaults are not the seed's",
    ),
    ClaimSpec(
        "AS-DEFAULT-RESERVE",
        "AgentScope 2.0.3 reserves 20,000 tokens for the answer by default.",
        _reserve_row,
        "reserve 20000",
        cite(AS_SEED, "输出预留 2.0.3 默认 20000"),
        kind="article-computed",
        differs_note="harness.compaction.agentscope.config's output reserve is not the seed's",
    ),
    ClaimSpec(
        "AS-PRUNE-DEFAULTS",
        "pruneToolResults is on by default: it protects the newest 40K tokens, needs at "
        "least 20K prunable, keeps 2K-character previews, and changes no message count.",
        _prune_row,
        "on; protect 40K, at least 20K, 2K preview; message count unchanged",
        cite(AS_SEED, "默认开：保护最近 40K token，至少 20K 可压，预览留 2K 字符"),
        kind="article-computed",
        note="run on 12 tool results of 8,000 estimated tokens each: the newest are kept "
        "whole, older ones shrink, the message count stays",
        differs_note="a default differs, or the prune changed the message count or pruned "
        "nothing; see E5.json seed_memory.prune",
    ),
    ClaimSpec(
        "AS-OFFLOAD-PATH",
        "An offloaded tool result is saved as large_tool_results/<hash>.txt.",
        _offload_path_row,
        "large_tool_results/<hash>.txt",
        cite(AS_SEED, "中间换成 large_tool_results/<hash>.txt 的路径"),
        kind="article-computed",
        note="follows the seed (harness.tools); AgentScope's released code "
        "writes large_tool_results/<agent>/<callId>-<16 hex> without .txt instead",
        differs_note="the path is not large_tool_results/<hex>.txt",
    ),
    ClaimSpec(
        "AS-OFFLOAD-EXCLUDED",
        "Seven tools (read_file, memory_search and the like) are excluded from offload.",
        _offload_excluded_row,
        "7 tools, read_file and memory_search among them",
        cite(
            AS_SEED,
            'read_file、memory_search 这类工具本身不参与，免得把"查文件"的结果再搬一次，'
            "排除名单一共七个",
        ),
        kind="article-computed",
        differs_note="deviation kept on purpose (harness.tools): the seed "
        "gives the count and names only two of its seven, so there is no seed list to "
        "follow; ctxlab keeps the nine of AgentScope's source (read_file, write_file, "
        "edit_file, grep_files, glob_files, list_files, memory_search, memory_get, "
        "session_search) rather than guess which two the seed left out",
        reason_class=DEVIATION,
    ),
    ClaimSpec(
        "AS-INJECT",
        "MEMORY.md is injected at call start as user-side reference material, not system, "
        "cut at 8,000 tokens.",
        _inject_row,
        "user-side, cut at 8000 tokens",
        cite(
            AS_SEED,
            "按 maxContextTokens（默认 8000）截断，作为 HARNESS_CONTEXT 的 USER 侧参考材料注入",
        ),
        note="the cap is in the estimator's tokens (2.5 chars each), plus the wrapper",
        differs_note="MEMORY.md reached the request elsewhere or uncut; see E5.json",
        kind="article-computed",  # the seed read it from the AgentScope memory docs, never ran it
    ),
    ClaimSpec(
        "AS-FLUSH-NO-REPLY",
        "A flush whose model answers NO_REPLY writes nothing.",
        _no_reply_row,
        "NO_REPLY: nothing written",
        cite(AS_SEED, "没东西可记就回 NO_REPLY"),
        differs_note="a NO_REPLY flush wrote to the ledger",
        kind="article-computed",  # read from the flush prompt's convention, never ran
    ),
    ClaimSpec(
        "AS-MEMORY-SAVE",
        "memory_save writes both MEMORY.md (appended) and today's daily file.",
        _memory_save_row,
        "both files",
        cite(AS_SEED, "调用 memory_save，同时写 MEMORY.md（追加）和当日台账"),
        differs_note="memory_save missed one of the two files",
        kind="article-computed",  # the seed read it from the docs of the memory tools, never ran it
    ),
    ClaimSpec(
        "AS-CONSOLIDATE-CADENCE",
        "Maintenance runs at once the first time, then at most every 30 minutes.",
        _cadence_row,
        "first at once, then at most every 30 minutes",
        cite(AS_SEED, "consolidation：首次立即，之后 30 分钟，有新台账才跑"),
        note="our probe minutes; granted exactly when 30 minutes have passed since the last grant",
        differs_note="harness.memory.consolidation's MaintenanceSchedule grants claims at "
        "other minutes than 0, 30, 61",
        kind="article-computed",  # the seed read it from the defaults, read, never ran it
    ),
    ClaimSpec(
        "AS-CONSOLIDATE-FRESHNESS",
        "Consolidation reads the daily files changed after the watermark (per file: a new "
        "entry re-sends its whole day).",
        _freshness_row,
        "per file: daily files modified after the watermark",
        cite(AS_SEED, "consolidation 只读水位之后被改过的日记账"),
        kind="article-computed",  # the seed's reading of the code, not a run it made
        note="per file, as the seed says",
        differs_note="deviation kept on purpose (harness.memory.consolidation): ctxlab "
        "decides freshness per entry from the entry header's instant, so a run sends only the "
        "entries after the watermark, not the whole day again, and does not depend on file "
        "modification times; nothing is lost either way",
        reason_class=DEVIATION,
    ),
    ClaimSpec(
        "AS-MEMORY-CAP",
        "Consolidation writes MEMORY.md within 4,000 tokens (consolidationMaxTokens).",
        _memory_cap_row,
        "4000 tokens",
        cite(AS_SEED, "L2 写入上限 4000 token（consolidationMaxTokens）"),
        note="the consolidation request caps the output at max_tokens; a cut answer is not written",
        differs_note="the consolidation cap is not 4,000 tokens",
        kind="article-computed",  # the seed read it from the bytecode default, never ran it
    ),
)
