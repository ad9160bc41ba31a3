"""Where ctxlab deliberately does otherwise than a peer's own tests expect, measured on ctxlab's
AgentScope engine (scripted) and judged by :mod:`experiments.e5.claims.peer_deviations`: a keep
budget at or above the trigger, keeping no messages, both triggers off, and a summariser that
raises a plain error."""

from __future__ import annotations

from experiments.e5.view.peer_deviations import PeerDeviations
from harness import (
    Agent,
    CompactionConfig,
    ConfigError,
    FunctionModel,
    Message,
    ScriptedModel,
    make_engine,
)
from harness.model import ChatRequest
from harness.store.history import StateHistory

__all__ = ["measure_peer_deviations"]

_BARE = {"flush_before_compact": False, "offload_before_compact": False, "prune": None}


def _config(**fields: object) -> str:
    """``accepted``, or ``refused: <the error's first clause>``."""
    try:
        CompactionConfig(**{**_BARE, **fields})  # type: ignore[arg-type]
    except ConfigError as exc:
        why = str(exc).split(";")[0].removeprefix("invalid CompactionConfig: ").rstrip(".")
        return f"refused: {why}"
    return "accepted"


def _summariser_bug() -> str:
    """AgentScope's middleware compacts with its failure text whatever the summariser raised;
    what reaches ctxlab's caller when the summary model raises a plain ``RuntimeError``."""

    def broken(request: ChatRequest) -> Message:
        raise RuntimeError("a bug in the summariser's adapter")

    history = StateHistory("session")
    history.append([Message.user("previous context " * 20)])
    model = ScriptedModel(["reply"])
    config = CompactionConfig(trigger_tokens=2, keep_tokens=1, **_BARE)  # type: ignore[arg-type]
    engine = make_engine(config, model, summary_model=FunctionModel(broken))
    agent = Agent(model, engine=engine, history=history)
    try:
        agent.call("latest request")
    except RuntimeError:
        kept = [m.content for m in agent.context] == ["previous context " * 20, "latest request"]
        return "raised to the caller, history " + ("untouched" if kept else "changed")
    return "compacted with the failure text"


def measure_peer_deviations() -> PeerDeviations:
    return PeerDeviations(
        keep_at_trigger=_config(trigger_tokens=1, keep_tokens=1),
        keep_no_messages=_config(trigger_messages=4, keep_messages=0),
        triggers_off=_config(trigger_messages=0, trigger_tokens=None),
        summariser_bug=_summariser_bug(),
    )
