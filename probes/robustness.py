"""Robustness probes: malformed state, logs, cassettes, baselines and arguments are one typed
sentence; a full disk is a typed error; deep JSON is refused before parsing; requests and tool
work are bounded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from harness.errors import (
    ContextLengthExceededError,
    CtxlabError,
    StepLimitExceededError,
)
from harness.messages import Message, ToolCall, validate_pairing
from harness.meter.pricers import CHARS_PER_TOKEN
from harness.model import ChatRequest
from harness.testing import FunctionModel, Reply
from harness.tools import Tool
from probes.fakes import ROOT, Server, agent, completion, ctxlab, python, raw, say
from probes.registry import check, probe


def _one_sentence(error: BaseException, *names: object) -> None:
    text = str(error)
    check(isinstance(error, CtxlabError), f"not a typed error: {type(error).__name__}: {text}")
    check("\n" not in text.strip(), f"not one sentence: {text[:200]}")
    for name in names:
        check(str(name) in text, f"the error does not name {name}: {text[:200]}")


# --- 11. malformed state and event-log files ---------------------------------------------------

MESSAGE = b'{"epoch": 0, "message": {"role": "user", "content": "x"}}\n'
STATE_FILES = {
    "checkpoint-not-json": ("state/s1.json", b"{not json"),
    "checkpoint-a-list": ("state/s1.json", b"[1, 2]"),
    "checkpoint-without-context": ("state/s1.json", b'{"format": 2, "session_id": "s1"}'),
    "checkpoint-utf16": ("state/s1.json", '{"format": 2}'.encode("utf-16")),
    "checkpoint-bad-message": (
        "state/s1.json", b'{"format": 2, "session_id": "s1", "context": [{"x": 1}]}',
    ),
    "checkpoint-context-a-number": (
        "state/s1.json", b'{"format": 2, "session_id": "s1", "context": 5}',
    ),
    "checkpoint-unknown-format": (
        "state/s1.json", b'{"format": 9, "session_id": "s1", "context": []}',
    ),
    "checkpoint-binary": ("state/s1.json", bytes(range(256))),
    "journal-line-not-json": ("state/s1.journal.jsonl", b"garbage\n" + MESSAGE),
    "journal-line-a-number": ("state/s1.journal.jsonl", b"5\n" + MESSAGE),
    "journal-line-without-message": ("state/s1.journal.jsonl", b'{"epoch": 0}\n' + MESSAGE),
    "journal-bad-message": (
        "state/s1.journal.jsonl", b'{"epoch": 0, "message": {"x": 1}}\n' + MESSAGE,
    ),
    "eventlog-garbage-line": ("events/s1.jsonl", b"garbage\n"),
}  # fmt: skip


@probe("malformed-session-file", "robustness", 11, STATE_FILES)
def malformed_state(folder: Path, case: str) -> None:
    relative, data = STATE_FILES[case]
    path = folder / "u" / relative
    path.parent.mkdir(parents=True)
    store = "eventlog" if relative.startswith("events/") else "state"
    if store == "eventlog":  # a good log with one garbage line in the middle
        seed = agent(folder, FunctionModel(lambda r: "ok"), store)
        seed.call("one")
        seed.close()
        lines = path.read_bytes().splitlines(keepends=True)
        data = b"".join([*lines[:1], data, *lines[1:]])
    path.write_bytes(data)
    try:
        worker = agent(folder, FunctionModel(lambda r: "ok"), store)
        worker.call("hello")
        worker.close()
        raise AssertionError("a damaged session file was read as good")
    except CtxlabError as exc:
        _one_sentence(exc, path)
    check(path.read_bytes() == data, "the damaged file was rewritten")


@probe("malformed-memory-file", "robustness", 11, ("watermark-garbage", "memory-md-binary"))
def malformed_memory(folder: Path, case: str) -> None:
    from harness.harness_agent import HarnessAgent

    user = folder / "u"
    (user / "memory").mkdir(parents=True)
    if case == "watermark-garbage":
        (user / "memory" / ".consolidation_state").write_bytes(b"\xff\xfegarbage")
    else:
        (user / "MEMORY.md").write_bytes(bytes(range(256)) * 10)
    worker = HarnessAgent(
        FunctionModel(lambda r: "NO_REPLY" if r.purpose != "agent" else "ok"),
        workspace_root=folder, user_id="u", session_id="s1", disable_compaction=True,
    )  # fmt: skip
    try:
        worker.call("hello")
        worker.await_quiescence(30)
        outcome = worker.consolidate_now()
        check(outcome.status in ("failed", "skipped", "written"), f"odd outcome {outcome}")
    except CtxlabError as exc:
        _one_sentence(exc)
    finally:
        worker.close()


# --- 12. a full disk -----------------------------------------------------------------------------

FULL_DISK = """
import resource, signal, sys
from pathlib import Path
from harness.errors import StorageError
from harness.testing import FunctionModel
from probes.fakes import agent

root, store = Path(sys.argv[1]), sys.argv[2]
writer = agent(root, FunctionModel(lambda r: "ok " * 2000), store)
writer.call("kept")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
used = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
resource.setrlimit(resource.RLIMIT_FSIZE, (used + 20_000, resource.RLIM_INFINITY))
try:
    for n in range(200):
        writer.call(f"turn {n} " + "x" * 5000)
except StorageError as exc:
    print("typed:", str(exc).replace(chr(10), " "))
"""


@probe("disk-full", "robustness", 12, ("eventlog", "state"))
def disk_full(folder: Path, store: str) -> None:
    child = python(FULL_DISK, str(folder), store)
    out, err = child.communicate(timeout=300)
    check(child.returncode == 0, f"raw error on a full disk: {err.strip().splitlines()[-1:]}")
    check(out.startswith("typed:"), "the file never filled up")
    reopened = agent(folder, FunctionModel(lambda r: "ok"), store)
    texts = [m.content for m in reopened.agent.context]
    reopened.close()
    check("kept" in texts, "a saved turn was lost")


# --- 13, 14. deep JSON: tool arguments, replies, cassettes -------------------------------------

DEEP = "[" * 200_000 + "]" * 200_000


def _calls(*calls: tuple[str, str, str]) -> tuple[int, bytes, str]:
    wire = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls
    ]
    return completion({"role": "assistant", "content": None, "tool_calls": wire})


def tick() -> str:
    """Tick."""
    return "ticked"


ARGUMENTS = {
    "200000-deep": DEEP,
    "not-json": "{not json",
    "a-list": "[1, 2]",
    "unknown-tool": "{}",
    "tool-raises": "{}",
}


@probe("hostile-tool-call", "robustness", 13, ARGUMENTS)
def hostile_tool_call(folder: Path, case: str) -> None:
    def boom() -> str:
        """Fail."""
        raise RuntimeError("the tool broke")

    name = {"unknown-tool": "no_such_tool", "tool-raises": "boom"}.get(case, "tick")
    replies = [_calls(("c1", name, ARGUMENTS[case])), say("recovered")]
    with Server(replies) as server:
        worker = agent(
            folder, server.client(), tools=[Tool.from_function(tick), Tool.from_function(boom)]
        )
        result = worker.call("go")
        worker.close()
        follow = server.bodies[1]["messages"]
    check(result.text == "recovered", "the call did not go on")
    results = [m for m in follow if m["role"] == "tool"]
    check(len(results) == 1 and "rror" in results[0]["content"], "no error result for the model")


@probe("deep-reply-body", "robustness", 13)
def deep_reply(folder: Path) -> None:
    body = b'{"choices": [{"message": {"role": "assistant", "content": ' + DEEP.encode() + b"}}]}"
    with Server([raw(200, body, "application/json")]) as server:
        worker = agent(folder, server.client())
        try:
            worker.call("go")
            raise AssertionError("a 200,000-deep body was read")
        except CtxlabError as exc:
            _one_sentence(exc)
        finally:
            worker.close()


CASSETTES = {
    "100000-deep": '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "not-json": "{not json",
    "a-list": "[1, 2, 3]",
}


@probe("malformed-cassette", "robustness", 14, CASSETTES)
def malformed_cassette(folder: Path, case: str) -> None:
    cassettes = folder / "cassettes"
    shutil.copytree(ROOT / "cassettes" / "E3", cassettes / "E3")
    planted = sorted(cassettes.rglob("*.json"))
    for path in planted:
        path.write_text(CASSETTES[case], encoding="utf-8")
    run = ctxlab("run", "E3", "--cassettes", str(cassettes), "--out", str(folder / "r"))
    _, err = run.communicate(timeout=600)
    check(run.returncode != 0, "a malformed cassette was replayed")
    check("Traceback" not in err, f"a raw traceback: {err.strip().splitlines()[-1:]}")
    check(any(str(p) in err for p in planted), "the error does not name the cassette")


# --- 15. baselines, and the arguments of the command ----------------------------------------------


@probe("malformed-baseline", "robustness", 15, ("utf-16", "20-mb-field", "binary"))
def malformed_baseline(folder: Path, case: str) -> None:
    from lab.baseline import read_baseline

    path = folder / "claims.csv"
    header = "experiment,claim_id,status,note\n"
    if case == "utf-16":
        path.write_bytes((header + "E1,E1-X,match,fine\n").encode("utf-16"))
    elif case == "binary":
        path.write_bytes(bytes(range(256)) * 50)
    else:
        path.write_text(header + 'E1,E1-X,match,"' + "x" * 20_000_000 + '"\n', encoding="utf-8")
    try:
        read_baseline(path)
        if case != "binary":
            raise AssertionError("an unreadable baseline was read")
    except CtxlabError as exc:
        _one_sentence(exc, path)


COMMANDS = {
    "unknown-experiment": ["run", "E99", "--out", "{folder}/r"],
    "out-is-a-file": ["run", "E1", "--out", "{folder}/file"],
    "compact-no-session": ["compact", "--workspace", "{folder}", "--user", "u", "--session", "s9",
                           "--provider", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1",
                           "--model", "m"],
    "record-without-key": ["record", "E3", "--provider", "deepseek", "--cassettes", "{folder}/c",
                           "--out", "{folder}/r"],
    "bad-number": ["compact", "--workspace", "{folder}", "--session", "s1", "--keep", "-3"],
}  # fmt: skip


@probe("bad-command-arguments", "robustness", 15, COMMANDS)
def bad_arguments(folder: Path, case: str) -> None:
    (folder / "file").write_text("x")
    args = [a.replace("{folder}", str(folder)) for a in COMMANDS[case]]
    run = ctxlab(*args, env={"DEEPSEEK_API_KEY": ""})
    _, err = run.communicate(timeout=300)
    check(run.returncode not in (0, 1) or "Traceback" not in err, "exit 0 on a bad command")
    check(run.returncode != 0, "a bad command succeeded")
    check("Traceback" not in err, f"a raw traceback: {err.strip().splitlines()[-1:]}")
    check(err.strip(), "no word on stderr")


# --- 16. provider answers ---------------------------------------------------------------------

REPLIES = {
    "plain-text-too-long": raw(400, "Input is too long for requested model."),
    "html-500": raw(500, "<html><body>Internal Server Error</body></html>", "text/html"),
    "empty-200": raw(200, b"", "application/json"),
    "truncated-200": raw(200, b'{"choices": [{"message": {"role": "assis', "application/json"),
    "no-choices-200": raw(200, b'{"choices": []}', "application/json"),
    "not-utf8-200": raw(200, b"\xff\xfe{}", "application/json"),
}


@probe("provider-reply", "robustness", 16, REPLIES)
def provider_reply(folder: Path, case: str) -> None:
    with Server([REPLIES[case]] * 4) as server:
        try:
            server.client().complete(ChatRequest(messages=(Message.user("hi"),)))
            raise AssertionError("a bad reply was taken as an answer")
        except CtxlabError as exc:
            _one_sentence(exc)
            if case == "plain-text-too-long":
                check(isinstance(exc, ContextLengthExceededError), f"not a context error: {exc!r}")


@probe("context-length-as-plain-text-compacts", "robustness", 16)
def plain_text_overflow(folder: Path) -> None:
    from harness.compaction.agentscope import CompactionConfig
    from harness.harness_agent import HarnessAgent

    seen: list[str] = []
    refuse = {"next": False}

    def answer(body: dict[str, object]) -> tuple[int, bytes, str]:
        if "tools" not in body:  # the summary request (the agent's carries the memory tools)
            seen.append("summary")
            return say("## SESSION INTENT\nchat\n## SUMMARY\nshort")
        seen.append("agent")
        if refuse["next"]:
            refuse["next"] = False
            return raw(400, "Input is too long for requested model.")
        return say("fine")

    with Server(answer=answer) as server:
        worker = HarnessAgent(
            server.client(), workspace_root=folder, user_id="u", session_id="s1",
            disable_memory_hooks=True, compaction=CompactionConfig.count_only(50, 2),
        )  # fmt: skip
        for n in range(6):
            worker.call(f"turn {n} " + "x" * 1500)
        refuse["next"] = True
        try:
            result = worker.call("one more")
        except CtxlabError as exc:
            raise AssertionError(f"no compaction and retry: {exc!r} {seen}") from None
        finally:
            worker.close()
    check(result.text == "fine", "the retry did not answer")
    check(seen[-3:] == ["agent", "summary", "agent"], f"no compaction before the retry: {seen}")


# --- 17, 18, 19, 22. bounded work ---------------------------------------------------------------

BUDGET_CHARS = int(20_000 * CHARS_PER_TOKEN)


def _size(request: ChatRequest) -> int:
    return sum(len(m.content) for m in request.messages)


@probe("huge-memory-md", "robustness", 17, ("flush", "consolidation"))
def huge_memory(folder: Path, purpose: str) -> None:
    from harness.harness_agent import HarnessAgent
    from harness.memory.clock import SteppingClock
    from harness.memory.runtime import MemoryConfig

    (folder / "u").mkdir()
    huge = "".join(f"- fact {n}: " + "m" * 90 + "\n" for n in range(200_000))  # 20 MB
    (folder / "u" / "MEMORY.md").write_text(huge, encoding="utf-8")
    model = FunctionModel(
        lambda r: {"flush": "- a fact", "consolidation": "# Memory\n- facts"}.get(r.purpose, "ok")
    )
    worker = HarnessAgent(
        model, workspace_root=folder, user_id="u", session_id="s1", disable_compaction=True,
        memory=MemoryConfig(background_order="flush_first"), clock=SteppingClock(10**18),
    )  # fmt: skip
    worker.call("remember: the port is Shanghai")
    check(worker.await_quiescence(120), "the memory work never ended")
    worker.close()
    sent = [r for r in model.requests if r.purpose == purpose]
    check(sent, f"no {purpose} request")
    check(max(map(_size, sent)) <= BUDGET_CHARS, f"a {purpose} request exceeds the budget")
    kept = list((folder / "u" / "memory" / "archive").glob("MEMORY-*.md"))
    if purpose == "consolidation":
        check([p.read_text(encoding="utf-8") for p in kept] == [huge], "MEMORY.md lost unarchived")


@probe("long-backlog-memory-requests", "robustness", 17, ("flush", "consolidation"))
def backlog_memory(folder: Path, purpose: str) -> None:
    from harness.memory.clock import SteppingClock
    from harness.memory.consolidation import Consolidator
    from harness.memory.flush import MemoryFlusher
    from harness.memory.workspace import MemoryWorkspace

    workspace = MemoryWorkspace(folder, "u", SteppingClock(10**18))
    model = FunctionModel(lambda r: "- a fact" if r.purpose == "flush" else "# Memory\n- f")
    if purpose == "flush":
        backlog = [Message.user(f"turn {n:05d} " + "x" * 480) for n in range(4_000)]
        MemoryFlusher(model, workspace, max_request_tokens=20_000).flush(backlog)
        sent = "".join(r.messages[-1].content for r in model.requests)
        check(all(f"turn {n:05d} " in sent for n in range(4_000)), "a message reached no flush")
    else:
        for n in range(600):
            workspace.append_entry("Memory Flush", f"- entry {n:04d} " + "e" * 900)
        outcome = Consolidator(model, workspace, max_request_tokens=20_000).consolidate()
        check(outcome.status == "written", f"consolidation {outcome.status}")
        check(workspace.entries(since=workspace.read_watermark()) == [], "entries left behind")
    check(max(map(_size, model.requests)) <= BUDGET_CHARS, "a request exceeds the budget")


def _backlog(folder: Path, size: int) -> None:
    from harness.store.statefile import AgentState, JsonStateStore

    messages = []
    for n in range(size // 2):
        messages += [Message.user(f"order {n:06d} ships to Hamburg"), Message.assistant("noted")]
    JsonStateStore(folder / "u" / "state").save(AgentState("s1", messages))


@probe("reopened-backlog", "robustness", 18, ("chunks-fit", "chunk-fails"))
def reopened_backlog(folder: Path, case: str) -> None:
    import dataclasses

    from harness.compaction.agentscope import ctxlab_profile
    from harness.compaction.agentscope.profile import CTXLAB_SUMMARY_CHUNK_TOKENS
    from harness.errors import ServerError
    from harness.harness_agent import HarnessAgent

    window = int(CTXLAB_SUMMARY_CHUNK_TOKENS * CHARS_PER_TOKEN) + 10_000
    size = 20_000
    _backlog(folder, size)
    summaries = {"n": 0}

    def model(request: ChatRequest) -> Reply:
        if _size(request) > window:
            raise ContextLengthExceededError(
                "Input is too long for requested model.", status_code=400
            )
        if request.purpose == "summary":
            summaries["n"] += 1
            if case == "chunk-fails" and summaries["n"] >= 3:
                raise ServerError("upstream failed", status_code=500)
            return "## SESSION INTENT\nship orders\n## SUMMARY\norders so far\n"
        return {"flush": "NO_REPLY", "consolidation": "# Memory\n"}.get(request.purpose, "done")

    worker = HarnessAgent(
        FunctionModel(model), workspace_root=folder, user_id="u", session_id="s1",
        compaction=dataclasses.replace(ctxlab_profile(), gate=None), disable_memory_hooks=True,
    )  # fmt: skip
    try:
        result = worker.call("what is the last order?")
        check(case == "chunks-fit", "a failing chunk was not reported")
        check(result.text == "done", "no answer")
        first = worker.agent.context[0]
        check(
            first.is_summary and "unavailable" not in first.content, "the backlog left unsummarised"
        )
    except ContextLengthExceededError:
        check(case == "chunk-fails", "the chunks did not fit")
        context = worker.agent.context
        check(context[0].content == "order 000000 ships to Hamburg", "the backlog was dropped")
        check(len(context) == size + 1, "messages were lost")
    finally:
        worker.close()


@probe("many-tool-calls-in-one-reply", "robustness", 19, ("10000-in-memory", "1000-saved"))
def many_tool_calls(folder: Path, case: str) -> None:
    from harness.agent import Agent

    count = 10_000 if case.startswith("10000") else 1_000
    ran: list[int] = []

    def work(n: int) -> str:
        """Work on n."""
        ran.append(n)
        return "ok"

    calls = [(f"c{n}", "work", json.dumps({"n": n})) for n in range(count)]
    with Server([_calls(*calls), say("done")]) as server:
        tools = [Tool.from_function(work)]
        saved = None if case.startswith("10000") else agent(folder, server.client(), tools=tools)
        worker = saved.agent if saved else Agent(server.client(), tools=tools, max_steps=20)
        try:
            (saved or worker).call("go")
            raise AssertionError("the excess did not count against max_steps")
        except StepLimitExceededError as exc:
            partial = exc.partial
        if saved is not None:
            saved.close()
    check(len(ran) == 20, f"{len(ran)} tools ran, not max_steps")
    check(partial is not None, "no partial result")
    messages = list(partial.messages) if partial else []
    results = [m for m in messages if m.role == "tool"]
    check(len(results) == 20, f"{len(results)} results kept, not the 20 calls run")
    note = f"other {count - 20} were dropped"
    check(any(note in m.content for m in messages if m.role == "assistant"), "no dropped note")
    validate_pairing(messages)


@probe("tool-calls-past-the-cap-use-steps", "robustness", 22)
def cap_uses_steps(folder: Path) -> None:
    from harness.agent import Agent

    numbers = iter(range(10**6))

    def keeps_calling(request: ChatRequest) -> Message:
        many = 25 if len(model.requests) == 1 else 1
        calls = [ToolCall(f"k{next(numbers)}", "tick", "{}") for _ in range(many)]
        return Message.assistant("", calls)

    model = FunctionModel(keeps_calling)
    worker = Agent(model, tools=[Tool.from_function(tick)], max_steps=20)
    try:
        worker.call("go")
        raise AssertionError("the step limit never came")
    except StepLimitExceededError:
        pass
    check(len(model.requests) == 15, f"{len(model.requests)} requests, not 1 + 5 + 14 steps' worth")
    validate_pairing(list(worker.context))


DEEP_FILES = {
    "eventlog-last-line": ("eventlog", "events/s1.jsonl", "last"),
    "eventlog-middle-line": ("eventlog", "events/s1.jsonl", "middle"),
    "journal-last-line": ("state", "state/s1.journal.jsonl", "last"),
    "checkpoint": ("state", "state/s1.json", "whole"),
    "transcript-last-line": ("state", "sessions/s1.jsonl", "last"),
}


@probe("recursion-in-a-saved-file", "robustness", 13, DEEP_FILES)
def deep_saved(folder: Path, case: str) -> None:
    store, relative, where = DEEP_FILES[case]
    seed = agent(folder, FunctionModel(lambda r: "ok"), store)
    for n in range(3):
        seed.call(f"turn {n}")
    seed.close()
    path = folder / "u" / relative
    deep = ("[" * 100_000 + "]" * 100_000).encode()
    if where == "whole":
        path.write_bytes(deep)
    else:
        lines = path.read_bytes().splitlines(keepends=True)
        at = len(lines) if where == "last" else len(lines) // 2
        path.write_bytes(b"".join([*lines[:at], deep + b"\n", *lines[at:]]))
    try:
        again = agent(folder, FunctionModel(lambda r: "ok"), store)
        again.call("after")
        again.close()
    except CtxlabError as exc:
        _one_sentence(exc, path)
