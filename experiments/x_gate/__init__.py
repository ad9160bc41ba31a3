"""X-GATE: the identifier-survival gate, from recorded cassettes: planted facts kept with and
without it, per recorded model.

ctxlab's gate (:mod:`harness.compaction.guards.gate`; neither seed has one) appends the exact
values a summary dropped to it. This experiment replays E3 and E4 twice for each recorded set,
gate off (as the article ran) and gate on. E3's gate run replays its own recording
(``rounds-gate.json``, recorded with ``ctxlab record E3 --provider local --variant gate``):
E3's later requests carry the gated summary and so get other answers. E4's gate run replays
E4's plain cassette with the gate on, since no request follows its compactions (replay checks
that every request matches; :mod:`lab.variants`). Each claim is ours (kind ``ctxlab``)
and strict: a planted fact counts as kept only when it appears verbatim in the summary the
conversation goes on with (the summary message on the surface after compaction).

* E3: the code word 夜莺 in every summary of the five rounds.
* E4: the four planted facts (code word, order id, amount, path) in each engine's summary
  (for the sets that recorded E4).

The measurements are an :class:`~experiments.x_gate.view.XGateView`, written as ``X-GATE.json``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from experiments import e3, e4
from experiments.e3.view import E3View
from experiments.e4.view import E4View, EngineRun
from experiments.x_gate.view import E3GateRun, E3GateRuns, E4GateRuns, GatedSummary, XGateView
from harness.compaction.guards.gate import GATE_HEADING
from lab import (
    CAP,
    MODEL,
    Claim,
    ClaimSpec,
    Experiment,
    ExperimentResult,
    RunSettings,
    Verdict,
    evaluate,
    to_data,
)

__all__ = ["E3_FACTS", "EXPERIMENT", "SPECS", "claims", "gate_added", "measure", "run"]

E3_FACTS = {"code word": e3.CODE_WORD}
"""What E3 plants and later asks for again."""
STRICT = (
    "judged strictly by judge `x-gate-verbatim`: a fact counts only when it appears verbatim in "
    "the summary message the conversation goes on with; model output as recorded"
)
ENGINES = {"agentscope": "AS", "dsh": "DSH"}


def _kept(text: str | None, facts: Mapping[str, str]) -> tuple[str, ...]:
    return tuple(name for name, value in facts.items() if text and value in text)


def _e3_summaries(view: E3View) -> tuple[str, ...]:
    """The summary each compacted round left on the surface (what the next request carries)."""
    return tuple(
        "\n".join(m.text for m in r.context_after if m.kind == "summary")
        for r in view.rounds
        if r.compaction
    )


def gate_added(summary: str | None) -> list[str]:
    """The items of the gate's section in ``summary`` (empty when it added nothing)."""
    if not summary or GATE_HEADING not in summary:
        return []
    section = summary.split(GATE_HEADING, 1)[1]
    return [line[2:].strip() for line in section.splitlines() if line.startswith("- ")]


def _e3_run(view: E3View) -> E3GateRun:
    summaries = _e3_summaries(view)
    return E3GateRun(
        summaries=summaries,
        kept=tuple(_kept(s, E3_FACTS) for s in summaries),
        gate_added=tuple(tuple(gate_added(s)) for s in summaries),
        round5_answer=view.rounds[-1].answer,
    )


def _e4_run(view: E4View) -> dict[str, GatedSummary]:
    return {
        engine.engine: GatedSummary(
            summary=engine.surface_summary,
            kept=() if _cut(engine) else _kept(engine.surface_summary, e4.FACTS),
            gate_added=tuple(gate_added(engine.surface_summary)),
        )
        for engine in view.engines
    }


def _cut(engine: EngineRun) -> bool:
    """A DSH summary cut off at max_tokens: the seed's engine refuses it (截断即失败), so it
    keeps nothing, whatever a harness that committed it shows."""
    return engine.summary_event is not None and engine.summary_event.cut_at_max_tokens


def measure(settings: RunSettings) -> XGateView:
    """Replay E3 and E4 plain and gated for the set of ``settings``."""
    has_e4 = settings.cassette_path("E4", "compactions").is_file()
    runs: list[tuple[E3View, E4View | None]] = []
    for variant in ("", "gate"):
        chosen = dataclasses.replace(settings, variant=variant)
        # a set recorded for E3 but not E4 (the 0.5B model) has E3's claims only
        runs.append((e3.measure(chosen), e4.measure(chosen) if has_e4 else None))
    (e3_off, e4_off), (e3_on, e4_on) = runs
    measured = [view for pair in runs for view in pair if view is not None]
    sources = {view.source for view in measured}
    if len(sources) != 1:
        raise AssertionError(f"X-GATE: one set, several models: {sorted(sources)}")
    return XGateView(
        experiment="X-GATE",
        source=e3_off.source,
        provenance=tuple(view.provenance for view in measured),
        e3_facts=E3_FACTS,
        e4_facts=e4.FACTS,
        e3=E3GateRuns(_e3_run(e3_off), _e3_run(e3_on)),
        e4=E4GateRuns(_e4_run(e4_off), _e4_run(e4_on)) if e4_off and e4_on else None,
    )


def _count(kept: Sequence[str], facts: Mapping[str, str]) -> str:
    lost = [name for name in facts if name not in kept]
    text = f"{len(kept)} of {len(facts)}"
    return text + (f" (dropped: {', '.join(lost)})" if lost else "")


def _e3_verdict(label: str, words: str) -> Callable[[XGateView], Verdict]:
    def measure(view: XGateView) -> Verdict:
        run = view.e3.on if label == "on" else view.e3.off
        total = len(run.kept)
        added = sorted({item for items in run.gate_added for item in items})
        why = f"; the gate added {', '.join(added) or 'nothing'}" if label == "on" else ""
        return Verdict(
            f"{sum(bool(k) for k in run.kept)} of {total} summaries",
            expected=f"{total} of {total} summaries",
            differs_note=f"the summaries of the model ({view.source}) {words} lost the code "
            f"word{why}; {STRICT}",
        )

    return measure


def _e4_verdict(engine: str, label: str, words: str) -> Callable[[XGateView], Verdict | None]:
    def measure(view: XGateView) -> Verdict | None:
        if view.e4 is None:  # a set that recorded E3 but not E4
            return None
        summary = (view.e4.on if label == "on" else view.e4.off)[engine]
        facts = view.e4_facts
        return Verdict(
            _count(summary.kept, facts),
            expected=f"{len(facts)} of {len(facts)}",
            differs_note=_e4_why(engine, view.source, words, summary),
        )

    return measure


def _e4_why(engine: str, source: str, words: str, summary: GatedSummary) -> str:
    if summary.summary is None:
        return (
            f"the {engine} engine left no summary on the surface {words}: it did not compact "
            f"(see E4's rows for this model, {source}); {STRICT}"
        )
    return f"the {engine} summary of the model ({source}) {words} dropped a planted fact; {STRICT}"


GATE = (("off", "without the gate"), ("on", "with the gate"))
SPECS: tuple[ClaimSpec[XGateView], ...] = (
    *(
        ClaimSpec(
            f"X-GATE-E3-{label.upper()}",
            f"E3 {words}: every summary the later rounds carry keeps the code word "
            f"{e3.CODE_WORD} verbatim.",
            _e3_verdict(label, words),
            kind="ctxlab",
            note=STRICT,
            reason_class=MODEL,
        )
        for label, words in GATE
    ),
    *(
        ClaimSpec(
            f"X-GATE-E4-{short}-{label.upper()}",
            f"E4, {engine} engine {words}: the summary keeps all {len(e4.FACTS)} planted "
            "facts (code word, order id, amount, path) verbatim.",
            _e4_verdict(engine, label, words),
            kind="ctxlab",
            note=STRICT,
            reason_class=MODEL,
            # the capped model's DSH summary was refused: DSH did not compact
            reason_by_model={e4.CAPPED_MODEL: CAP} if engine == "dsh" else {},
        )
        for engine, short in ENGINES.items()
        for label, words in GATE
    ),
)
"""X-GATE's claims: E3's rows, then E4's (for a set that recorded E4)."""


def claims(view: XGateView) -> tuple[Claim, ...]:
    """Judge X-GATE's measurements: :data:`SPECS` on ``view``."""
    return evaluate("X-GATE", SPECS, view, view.source)


def run(settings: RunSettings) -> ExperimentResult:
    view = measure(settings)
    provenance = tuple(to_data(p) for p in view.provenance)
    return ExperimentResult("X-GATE", claims(view), to_data(view), view.source, provenance)


EXPERIMENT = Experiment.listed(
    __name__,
    run,
    version=1,
    needs_cassettes=True,
    cassettes_of="E3",
    requires=("E3/rounds-gate",),
    reads=("E3", "E4"),
)
