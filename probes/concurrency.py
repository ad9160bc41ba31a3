"""Concurrency, kill and key probes of the commands: two ``ctxlab compact`` on one session, a
``ctxlab compact`` beside a live agent call, two ``ctxlab bench`` on one ``--out``, a bench
killed with ``kill -9`` while a request is in flight, and an API key that must never reach a
file (or the output) through ``record``, ``bench``, ``run``, ``compact`` or a provider error.

Every fault is real: child processes, file locks, a SIGKILL or SIGSTOP, and model servers on
127.0.0.1 that hold an answer back until the probe has made its fault (an event the probe
polls for, never a fixed sleep)."""

from __future__ import annotations

import csv
import json
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.messages import Message
from harness.model import ChatRequest
from harness.testing import FunctionModel
from probes.fakes import ROOT, Reply, Server, agent, completion, ctxlab, python, raw, say
from probes.registry import check, probe

DEFECT = 28
KEY_ENV = "CTXLAB_PROBE_SECRET"
SUMMARY = (
    "## SESSION INTENT\nship to Hamburg\n## SUMMARY\ncode ALPHA\n"
    "## ARTIFACTS\nNone\n## NEXT STEPS\nNone"
)
DSH_SUMMARY = "## Primary Request and Intent\n- ports and logging"
DSH_FIXTURE = ROOT / "tests" / "data" / "dsh" / "two-turns-resumed" / "session.jsonl"
PATIENCE = 60.0
"""Seconds any one awaited event may take before the probe gives up (a failure, never a hang)."""


# --- helpers ------------------------------------------------------------------------------------


def _poll(
    predicate: Callable[[], bool], what: str, seconds: float = PATIENCE, *, fail: bool = True
) -> bool:
    """Poll ``predicate`` until it holds; after ``seconds`` fail the probe naming ``what`` (or
    return False when ``fail`` is off)."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            check(not fail, f"{what} never happened in {seconds:g} s")
            return False
        time.sleep(0.005)  # a poll of the event, not a fixed wait
    return True


def _finish(proc: subprocess.Popen[str], seconds: float = PATIENCE) -> tuple[str, str]:
    """The output of ``proc`` once it ends (killed and failed when it outlives ``seconds``)."""
    try:
        return proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        check(False, f"a child took over {seconds:g} s: {err.strip()[-300:]}")
        return out, err


def _alive(proc: subprocess.Popen[str], what: str) -> None:
    """Fail, with its output, when ``proc`` has already ended."""
    if proc.poll() is not None:
        check(False, f"{what} ended early: {proc.communicate()}")


def _one_sentence(err: str, what: str) -> str:
    """The refusal on stderr: one line, ``ctxlab: …``, no traceback."""
    lines = err.strip().splitlines()
    check("Traceback" not in err, f"{what}: a traceback instead of a sentence: {err[-400:]}")
    check(len(lines) == 1 and lines[0].startswith("ctxlab: "), f"{what}: not one sentence: {err!r}")
    return lines[0]


def _events(path: Path) -> list[str]:
    from harness.store.eventlog import EventLog

    return [e.type for e in EventLog.replay(path).events]


def _messages(path: Path) -> list[Message]:
    from harness.store.eventlog import EventLog

    return list(EventLog.replay(path).messages())


def _audit(base: Path) -> list[dict[str, Any]]:
    path = base / "audit.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _seeded(root: Path, store: str, turns: int = 4) -> None:
    seed = agent(root, FunctionModel(lambda r: f"answer {len(r.messages)}"), store)
    for n in range(turns):
        seed.call(f"question {n} " + "x" * 200)
    seed.close()


def _saved_messages(root: Path, store: str) -> list[Message]:
    """The saved session's messages, read as a fresh process would (no lock taken)."""
    if store == "state":
        from harness.store.statefile import JsonStateStore

        return list(JsonStateStore(root / "u" / "state").load("s1").context)
    return _messages(root / "u" / "events" / "s1.jsonl")


def _compact_command(url: str, engine: str, where: list[str], *extra: str) -> list[str]:
    return [
        "compact", *where, "--engine", engine, "--provider", "openai-compatible", "--base-url",
        url, "--model", "m", "--api-key-env", KEY_ENV, *extra,
    ]  # fmt: skip


def _key_env() -> dict[str, str]:
    return {KEY_ENV: "sk-probe-compact-000000000000"}


# --- two ctxlab compact at once on one session --------------------------------------------------

COMPACT_FORMS = ("ctxlab", "state", "dsh")
"""The session: ctxlab's event log, a state-file session, a DeepSeek-Harness session file."""


@probe("two-ctxlab-compact-one-session", "data-loss", DEFECT, COMPACT_FORMS)
def two_compacts(folder: Path, form: str) -> None:
    # Could it fail? With manual compaction taking no lock (harness/compaction/manual/lock.py
    # yielding at once) both summarise one state: the event-log forms fail on the loser's
    # commit error ("refused, but not as busy"), the state form on "two compactions of one
    # state" (tried by hand).
    if form == "dsh":
        session = folder / "fixture"
        session.mkdir()
        log = session / "session.jsonl"
        shutil.copy(DSH_FIXTURE, log)
        where, base, engine, summary = ["--file", str(log)], session, "dsh", DSH_SUMMARY
    else:
        _seeded(folder, "state" if form == "state" else "eventlog")
        log = folder / "u" / "events" / "s1.jsonl"
        where = ["--workspace", str(folder), "--user", "u", "--session", "s1"]
        base, engine, summary = folder / "u", "agentscope", SUMMARY
    before_bytes = log.read_bytes() if form != "state" else b""
    ends_before = _events(log).count("compaction/end") if form != "state" else 0
    before = _messages(log) if form != "state" else _saved_messages(folder, "state")
    release = threading.Event()

    def answer(body: Any) -> Reply:
        release.wait(PATIENCE)  # the first summary is held until the other compact has ended
        return say(summary)

    with Server(answer=answer) as server:
        command = _compact_command(server.url, engine, where)
        runs = [ctxlab(*command, env=_key_env()) for _ in range(2)]
        try:
            ended = lambda: all(r.poll() is not None for r in runs)  # noqa: E731
            _poll(lambda: bool(server.bodies) or ended(), "a summary request")
            # overlap for sure: one compact is in its summary call while the other runs; a
            # compact that waits for the lock instead of refusing is released after a while
            _poll(
                lambda: len(server.bodies) > 1 or any(r.poll() is not None for r in runs),
                "the second compact's end",
                10.0,
                fail=False,
            )
        finally:
            release.set()
        outputs = [_finish(run) for run in runs]
    compacted = 0
    for run, (out, err) in zip(runs, outputs, strict=True):
        if run.returncode == 0:
            check(out.startswith("Compacted ") or "No compactable" in out, f"said {out!r}")
            compacted += out.startswith("Compacted")
        else:
            line = _one_sentence(err, "a refused compact")
            check(run.returncode == 2 and "busy" in line, f"refused, but not as busy: {line}")
    check(compacted >= 1, f"neither compact compacted: {outputs}")
    lines = [a for a in _audit(base) if a.get("outcome") == "compacted"]
    check(len(lines) == compacted, f"{compacted} compacted, {len(lines)} audited as compacted")
    if len(lines) == 2:  # one after the other: the second must have seen the first's result
        check(
            lines[1]["messages_before"] == lines[0]["messages_after"],
            f"two compactions of one state: {lines[0]['messages_before']} messages each",
        )
    if form != "state":
        check(log.read_bytes().startswith(before_bytes), "the session's earlier bytes changed")
        ends = _events(log).count("compaction/end") - ends_before
        check(ends == compacted, f"{ends} compactions in the log, {compacted} reported")
    _reopens(folder, form, log, before, where, compacted)


def _reopens(
    folder: Path, form: str, log: Path, before: list[Message], where: list[str], compacted: int
) -> None:
    """Every original message is back after undoing each of the ``compacted`` compactions
    (one ``ctxlab compact --undo`` each, and each succeeds; one more, told "Nothing to undo",
    was a process showing nothing the messages compared here do not), and the session takes a
    turn (its tool calls paired)."""
    for n in range(compacted):
        undo = ctxlab("compact", *where, "--undo")
        _, err = _finish(undo)
        check(undo.returncode == 0, f"undo {n + 1} of {compacted} failed: {err.strip()[-300:]}")
    after = _messages(log) if form != "state" else _saved_messages(folder, "state")
    check(
        [(m.role, m.content) for m in after] == [(m.role, m.content) for m in before],
        f"undone, the session differs: {len(before)} messages before, {len(after)} after",
    )
    if form != "dsh":
        from harness.messages import validate_pairing

        def strict(request: ChatRequest) -> str:
            validate_pairing([m for m in request.messages if m.role != "system"])
            return "fine"

        reopened = agent(folder, FunctionModel(strict), "state" if form == "state" else "eventlog")
        try:
            check(reopened.call("are you well?").text == "fine", "the reopened session answered")
        finally:
            reopened.close()


# --- ctxlab compact beside a live agent call ----------------------------------------------------

LIVE_CALL = """
import sys
from pathlib import Path
from harness.client import ChatClient, RetryPolicy
from probes.fakes import agent

root, store, url = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
extra = {"log_format": "dsh"} if store == "dsh" else {}
client = ChatClient("m", base_url=url, api_key="no-key", retry=RetryPolicy(0))
worker = agent(root, client, "state" if store == "state" else "eventlog", **extra)
print(worker.call("the live question").text, flush=True)
worker.close()
"""
LIVE_FORMS = ("eventlog", "state", "dsh")


@probe("compact-beside-a-live-call", "data-loss", DEFECT, LIVE_FORMS)
def compact_beside_call(folder: Path, form: str) -> None:
    # Could it fail? With manual compaction taking no lock, every form fails: "ctxlab compact
    # committed while the call was live" (tried by hand).
    store = "state" if form == "state" else "eventlog"
    seed = agent(
        folder, FunctionModel(lambda r: "seeded"), store,
        **({"log_format": "dsh"} if form == "dsh" else {}),
    )  # fmt: skip
    for n in range(4):
        seed.call(f"seed {n} " + "x" * 200)
    seed.close()
    if form == "dsh":
        from harness.store.eventlog.codec import detect

        head = (folder / "u" / "events" / "s1.jsonl").read_bytes()[:4096]
        check(detect(head) == "dsh", "the session was not written in DeepSeek-Harness's format")
    held, release = threading.Event(), threading.Event()

    def answer(body: Any) -> Reply:
        if body["messages"][-1]["content"] == "the live question":
            held.set()
            release.wait(PATIENCE)
            return say("the live answer")
        return say(SUMMARY if form != "dsh" else DSH_SUMMARY)

    engine = "dsh" if form == "dsh" else "agentscope"
    where = ["--workspace", str(folder), "--user", "u", "--session", "s1"]
    with Server(answer=answer) as server:
        call = python(LIVE_CALL, str(folder), form, server.url)
        try:
            _poll(lambda: held.is_set() or call.poll() is not None, "the live call's request")
            _alive(call, "the live call")
            compact = ctxlab(*_compact_command(server.url, engine, where), env=_key_env())
            # a compact that waits for the turn is allowed: the turn is released after a while
            _poll(lambda: compact.poll() is not None, "the compact's end", 10.0, fail=False)
            check(
                compact.poll() != 0 or call.poll() is not None,
                "ctxlab compact committed while the call was live",
            )
        finally:
            release.set()
        out, err = _finish(compact)
        call_out, call_err = _finish(call)
        check(call.returncode == 0, f"the live call failed: {call_err.strip()[-300:]}")
        check(call_out.strip() == "the live answer", f"the call answered {call_out!r}")
        if compact.returncode == 0:  # it waited for the turn, then compacted
            check(out.startswith("Compacted"), f"the compact that waited said {out!r}")
        else:
            line = _one_sentence(err, "the refused compact")
            check("busy" in line and f"pid {call.pid}" in line, f"not busy naming the call: {line}")
        texts = [m.content for m in _saved_messages(folder, store)]
        check("the live question" in texts, "the live call's question was lost")
        check("the live answer" in texts, "the live call's answer was lost")
        after = ctxlab(*_compact_command(server.url, engine, where), env=_key_env())
        _, err = _finish(after)
        check(after.returncode == 0, f"compact after the call failed: {err.strip()[-300:]}")
    reopened = agent(folder, FunctionModel(lambda r: "fine"), store)
    try:
        check(reopened.call("still there?").text == "fine", "the session did not reopen")
        texts = [m.content for m in reopened.agent.context]
    finally:
        reopened.close()
    check("the live answer" in texts, "the compaction dropped the live call's turn")


LATE_CALL = """
import logging, sys
from pathlib import Path
from harness.client import ChatClient, RetryPolicy
from probes.fakes import agent, wait_for

root, store, url = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
waiting = logging.FileHandler(root / "waiting.log")  # the lock's one line when a call waits
logging.getLogger("harness.session").addHandler(waiting)
logging.getLogger("harness.session").setLevel(logging.INFO)
extra = {"log_format": "dsh"} if store == "dsh" else {}
client = ChatClient("m", base_url=url, api_key="no-key", retry=RetryPolicy(0))
worker = agent(root, client, "state" if store == "state" else "eventlog", **extra)
for n in range(4):
    worker.call(f"seed {n} " + "x" * 200)
(root / "ready").touch()
wait_for(lambda: (root / "go").exists())
print(worker.call("the late question").text, flush=True)
worker.close()
"""


@probe("compact-beside-a-live-call", "data-loss", DEFECT, [f"{f}-call-second" for f in LIVE_FORMS])
def call_beside_compact(folder: Path, variant: str) -> None:
    """The other order: an agent opened before a ``ctxlab compact`` calls while the compact
    holds the session. Its call must wait, then go on from the compacted session (it sends the
    summary, not the stale history it had read) and keep its turn; undo brings back all."""
    # Could it fail? With HarnessAgent.call not catching up on what another writer saved
    # (its history.catch_up() removed) the state form fails: the late call sends the stale
    # history (tried by hand; an event log catches up at each append of its own).
    form = variant.removesuffix("-call-second")
    store = "state" if form == "state" else "eventlog"
    holding, release = threading.Event(), threading.Event()

    def answer(body: Any) -> Reply:
        text = body["messages"][-1]["content"]
        if text.startswith("seed "):
            return say("seeded")
        if text == "the late question":
            return say("the late answer")
        holding.set()  # the summary: held until the late call waits for the session
        release.wait(PATIENCE)
        return say(SUMMARY if form != "dsh" else DSH_SUMMARY)

    engine = "dsh" if form == "dsh" else "agentscope"
    where = ["--workspace", str(folder), "--user", "u", "--session", "s1"]
    with Server(answer=answer) as server:
        call = python(LATE_CALL, str(folder), form, server.url)
        try:
            _poll(lambda: (folder / "ready").exists() or call.poll() is not None, "the seeding")
            _alive(call, "the agent")
            before = _saved_messages(folder, store)
            compact = ctxlab(*_compact_command(server.url, engine, where), env=_key_env())
            _poll(lambda: holding.is_set() or compact.poll() is not None, "the summary call")
            _alive(compact, "the compact")
            (folder / "go").touch()
            _poll(
                lambda: (folder / "waiting.log").stat().st_size > 0 or call.poll() is not None,
                "the late call's wait for the session",
            )
        finally:
            release.set()
        out, err = _finish(compact)
        call_out, call_err = _finish(call)
        late = [b for b in server.bodies if b["messages"][-1]["content"] == "the late question"]
    check(compact.returncode == 0, f"the compact failed: {err.strip()[-300:]}")
    check(out.startswith("Compacted"), f"the compact said {out!r}")
    check(call.returncode == 0, f"the late call failed: {call_err.strip()[-300:]}")
    check(call_out.strip() == "the late answer", f"the late call answered {call_out!r}")
    sent = json.dumps(late[0]["messages"], ensure_ascii=False) if late else ""
    summary = "code ALPHA" if form != "dsh" else "ports and logging"
    check(summary in sent, "the late call sent the history it had read, not the compacted one")
    check("seed 0 " not in sent, "the late call sent the turns the compaction summarised")
    texts = [m.content for m in _saved_messages(folder, store)]
    check(texts[-2:] == ["the late question", "the late answer"], f"the late turn: {texts[-2:]}")
    undo = ctxlab("compact", *where, "--undo")
    _, err = _finish(undo)
    check(undo.returncode == 0, f"undo failed: {err.strip()[-300:]}")
    restored = [(m.role, m.content) for m in _saved_messages(folder, store)]
    wanted = [(m.role, m.content) for m in before]
    wanted += [("user", "the late question"), ("assistant", "the late answer")]
    check(restored == wanted, f"undone: {len(restored)} messages, {len(wanted)} wanted")


# --- two ctxlab bench on one --out --------------------------------------------------------------

SMALL = ["--sizes", "2k", "--seeds", "1", "--langs", "en"]
MODEL_CONDITIONS = ["--conditions", "truncation,agentscope,ctxlab"]
PROBE_INTRO = "Answer each question below"


def _bench_answer(body: Any) -> Reply:
    text = body["messages"][-1]["content"]
    if text == "ping":
        content = "o"
    elif text.startswith(PROBE_INTRO):
        content = "\n".join(f"{n}. not known" for n in range(1, 13))
    else:
        content = "## SUMMARY\nThe team checks export papers."
    return completion({"role": "assistant", "content": content})


def _model_bench(url: str, out: Path, *extra: str) -> list[str]:
    return [
        "bench", "--provider", "openai-compatible", "--base-url", url, "--model", "m", *SMALL,
        *MODEL_CONDITIONS, "--out", str(out), *extra,
    ]  # fmt: skip


def _intact(out: Path, conditions: set[str], conversations: int) -> list[dict[str, str]]:
    """The bench's outputs are whole: every run once in the CSV and the journal, the page."""
    with (out / "bench-runs.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    pairs = [(r["conversation"], r["condition"]) for r in rows]
    check(len(pairs) == len(set(pairs)), f"a run twice in bench-runs.csv: {pairs}")
    check({c for _, c in pairs} == conditions, f"conditions {sorted({c for _, c in pairs})}")
    check(len(pairs) == len(conditions) * conversations, f"{len(pairs)} runs in bench-runs.csv")
    journal = (out / "bench-runs.jsonl").read_text(encoding="utf-8").splitlines()
    check(all(json.loads(line) for line in journal), "an unreadable journal line")
    check(len(journal) == len(pairs), f"{len(journal)} journal lines for {len(pairs)} runs")
    check((out / "bench.md").read_text(encoding="utf-8").strip(), "bench.md is empty")
    check((out / "bench-kinds.csv").stat().st_size > 0, "bench-kinds.csv is empty")
    return rows


@probe("two-benches-one-out", "data-loss", DEFECT, ("held-by-its-model", "stopped"))
def two_benches(folder: Path, variant: str) -> None:
    # Could it fail? With RunJournal opening the journal without its flock both variants fail:
    # the second bench runs instead of being refused (tried by hand).
    out = folder / "out"
    if variant == "held-by-its-model":
        held, release = threading.Event(), threading.Event()

        def answer(body: Any) -> Reply:
            if body["messages"][-1]["content"].startswith(PROBE_INTRO):
                held.set()
                release.wait(PATIENCE)  # the first run's probe waits for the second bench
            return _bench_answer(body)

        with Server(answer=answer) as server:
            first = ctxlab(*_model_bench(server.url, out))
            try:
                _poll(lambda: held.is_set() or first.poll() is not None, "the first probe")
                _alive(first, "the first bench")
                _second_is_refused(out)
            finally:
                release.set()
            _, err = _finish(first)
        conditions, conversations = {"truncation", "agentscope", "ctxlab"}, 1
    else:
        # model-free: the first bench is stopped (SIGSTOP: its flock stays held) once its
        # first run is journaled, and let go (SIGCONT) when the second has been refused
        args = ["bench", "--sizes", "2k", "--seeds", "1-2", "--langs", "zh,en", "--out", str(out)]
        journal = out / "bench-runs.jsonl"
        for _ in range(3):  # a loaded machine can finish the first bench before it is stopped
            shutil.rmtree(out, ignore_errors=True)
            first = ctxlab(*args)
            _poll(
                lambda child=first: (
                    child.poll() is not None  # type: ignore[misc]
                    or (journal.exists() and journal.stat().st_size > 0)
                ),
                "the first journaled run",
            )
            first.send_signal(signal.SIGSTOP)
            if first.poll() is None and not (out / "bench.md").exists():
                break
            first.send_signal(signal.SIGCONT)
            _finish(first)
        else:
            check(False, "the first bench always finished before it could be stopped")
        try:
            _second_is_refused(out)
        finally:
            first.send_signal(signal.SIGCONT)
        _, err = _finish(first)
        from experiments.x_bench.conditions import CONDITIONS

        conditions = {n for n, c in CONDITIONS.items() if not c.needs_model}
        conversations = 4
    check(first.returncode == 0, f"the first bench failed: {err.strip()[-300:]}")
    rows = _intact(out, conditions, conversations)
    check(len(rows) > 0, "no runs")


def _second_is_refused(out: Path) -> None:
    journal = out / "bench-runs.jsonl"
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    second = ctxlab("bench", *SMALL, "--out", str(out))
    _, err = _finish(second)
    line = _one_sentence(err, "the second bench")
    check(second.returncode == 2, f"the second bench was not refused (exit {second.returncode})")
    check("Another ctxlab bench is writing to" in line, f"refused, but said: {line}")
    check(journal.exists(), "the refused bench removed the first one's journal")
    after = {p.name: p.read_bytes() for p in out.iterdir()}
    check(after == before, f"the refused bench changed {sorted(set(after) ^ set(before))}")


# --- kill -9 of a bench with a request in flight ------------------------------------------------


@probe("kill-9-bench-in-flight", "data-loss", DEFECT)
def killed_bench(folder: Path) -> None:
    # Could it fail? With RunJournal.cached never finding a run, the bench run again asks 7
    # requests where the unfinished run needs 3, and this fails; with RunJournal.add a no-op
    # it fails on the journal before the kill (tried by hand).
    out = folder / "out"
    probes_seen, held, release = [0], threading.Event(), threading.Event()
    lock = threading.Lock()

    def answer(body: Any) -> Reply:
        if body["messages"][-1]["content"].startswith(PROBE_INTRO):
            with lock:
                probes_seen[0] += 1
                third = probes_seen[0] == 3
            if third:  # ctxlab's probe, the last run's last request: the kill comes now
                held.set()
                release.wait(PATIENCE)
        return _bench_answer(body)

    with Server(answer=answer) as server:
        command = _model_bench(server.url, out)
        bench = ctxlab(*command)
        try:
            _poll(lambda: held.is_set() or bench.poll() is not None, "the third run's probe")
            _alive(bench, "the bench")
            journaled = (out / "bench-runs.jsonl").read_text(encoding="utf-8").splitlines()
            check(len(journaled) == 2, f"{len(journaled)} runs journaled before the kill, not 2")
            asked = len(server.bodies)
            bench.send_signal(signal.SIGKILL)
            _finish(bench)
            check(bench.returncode == -signal.SIGKILL, "the bench was not killed")
        finally:
            release.set()
        probes_at = [
            n for n, b in enumerate(server.bodies[:asked])
            if b["messages"][-1]["content"].startswith(PROBE_INTRO)
        ]  # fmt: skip
        unfinished = server.bodies[probes_at[1] + 1 : asked]  # ctxlab's run: after agentscope's
        again = ctxlab(*command)
        _, err = _finish(again)
        check(again.returncode == 0, f"the bench run again failed: {err.strip()[-300:]}")
        asked_again = server.bodies[asked:]
        check(
            [b["messages"][-1]["content"] for b in asked_again[:1]] == ["ping"],
            "the bench run again did not start with its one ping",
        )
        check(
            asked_again[1:] == unfinished,
            f"run again, the bench asked {len(asked_again) - 1} requests; the unfinished run "
            f"needs {len(unfinished)}",
        )
        check(err.count("(kept: run before)") == 2, "the two finished runs were not kept")
        fresh = ctxlab(*_model_bench(server.url, folder / "fresh"))
        _, fresh_err = _finish(fresh)
        check(fresh.returncode == 0, f"an uninterrupted bench failed: {fresh_err[-300:]}")
    _intact(out, {"truncation", "agentscope", "ctxlab"}, 1)
    for name in ("bench-runs.csv", "bench-kinds.csv", "bench.md"):
        check(
            (out / name).read_bytes() == (folder / "fresh" / name).read_bytes(),
            f"{name} differs from an uninterrupted bench's",
        )


# --- an API key never reaches a file ------------------------------------------------------------


def _deepseek_answer(body: Any) -> Reply:
    """A DeepSeek-shaped answer (its usage fields, a null reasoning_content)."""
    text = body["messages"][-1]["content"]
    if text == "ping":
        content = "o"
    elif text.startswith(PROBE_INTRO):
        content = "\n".join(f"{n}. not known" for n in range(1, 13))
    else:  # an answer and a summary alike
        content = SUMMARY
    reply = {
        "id": "cmpl-probe", "object": "chat.completion", "model": body.get("model", "m"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content,
                     "reasoning_content": None}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12,
                  "prompt_cache_hit_tokens": 0, "prompt_cache_miss_tokens": 10},
    }  # fmt: skip
    return 200, json.dumps(reply, ensure_ascii=False).encode(), "application/json"


def _error_replies(key: str) -> dict[str, Callable[[Any], Reply]]:
    """Each provider fault, its body quoting the key the request carried (as some proxies do)."""
    quoted = json.dumps({"error": {"message": f"Incorrect API key provided: {key}"}})
    return {
        "401": lambda body: raw(401, quoted, "application/json"),
        "500": lambda body: raw(500, f"upstream failed; Authorization: Bearer {key}"),
        "429": lambda body: raw(429, f"rate limited for {key}"),
        "malformed": lambda body: raw(200, f'{{"choices": [{{"message": "{key}"', "text/plain"),
    }


class _KeyServer(Server):
    """:class:`Server` that also sends ``Retry-After: 0`` (so a 429 is retried at once) and
    keeps every Authorization header it was sent."""

    def __init__(self, answer: Callable[[Any], Reply]) -> None:
        super().__init__(answer=answer)
        self.keys: list[str] = []
        keys = self.keys
        handler: Any = self.httpd.RequestHandlerClass
        plain_send = handler.send_header

        def send_header(this: Any, name: str, value: str) -> None:
            if name == "Content-Type":
                keys.append(this.headers.get("Authorization", ""))
                plain_send(this, "Retry-After", "0")
            plain_send(this, name, value)

        handler.send_header = send_header

    def __enter__(self) -> _KeyServer:
        super().__enter__()
        return self


def _refused_url() -> str:
    """A loopback URL nobody listens on (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _leaks(folder: Path, needles: dict[str, bytes]) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        for what, needle in needles.items():
            at = data.find(needle)
            if at >= 0:
                found.append(f"{what} in {path.relative_to(folder)} at byte {at}")
    return found


KEY_COMMANDS = ("record", "bench", "run", "compact", "errors", "in-the-base-url")


@probe("api-key-never-on-disk", "security", DEFECT, KEY_COMMANDS)
def key_never_on_disk(folder: Path, command: str) -> None:
    # Could it fail? Planting the key's tail in a file under tmp/ fails it naming the file
    # and the byte; with the client's redaction off (ChatClient._redact and _scrubbed giving
    # the text back) the errors variant fails on the key printed (tried by hand); the
    # in-the-base-url variant failed on the code before its fix (the key in bench-runs.jsonl,
    # in bench's and compact's sentences and in httpx's -v request lines).
    key = f"sk-{secrets.token_hex(20)}"
    needles = {"the key": key.encode(), "the key's tail": key[-10:].encode()}
    tmp, home, work = folder / "tmp", folder / "home", folder / "work"
    for made in (tmp, home, work):
        made.mkdir()
    env = {
        "DEEPSEEK_API_KEY": key, KEY_ENV: key, "TMPDIR": str(tmp), "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"), "XDG_CONFIG_HOME": str(home / ".config"),
    }  # fmt: skip
    said: list[tuple[str, str]] = []

    def run(*args: str, ok: bool = True) -> None:
        """``ctxlab ARGS``: exit 0 when ``ok``, else refused in one sentence (``-v``: its log
        lines before the sentence)."""
        child = ctxlab(*args, env=env, cwd=work)
        out, err = _finish(child)
        name = next(a for a in args if not a.startswith("-"))
        said.append((name, out + err))
        if ok:
            check(child.returncode == 0, f"ctxlab {name} failed: {err.strip()[-300:]}")
            return
        check(child.returncode == 2, f"ctxlab {name} ended {child.returncode}, not 2: {err}")
        told = [line for line in err.splitlines() if not line.startswith(("INFO ", "WARNING "))]
        _one_sentence("\n".join(told), f"ctxlab {name}")

    if command == "run":
        run("run", "E3", "--out", str(folder / "reports"), "--project", str(ROOT))
    elif command == "errors":
        for fault, reply in [*_error_replies(key).items(), ("refused", None)]:
            _faults(folder / fault, run, reply)
    elif command == "in-the-base-url":  # the key as the password of --base-url, as for a proxy
        with _KeyServer(_deepseek_answer) as server:
            deepseek = ["--provider", "deepseek", "--base-url", _with_password(server.url, key)]
            run("record", "E3", *deepseek, "--cassettes", str(folder / "cassettes"),
                "--out", str(folder / "reports"))  # fmt: skip
            run("bench", *deepseek, *SMALL, *MODEL_CONDITIONS, "--out", str(folder / "b"))
        check(server.keys, "the server was never asked")
        for fault, reply in [("401", _error_replies(key)["401"]), ("refused", None)]:
            _faults(folder / fault, run, reply, key)
    else:
        with _KeyServer(_deepseek_answer) as server:
            deepseek = ["--provider", "deepseek", "--base-url", server.url]
            if command == "record":
                run("record", "E3", *deepseek, "--cassettes", str(folder / "cassettes"),
                    "--out", str(folder / "reports"))  # fmt: skip
            elif command == "bench":
                run("bench", *deepseek, *SMALL, *MODEL_CONDITIONS, "--out", str(folder / "b"))
            else:
                _seeded(folder, "eventlog")
                where = ["--workspace", str(folder), "--user", "u", "--session", "s1"]
                run("compact", *where, *deepseek, "--api-key-env", KEY_ENV)
                run("compact", *where, "--undo")
        check(server.keys and all(k == f"Bearer {key}" for k in server.keys), "the key was sent")
    leaks = _leaks(folder, needles)
    for name, text in said:
        for what, needle in needles.items():
            at = text.find(needle.decode())
            if at >= 0:
                leaks.append(f"{what} printed by ctxlab {name} at character {at}")
    check(not leaks, "; ".join(leaks[:6]))


def _with_password(url: str, password: str) -> str:
    return url.replace("http://", f"http://lab:{password}@", 1)


def _faults(
    folder: Path, run: Callable[..., None], reply: Callable[[Any], Reply] | None, password: str = ""
) -> None:
    """``ctxlab compact`` and ``ctxlab bench`` against one provider fault (None: refused), the
    base URL carrying ``password`` when given."""
    folder.mkdir()
    _seeded(folder, "eventlog")
    where = ["--workspace", str(folder), "--user", "u", "--session", "s1"]

    def both(url: str) -> None:  # -v: the harness's log lines are printed too
        url = _with_password(url, password) if password else url
        deepseek = ["--provider", "deepseek", "--base-url", url]
        run("-v", "compact", *where, *deepseek, ok=False)
        run("-v", "bench", *deepseek, *SMALL, "--out", str(folder / "b"), ok=False)

    if reply is None:
        both(_refused_url())
        return
    with _KeyServer(reply) as server:
        both(server.url)
    check(server.keys, "the fault's server was never asked")
