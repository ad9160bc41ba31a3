"""``make_engine`` builds either engine from its config and refuses, in one sentence, what
cannot work; ``HarnessAgent``'s switches never let None mean two things."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import CompactionConfig, ConfigError, DshConfig, HarnessAgent, make_engine
from harness.compaction.agentscope.engine import AgentScopeEngine
from harness.compaction.dsh.engine import DshEngine
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.history import StateHistory
from harness.testing import FunctionModel

MODEL = FunctionModel(lambda request: "ok")


def test_each_config_builds_its_engine(tmp_path: Path) -> None:
    engine = make_engine(CompactionConfig(), MODEL)
    assert isinstance(engine, AgentScopeEngine)
    assert engine.max_overflow_retries == 1 and not engine.overflow_retries_reset_on_reply
    history = EventLogHistory(EventLog(tmp_path / "s.jsonl"))
    dsh = make_engine(DshConfig(max_overflow_retries=2), MODEL, history=history)
    assert isinstance(dsh, DshEngine)
    assert dsh.max_overflow_retries == 2 and dsh.overflow_retries_reset_on_reply
    assert dsh.log is history.log


def test_the_flush_reaches_the_agentscope_engine() -> None:
    def flush(prefix: object) -> None:
        pass

    engine = make_engine(CompactionConfig(), MODEL, flush=flush)
    assert isinstance(engine, AgentScopeEngine) and engine.flush is flush


def test_summary_model_writes_the_summaries() -> None:
    summariser = FunctionModel(lambda request: "S")
    engine = make_engine(CompactionConfig(), MODEL, summary_model=summariser)
    assert isinstance(engine, AgentScopeEngine)
    assert engine.compactor.summary_model is summariser


def test_an_unknown_config_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"CompactionConfig .* or a DshConfig"):
        make_engine("agentscope", MODEL)  # type: ignore[arg-type]


def test_dsh_on_a_state_store_is_refused_in_one_sentence() -> None:
    with pytest.raises(ConfigError, match=r"^The DSH engine keeps its compactions in the event"):
        make_engine(DshConfig(), MODEL, history=StateHistory("s"))


def test_harness_agent_dsh_on_the_state_store_names_the_store_switch(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="use store='eventlog'"):
        HarnessAgent(MODEL, workspace_root=tmp_path, compaction=DshConfig())


def test_harness_agent_dsh_on_the_event_log_runs_without_the_pre_compaction_flush(
    tmp_path: Path,
) -> None:
    agent = HarnessAgent(MODEL, workspace_root=tmp_path, compaction=DshConfig(), store="eventlog")
    try:
        assert isinstance(agent.agent.engine, DshEngine)  # memory hooks on: not refused
        assert agent.call("hello").text == "ok"
    finally:
        agent.close()


def test_harness_agent_wires_the_memory_flush_into_agentscope(tmp_path: Path) -> None:
    agent = HarnessAgent(MODEL, workspace_root=tmp_path)
    engine = agent.agent.engine
    assert isinstance(engine, AgentScopeEngine)
    assert engine.flush == agent.memory.flush_prefix
    agent.close()
    quiet = HarnessAgent(
        MODEL,
        workspace_root=tmp_path / "b",
        compaction=CompactionConfig(flush_before_compact=False),
    )
    assert isinstance(quiet.agent.engine, AgentScopeEngine) and quiet.agent.engine.flush is None
    quiet.close()


def test_harness_agent_compaction_none_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="disable_compaction=True to turn compaction off"):
        HarnessAgent(MODEL, workspace_root=tmp_path, compaction=None)  # type: ignore[arg-type]


def test_harness_agent_disable_compaction_is_the_one_off_switch(tmp_path: Path) -> None:
    agent = HarnessAgent(MODEL, workspace_root=tmp_path, disable_compaction=True)
    assert agent.agent.engine is None
    agent.close()
