"""X-GATE (the identifier-survival gate): gate variants are recorded beside the plain cassettes,
and the X-GATE claims judge strictly, per recorded set.

The recordings here come from a scripted model behind a real HTTP server on 127.0.0.1
(tests/support/fixed_model.py: every answer is 夜莺), so a summary keeps nothing of E4's facts but
the
gate's section can."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fixed_model import fixed_model_server
from support.paths import ROOT

from experiments import e4
from harness.compaction.agentscope import CompactionConfig
from harness.compaction.guards.gate import GateConfig
from lab.cassette_sets import list_sets
from lab.errors import CassetteMissingError
from lab.experiment import RunSettings
from lab.recording import Recording, record, recordable
from lab.registry import EXPERIMENTS
from lab.runner import run_one
from lab.variants import with_variant

QUIET = {"progress": lambda _line: None}
SET = "openai-compatible-fixed"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("cassettes")
    with fixed_model_server() as url:
        for variant in ("", "gate"):
            source = Recording("openai-compatible", "fixed", url, variant=variant)
            record(["E3", "E4"], source, root, force=False, **QUIET)  # type: ignore[arg-type]
    yield root


def test_a_variant_is_recorded_beside_the_plain_cassettes(recorded: Path) -> None:
    assert sorted(p.name for p in (recorded / "E3" / SET).iterdir()) == [
        "rounds-gate.json",
        "rounds.json",
    ]
    # The gate changes none of E4's requests: its plain cassette serves the gate run too.
    assert sorted(p.name for p in (recorded / "E4" / SET).iterdir()) == ["compactions.json"]
    assert EXPERIMENTS["X-GATE"].sets(recorded) == [SET]


def test_the_gate_variant_sends_the_gated_summary_later(recorded: Path) -> None:
    plain = (recorded / "E3" / SET / "rounds.json").read_text(encoding="utf-8")
    gated = (recorded / "E3" / SET / "rounds-gate.json").read_text(encoding="utf-8")
    assert "## Exact values" not in plain and "## Exact values" in gated


def test_x_gate_claims_are_strict_and_per_model(recorded: Path) -> None:
    result = run_one("X-GATE", RunSettings(cassette_root=recorded, **QUIET))  # type: ignore[arg-type]
    rows = {c.claim_id: c for c in result.claims}
    assert all(c.kind == "ctxlab" and c.model == "fixed" for c in result.claims)
    assert set(rows) == {
        "X-GATE-E3-OFF",
        "X-GATE-E3-ON",
        "X-GATE-E4-AS-OFF",
        "X-GATE-E4-AS-ON",
        "X-GATE-E4-DSH-OFF",
        "X-GATE-E4-DSH-ON",
    }
    # The scripted answer (夜莺) names none of E4's facts: without the gate all are dropped...
    off = rows["X-GATE-E4-AS-OFF"]
    assert off.status == "differs"
    assert off.reproduced_value == "0 of 4 (dropped: code word, order id, number, path)"
    # ... and the gate appends them verbatim to AgentScope's summary.
    assert rows["X-GATE-E4-AS-ON"].status == "match"
    assert rows["X-GATE-E4-AS-ON"].reproduced_value == "4 of 4"
    assert rows["X-GATE-E3-OFF"].reproduced_value == "3 of 3 summaries"


def test_x1_needs_the_gate_variant_and_records_nothing_itself(tmp_path: Path) -> None:
    assert "X-GATE" not in recordable([])
    assert EXPERIMENTS["X-GATE"].sets(Path(__file__).parent / "no-such-folder") == []
    with pytest.raises(CassetteMissingError):
        run_one("X-GATE", RunSettings(cassette_root=tmp_path, **QUIET))  # type: ignore[arg-type]


def test_the_shipped_cassettes_hold_a_gate_variant_for_the_default_model() -> None:
    root = ROOT / "cassettes"
    assert EXPERIMENTS["X-GATE"].sets(root) == [
        "local-qwen2.5-coder-1.5b-instruct-q4_k_m",
        "local-qwen2.5-coder-0.5b-instruct-q4_k_m",
    ]
    assert list_sets(root, "E3", ["rounds-gate"])[0] == "local-qwen2.5-coder-1.5b-instruct-q4_k_m"


def test_the_gate_variant_of_e4_replays_every_plain_request(recorded: Path) -> None:
    """The E4 gate run is served by the plain cassette: replay fails on any request it does
    not hold and on any recorded answer left unplayed, so passing proves the requests equal."""
    settings = RunSettings(cassette_root=recorded, variant="gate", **QUIET)  # type: ignore[arg-type]
    assert settings.cassette_path("E4", "compactions").name == "compactions.json"
    assert settings.cassette_path("E3", "rounds").name == "rounds-gate.json"
    data = e4.measure(settings)
    gated = [e.surface_summary for e in data.engines if e.engine == "agentscope"]
    assert gated[0] is not None and "## Exact values" in gated[0]


def test_variants_switch_only_the_gate() -> None:
    config = CompactionConfig(trigger_messages=5)
    assert with_variant(config, "") is config
    gated = with_variant(config, "gate")
    assert gated.gate == GateConfig()
    assert gated == CompactionConfig(trigger_messages=5, gate=GateConfig())


def test_gate_added_reads_the_gate_section_only() -> None:
    from experiments.x_gate import gate_added

    assert gate_added(None) == [] and gate_added("a summary - not a list") == []
    text = "summary\n- kept\n\n## Exact values\nVerbatim from ...\n- SO-2026-0417\n- “收到”\n"
    assert gate_added(text) == ["SO-2026-0417", "“收到”"]


def test_a_set_without_e4_gets_the_e3_claims_only(recorded: Path, tmp_path: Path) -> None:
    import shutil

    shutil.copytree(recorded / "E3", tmp_path / "E3")  # this set recorded E3 only
    result = run_one("X-GATE", RunSettings(cassette_root=tmp_path, **QUIET))  # type: ignore[arg-type]
    assert [c.claim_id for c in result.claims] == ["X-GATE-E3-OFF", "X-GATE-E3-ON"]
    assert result.data["e4"] is None
