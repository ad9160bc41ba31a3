"""DeepSeek-Harness mechanics the seed states, run here on event logs with scripted summarisers.

Pressure at window × 0.8 with a window × 0.16 tail, overflow recovery with retain 0, the range
back-off around tool pairs (and ``null`` when nothing is left), the "summary must be smaller"
check, a cut-off summary, the lock and a crash-left start, and the manual error classes.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from experiments.e5.view.dsh_mechanics import (
    Attempt,
    Backoff,
    DshMechanics,
    Lock,
    Overflow,
    Pressure,
    Stale,
)
from harness import CompactionError, DshConfig, FunctionModel, HarnessAgent, Message, ToolCall
from harness.compaction.dsh import DshEngine, Measurement, measure, select_compactable_range
from harness.compaction.manual import ManualCompaction
from harness.compaction.manual.lock import session_lock
from harness.errors import (
    CompactionBusyError,
    ManualCompactionError,
    ServerError,
    SummaryError,
    SurfaceChangedError,
)
from harness.model import ChatRequest, ChatResponse
from harness.store.eventlog import EventLog

__all__ = ["measure_dsh_mechanics"]

HEADER = ChatRequest(messages=(Message.system("You are a freight assistant."),))
SEED_METER = "dsh"
"""These rows check DeepSeek-Harness's own mechanics, so they price with dsh's own meter (ctxlab's
default is the usage-anchored one)."""
SEED_CONFIG = DshConfig(meter=SEED_METER)
CHECKPOINT = "## Primary Request and Intent\n- ship to Hamburg"


def _summariser(
    text: str = CHECKPOINT, finish: str = "stop", on_call: Callable[[], None] | None = None
) -> FunctionModel:
    def reply(request: ChatRequest) -> ChatResponse:
        if on_call is not None:
            on_call()
        return ChatResponse(Message.assistant(text), finish_reason=finish, model="scripted")

    return FunctionModel(reply, model_name="scripted")


def _log(path: Path, turns: int = 4) -> EventLog:
    log = EventLog(path)
    for n in range(turns):
        log.append_message(Message.user(f"question {n} " + "x" * 400))
        log.append_message(Message.assistant(f"answer {n} " + "y" * 400))
    return log


def measure_dsh_mechanics() -> DshMechanics:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        return DshMechanics(
            pressure=_pressure(root),
            overflow=_overflow(root),
            backoff=_backoff(),
            smaller=_smaller(root),
            truncated=_truncated(root),
            lock=_lock(root),
            stale=_stale(root),
            manual_errors=_manual_errors(root / "manual"),
        )


def _pressure(root: Path) -> Pressure:
    config = DshConfig(context_window=10_000, meter=SEED_METER)
    total = measure(HEADER, _log(root / "probe.jsonl").node_messages()).total
    below_model, above_model = _summariser(), _summariser()
    below = DshEngine(
        _log(root / "below.jsonl"), below_model, DshConfig(int(total / 0.8) + 10, meter=SEED_METER)
    )
    above = DshEngine(
        _log(root / "above.jsonl"), above_model, DshConfig(int(total / 0.8) - 10, meter=SEED_METER)
    )
    below_events = len(below.compact_if_needed(HEADER))
    return Pressure(
        window=config.context_window,
        threshold=config.threshold,
        retain=config.retain,
        below_events=below_events,
        below_calls=len(below_model.requests),
        above_events=len(above.compact_if_needed(HEADER)),
    )


def _overflow(root: Path) -> Overflow:
    log = _log(root / "overflow.jsonl")
    before = len(log.messages())
    events = DshEngine(log, _summariser(), SEED_CONFIG).recover_overflow(HEADER)
    single = EventLog(root / "single.jsonl")
    single.append_message(Message.user("one long question " + "x" * 4_000))
    nothing = DshEngine(single, _summariser(), SEED_CONFIG).recover_overflow(HEADER)
    return Overflow(
        max_overflow_retries=DshConfig().max_overflow_retries,
        events=len(events),
        messages_before=before,
        messages_after=len(log.messages()),
        uncompactable_events=len(nothing),
    )


def _call(call_id: str) -> Message:
    return Message.assistant("", [ToolCall(call_id, "lookup", "{}")])


def _backoff() -> Backoff:
    """Every node priced 10; a retain of 15 cuts between a call and its result."""
    messages = [Message.user("go"), _call("c1"), Message.tool("c1", "r"), Message.assistant("ok")]
    nodes = list(enumerate(messages))
    moved = select_compactable_range(nodes, Measurement(0, tuple((s, 10) for s, _ in nodes)), 15)
    pair = list(enumerate([_call("c1"), Message.tool("c1", "r")]))
    impossible = select_compactable_range(pair, Measurement(0, ((0, 10), (1, 10))), 0) is None
    return Backoff(
        naive_cut=moved.naive_cut if moved else None,
        cut=moved.end + 1 if moved else None,
        impossible=impossible,
    )


def _attempt(log: EventLog, model: FunctionModel) -> Attempt:
    surface = log.messages()
    try:
        DshEngine(log, model, SEED_CONFIG).compact_now(HEADER)
        error = ""
    except SummaryError as exc:
        error = str(exc)
    return Attempt(
        error=error,
        surface_unchanged=log.messages() == surface,
        closed_with_error=bool(log.events[-1].type == "compaction/end" and error),
    )


def _smaller(root: Path) -> Attempt:
    return _attempt(_log(root / "smaller.jsonl"), _summariser("w" * 20_000))


def _truncated(root: Path) -> Attempt:
    return _attempt(_log(root / "truncated.jsonl"), _summariser(finish="length"))


def _lock(root: Path) -> Lock:
    log = _log(root / "lock.jsonl")
    seen: list[str] = []
    DshEngine(
        log, _summariser(on_call=lambda: seen.append(log.events[-1].type)), SEED_CONFIG
    ).compact_now(HEADER)
    log.append("compaction/start", {"engine": "dsh", "compaction_id": "live"})
    refused = []
    engine = DshEngine(
        log, _summariser(), DshConfig(context_window=200, meter=SEED_METER)
    )  # pressure is due
    for name, path in (
        ("manual", lambda: engine.compact_now(HEADER)),
        ("pressure", lambda: engine.compact_if_needed(HEADER)),
        ("overflow", lambda: engine.recover_overflow(HEADER)),
    ):
        try:
            path()
        except CompactionBusyError:
            refused.append(name)
        except CompactionError:
            pass  # not refused as busy: the path went on and failed further in
    return Lock(last_event_during_summary=seen[0] if seen else "", busy=tuple(refused))


def _stale(root: Path) -> Stale:
    path = root / "stale.jsonl"
    _log(path).append("compaction/start", {"engine": "dsh", "compaction_id": "crashed"})
    reopened = EventLog.open(path)  # a new process: the start it finds was left by a crash
    detected = reopened.stale_compaction() is not None
    try:
        blocked = DshEngine(reopened, _summariser(), SEED_CONFIG).compact_now(HEADER) is None
    except CompactionBusyError:
        blocked = True
    return Stale(detected=detected, busy=blocked)


def _session(root: Path) -> Path:
    agent = HarnessAgent(
        FunctionModel(lambda request: CHECKPOINT if request.purpose == "summary" else "ok"),
        "system",
        workspace_root=root,
        user_id="u",
        session_id="s1",
        disable_compaction=True,
        disable_memory_hooks=True,
        disable_memory_tools=True,
        store="eventlog",
    )
    for n in range(4):
        agent.call(f"question {n} " + "x" * 200)
    agent.close()
    return agent.workspace.base  # root/u: the user's folder, wherever the workspace put it


def _code(action: Callable[[], object]) -> str:
    try:
        action()
    except ManualCompactionError as exc:
        return exc.code
    return "none"


def _raising(error: BaseException) -> FunctionModel:
    def reply(request: ChatRequest) -> str:
        raise error

    return FunctionModel(reply, model_name="scripted")


def _manual_errors(root: Path) -> dict[str, str]:
    """Provoke every failure class the manual path can report (``harness.compaction.manual``)."""
    ok = _summariser()
    codes = {}
    base = _session(root / "busy")
    (base / "locks").mkdir(exist_ok=True)  # a saved session has its locks/ folder already
    with session_lock(base / "locks/s1.lock", "compact"):  # a live holder: this process
        codes["locked session"] = _code(lambda: ManualCompaction(base, "s1", ok).compact("dsh"))
    base = _session(root / "summary")
    failing = _raising(ServerError("backend down", status_code=503))
    codes["summary call fails"] = _code(
        lambda: ManualCompaction(base, "s1", failing).compact("dsh")
    )
    base = _session(root / "cancel")
    codes["interrupted"] = _code(
        lambda: ManualCompaction(base, "s1", _raising(KeyboardInterrupt())).compact("dsh")
    )
    base = _session(root / "persist")
    (base / "audit.jsonl").mkdir()  # an event-log session takes no snapshot: the audit fails
    codes["audit unwritable"] = _code(lambda: ManualCompaction(base, "s1", ok).compact("dsh"))
    base = _session(root / "undo")
    codes["undo without snapshot"] = _code(lambda: ManualCompaction(base, "s1", ok).undo())
    base = _session(root / "changed")
    moved = _raising(SurfaceChangedError("the selected span changed during summarization"))
    codes["span changed (signalled)"] = _code(
        lambda: ManualCompaction(base, "s1", moved).compact("dsh")
    )
    return codes
