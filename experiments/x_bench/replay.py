"""One X-BENCH conversation through the real agent loop, under one condition.

The conversation is scripted: a scripted agent model (named ``scripted``) answers each user turn
with the turn's tool call, then with the turn's reply, and the tool returns the turn's recorded
result, so the loop builds exactly the corpus's messages; the condition's engine compacts by its
own rules before every request. Summary calls go to the summary model (a recorded cassette, or
the gate-alone condition's scripted placeholder). After the last turn the probe asks every
fact's question at once, numbered, from the context as it stands (:func:`probe_request`); it is
sent only when a summary model is given.

A condition whose thrash guard stops the session (ctxlab's own profile raises
:class:`~harness.errors.CompactionThrashError` when the context refills to the trigger right
after each of three compactions in a row) is not an error of the benchmark: the conversation
ends at that turn, as a user's session would, the stop is recorded on the run
(:attr:`ConversationRun.stopped_at`), and the probe asks from the context as the stop left it,
so what came after the stop counts as lost.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from experiments.x_bench.conditions import GATE_ONLY_SUMMARY, Budget, Condition
from experiments.x_bench.corpus import call_id
from experiments.x_bench.pricing import RunningPrice, agentscope_price
from experiments.x_bench.schema import Conversation, Turn
from harness import Agent, CompactionEngine, FunctionModel, Message, Tool, ToolCall
from harness.compaction.engine import Turn as Request
from harness.compaction.guards.recall import RecallRecord
from harness.compaction.record import CompactionRecord
from harness.errors import CompactionThrashError, ScriptError
from harness.meter import Reading, TokenMeter
from harness.meter.pricers import estimate_text_tokens
from harness.model import ChatModel, ChatRequest, ChatResponse, Usage
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.history import History, StateHistory

__all__ = [
    "AGENT_MODEL",
    "CompactionSeen",
    "ConversationRun",
    "context_text",
    "probe_request",
    "probe_text",
    "probed",
    "run_conversation",
]

AGENT_MODEL = "scripted-bench-agent"

PROBE_INTRO = {
    "en": (
        "Answer each question below from this conversation alone: one numbered line per "
        "question, with the exact value where there is one. If the conversation does not say, "
        'answer "not known".'
    ),
    "zh": (
        "只根据上面的对话回答下列问题：每题一行，带编号，有确切值的写出确切值。"
        "对话里没有说的，回答“不知道”。"
    ),
}


def probe_text(conversation: Conversation) -> str:
    """The probe: every fact's question, numbered from 1 in the fact list's order."""
    questions = [f"{n}. {fact.question}" for n, fact in enumerate(conversation.facts, 1)]
    return "\n".join([PROBE_INTRO[conversation.lang], *questions])


def probe_request(
    conversation: Conversation, context: Sequence[Message], reference: Sequence[Message] = ()
) -> ChatRequest:
    """The probe as the model gets it: the system prompt, the reference material a recall put
    in for it (after the system prompt, where the agent loop puts it), the context, the
    questions."""
    head = (Message.system(conversation.system),) if conversation.system else ()
    user = Message.user(probe_text(conversation))
    return ChatRequest(messages=(*head, *reference, *context, user), purpose="probe")


def context_text(context: Sequence[Message]) -> str:
    """What the model sees of a context, as one text: every message's content and every tool
    call's arguments."""
    parts = []
    for message in context:
        parts.append(message.content)
        parts.extend(call.arguments for call in message.tool_calls)
    return "\n".join(parts)


@dataclass(frozen=True)
class CompactionSeen:
    """One compaction, as X-BENCH reads it."""

    turn: int
    """The turn during which it fired."""
    tokens_before: int | None
    tokens_after: int | None
    """Carried tokens: the context's estimate right after it."""
    summary: str
    summary_failed: bool
    gate_added: int
    context_at_turn_end: str
    """The context's text at the end of that turn (survival after this compaction)."""


@dataclass(frozen=True)
class SummaryCall:
    prompt_tokens: int
    completion_tokens: int
    """Estimator tokens of the request's messages and of the answer."""
    usage_prompt: int | None
    usage_completion: int | None
    """What the server reported, when it did."""


@dataclass
class ConversationRun:
    """What one conversation under one condition did."""

    conversation: str
    condition: str
    budget: Budget
    compactions: list[CompactionSeen] = field(default_factory=list)
    context: tuple[Message, ...] = ()
    """The context at the end, before the probe."""
    reference: tuple[Message, ...] = ()
    """What the condition's recall put in the probe's request (after the system prompt); empty
    for a condition without one."""
    recalled: tuple[str, ...] = ()
    """The recalled texts of :attr:`reference`, verbatim (the recall's record)."""
    agent_prompt_tokens: list[int] = field(default_factory=list)
    """Per turn: the estimator tokens of that turn's agent requests."""
    summary_calls: list[SummaryCall] = field(default_factory=list)
    probe_answer: str | None = None
    """None when no model answered the probe."""
    stopped_at: int | None = None
    """The turn during which the condition's thrash guard stopped the session (the turns after
    it were not played); None when every turn was."""
    stop_reason: str = ""
    """The guard's error message, when it stopped the session."""

    @property
    def probe_context(self) -> tuple[Message, ...]:
        """What the model sees for the probe request, the questions aside: the recalled
        reference material and the context. Survival and the final tokens are measured on it, so
        a value recalled for the probe counts and one left in the log does not."""
        return (*self.reference, *self.context)

    @property
    def final_tokens(self) -> int:
        """AgentScope's estimate of :attr:`probe_context` (its messages' prices cached on them:
        the context's were priced as the run played)."""
        return agentscope_price(self.probe_context)

    @property
    def text(self) -> str:
        return context_text(self.probe_context)

    def turns_in_context(self, conversation: Conversation) -> set[int]:
        """The turns whose user message is in the final context verbatim."""
        users = {m.content for m in self.context if m.role == "user"}
        return {t.index for t in conversation.turns if t.user in users}


class _Script:
    """The scripted agent: the current turn's tool call, then its reply."""

    def __init__(self) -> None:
        self.turn: Turn | None = None
        self.requests_in_turn = 0

    def reply(self, request: ChatRequest) -> str | Message:
        if request.purpose != "agent" or self.turn is None:
            raise ScriptError(f"the scripted agent got a {request.purpose!r} request")
        self.requests_in_turn += 1
        turn = self.turn
        if turn.tool is not None and self.requests_in_turn == 1:
            arguments = json.dumps(turn.tool.arguments, ensure_ascii=False)
            return Message.assistant("", [ToolCall(call_id(turn), turn.tool.name, arguments)])
        return turn.assistant

    def result(self, **_: object) -> str:
        if self.turn is None or self.turn.tool is None:
            raise ScriptError("a tool was called in a turn without one")
        return self.turn.tool.result


class _CountingModel:
    """Passes requests to ``model`` and prices each summary call."""

    def __init__(self, model: ChatModel) -> None:
        self.inner = model
        self.calls: list[SummaryCall] = []

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def provider(self) -> str:
        return getattr(self.inner, "provider", "")

    def complete(self, request: ChatRequest) -> ChatResponse:
        response = self.inner.complete(request)
        usage = response.usage
        self.calls.append(
            SummaryCall(
                agentscope_price(request.messages),
                estimate_text_tokens(response.message.content),
                usage.prompt_tokens if usage else None,
                usage.completion_tokens if usage else None,
            )
        )
        return response


class _Witness:
    """The condition's engine, every compaction record kept as it is made: a call that the
    thrash guard stops returns no result to read the records of its earlier requests from."""

    def __init__(self, engine: CompactionEngine) -> None:
        self.inner = engine
        self.records: list[CompactionRecord] = []

    def before_request(self, history: History, turn: Request) -> list[CompactionRecord]:
        records = self.inner.before_request(history, turn)
        self.records += records
        return records

    def on_overflow(self, history: History, turn: Request) -> list[CompactionRecord]:
        records = self.inner.on_overflow(history, turn)
        self.records += records
        return records

    def observe(self, history: History, turn: Request, usage: Usage | None) -> Reading:
        return self.inner.observe(history, turn, usage)

    def recall(self, history: History, query: str) -> tuple[Message | None, RecallRecord | None]:
        """The engine's recall for ``query`` (``(None, None)`` for an engine without one)."""
        own = getattr(self.inner, "recall", None)
        return own(history, query) if own is not None else (None, None)

    @property
    def meter(self) -> TokenMeter:
        return self.inner.meter

    @property
    def max_overflow_retries(self) -> int:
        return self.inner.max_overflow_retries

    @property
    def overflow_retries_reset_on_reply(self) -> bool:
        return self.inner.overflow_retries_reset_on_reply


def _tools(conversation: Conversation, script: _Script) -> list[Tool]:
    names: dict[str, set[str]] = {}
    for turn in conversation.turns:
        if turn.tool is not None:
            names.setdefault(turn.tool.name, set()).update(turn.tool.arguments)
    return [
        Tool(
            name,
            conversation.tool_description,
            {
                "type": "object",
                "properties": {k: {"type": "string"} for k in sorted(keys)},
                "required": sorted(keys),
            },
            script.result,
        )
        for name, keys in sorted(names.items())
    ]


def _history(condition: Condition) -> History:
    if condition.store == "eventlog":
        return EventLogHistory(EventLog(None))
    return StateHistory(f"bench-{condition.name}")


def run_conversation(
    conversation: Conversation,
    condition: Condition,
    budget: Budget,
    summary_model: ChatModel | None = None,
) -> ConversationRun:
    """Play ``conversation`` under ``condition``; the probe is asked when ``summary_model`` is
    given (a condition that needs a model must get one)."""
    if condition.needs_model and summary_model is None:
        raise ScriptError(f"the condition {condition.name!r} needs a summary model")
    script = _Script()
    agent_model = FunctionModel(script.reply, model_name=AGENT_MODEL)
    counting = _counting_summarizer(condition, summary_model)
    agent, witness = _agent(conversation, condition, budget, agent_model, counting, script)
    run = ConversationRun(conversation.id, condition.name, budget)
    _play_turns(conversation, agent, agent_model, script, witness, run)
    run.context = agent.context
    if witness is not None:
        found, record = witness.recall(agent.history, probe_text(conversation))
        run.reference = (found,) if found is not None else ()
        run.recalled = record.recalled if record is not None else ()
    if counting is not None and condition.needs_model:
        run.summary_calls = list(counting.calls)
    return probed(conversation, run, summary_model)


def probed(
    conversation: Conversation, run: ConversationRun, model: ChatModel | None
) -> ConversationRun:
    """``run`` with ``model``'s answer to the probe (``run`` itself when no model is given; a
    copy otherwise, so a model-free play can be probed by several models)."""
    if model is None:
        return run
    answer = model.complete(probe_request(conversation, run.context, run.reference))
    return replace(run, probe_answer=answer.message.content)


def _counting_summarizer(
    condition: Condition, summary_model: ChatModel | None
) -> _CountingModel | None:
    """The summary model (a scripted one where the condition says so), its calls counted."""
    summarizer: ChatModel | None = summary_model
    if condition.scripted_summary:
        summarizer = FunctionModel(lambda _: GATE_ONLY_SUMMARY, model_name="scripted")
    return _CountingModel(summarizer) if summarizer is not None else None


def _agent(
    conversation: Conversation,
    condition: Condition,
    budget: Budget,
    agent_model: FunctionModel,
    counting: _CountingModel | None,
    script: _Script,
) -> tuple[Agent, _Witness | None]:
    history = _history(condition)
    engine = condition.build(budget, agent_model, counting, history)
    witness = _Witness(engine) if engine is not None else None
    agent = Agent(
        agent_model,
        conversation.system,
        tools=_tools(conversation, script),
        engine=witness,
        history=history,
        max_steps=4,
    )
    return agent, witness


def _play_turns(
    conversation: Conversation,
    agent: Agent,
    agent_model: FunctionModel,
    script: _Script,
    witness: _Witness | None,
    run: ConversationRun,
) -> None:
    """Each user turn through the agent: its compactions and the agent's prompt tokens; a stop
    by the thrash guard ends the conversation at its turn (recorded on ``run``)."""
    priced = RunningPrice()  # each request repeats the one before it
    for turn in conversation.turns:
        script.turn, script.requests_in_turn = turn, 0
        seen = len(agent_model.requests)
        made = len(witness.records) if witness is not None else 0
        try:
            agent.call(turn.user)
        except CompactionThrashError as error:
            run.stopped_at, run.stop_reason = turn.index, str(error)
        records = witness.records[made:] if witness is not None else []
        if records:
            text = context_text(agent.context)
            run.compactions += [_seen(turn.index, record, text) for record in records]
        run.agent_prompt_tokens.append(
            sum(priced.of(r.messages) for r in agent_model.requests[seen:])
        )
        if run.stopped_at is not None:
            return


def _seen(turn: int, record: CompactionRecord, text: str) -> CompactionSeen:
    added = record.gate.get("added", []) if record.gate else []
    return CompactionSeen(
        turn=turn,
        tokens_before=record.total_tokens,
        tokens_after=record.tokens_after,
        summary=record.summary,
        summary_failed=record.summary_failed,
        gate_added=len(added) if isinstance(added, list) else 0,
        context_at_turn_end=text,
    )
