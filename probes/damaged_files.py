"""Probes of damaged files a command reads: none bricks a command or gives a traceback.

A line nested 100,000 deep in a DeepSeek-Harness session, a damaged bench journal (and
``--fresh`` on it), a conversations file nested too deep or far too large, a damaged log given
to ``ctxlab compact`` (``damaged``, never ``busy``), and a conversation id that a spreadsheet
would run as a formula. Each runs the real command in a child process.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.testing import FunctionModel
from probes.fakes import agent, ctxlab
from probes.registry import check, probe

DEEP = b"[" * 100_000 + b"]" * 100_000


def _one_sentence(err: str) -> str:
    lines = err.strip().splitlines()
    check(len(lines) == 1 and "Traceback" not in err, f"not one sentence: {err[-400:]}")
    return lines[0]


def _session(root: Path, log_format: str, turns: int = 4) -> Path:
    """A saved session of ``turns`` calls in ``log_format``; returns its log."""
    session = agent(root, FunctionModel(lambda request: "ok " * 40), log_format=log_format)
    for n in range(turns):
        session.call(f"question {n} " + "x" * 200)
    session.close()
    return root / "u" / "events" / "s1.jsonl"


def _insert(path: Path, line: bytes, at: int = 2) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:at], line + b"\n", *lines[at:]]))


@probe("deep-line-in-a-dsh-session", "robustness", 26)
def deep_dsh_line(folder: Path) -> None:
    path = _session(folder, "dsh")
    _insert(path, DEEP)
    show = ctxlab("show", "--workspace", str(folder), "--user", "u", "--session", "s1")
    _, err = show.communicate(timeout=120)
    line = _one_sentence(err)
    check(show.returncode == 2 and f"{path}:" in line, f"ctxlab show: {line}")
    check("Recursion" not in line, f"an untyped RecursionError: {line}")


@probe("damaged-log-is-not-busy", "robustness", 26, ("ctxlab", "dsh"))
def damaged_log(folder: Path, log_format: str) -> None:
    path = _session(folder, log_format)
    lines = path.read_bytes().splitlines(keepends=True)
    lines.insert(2, lines[2])  # a seq written twice
    path.write_bytes(b"".join(lines))
    run = ctxlab(
        "compact", "--workspace", str(folder), "--user", "u", "--session", "s1", "--engine",
        "dsh", "--provider", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1",
        "--model", "m",
    )  # fmt: skip
    _, err = run.communicate(timeout=120)
    line = _one_sentence(err)
    check(run.returncode == 2 and line.startswith("ctxlab: damaged: "), f"said {line!r}")


def _conversation(conversation_id: str) -> dict[str, Any]:
    """One conversation of X-BENCH's own generator, under ``conversation_id``."""
    from experiments.x_bench.corpus import generate
    from experiments.x_bench.schema import dump_conversation

    found: dict[str, Any] = json.loads(dump_conversation(generate(1, "2k", "en")))
    return {**found, "id": conversation_id}


def many_facts(conversation: dict[str, Any], count: int) -> str:
    """``json.dumps([conversation])`` with its facts replaced by ``count`` copies of its first,
    ids ``f0``, ``f1``, …: the same text, built from the first fact's once (a million dicts
    dumped one by one cost the probe about 5 s of CPU before the command under test started)."""
    return "".join(many_facts_pieces(conversation, count))


def many_facts_pieces(conversation: dict[str, Any], count: int, per: int = 20_000) -> Iterator[str]:
    """:func:`many_facts`'s text in pieces of ``per`` facts, to be written one by one: the
    million facts' 279 MB written at once cost 2.9 s of CPU in one ``write``, in pieces 0.6 s."""
    mark = json.dumps("\x00id\x00")
    fact = json.dumps({**conversation["facts"][0], "id": "\x00id\x00"})
    head, tail = fact.split(mark)
    before, after = json.dumps([{**conversation, "facts": ["\x00id\x00"]}]).split(mark)
    between = f'"{tail}, {head}"f'  # from one fact's id number to the next's
    yield before
    for start in range(0, count, per):
        ids = map(str, range(start, min(start + per, count)))
        yield f'{", " if start else ""}{head}"f{between.join(ids)}"{tail}'
    yield after


def _bench(folder: Path, conversations: Path, *more: str) -> tuple[int, str]:
    run = ctxlab(
        "bench", "--conversations", str(conversations), "--conditions", "truncation",
        "--out", str(folder / "out"), *more,
    )  # fmt: skip
    _, err = run.communicate(timeout=300)
    return run.returncode, err


@probe("damaged-bench-journal", "robustness", 26, ("deep", "wrong-type"))
def damaged_journal(folder: Path, variant: str) -> None:
    conversations = folder / "mine.json"
    conversations.write_text(json.dumps([_conversation("c1")]), encoding="utf-8")
    status, err = _bench(folder, conversations)
    check(status == 0, f"the first bench failed: {err[-400:]}")
    journal = folder / "out" / "bench-runs.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    if variant == "deep":
        lines.insert(0, DEEP + b"\n")
    else:  # whole JSON, a string where a count belongs
        record = json.loads(lines[-1])
        record["run"]["compactions"] = "3"
        lines[-1] = json.dumps(record).encode() + b"\n"
    journal.write_bytes(b"".join(lines))
    status, err = _bench(folder, conversations)
    line = _one_sentence(err)
    check(status == 2 and "bench-runs.jsonl:" in line, f"the damaged journal: {line}")
    status, err = _bench(folder, conversations, "--fresh")
    check(status == 0 and "Traceback" not in err, f"--fresh on it failed: {err[-400:]}")


@probe("hostile-conversations-file", "robustness", 26, ("deep", "million-facts"))
def hostile_conversations(folder: Path, variant: str) -> None:
    conversations = folder / "mine.json"
    if variant == "deep":
        conversations.write_bytes(DEEP)
    else:
        with conversations.open("w", encoding="utf-8") as handle:
            handle.writelines(many_facts_pieces(_conversation("c1"), 1_000_000))
    status, err = _bench(folder, conversations)
    line = _one_sentence(err)
    check(status == 2 and "Recursion" not in line, f"said {line!r}")


@probe("formula-in-a-bench-csv", "security", 26)
def formula_cell(folder: Path) -> None:
    conversations = folder / "mine.json"
    formula = '=HYPERLINK("http://example.invalid","x")'
    conversations.write_text(json.dumps([_conversation(formula)]), encoding="utf-8")
    status, err = _bench(folder, conversations)
    check(status == 0, f"the bench failed: {err[-400:]}")
    for name in ("bench-runs.csv", "bench-kinds.csv"):
        path = folder / "out" / name
        if not path.is_file():
            continue
        with path.open(newline="", encoding="utf-8") as handle:
            for row in csv.reader(handle):
                starts = [cell for cell in row if cell[:1] in ("=", "+", "@", "\t", "\r")]
                check(
                    not starts, f"{name} holds a formula cell: {starts[0][:40] if starts else ''}"
                )
