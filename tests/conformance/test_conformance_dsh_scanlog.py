"""dsh's ``scanLog`` and session-header cases (``jsonl.spec.ts``) against ctxlab's reader.

A case dsh reads must give the same events when ctxlab replays the file, and reopening it to
resume (:meth:`EventLog.open`) must leave the surface of the undamaged prefix, with the cut
bytes moved to ``<file>.corrupt``. A case dsh refuses must raise LogCorruptError naming the
file and its line.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import dsh_cases as dc
import pytest
from dsh_cases import Case

from harness.errors import EventLogError, LogCorruptError
from harness.store.eventlog import EventLog
from harness.store.eventlog.events import thaw


def _file(tmp_path: Path, case: Case) -> Path:
    given = case.input
    if "raw" in given:
        path = tmp_path / "session.jsonl"
        path.write_text(given["raw"], encoding="utf-8")
        return path
    end = "\n" + given["tail"] if "tail" in given else "\n"
    return dc.session_file(tmp_path, given["lines"], given.get("header"), end)


def _outcome(path: Path) -> dict[str, object]:
    """What ctxlab makes of the file: its events' seqs, or the refusal."""
    try:
        log = EventLog.replay(path)
    except LogCorruptError as exc:
        return {"refused": str(exc)}
    return {"seqs": [e.seq for e in log.events], "log": log}


def _agrees(case: Case, got: dict[str, object], path: Path) -> bool:
    if "refused" in case.dsh:
        return "refused" in got and f"{path}:" in str(got["refused"])
    if "seqs" not in got:
        return False
    log = got["log"]
    assert isinstance(log, EventLog)
    if "agentPreset" in case.dsh:
        return log.codec.header is not None and log.codec.header.get("agentPreset") == "minimal"  # type: ignore[attr-defined]
    if "event" in case.dsh:
        event = log.events[case.dsh["event"]["seq"]]
        want = case.dsh["event"]
        if (event.type, thaw(event.data)) != (want["type"], want["data"]):
            return False
    return got["seqs"] == case.dsh["seqs"]


@pytest.mark.parametrize("case", dc.params("scanlog") + dc.params("header"))
def test_ctxlab_reads_a_dsh_session_file_as_dsh_does(case: Case, tmp_path: Path) -> None:
    path = _file(tmp_path, case)
    dc.conform(case, lambda: _agrees(case, _outcome(path), path))


_DAMAGED = [c for c in dc.load("scanlog") if "seqs" in c.dsh and ("tail" in c.input or any(
    isinstance(x, str) for x in c.input.get("lines", ())) or "gap" in c.id)]  # fmt: skip


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in _DAMAGED])
def test_a_damaged_file_dsh_resumes_is_resumed_to_the_surface_of_its_prefix(
    case: Case, tmp_path: Path
) -> None:
    path = _file(tmp_path, case)
    damaged = path.read_bytes()
    clean = tmp_path / "clean"
    clean.mkdir()
    kept = [x for x in case.input["lines"] if not isinstance(x, str)][: len(case.dsh["seqs"])]
    expected = EventLog.replay(dc.session_file(clean, kept))
    log = EventLog.open(path)  # resume: the tail is cut off and kept aside
    assert [e.seq for e in log.events][: len(kept)] == case.dsh["seqs"]
    assert log.events[len(kept)].type == "session/end-seed" and log.recovered
    assert list(log.node_seqs) == list(expected.node_seqs)
    assert log.messages() == expected.messages()
    cut = (tmp_path / "session.jsonl.corrupt").read_bytes()
    assert damaged[len(clean.joinpath("session.jsonl").read_bytes()) :].strip() in cut
    log.append("turn/start", {"turn": 9})  # appends go on after the prefix
    assert [e.type for e in EventLog.replay(path).events][-2:] == ["session/end-seed", "turn/start"]


def test_a_file_copied_before_resuming_still_holds_every_byte(tmp_path: Path) -> None:
    """Nothing the file held is lost on resume: it is in the file or in its .corrupt copy."""
    case = next(c for c in dc.load("scanlog") if c.id == "several-corrupt-lines-after-turn-end")
    path = _file(tmp_path, case)
    before = path.read_bytes()
    shutil.copy(path, tmp_path / "copy.jsonl")
    EventLog.open(path)
    kept = path.read_bytes()
    prefix = kept[: kept.index(b'{"type":"session/end-seed"')]
    corrupt = (tmp_path / "session.jsonl.corrupt").read_bytes()
    assert before.startswith(prefix) and before[len(prefix) :] in corrupt


def test_a_refused_header_names_the_file_and_line_one(tmp_path: Path) -> None:
    case = next(c for c in dc.load("header") if c.id == "createdAt-fractional")
    path = _file(tmp_path, case)
    with pytest.raises(
        LogCorruptError, match=rf"^{path}:1: the dsh session header has createdAt 1\.5"
    ):
        EventLog.open(path)
    with pytest.raises(EventLogError):
        EventLog.replay(path)


_FIXTURE = Path(__file__).parents[1] / "data" / "dsh" / "two-turns-resumed" / "session.jsonl"
_TAILS = {  # what a crash after the last turn/end may leave, each written with its seq
    "corrupt-lines": lambda n: ['{"type":"turn/st', "\x00\x00garbage", f'{{"seq":{n}'],
    "seq-gap": lambda n: [{"type": "turn/start", "seq": n + 1, "time": 9, "data": {"turn": 9}}],
    "packed-row-past-a-gap": lambda n: [
        {"type": "turn/start", "seq": n, "time": 9, "data": {"turn": 9}},
        {
            "type": "text-chunks",
            "seq0": n + 2,
            "time0": 9,
            "data": {"turn": 9, "step": 1, "index": 0, "dt": [1], "texts": ["a", "b"]},
        },
    ],
}


@pytest.mark.parametrize("damage", sorted(_TAILS))
def test_a_real_dsh_session_with_crash_damage_resumes_to_its_surface(
    damage: str, tmp_path: Path
) -> None:
    """A session dsh itself wrote (tests/data/dsh), damaged after its last turn/end."""
    expected = EventLog.replay(_FIXTURE)
    path = tmp_path / "session.jsonl"
    shutil.copy(_FIXTURE, path)
    extra = _TAILS[damage](len(expected.events))
    with path.open("a", encoding="utf-8") as out:
        out.write("".join(dc.line(x) + "\n" for x in extra))
    log = EventLog.open(path)
    kept = 1 if damage == "packed-row-past-a-gap" else 0  # the turn/start before the gap
    assert len(log.events) == len(expected.events) + kept + 1  # + the resume's end-seed
    assert list(log.node_seqs) == list(expected.node_seqs)
    assert log.messages() == expected.messages()
