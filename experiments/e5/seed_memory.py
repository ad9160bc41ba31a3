"""AgentScope mechanics the seed states, run here with scripted models.

The compaction and prune defaults, the offload path and its excluded tools, where MEMORY.md is
injected and at what cap, the flush's NO_REPLY path, memory_save, the consolidation cadence and
its MEMORY.md cap. Each is measured by running the harness (no model output involved), then
judged against the seed's words.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from experiments.claims import AS_SEED, Claim, cite
from experiments.e5.common import START, compared, judged
from experiments.views.e5_seed import (
    ConsolidationCap,
    Defaults,
    Freshness,
    Injection,
    MaintenanceCadence,
    MemorySave,
    NoReply,
    OffloadPath,
    PruneRun,
    SeedMemory,
)
from harness.builder import HarnessAgent
from harness.compaction.agentscope import CompactionConfig
from harness.compaction.agentscope.prune import prune_tool_results
from harness.memory import (
    Consolidator,
    MaintenanceSchedule,
    MemoryConfig,
    MemoryWorkspace,
    SteppingClock,
)
from harness.memory.flush import NO_REPLY, MemoryFlusher
from harness.memory.tools import MemoryTools
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.testing import FunctionModel
from harness.tokens import CHARS_PER_TOKEN, RESERVED_TOKENS, estimate_message_tokens
from harness.tool_offload import OFFLOAD_EXCLUDED_TOOLS, LargeResultOffloader

__all__ = ["measure_seed_memory", "seed_memory_claims"]

MINUTE = 60 * 1_000_000_000


def measure_seed_memory() -> SeedMemory:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        return SeedMemory(
            defaults=_defaults(),
            prune=_prune(),
            offload=_offload(root / "offload"),
            injection=_injection(root / "inject"),
            no_reply=_no_reply(root / "no_reply"),
            memory_save=_memory_save(root / "save"),
            cadence=_maintenance_cadence(),
            consolidation_cap=_consolidation_cap(root / "cap"),
            freshness=_freshness(root / "fresh"),
        )


def _defaults() -> Defaults:
    config = CompactionConfig()
    return Defaults(
        trigger_messages=config.trigger_messages,
        keep_messages=config.keep_messages,
        trigger_tokens=config.trigger_tokens,
        keep_tokens=config.keep_tokens,
        reserved=config.reserved,
        default_reserve=RESERVED_TOKENS,
    )


def _tool_pair(n: int, text: str) -> list[Message]:
    call = ToolCall(f"call_{n}", "lookup", f'{{"n": {n}}}')
    return [Message.assistant("", (call,)), Message.tool(call.id, text, tool_name="lookup")]


def _prune() -> PruneRun:
    config = CompactionConfig().prune
    assert config is not None
    history = [Message.user("start")]
    for n in range(12):  # 12 results of 20,000 characters: 8,000 estimated tokens each
        history += _tool_pair(n, f"row {n} " + "x" * 20_000)
    pruned = prune_tool_results(history, config)
    shrunk = [i for i, (a, b) in enumerate(zip(history, pruned, strict=True)) if a != b]
    return PruneRun(
        protect_tokens=config.protect_tokens,
        minimum_tokens=config.minimum_tokens,
        max_output_chars=config.max_output_chars,
        messages_before=len(history),
        messages_after=len(pruned),
        pruned=len(shrunk),
        newest_kept_whole=pruned[-1] == history[-1],
        pruned_chars=max((len(pruned[i].content) for i in shrunk), default=0),
        result_tokens=estimate_message_tokens(history[-1]),
    )


def _offload(root: Path) -> OffloadPath:
    offloader = LargeResultOffloader(root)
    big = Message.tool("call_1", "y" * 90_000, tool_name="lookup")
    moved = offloader.apply(big)
    return OffloadPath(
        path=moved.metadata.get("offloaded_to", ""), excluded=tuple(sorted(OFFLOAD_EXCLUDED_TOOLS))
    )


def _agent(root: Path, model: FunctionModel, **memory: Any) -> HarnessAgent:
    clock = SteppingClock(START)
    return HarnessAgent(
        model,
        "system",
        workspace_root=root,
        user_id="lab-user",
        disable_compaction=True,
        clock=clock,
        schedule=MaintenanceSchedule(clock),
        memory=MemoryConfig(background_order="maintenance_first", **memory),
    )


def _injection(root: Path) -> Injection:
    """A MEMORY.md of 30,000 estimated tokens; where and how much of it reaches the request."""
    requests: list[ChatRequest] = []

    def reply(request: ChatRequest) -> str:
        requests.append(request)
        return NO_REPLY if request.purpose == "flush" else "OK"

    model = FunctionModel(reply, model_name="scripted")
    memory = "".join(f"- fact {n:05d} {'m' * 40}\n" for n in range(1_500))
    (root / "lab-user").mkdir(parents=True)
    (root / "lab-user" / "MEMORY.md").write_text(memory, encoding="utf-8")
    agent = _agent(root, model)
    agent.call("hello")
    agent.close()
    first = next(r for r in requests if r.purpose == "agent")
    carrier = [m for m in first.messages if "fact 00000" in m.content]
    return Injection(
        memory_tokens=round(len(memory) / CHARS_PER_TOKEN),
        roles=tuple(m.role for m in carrier),
        in_system=any(m.role == "system" for m in carrier),
        injected_chars=max((len(m.content) for m in carrier), default=0),
        cap_chars=int(8_000 * CHARS_PER_TOKEN),
        cap_tokens=MemoryConfig().max_context_tokens,
    )


def _no_reply(root: Path) -> NoReply:
    workspace = MemoryWorkspace(root, "lab-user", SteppingClock(START))
    model = FunctionModel(lambda request: NO_REPLY, model_name="scripted")
    entry = MemoryFlusher(model, workspace).flush([Message.user("hi"), Message.assistant("hi")])
    return NoReply(entry=entry is not None, daily_files=len(workspace.daily_files()))


def _memory_save(root: Path) -> MemorySave:
    workspace = MemoryWorkspace(root, "lab-user", SteppingClock(START))
    MemoryTools(workspace).memory_save("- 出口固定走上海港")
    daily = "".join(p.read_text(encoding="utf-8") for p in workspace.daily_files())
    return MemorySave(
        memory_has_it="上海港" in workspace.read_memory(),
        daily_save_section="## Memory Save" in daily and "上海港" in daily,
    )


def _maintenance_cadence() -> MaintenanceCadence:
    """Claims at minutes 0, 10, 29, 30, 45 and 61 of one schedule."""
    clock = SteppingClock(START, step_ns=0)
    schedule = MaintenanceSchedule(clock)
    granted = []
    for minute in (0, 10, 29, 30, 45, 61):
        clock.now = START + minute * MINUTE
        if schedule.try_claim():
            granted.append(minute)
    return MaintenanceCadence(granted_minutes=tuple(granted))


def _consolidation_cap(root: Path) -> ConsolidationCap:
    workspace = MemoryWorkspace(root, "lab-user", SteppingClock(START))
    workspace.append_entry("Memory Flush", "- fact")
    seen: list[ChatRequest] = []

    def reply(request: ChatRequest) -> str:
        seen.append(request)
        return "- fact"

    consolidator = Consolidator(FunctionModel(reply, model_name="scripted"), workspace)
    consolidator.consolidate()
    return ConsolidationCap(
        default_max_tokens=MemoryConfig().consolidation_max_tokens,
        request_max_tokens=seen[0].max_tokens if seen else None,
        prompt_says="4000 tokens" in seen[0].messages[0].content if seen else False,
    )


def _freshness(root: Path) -> Freshness:
    """Two entries consolidated, a third appended to the same daily file, consolidated again:
    which entries does the second run send?"""
    workspace = MemoryWorkspace(root, "lab-user", SteppingClock(START))
    inputs: list[str] = []

    def reply(request: ChatRequest) -> str:
        inputs.append(request.messages[-1].content)
        return "- merged"

    consolidator = Consolidator(FunctionModel(reply, model_name="scripted"), workspace)
    workspace.append_entry("Memory Flush", "- first-fact")
    workspace.append_entry("Memory Flush", "- second-fact")
    consolidator.consolidate()
    workspace.append_entry("Memory Flush", "- third-fact")
    consolidator.consolidate()
    second = inputs[-1] if len(inputs) == 2 else ""
    sends = tuple(f for f in ("first-fact", "second-fact", "third-fact") if f in second)
    return Freshness(files=len(workspace.daily_files()), second_run_sends=sends)


def seed_memory_claims(data: SeedMemory) -> list[Claim]:
    return [
        *_compaction_claims(data),
        *_offload_claims(data.offload),
        *_memory_claims(data),
    ]


def _compaction_claims(data: SeedMemory) -> list[Claim]:
    d, p = data.defaults, data.prune
    dynamic = "dynamic" if d.trigger_tokens == 0 and d.keep_tokens == "dynamic" else "fixed"
    return [
        compared(
            "AS-DEFAULTS",
            "AgentScope 2.0.3's compaction defaults: trigger at 50 messages, keep 20, token "
            "trigger and keepTokens dynamic (0), output reserve 20,000.",
            "50 / keep 20 / tokens dynamic / reserve 20000",
            f"{d.trigger_messages} / keep {d.keep_messages} / tokens {dynamic} / "
            f"reserve {d.reserved}",
            kind="article-computed",
            article_source=cite(AS_SEED, "50 触发、20 保留"),
            differs_note="harness/compaction/agentscope/config.py's defaults are not the seed's",
        ),
        judged(
            "AS-PRUNE-DEFAULTS",
            "pruneToolResults is on by default: it protects the newest 40K tokens, needs at "
            "least 20K prunable, keeps 2K-character previews, and changes no message count.",
            "on; protect 40K, at least 20K, 2K preview; message count unchanged",
            f"on; protect {p.protect_tokens}, at least {p.minimum_tokens}, "
            f"{p.max_output_chars} preview; {p.messages_before} → {p.messages_after} "
            f"messages, {p.pruned} results pruned to ≤ {p.pruned_chars} chars",
            holds=(p.protect_tokens, p.minimum_tokens, p.max_output_chars)
            == (40_000, 20_000, 2_000)
            and p.messages_before == p.messages_after
            and p.pruned > 0
            and p.newest_kept_whole,
            note="run on 12 tool results of 8,000 estimated tokens each: the newest are kept "
            "whole, older ones shrink, the message count stays",
            differs_note="a default differs, or the prune changed the message count or pruned "
            "nothing; see E5.json seed_memory.prune",
            kind="article-computed",
            article_source=cite(
                AS_SEED, "默认开：保护最近 40K token，至少 20K 可压，预览留 2K 字符"
            ),
        ),
    ]


def _offload_claims(offload: OffloadPath) -> list[Claim]:
    path = offload.path
    parts = path.split("/")
    seed_shape = (
        len(parts) == 2
        and parts[0] == "large_tool_results"
        and parts[1].endswith(".txt")
        and all(c in "0123456789abcdef" for c in parts[1].removesuffix(".txt"))
    )
    excluded = offload.excluded
    named = [t for t in ("read_file", "memory_search") if t in excluded]
    return [
        judged(
            "AS-OFFLOAD-PATH",
            "An offloaded tool result is saved as large_tool_results/<hash>.txt.",
            "large_tool_results/<hash>.txt",
            path,
            holds=seed_shape,
            note="follows the seed (harness/tool_offload.py); AgentScope's released code "
            "writes large_tool_results/<agent>/<callId>-<16 hex> without .txt instead",
            differs_note="the path is not large_tool_results/<hex>.txt",
            kind="article-computed",
            article_source=cite(AS_SEED, "中间换成 large_tool_results/<hash>.txt 的路径"),
        ),
        judged(
            "AS-OFFLOAD-EXCLUDED",
            "Seven tools (read_file, memory_search and the like) are excluded from offload.",
            "7 tools, read_file and memory_search among them",
            f"{len(excluded)} tools, {' and '.join(named) or 'neither'} among them",
            holds=len(excluded) == 7 and len(named) == 2,
            differs_note="deviation kept on purpose (harness/tool_offload.py): the seed "
            "gives the count and names only two of its seven, so there is no seed list to "
            "follow; ctxlab keeps the nine of AgentScope's source (read_file, write_file, "
            "edit_file, grep_files, glob_files, list_files, memory_search, memory_get, "
            "session_search) rather than guess which two the seed left out",
            kind="article-computed",
            article_source=cite(AS_SEED, "read_file、memory_search 这类工具本身不参与"),
        ),
    ]


def _memory_claims(data: SeedMemory) -> list[Claim]:
    inj, nr, save = data.injection, data.no_reply, data.memory_save
    cadence, cap = data.cadence.granted_minutes, data.consolidation_cap
    cut = inj.injected_chars <= inj.cap_chars + 200 < inj.memory_tokens * 2.5
    return [
        judged(
            "AS-INJECT",
            "MEMORY.md is injected at call start as user-side reference material, not system, "
            "cut at 8,000 tokens.",
            "user-side, cut at 8000 tokens",
            f"{'/'.join(inj.roles) or 'absent'}-side, a {inj.memory_tokens}-token "
            f"MEMORY.md cut to {inj.injected_chars} chars (cap {inj.cap_tokens} tokens)",
            holds=inj.roles == ("user",) and not inj.in_system and cut,
            note="the cap is in the estimator's tokens (2.5 chars each), plus the wrapper",
            differs_note="MEMORY.md reached the request elsewhere or uncut; see E5.json",
            kind="article",
            article_source=cite(
                AS_SEED,
                "按 maxContextTokens（默认 8000）截断，作为 HARNESS_CONTEXT 的 USER 侧参考材料注入",
            ),
        ),
        judged(
            "AS-FLUSH-NO-REPLY",
            "A flush whose model answers NO_REPLY writes nothing.",
            "NO_REPLY: nothing written",
            f"entry written: {'yes' if nr.entry else 'no'}, daily files: {nr.daily_files}",
            holds=not nr.entry and nr.daily_files == 0,
            differs_note="a NO_REPLY flush wrote to the ledger",
            kind="article",
            article_source=cite(AS_SEED, "没东西可记就回 NO_REPLY"),
        ),
        judged(
            "AS-MEMORY-SAVE",
            "memory_save writes both MEMORY.md (appended) and today's daily file.",
            "both files",
            f"MEMORY.md: {'yes' if save.memory_has_it else 'no'}; daily '## Memory Save': "
            f"{'yes' if save.daily_save_section else 'no'}",
            holds=save.memory_has_it and save.daily_save_section,
            differs_note="memory_save missed one of the two files",
            kind="article",
            article_source=cite(AS_SEED, "调用 memory_save，同时写 MEMORY.md（追加）和当日台账"),
        ),
        judged(
            "AS-CONSOLIDATE-CADENCE",
            "Maintenance runs at once the first time, then at most every 30 minutes.",
            "first at once, then at most every 30 minutes",
            "claims tried at minutes 0, 10, 29, 30, 45, 61 granted at "
            + ", ".join(map(str, cadence)),
            holds=cadence == (0, 30, 61),
            note="our probe minutes; granted exactly when 30 minutes have passed since the last "
            "grant",
            differs_note="harness/memory/consolidation.py's MaintenanceSchedule grants claims at "
            "other minutes than 0, 30, 61",
            kind="article",
            article_source=cite(AS_SEED, "consolidation：首次立即，之后 30 分钟，有新台账才跑"),
        ),
        _freshness_claim(data.freshness),
        judged(
            "AS-MEMORY-CAP",
            "Consolidation writes MEMORY.md within 4,000 tokens (consolidationMaxTokens).",
            "4000 tokens",
            f"default {cap.default_max_tokens}, request max_tokens {cap.request_max_tokens}",
            holds=cap.default_max_tokens == 4_000 and cap.request_max_tokens == 4_000,
            note="the consolidation request caps the output at max_tokens; a cut answer is "
            "not written",
            differs_note="the consolidation cap is not 4,000 tokens",
            kind="article",
            article_source=cite(AS_SEED, "L2 写入上限 4000 token（consolidationMaxTokens）"),
        ),
    ]


def _freshness_claim(fresh: Freshness) -> Claim:
    sends = fresh.second_run_sends
    per_file = sends == ("first-fact", "second-fact", "third-fact")
    return judged(
        "AS-CONSOLIDATE-FRESHNESS",
        "Consolidation reads the daily files changed after the watermark (per file: a new "
        "entry re-sends its whole day).",
        "per file: daily files modified after the watermark",
        f"after a third entry in the same daily file the second run sends: {', '.join(sends)}"
        + (" (per file)" if per_file else " (per entry)"),
        holds=per_file,
        note="per file, as the seed says",
        differs_note="deviation kept on purpose (harness/memory/consolidation.py): ctxlab "
        "decides freshness per entry from the entry header's instant, so a run sends only the "
        "entries after the watermark, not the whole day again, and does not depend on file "
        "modification times; nothing is lost either way",
        kind="article",
        article_source=cite(AS_SEED, "consolidation 只读水位之后被改过的日记账"),
    )
