"""Where the engines' checks and recovery fire, run here on scripted agents and event logs.

* the DSH pressure check runs at every agent pre-step: a tool result that crosses the threshold
  between two requests of one call is compacted before the next request, never mid-request;
* that compaction's summary request is the routed request's head (system, tools) plus the
  shadowed messages as requests carry them, with the directive as the final user message;
* the pressure threshold at its edge: a request of exactly ``floor(window × 0.8)`` tokens
  compacts, one of a token less does not; the retain budget at its edge: a tail that reaches
  the budget exactly stops there;
* a second DSH compaction over the first one's checkpoint: the checkpoint goes into the summary
  request to be merged, and one checkpoint is left;
* the "summary must be smaller" check at its edge: a framed summary exactly as large as what it
  replaces is refused, one a token smaller is accepted;
* only a context-length error enters overflow recovery, in both engines: a 400 that is not one,
  a 429 and a 500 reach the caller with no compaction and no retry.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from experiments.e5.measures.dsh_mechanics import CHECKPOINT, HEADER, SEED_METER, _log, _summariser
from experiments.e5.view.dsh_steps import (
    DshSteps,
    ErrorOutcome,
    MergedCheckpoint,
    PressureEdge,
    PreStep,
    RetainEdge,
    SmallerEdge,
    SummaryPrefix,
)
from harness import (
    Agent,
    CallResult,
    CompactionConfig,
    ContextLengthExceededError,
    DshConfig,
    FunctionModel,
    Message,
    Tool,
    ToolCall,
    make_engine,
)
from harness.compaction.dsh import (
    CHECKPOINT_NAME,
    DshEngine,
    Measurement,
    build_summary_request,
    frame_checkpoint,
    price_message,
    select_compactable_range,
    summarize_span,
)
from harness.errors import (
    APIStatusError,
    BadRequestError,
    RateLimitError,
    ServerError,
    SummaryError,
)
from harness.model import ChatRequest, ChatResponse
from harness.store.eventlog import EventLog, EventLogHistory

__all__ = ["measure_dsh_steps"]

SYSTEM = "You are a freight assistant."
TOOL_RESULT = "舱位查询结果 " + "r" * 2_400


def measure_dsh_steps() -> DshSteps:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pre_step, prefix = _pre_step()
        return DshSteps(
            pre_step=pre_step,
            prefix=prefix,
            pressure_edge=_pressure_edge(root / "edge"),
            retain_edge=_retain_edge(),
            merged=_merged(root / "merged.jsonl"),
            smaller_edge=_smaller_edge(),
            errors=_errors(),
        )


# --- the pre-step check and the summary request's prefix -----------------------------------


def _history() -> EventLogHistory:
    history = EventLogHistory(EventLog())  # in memory
    for n in range(4):
        history.append([Message.user(f"question {n} " + "x" * 400), Message.assistant("ok")])
    return history


def _tool_call_model(requests: list[ChatRequest]) -> FunctionModel:
    """Asks for one lookup, then answers; summarises with the checkpoint."""

    def reply(request: ChatRequest) -> ChatResponse:
        requests.append(request)
        if request.purpose == "summary":
            message = Message.assistant(CHECKPOINT)
        elif request.messages[-1].role == "tool":
            message = Message.assistant("舱位充足")
        else:
            message = Message.assistant("", [ToolCall("c1", "lookup", "{}")])
        return ChatResponse(message, finish_reason="stop", model="scripted")

    return FunctionModel(reply, model_name="scripted")


def _one_call(window: int) -> tuple[CallResult, list[ChatRequest], list[tuple[Message, ...]]]:
    """One call of a DSH agent with one lookup; every request, and the surface at each check."""
    requests: list[ChatRequest] = []
    surfaces: list[tuple[Message, ...]] = []
    history = _history()
    model = _tool_call_model(requests)
    engine = make_engine(DshConfig(window, meter=SEED_METER, prune=False), model, history=history)
    check = engine.before_request

    def counted(history: EventLogHistory, turn: object) -> object:
        surfaces.append(tuple(history.messages()))
        return check(history, turn)  # type: ignore[arg-type]

    setattr(engine, "before_request", counted)  # noqa: B010  # count the checks of this engine
    lookup = Tool.from_function(lambda: TOOL_RESULT, name="lookup", description="look up")
    agent = Agent(model, SYSTEM, [lookup], engine=engine, history=history)
    return agent.call("查一下下周去汉堡的舱位"), requests, surfaces


def _pre_step() -> tuple[PreStep, SummaryPrefix]:
    """A probe call with a window no request reaches gives each request's tokens; the real call
    puts the threshold halfway between the first request and the second (after the result)."""
    probe, _, _ = _one_call(10_000_000)
    first, second = (r.metered_tokens or 0 for r in probe.requests)
    result, requests, surfaces = _one_call(int((first + second) / 2 / 0.8))
    agent = [r for r in requests if r.purpose == "agent"]
    before = tuple(n + 1 for n, r in enumerate(result.requests) if r.compactions)
    after = agent[before[0] - 1] if before and before[0] <= len(agent) else None
    pre_step = PreStep(
        requests=len(result.requests),
        checks=len(surfaces),
        compacted_before=before,
        checkpoint_in_next=after is not None
        and any(m.name == CHECKPOINT_NAME for m in after.messages),
    )
    return pre_step, _prefix(requests, surfaces)


def _prefix(requests: list[ChatRequest], surfaces: list[tuple[Message, ...]]) -> SummaryPrefix:
    summary = next((r for r in requests if r.purpose == "summary"), None)
    routed = requests[0]
    if summary is None or not surfaces:
        return SummaryPrefix(len(routed.tools), False, False, False, False)
    head = len(routed.messages) - len(surfaces[0])
    body = summary.messages[head:-1]
    surface = surfaces[-1]
    last = summary.messages[-1]
    return SummaryPrefix(
        tools=len(routed.tools),
        same_tools=summary.tools == routed.tools,
        same_head=summary.messages[:head] == routed.messages[:head],
        shadowed_as_sent=bool(body) and tuple(body) == surface[: len(body)],
        directive_last=last.role == "user" and "checkpoint" in last.content,
    )


# --- the pressure threshold at its edge ----------------------------------------------------


def _window_for(threshold: int) -> int:
    """The smallest window whose pressure threshold is ``threshold``: dsh's is ``floor(window
    × 0.8)``, which meets every integer, but the window is searched for (the threshold only
    grows with the window), so a threshold computed another way is probed at its edge too
    rather than stopping the experiment; when no window meets it exactly, the first past it."""
    low, high = 1, 4 * threshold + 8
    while low < high:
        middle = (low + high) // 2
        if DshConfig(middle).threshold >= threshold:
            high = middle
        else:
            low = middle + 1
    return low


def _pressure_edge(root: Path) -> PressureEdge:
    probe = DshEngine(_log(root / "probe.jsonl"), _summariser(), DshConfig(meter=SEED_METER))
    tokens = probe.read(HEADER).tokens
    at, below = _window_for(tokens), _window_for(tokens + 1)

    def events(window: int, name: str) -> int:
        engine = DshEngine(_log(root / name), _summariser(), DshConfig(window, meter=SEED_METER))
        return len(engine.compact_if_needed(HEADER))

    return PressureEdge(
        tokens=tokens,
        at_window=at,
        at_events=events(at, "at.jsonl"),
        below_window=below,
        below_events=events(below, "below.jsonl"),
    )


def _retain_edge(node_tokens: int = 10, budget: int = 20) -> RetainEdge:
    """Six plain messages priced ``node_tokens`` each: how many the tail keeps."""
    nodes = [(n, Message.user(f"q{n}") if n % 2 == 0 else Message.assistant(f"a{n}"))
             for n in range(6)]  # fmt: skip
    priced = Measurement(0, tuple((seq, node_tokens) for seq, _ in nodes))

    def kept(retain: int) -> int:
        selected = select_compactable_range(nodes, priced, retain)
        return len(nodes) - (selected.end + 1 if selected else 0)

    return RetainEdge(node_tokens, budget, kept(budget), kept(budget + 1))


# --- an earlier checkpoint merged ----------------------------------------------------------


def _merged(path: Path) -> MergedCheckpoint:
    answers = iter([CHECKPOINT, CHECKPOINT + "\n- booking B-1 confirmed"])

    def reply(request: ChatRequest) -> ChatResponse:
        return ChatResponse(Message.assistant(next(answers)), finish_reason="stop", model="s")

    log = _log(path)
    engine = DshEngine(log, FunctionModel(reply, model_name="scripted"), DshConfig(meter="dsh"))
    first = engine.compact_now(HEADER)
    for n in range(3):
        log.append_message(Message.user(f"later question {n} " + "x" * 400))
        log.append_message(Message.assistant(f"later answer {n} " + "y" * 400))
    second = engine.compact_now(HEADER)
    if first is None or second is None:
        return MergedCheckpoint(False, False, 0, 0)
    sent = second.summary_request.messages
    checkpoints = [m for m in log.messages() if m.name == CHECKPOINT_NAME]
    return MergedCheckpoint(
        carried=any("<compacted-summary>" in m.content and CHECKPOINT in m.content for m in sent),
        directive_merges="merge it" in sent[-1].content
        and "<compacted-summary>" in sent[-1].content,
        checkpoints_after=len(checkpoints),
        blocks_in_last=checkpoints[-1].content.count("<compacted-summary>") if checkpoints else 0,
    )


# --- the "summary must be smaller" check at its edge ---------------------------------------


def _smaller_edge() -> SmallerEdge:
    framed = price_message(frame_checkpoint(CHECKPOINT))
    request = build_summary_request(HEADER, [Message.user("question " + "x" * 400)], 8_192)
    error = ""
    try:
        summarize_span(_summariser(), request, framed)
    except SummaryError as exc:
        error = str(exc)
    try:
        summarize_span(_summariser(), request, framed + 1)
        accepted = True
    except SummaryError:
        accepted = False
    return SmallerEdge(framed_tokens=framed, equal_refused=error, one_less_accepted=accepted)


# --- which errors enter overflow recovery --------------------------------------------------


ERRORS: dict[str, Callable[[], APIStatusError]] = {
    "400 bad request (a bad tool name)": lambda: BadRequestError(
        "tool name 'x y' is invalid", status_code=400
    ),
    "429 rate limit": lambda: RateLimitError("slow down", status_code=429),
    "500 server error": lambda: ServerError("upstream failed", status_code=500),
    "400 context length": lambda: ContextLengthExceededError(
        "maximum context length exceeded", status_code=400
    ),
}
ENGINES: dict[str, CompactionConfig | DshConfig] = {
    "agentscope": CompactionConfig(trigger_messages=50, keep_messages=2),
    "dsh": DshConfig(meter=SEED_METER),
}


def _errors() -> tuple[ErrorOutcome, ...]:
    return tuple(_error(engine, name) for engine in ENGINES for name in ERRORS)


def _error(engine: str, name: str) -> ErrorOutcome:
    error = ERRORS[name]()
    purposes: list[str] = []

    def answer(request: ChatRequest) -> Message:
        purposes.append(request.purpose)
        if request.purpose != "agent":
            return Message.assistant("## Primary Request and Intent\n- earlier turns")
        raise error

    model = FunctionModel(answer, model_name="scripted")
    history = _history()
    agent = Agent(model, engine=make_engine(ENGINES[engine], model, history=history),
                  history=history)  # fmt: skip
    reached = False
    try:
        agent.call("next question")
    except APIStatusError as exc:
        reached = exc is error
    return ErrorOutcome(
        engine=engine,
        error=name,
        reached_caller=reached,
        summaries=sum(p == "summary" for p in purposes),
        agent_requests=purposes.count("agent"),
    )
