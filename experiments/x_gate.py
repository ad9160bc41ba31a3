"""X-GATE: the identifier-survival gate, from recorded cassettes: planted facts kept with and
without it, per recorded model.

ctxlab's gate (:mod:`harness.compaction.gate`; neither seed has one) appends the exact values a
summary dropped to it. This experiment replays E3 and E4 twice for each recorded set, gate off
(as the article ran) and gate on. E3's gate run replays its own recording
(``rounds-gate.json``, recorded with ``ctxlab record E3 --provider local --variant gate``):
E3's later requests carry the gated summary and so get other answers. E4's gate run replays
E4's plain cassette with the gate on, since no request follows its compactions (replay checks
that every request matches; :mod:`experiments.variants`). Each claim is ours (kind ``ctxlab``)
and strict: a planted fact counts as kept only when it appears verbatim in the summary the
conversation goes on with (the summary message on the surface after compaction).

* E3: the code word 夜莺 in every summary of the five rounds.
* E4: the four planted facts (code word, order id, amount, path) in each engine's summary
  (for the sets that recorded E4).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from experiments import e3, e4
from experiments.base import ExperimentResult, RunSettings
from experiments.claims import Claim
from experiments.e3_claims import CODE_WORD
from experiments.views import to_data
from harness.compaction.gate import GATE_HEADING

__all__ = ["E3_FACTS", "gate_added", "run"]

E3_FACTS = {"code word": CODE_WORD}
"""What E3 plants and later asks for again."""
STRICT = (
    "judged strictly by experiments/x_gate.py: a fact counts only when it appears verbatim in "
    "the summary message the conversation goes on with; model output as recorded"
)
ENGINES = {"agentscope": "AS", "dsh": "DSH"}


def _kept(text: str | None, facts: Mapping[str, str]) -> list[str]:
    return [name for name, value in facts.items() if text and value in text]


def _e3_summaries(data: Mapping[str, Any]) -> list[str]:
    """The summary each compacted round left on the surface (what the next request carries)."""
    return [
        "\n".join(m["text"] for m in r["context_after"] if m["kind"] == "summary")
        for r in data["rounds"]
        if r["compaction"]
    ]


def gate_added(summary: str | None) -> list[str]:
    """The items of the gate's section in ``summary`` (empty when it added nothing)."""
    if not summary or GATE_HEADING not in summary:
        return []
    section = summary.split(GATE_HEADING, 1)[1]
    return [line[2:].strip() for line in section.splitlines() if line.startswith("- ")]


def _e3_view(data: Mapping[str, Any]) -> dict[str, Any]:
    summaries = _e3_summaries(data)
    return {
        "summaries": summaries,
        "kept": [_kept(s, E3_FACTS) for s in summaries],
        "gate_added": [gate_added(s) for s in summaries],
        "round5_answer": data["rounds"][-1]["answer"],
    }


def _e4_view(data: Mapping[str, Any]) -> dict[str, Any]:
    return {
        engine["engine"]: {
            "summary": engine.get("surface_summary"),
            "kept": _kept(engine.get("surface_summary"), e4.FACTS),
            "gate_added": gate_added(engine.get("surface_summary")),
        }
        for engine in data["engines"]
    }


def measure(settings: RunSettings) -> dict[str, Any]:
    """Replay E3 and E4 plain and gated for the set of ``settings``."""
    has_e4 = settings.cassette_path("E4", "compactions").is_file()
    views: dict[str, Any] = {"e3": {}, "e4": {} if has_e4 else None}
    provenance, sources = [], []
    for label, variant in (("off", ""), ("on", "gate")):
        chosen = dataclasses.replace(settings, variant=variant)
        e3_data = to_data(e3.measure(chosen))
        views["e3"][label] = _e3_view(e3_data)
        provenance.append(e3_data["provenance"])
        sources.append(e3_data["source"])
        if has_e4:  # a set recorded for E3 but not E4 (the 0.5B model) has E3's claims only
            e4_data = to_data(e4.measure(chosen))
            views["e4"][label] = _e4_view(e4_data)
            provenance.append(e4_data["provenance"])
            sources.append(e4_data["source"])
    if len(set(sources)) != 1:
        raise AssertionError(f"X-GATE: one set, several models: {sorted(set(sources))}")
    return {
        "experiment": "X-GATE",
        "source": sources[0],
        "provenance": provenance,
        "e3_facts": E3_FACTS,
        "e4_facts": e4.FACTS,
        **views,
    }


def _count(kept: Sequence[str], facts: Mapping[str, str]) -> str:
    lost = [name for name in facts if name not in kept]
    text = f"{len(kept)} of {len(facts)}"
    return text + (f" (dropped: {', '.join(lost)})" if lost else "")


def _e3_claims(data: Mapping[str, Any], source: str) -> list[Claim]:
    claims = []
    for label, words in (("off", "without the gate"), ("on", "with the gate")):
        kept = data["e3"][label]["kept"]
        total = len(kept)
        added = sorted({item for items in data["e3"][label]["gate_added"] for item in items})
        why = f"; the gate added {', '.join(added) or 'nothing'}" if label == "on" else ""
        claims.append(
            Claim.ours(
                "X-GATE",
                f"X-GATE-E3-{label.upper()}",
                f"E3 {words}: every summary the later rounds carry keeps the code word "
                f"{CODE_WORD} verbatim.",
                f"{total} of {total} summaries",
                f"{sum(bool(k) for k in kept)} of {total} summaries",
                source,
                STRICT,
                differs_note=f"the summaries of the model ({source}) {words} lost the code "
                f"word{why}; {STRICT}",
            )
        )
    return claims


def _e4_claims(data: Mapping[str, Any], source: str) -> list[Claim]:
    claims = []
    facts = data["e4_facts"]
    for engine, short in ENGINES.items():
        for label, words in (("off", "without the gate"), ("on", "with the gate")):
            kept = data["e4"][label][engine]["kept"]
            claims.append(
                Claim.ours(
                    "X-GATE",
                    f"X-GATE-E4-{short}-{label.upper()}",
                    f"E4, {engine} engine {words}: the summary keeps all {len(facts)} planted "
                    "facts (code word, order id, amount, path) verbatim.",
                    f"{len(facts)} of {len(facts)}",
                    _count(kept, facts),
                    source,
                    STRICT,
                    differs_note=f"the {engine} summary of the model ({source}) {words} "
                    f"dropped a planted fact; {STRICT}",
                )
            )
    return claims


def run(settings: RunSettings) -> ExperimentResult:
    data = measure(settings)
    source = data["source"]
    e4_claims = _e4_claims(data, source) if data["e4"] is not None else []
    claims = (*_e3_claims(data, source), *e4_claims)
    return ExperimentResult("X-GATE", claims, data, source, tuple(data["provenance"]))
