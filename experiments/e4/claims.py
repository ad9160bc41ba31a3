"""E4's claims, a table of specs judged from what :mod:`experiments.e4` measured (model output as
recorded), read from its :class:`~experiments.e4.view.E4View`.

Every ``article`` row cites the DeepSeek-Harness seed (:data:`~lab.claims.DSH_SEED`);
DSH-SUMMARY-EXACT is our own check (``ctxlab``).
"""

from __future__ import annotations

from experiments.e4.view import E4View, SummaryEvent
from harness.compaction.dsh.summarizer import SECTIONS as DSH_SECTIONS
from lab import (
    CAP,
    DSH_SEED,
    MODEL,
    Claim,
    ClaimSpec,
    Verdict,
    cite,
    evaluate,
    filled_sections,
    markdown_headings,
)

__all__ = ["CAPPED_MODEL", "DSH_SECTIONS", "SPECS", "claims"]

CAPPED_MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m"
"""The recorded model whose DSH summary hit the recording's 1,024-token cap: DSH refused it
and did not compact, so what follows from DSH's compaction differs for that reason (the
``recording cap`` class), here and in X-GATE's and X-COST's rows."""

FACT_COUNT = 4
"""The facts :data:`experiments.e4.FACTS` plants."""

STRUCTURAL = "structural: decided by the harness, whatever the model says"
SUMMARY_EVENT_FIELDS = ("summary", "shadowed_range", "shadowed_seqs", "provider", "model", "usage")


def claims(view: E4View) -> tuple[Claim, ...]:
    """E4's claims: :data:`SPECS` judged on ``view``."""
    return evaluate("E4", SPECS, view, view.source)


def _rule(view: E4View, source: str) -> str:
    return f"model output as recorded ({source}); judged by judge `e4-rules`{_cap(view)}"


def _cap(view: E4View) -> str:
    """What the recording's answer cap (``ctxlab record --max-tokens``) was, when it set one."""
    cap = view.provenance.params.get("max_tokens")
    if cap is None:
        return ""
    return (
        f"; the recording capped every answer at {cap} tokens (ctxlab record --max-tokens) and "
        "kept an answer that hit the cap as cut"
    )


def _committed_cut(view: E4View, value: str) -> Verdict | None:
    """A differing verdict when the DSH compaction committed a summary cut off at max_tokens:
    the seed's engine would have refused it (截断即失败), so its events show nothing."""
    event = view.run("dsh").summary_event
    if event is None or not event.cut_at_max_tokens:
        return None
    return Verdict(
        value + "; the committed summary was cut off at max_tokens",
        False,
        differs_note="the DSH engine committed a summary whose completion reached max_tokens, "
        "which the seed's engine refuses",
    )


def _events(view: E4View) -> Verdict:
    dsh = view.run("dsh")
    types = [
        e.type + ("(replace)" if e.surface_op is not None and e.surface_op.is_replace else "")
        for e in dsh.events
    ]
    refused = (
        f"the DSH engine refused its summary ({dsh.error}) and closed the bracket with "
        "compaction/end, appending no summary and no replace: what the log holds follows the "
        f"model's answer here, not the harness alone{_cap(view)}"
    )
    return _committed_cut(view, ", ".join(types)) or Verdict(
        ", ".join(types), differs_note=refused if dsh.error else ""
    )


def _replay(view: E4View) -> Verdict:
    """The log replayed from zero, judged against the recording, not against the live surface
    (which the same fold computes, so a broken fold would break both sides alike)."""
    dsh, agentscope = view.run("dsh"), view.run("agentscope")
    replay = (
        f"DSH: {'as recorded' if dsh.replay_as_recorded else 'not as recorded'}, "
        f"{'equal' if dsh.replay_equals_live else 'different'} to the live surface (AgentScope "
        f"on the same store: {'equal' if agentscope.replay_equals_live else 'different'})"
    )
    if dsh.range is None:  # a log with no replace in it replays trivially: nothing to show
        return Verdict(
            f"{replay}; nothing folded (no compaction: {dsh.error})",
            False,
            differs_note="the DSH engine replaced nothing (its summary was refused), so the "
            f"replay folded no replace and shows nothing{_cap(view)}",
        )
    holds = bool(dsh.replay_as_recorded and dsh.replay_equals_live)
    return _committed_cut(view, replay) or Verdict(replay, holds)


def _summary_event(view: E4View) -> Verdict:
    dsh = view.run("dsh")
    event = dsh.summary_event or SummaryEvent((), None, None)
    present = [f for f in SUMMARY_EVENT_FIELDS if f in event.fields]
    missing = ", ".join(f for f in SUMMARY_EVENT_FIELDS if f not in present)
    if dsh.summary_event is None:
        missing = (
            f"no compaction/summary event was appended at all: the DSH engine refused the "
            f"summary ({dsh.error}), so there is no event to record the fields{_cap(view)}"
        )
    return _committed_cut(view, ", ".join(present)) or Verdict(
        ", ".join(present),
        note=f"provider {event.provider!r} (the API host the cassette replays), model "
        f"{event.model!r}; {STRUCTURAL}",
        differs_note=missing
        if dsh.summary_event is None
        else f"the event lacks {missing} (harness.compaction.dsh's engine)",
    )


def _cache(view: E4View) -> Verdict:
    dsh, agentscope = view.run("dsh"), view.run("agentscope")
    reuse = f"DSH {dsh.prefix_reuse:.0%} vs AgentScope {agentscope.prefix_reuse:.0%}"
    cached = (
        f"cached tokens: DSH {dsh.summary_cached_tokens} of {dsh.summary_prompt_tokens}, "
        f"AgentScope {agentscope.summary_cached_tokens} of {agentscope.summary_prompt_tokens}"
    )
    holds = (
        dsh.prefix_reuse >= 0.5
        and dsh.prefix_reuse > 2 * agentscope.prefix_reuse
        and (dsh.summary_cached_tokens or 0) > (agentscope.summary_cached_tokens or 0)
    )
    return Verdict(f"{reuse}; {cached}", holds)


def _range(view: E4View) -> Verdict:
    dsh = view.run("dsh")
    span, total = dsh.range, len(view.conversation)
    if span is None:
        return Verdict(
            f"no compaction: {dsh.error}",
            False,
            differs_note=f"the DSH engine refused its summary, so nothing was replaced{_cap(view)}",
        )
    oldest = span.start == 0 and span.end + 1 + span.kept == total
    value = f"nodes {span.start}..{span.end} of {total} (the tail of {span.kept} kept is our setup)"
    return _committed_cut(view, value) or Verdict(value, oldest)


def _sections(view: E4View) -> Verdict:
    source = view.source
    summary = view.run("dsh").summary
    headed = [h for h in markdown_headings(summary) if h in DSH_SECTIONS]
    filled = filled_sections(summary, DSH_SECTIONS)
    named = [s for s in DSH_SECTIONS if s in summary]
    return Verdict(
        f"{len(filled)} of 8 sections",
        note=_rule(view, source),
        differs_note=f"the summary has {len(headed)} of the 8 as markdown headings "
        f"({len(filled)} with content under them){_labels(summary, named)}, so it is not the "
        "sectioned markdown the directive asks for; judged by "
        f"judge `filled_sections`; {_rule(view, source)}",
    )


def _labels(summary: str, named: list[str]) -> str:
    """What else the summary did with the section names: bold bullet labels, or plain
    mentions."""
    bold = [name for name in named if f"**{name}**" in summary]
    if bold:
        return f"; it names {len(bold)} of 8 as bold bullet labels instead ('- **{bold[0]}**: …')"
    return f"; it names {len(named)} of 8 in all"


def _exact(view: E4View) -> Verdict:
    source = view.source
    dsh, agentscope = view.run("dsh"), view.run("agentscope")
    return Verdict(
        f"{len(dsh.facts_kept)} of 4 kept ({', '.join(dsh.facts_kept) or 'none'})",
        note=_rule(view, source),
        differs_note=f"AgentScope's summary kept {len(agentscope.facts_kept)} of 4 "
        f"({', '.join(agentscope.facts_kept) or 'none'}); {_rule(view, source)}",
    )


SPECS: tuple[ClaimSpec[E4View], ...] = (
    ClaimSpec(
        "DSH-EVENTS",
        "A DSH compaction appends four events: compaction/start, "
        "compaction/summary, a user/message with a surface replace, compaction/end.",
        _events,
        "compaction/start, compaction/summary, user/message(replace), compaction/end",
        cite(
            DSH_SEED,
            "一条 compaction/start，一条 compaction/summary，一条带替换指令的 user/message，"
            "一条 compaction/end",
        ),
        note=STRUCTURAL,
        reason_class=CAP,
    ),
    ClaimSpec(
        "DSH-REPLAY",
        "Replaying the log from zero folds the replace and gives the live surface.",
        _replay,
        "replayed surface = live surface",
        cite(DSH_SEED, "它算出的表面，与在线进程压缩后的表面一致"),
        note="judged on the log replayed from zero: it must hold the summary the model answered "
        "(as recorded) and then the conversation's last 2 messages as they were before the "
        f"compaction, and equal the live surface; {STRUCTURAL}",
        differs_note="the DSH log replays to another surface than the recording and the "
        "conversation give (the recorded summary, then the last 2 messages), or than the live one",
        reason_by_model={CAPPED_MODEL: CAP},
    ),
    ClaimSpec(
        "DSH-SUMMARY-EVENT",
        "The compaction/summary event records the summary, the shadowed range and seqs, the "
        "provider, the model and the usage.",
        _summary_event,
        ", ".join(SUMMARY_EVENT_FIELDS),
        cite(DSH_SEED, "summary 原文、shadowedRange、shadowedSeqs、provider、model、usage"),
        reason_class=CAP,
    ),
    ClaimSpec(
        "DSH-CACHE",
        "The DSH summary call is the last request's prefix plus the directive, so the "
        "provider's prefix cache is hit (AgentScope's summariser prompt, our comparison, is not).",
        _cache,
        "a true prefix of the last request plus one directive; the prefix cache is hit",
        cite(DSH_SEED, "provider 的前缀缓存直接命中，唯一的新输入就是那条指令"),
        note="measured from the recorded request bodies and the server's cached-token counts; "
        "judged: DSH reuse ≥ 50%, more than twice AgentScope's, and more cached tokens",
        differs_note="the measured reuse does not show DSH far above AgentScope; see E4.json",
    ),
    ClaimSpec(
        "DSH-RANGE",
        "The replaced range is the oldest contiguous block: it starts at the first surface "
        "node and runs up to the retained tail.",
        _range,
        "starts at the first surface node; oldest contiguous block",
        cite(DSH_SEED, "压缩边界永远从表面第一个节点开始"),
        note="judged from the log: the replace event's start and end seqs sit at surface "
        f"positions 0 and right before the kept tail; {STRUCTURAL}",
        differs_note="the replaced span is not the head block before the tail; see E4.json",
        reason_class=CAP,
    ),
    ClaimSpec(
        "DSH-SUMMARY-SECTIONS",
        "The DSH summary is markdown in eight sections (Primary Request and Intent … "
        "Critical Context), each a heading with content under it.",
        _sections,
        "8 of 8 sections",
        cite(
            DSH_SEED,
            "指令要求输出固定的八段 Markdown（Primary Request and Intent / Key Technical "
            "Concepts / Files and Code / Errors and Fixes / Pending Jobs / Current Work / "
            "Next Step / Critical Context",
        ),
        reason_class=MODEL,
    ),
    ClaimSpec(
        "DSH-SUMMARY-EXACT",
        "Our check of the directive's 'keep exact paths and numbers': the four facts we "
        "planted (code word, order id, number, path) survive in the DSH summary.",
        _exact,
        kind="ctxlab",
        expected="4 of 4 kept",
        article_source=cite(DSH_SEED, "必须保留精确路径、命令、错误串和数字"),
        reason_class=MODEL,
    ),
)
