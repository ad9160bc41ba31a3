"""E2's claims, judged from what :mod:`experiments.e2` recorded (model output as recorded).

Every ``article`` row cites the AgentScope seed (:data:`~experiments.claims.AS_SEED`). Rules
about model output live in :mod:`experiments.judges`.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from experiments.claims import AS_SEED, Claim, cite
from experiments.judges import invented_codes, verbatim_copy

__all__ = ["DAILY", "FACTS", "SEED_FLUSH_HEADER", "claims", "has_facts"]

DAILY = "memory/2026-10-30.md"
FACTS = ("上海港", "ALPHA")
SEED_FLUSH_HEADER = "## Memory Flush — 2026-10-30T12:33:04Z"
"""The daily entry header as the seed shows it (seconds, no fraction)."""
STRUCTURAL = "structural: decided by the harness, whatever the model says"
FRACTION = re.compile(r"(## Memory (?:Flush|Save) — \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)Z")


def has_facts(text: str) -> bool:
    return all(fact in text for fact in FACTS)


def _rule(source: str) -> str:
    return (
        f"model output as recorded ({source}); it writes tool calls as JSON text, not API "
        "tool_calls, and the harness reads them (experiments/recorder/textcalls.py); "
        "judged by a rule in "
        "experiments/e2_claims.py"
    )


def claims(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    return (
        *_step1(data, source),
        *_step2(data, source),
        *_step3(data, source),
        *_step4(data, source),
        *_whole_run(data, source),
    )


def _step1(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    s1 = data["steps"][0]
    first_flush = data["final_daily_text"].split("## Memory Flush")[1:2]
    flush_ok = bool(first_flush) and has_facts(first_flush[0])
    rule = _rule(source)
    skip = s1["maintenance"][0] if s1["maintenance"] else "no maintenance ran"
    c = Claim.compare
    return (
        c(
            "E2",
            "E2-S1-TOOLS",
            "Step 1 makes 0 tool calls.",
            0,
            len(s1["tool_calls"]),
            source,
            note=rule,
            differs_note=f"the model called {s1['tool_calls']}; {rule}",
            article_source=cite(AS_SEED, "0 次工具调用，daily 140 B"),
        ),
        c(
            "E2",
            "E2-S1-FLUSH",
            "After step 1 the daily file has a Memory Flush section naming both facts.",
            "yes",
            "yes" if flush_ok else "no",
            source,
            note=rule,
            differs_note=f"the flush model ({source}) did not name both facts; {rule}",
            article_source=cite(AS_SEED, "出现 ## Memory Flush — 2026-10-30T12:33:04Z"),
        ),
        c(
            "E2",
            "E2-S1-NO-MEMORY",
            "MEMORY.md does not exist after step 1 (maintenance ran before the flush and skipped).",
            "absent",
            "present" if s1["files"]["MEMORY.md"]["exists"] else "absent",
            source,
            note=STRUCTURAL,
            article_source=cite(AS_SEED, "MEMORY.md 不存在"),
        ),
        c(
            "E2",
            "E2-S1-SKIP-LOG",
            "The first maintenance finds no fresh daily entry, skips without a model call and "
            "logs the article's line.",
            "No fresh daily entries since 1970-01-01T00:00:00Z — skipping consolidation",
            skip,
            source,
            note=STRUCTURAL,
            article_source=cite(
                AS_SEED,
                "No fresh daily entries since 1970-01-01T00:00:00Z — skipping consolidation",
            ),
        ),
        _header_claim(data, source),
    )


def _header_claim(data: dict[str, Any], source: str) -> Claim:
    header = next(
        (line for line in data["final_daily_text"].splitlines() if line.startswith("## Memory")),
        "none",
    )
    return Claim.compare(
        "E2",
        "E2-FLUSH-HEADER",
        "A flush section starts with the header '## Memory Flush — <ISO instant>'.",
        SEED_FLUSH_HEADER,
        header,
        source,
        differs_note="deviation kept on purpose (harness/memory/clock.py): ctxlab stamps entries "
        "to the nanosecond because consolidation decides freshness per entry from this "
        "stamp, and a seconds-only stamp would tie a later entry of the same second with the "
        "watermark and lose it; AgentScope can use seconds because it decides per file (mtime). "
        "The header is also part of the recorded consolidation and search requests, so "
        "changing it needs a new E2 recording",
        article_source=cite(AS_SEED, "## Memory Flush — 2026-10-30T12:33:04Z"),
    )


def _step2(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    s2 = data["steps"][1]
    memory = s2.get("memory_text") or ""
    copy = verbatim_copy(memory, s2.get("consolidation_input", ""))
    rewrite_ok = has_facts(memory) and copy is None
    reproduced = (
        "no MEMORY.md"
        if not memory
        else f"both facts: {'yes' if has_facts(memory) else 'no'}; "
        + ("verbatim copy of the consolidation input" if copy else "rewritten")
    )
    rule = _rule(source)
    c = Claim.compare
    return (
        Claim(
            "E2",
            "E2-S2-MEMORY",
            "Consolidation rewrites MEMORY.md whole, holding both facts; it does not append "
            "the daily entries to it.",
            "rewritten: a heading and the two facts",
            reproduced,
            "match" if rewrite_ok else "differs",
            source,
            rule
            if rewrite_ok
            else (
                f"MEMORY.md is a verbatim copy of the daily entry it was built from: {copy}; the "
                "seed says consolidation is a rewrite, not the daily file appended"
                if copy
                else "the consolidation model dropped a fact"
            )
            + f"; {rule}",
            article_source=cite(AS_SEED, "正文是 ## 业务与物流 加两条事实：出口港口、客户代号"),
        ),
        c(
            "E2",
            "E2-S2-WATERMARK",
            "The watermark file is 30 bytes.",
            "30 B",
            f"{s2['files']['memory/.consolidation_state']['size']} B",
            source,
            note=STRUCTURAL,
            article_source=cite(AS_SEED, "水位 30 B"),
        ),
        c(
            "E2",
            "E2-S2-DAILY",
            "Consolidation leaves the daily file unchanged.",
            "unchanged",
            "unchanged" if s2["daily_unchanged"] else "changed",
            source,
            note=STRUCTURAL,
            article_source=cite(AS_SEED, "daily 140 B 原样"),
        ),
        _sizes_claim(s2, source),
    )


def _header_bytes(text: str) -> int:
    """Bytes the entry headers' fraction digits add over the seed's seconds-only format."""
    return sum(len(m.group(2)) for m in FRACTION.finditer(text))


def _sizes_claim(s2: dict[str, Any], source: str) -> Claim:
    sizes = (
        " / ".join(f"{name} {s2['files'][name]['size']} B" for name in (DAILY, "MEMORY.md"))
        + f" / watermark {s2['files']['memory/.consolidation_state']['size']} B"
    )
    daily_extra = _header_bytes(s2.get("consolidation_input", ""))
    memory_extra = _header_bytes(s2.get("memory_text") or "")
    return Claim.compare(
        "E2",
        "E2-SIZES",
        "File sizes after consolidation: daily / MEMORY.md / watermark.",
        f"{DAILY} 140 B / MEMORY.md 158 B / watermark 30 B",
        sizes,
        source,
        differs_note="daily and MEMORY.md hold model-written text, so their sizes follow the "
        f"model ({source}); of the gap, our header format (nine fraction digits, see "
        f"E2-FLUSH-HEADER) adds {daily_extra} B to the daily file and {memory_extra} B to "
        "MEMORY.md (which copies the header, see E2-S2-MEMORY); the rest is the model's "
        "wording; the watermark size is fixed by its format",
        article_source=cite(
            AS_SEED, "MEMORY.md 从无到 158 B，整篇重写；daily 140 B 原样；水位 30 B"
        ),
    )


def _step3(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    s3 = data["steps"][2]
    rule = _rule(source)
    tools = Counter(s3["tool_calls"])
    found = s3.get("tool_result_facts", [])
    saved = _section(s3.get("daily_added", ""), "Memory Save")
    injected = "with both facts" if has_facts(s3.get("memory_at_start", "")) else "without them"
    had = (
        f"MEMORY.md injected {injected}; "
        f"memory_search returned {', '.join(found) or 'neither'}; memory_save "
        f"{'saved both' if has_facts(saved) else 'saved neither' if not saved else 'saved part'}"
    )
    empty = "an empty completion" if not s3["answer"].strip() else repr(s3["answer"][:100])
    searches = f"memory_search×{tools['memory_search']}; sources: " + (
        ", ".join(s3["sources"]) or "none"
    )
    c = Claim.compare
    return (
        c(
            "E2",
            "E2-S3-RECALL",
            "A new session answers both facts.",
            "yes",
            "yes" if has_facts(s3["answer"]) else "no",
            source,
            note=rule,
            differs_note=f"the model had the facts ({had}) and then returned {empty}; {rule}",
            article_source=cite(AS_SEED, "3 次搜索、Source 指向 MEMORY.md，答对"),
        ),
        Claim(
            "E2",
            "E2-S3-SEARCHES",
            "Step 3 searches memory and the search's Source lines point to MEMORY.md (the "
            "number of searches is not the result).",
            "3 searches (0 in the other run); Source: MEMORY.md",
            searches,
            "match" if "MEMORY.md" in s3["sources"] else "differs",
            source,
            f"judged by MEMORY.md being among the cited sources; {rule}"
            if "MEMORY.md" in s3["sources"]
            else f"no Source line points to MEMORY.md; {rule}",
            article_source=cite(AS_SEED, "两次窗口分别 3 次和 0 次搜索，Source 都指向 MEMORY.md"),
        ),
    )


def _section(text: str, kind: str) -> str:
    """The bodies of the ``## <kind> — …`` sections of a daily text, joined."""
    parts = text.split("\n## ")
    return "\n".join(p for p in parts if p.lstrip("#").lstrip().startswith(kind))


def _step4(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    s3, s4 = data["steps"][2], data["steps"][3]
    rule = _rule(source)
    tools4 = Counter(s4["tool_calls"])
    from_daily = any(src.startswith("memory/") for src in s4["sources"])
    rebuild_ok = has_facts(s4["answer"]) and bool(tools4) and from_daily
    evidence = (
        f"answer has both facts: {'yes' if has_facts(s4['answer']) else 'no'}; tools: "
        f"{', '.join(f'{k}×{v}' for k, v in sorted(tools4.items())) or 'none'}; sources: "
        f"{', '.join(s4['sources']) or 'none'}; MEMORY.md rebuilt: "
        f"{'yes' if s4['memory_rebuilt'] else 'no'}"
    )
    saved = bool(_section(s4.get("daily_added", ""), "Memory Save"))
    kept = s4["watermark"] == s3["watermark"]
    save_ok = saved and kept
    elsewhere = [
        str(s["step"]) for s in data["steps"] if _section(s.get("daily_added", ""), "Memory Save")
    ]
    return (
        Claim(
            "E2",
            "E2-S4-REBUILD",
            "With MEMORY.md deleted, the answer is recovered from the "
            "daily file through tools (MEMORY.md rebuilt in one of the article's runs).",
            "both facts, via tools, from the daily file",
            evidence,
            "match" if rebuild_ok else "differs",
            source,
            rule if rebuild_ok else f"the evidence chain is incomplete; {rule}",
            article_source=cite(
                AS_SEED, "memory_search 两次，read_file 两次，list_files 三次，session_search 两次"
            ),
        ),
        Claim(
            "E2",
            "E2-S4-SAVE",
            "Step 4 ends with memory_save: the daily file gains a '## Memory Save' section and "
            "the watermark does not move.",
            "## Memory Save added, watermark unchanged",
            f"## Memory Save added: {'yes' if saved else 'no'}, watermark "
            f"{'unchanged' if kept else 'moved'}",
            "match" if save_ok else "differs",
            source,
            rule
            if save_ok
            else f"the model did not call memory_save in step 4 (it did in step(s) "
            f"{', '.join(elsewhere) or 'none'}); the watermark is "
            f"{'unchanged' if kept else 'moved'}, which the harness decides; {rule}",
            article_source=cite(AS_SEED, "新增一段 ## Memory Save，水位不变"),
        ),
    )


def _whole_run(data: dict[str, Any], source: str) -> tuple[Claim, ...]:
    calls = data.get("model_calls", {})
    extra = f"flush {calls.get('flush', 0)} + consolidation {calls.get('consolidation', 0)}"
    said = "\n".join(s.get("user", "") for s in data["steps"])
    answers = "\n".join(s.get("answer", "") for s in data["steps"])
    flushed = _section(data["final_daily_text"], "Memory Flush")
    invented = invented_codes(flushed, said)
    by_answer = [code for code in invented if code in answers]
    return (
        Claim.compare(
            "E2",
            "E2-EXTRA-CALLS",
            "Besides the three chats, memory costs extra model calls: one flush per chat and "
            "one consolidation.",
            "flush 3 + consolidation 1",
            extra,
            source,
            note=f"counted from the requests' purposes ({calls}); {STRUCTURAL}",
            article_source=cite(AS_SEED, "E2 的三次主对话，额外四笔：flush 3、consolidation 1"),
        ),
        Claim(
            "E2",
            "E2-FLUSH-INVENTS",
            "A flush can write a 'fact' the user never stated (memory is extraction, not a "
            "ledger).",
            "a flush invented a date that never occurred in the conversation",
            f"a flush wrote customer code(s) never said: {', '.join(invented)}"
            if invented
            else "no invented customer code in this run",
            "match" if invented else "differs",
            source,
            "caught live: the user never said the flushed code"
            + (
                f" ({', '.join(by_answer)} first appears in a model answer, which the flush then "
                "stored as a fact)"
                if by_answer
                else " and no answer did either"
            )
            + f"; judged by experiments/judges.py:invented_codes; {_rule(source)}"
            if invented
            else f"this run's flushes only wrote codes the user said; {_rule(source)}",
            article_source=cite(AS_SEED, "这个日期在对话里从未出现"),
        ),
    )
