"""A hypothesis state machine over the event log: appends, compactions of either engine
(AgentScope's committed as log appends, DSH's region transactions), crashes between any two
events of a compaction, and reloads.

The log is a real ``EventLog`` on a temp file; compactions are built by the real ``Compactor``
(count mode, random keep, pruning and argument truncation that change kept messages) with a
function model as summariser, and committed by ``EventLogHistory.apply_compaction``. A crash
makes the k-th ``harness.fs.files.append_fd`` of a compaction fail after writing nothing, a
prefix of the line (a torn write, cut anywhere, even inside a UTF-8 sequence) or all of it (the
fsync failed); the machine then drops the process and reopens the file.

Invariants: the reopened surface is the live surface before the crash (plus the in-flight event
when its line fully landed); the surface is the fold of the file's events; the pairing holds;
an interrupted compaction is live before the reload and stale after it, never silent; seqs are
contiguous; the file only grows (a torn tail aside) and keeps every original message.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import harness.fs.files
from harness.compaction.agentscope import (
    Compaction,
    CompactionConfig,
    Compactor,
    PruneConfig,
    TruncateArgsConfig,
    resolve_thresholds,
)
from harness.compaction.dsh import DshConfig, DshEngine, measure, select_compactable_range
from harness.errors import CommitError, CompactionBusyError, ServerError, SummaryError
from harness.messages import Message, ToolCall, validate_pairing
from harness.model import ChatRequest
from harness.store.eventlog import END_SEED, Event, EventLog, EventLogHistory, fold, read_events
from harness.testing import FunctionModel

STEPS: Counter[str] = Counter()
"""Examples, steps and crashes run in this process (how much the machine explored)."""

REAL_APPEND = harness.fs.files.append_fd
FAST_DIR = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
"""A tmpfs when there is one: the same code path (fsync included) without 4 ms a line."""
TEXT = st.text(max_size=24)
KEEP = st.integers(min_value=1, max_value=6)
PROTECT = st.sampled_from([1, 40, 10_000])
"""Prune protection: 1 prunes every older long result (kept ones too), 10,000 none."""
CRASH_POINT = st.integers(min_value=0, max_value=1_000)
"""Which event of the compaction fails: ``1 + point % events``."""
TEAR = st.one_of(st.none(), st.floats(min_value=0, max_value=1, exclude_max=True), st.just(1.0))
"""How much of the failing line reaches the file: nothing, a fraction, or all of it."""


class Crash:
    """Stands in for ``harness.fs.files.append_fd``: the ``at``-th call fails (see ``TEAR``)."""

    def __init__(self, at: int, tear: float | None) -> None:
        self.at = at
        self.tear = tear
        self.calls = 0
        self.in_flight: str | None = None
        self.written = 0

    def __call__(self, fd: int, text: str, sync: bool = True) -> None:
        self.calls += 1
        assert self.calls <= self.at, "the log wrote again after a failed write"
        if self.calls < self.at:
            REAL_APPEND(fd, text, sync)
            return
        payload = text.encode("utf-8")
        self.in_flight = text
        self.written = 0 if self.tear is None else int(len(payload) * self.tear)
        os.write(fd, payload[: self.written])  # the log's locked descriptor, at its end
        raise OSError(5, f"injected crash at append #{self.at}")

    @property
    def size(self) -> int:
        """Bytes of the failing line."""
        return len((self.in_flight or "").encode("utf-8"))

    @property
    def landed(self) -> bool:
        """True when the whole failing line, newline included, reached the file."""
        return self.in_flight is not None and self.written == self.size


def _events_of(compaction: Compaction, surface: list[Message]) -> int:
    """How many events committing ``compaction`` appends: four, plus one per kept message the
    compactor changed."""
    cutoff = compaction.event.cutoff.index
    kept = zip(compaction.messages[1:], surface[cutoff:], strict=True)
    return 4 + sum(new.to_record() != old.to_record() for new, old in kept)


def summariser(request: ChatRequest) -> str:
    text = request.messages[0].content
    return f"summary: {text.count('Human:')} user turns, {len(text)} chars"


def failing_summariser(request: ChatRequest) -> str:
    raise ServerError("injected 503", status_code=503)


def dsh_summariser(request: ChatRequest) -> str:
    return f"- {len(request.messages) - 2} messages"


DSH_HEADER = ChatRequest(messages=(Message.system("system"),))


class EventLogMachine(RuleBasedStateMachine):
    """Appends, compactions, crashes and reloads never lose, reorder or hide anything."""

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="ctxlab-eventlog-sm-", dir=FAST_DIR))
        self.path = self.root / "session.jsonl"
        self.ticks = 0
        self.log = EventLog(self.path, clock=self._clock)
        self.history = EventLogHistory(self.log)
        self.expected: list[Message] = []
        self.originals: Counter[str] = Counter()
        self.disk = b""
        self.next_call = 0
        self.steps = -1  # the invariants run once before the first step

    def teardown(self) -> None:
        STEPS["examples"] += 1
        STEPS["steps"] += self.steps
        event(f"steps per example: {10 * (self.steps // 10)}-{10 * (self.steps // 10) + 9}")
        shutil.rmtree(self.root, ignore_errors=True)

    # --- helpers --------------------------------------------------------------------------

    def _clock(self) -> str:
        self.ticks += 1
        return f"2025-01-01T00:00:00.{self.ticks:06d}Z"

    def _append(self, messages: list[Message]) -> None:
        self.history.append(messages)
        self.expected.extend(messages)
        self.originals.update(_key(m) for m in messages)

    def _compaction(self, keep: int, protect: int, truncate: bool, fail: bool) -> Compaction | None:
        config = CompactionConfig(
            trigger_messages=keep + 1,
            trigger_tokens=None,
            keep_messages=keep,
            keep_tokens=0,
            prune=PruneConfig(protect_tokens=protect, minimum_tokens=1, max_output_chars=60),
            truncate_args=TruncateArgsConfig(1, 1, 1, 12) if truncate else None,
            flush_before_compact=False,
        )
        model = FunctionModel(failing_summariser if fail else summariser)
        thresholds = resolve_thresholds(config, model.model_name)
        compactor = Compactor(config, thresholds, model)  # the log keeps the originals
        return compactor.force(self.history.messages())

    def _reopen(self) -> None:
        self.log = EventLog.open(self.path, clock=self._clock)
        self.history = EventLogHistory(self.log)

    # --- rules ----------------------------------------------------------------------------

    @rule(text=TEXT)
    def user_says(self, text: str) -> None:
        self._append([Message.user(text)])

    @rule(text=TEXT)
    def assistant_answers(self, text: str) -> None:
        self._append([Message.assistant(text)])

    @rule(
        sizes=st.lists(st.sampled_from([3, 200]), min_size=1, max_size=2), long_args=st.booleans()
    )
    def tool_round(self, sizes: list[int], long_args: bool) -> None:
        ids = [f"call{self.next_call + i}" for i in range(len(sizes))]
        self.next_call += len(sizes)
        argument = json.dumps({"q": "長い引数 " * (6 if long_args else 1)}, ensure_ascii=False)
        call = Message.assistant("", [ToolCall(i, "fetch", argument) for i in ids])
        results = [
            Message.tool(i, f"结果 {i}: " + "x" * size, tool_name="fetch")
            for i, size in zip(ids, sizes, strict=True)
        ]
        self._append([call, *results])

    @rule(
        keep=KEEP,
        protect=PROTECT,
        truncate=st.booleans(),
        fail=st.booleans(),
    )
    def compact(self, keep: int, protect: int, truncate: bool, fail: bool) -> None:
        compaction = self._compaction(keep, protect, truncate, fail)
        if compaction is None:
            event("compact: nothing to cut")
            return
        before = len(self.log.events)
        self.history.apply_compaction(compaction)
        replaced = len(self.log.events) - before - 4
        event(f"compact: {min(replaced, 3)}{'+' if replaced > 3 else ''} kept messages replaced")
        assert self.history.messages() == list(compaction.messages)
        self.expected = list(compaction.messages)

    @rule(keep=KEEP, protect=PROTECT, truncate=st.booleans(), point=CRASH_POINT, tear=TEAR)
    def crash_during_compaction(
        self, keep: int, protect: int, truncate: bool, point: int, tear: float | None
    ) -> None:
        compaction = self._compaction(keep, protect, truncate, fail=False)
        if compaction is None:
            return
        before = len(self.log.events)
        stale = self.log.stale_compaction()
        crash = Crash(1 + point % _events_of(compaction, self.history.messages()), tear)
        with (
            mock.patch.object(harness.fs.files, "append_fd", crash),
            contextlib.suppress(OSError),
        ):
            self.history.apply_compaction(compaction)
        assert crash.in_flight is not None, "the compaction wrote fewer events than counted"
        self._check_live_after_crash(compaction, before)
        committed = self.log.events
        live = self.log.messages()
        self._reopen()
        self._check_reopened(crash, list(committed), live)
        self._check_interrupted(list(self.log.events[before:]), stale)
        self.expected = self.log.messages()

    def _check_live_after_crash(self, compaction: Compaction, before: int) -> None:
        """Before the reload: the file holds the live events, an open start is the lock."""
        STEPS["crashes"] += 1
        assert self.log.events == tuple(read_events(self.path)[: len(self.log.events)])
        started = len(self.log.events) > before
        assert (self.log.open_compaction() is not None) == started, "an open start went unseen"
        if started:
            with pytest.raises(CompactionBusyError):
                self.history.apply_compaction(compaction)

    def _check_reopened(self, crash: Crash, committed: list[Event], live: list[Message]) -> None:
        """After it: the committed events (and the in-flight one if its line landed), then at
        most one end-seed; the torn tail reported; the replay equals the live surface."""
        what = "landed" if crash.landed else "torn" if crash.written else "lost"
        event(f"crash: at event {crash.at} of the compaction, line {what}")
        expected = committed + ([Event.from_json(crash.in_flight or "")] if crash.landed else [])
        assert list(self.log.events[: len(expected)]) == expected
        seeded = not expected or expected[-1].type == END_SEED
        assert [e.type for e in self.log.events[len(expected) :]] == ([] if seeded else [END_SEED])
        assert bool(self.log.recovered) == (0 < crash.written < crash.size)
        assert self.log.surface == fold(expected)
        if not crash.landed:
            assert self.log.messages() == live, "replay differs from the live surface"

    def _check_interrupted(self, appended: list[Event], stale_before: Event | None) -> None:
        """An interrupted compaction is reported as stale; none is live after a reload."""
        bracket = [e for e in appended if e.type != END_SEED]
        if bracket and bracket[-1].type != "compaction/end":
            assert self.log.stale_compaction() == bracket[0], "an interrupted compaction was lost"
        elif bracket:
            assert self.log.stale_compaction() is None
        else:  # the start never landed: an older stale start is still the latest bracket
            assert self.log.stale_compaction() == stale_before
        assert self.log.open_compaction() is None

    # --- the DSH engine on the same log ----------------------------------------------------

    def _dsh_engine(self, fail: bool) -> DshEngine:
        model = FunctionModel(failing_summariser if fail else dsh_summariser)
        return DshEngine(self.log, model, DshConfig())

    @rule(retain=st.integers(min_value=0, max_value=300), fail=st.booleans())
    def dsh_compact(self, retain: int, fail: bool) -> None:
        before = len(self.log.events)
        surface = self.log.messages()
        try:
            result = self._dsh_engine(fail).compact_now(DSH_HEADER, retain_tokens=retain)
        except (ServerError, SummaryError):
            types = [e.type for e in self.log.events[before:]]
            assert types == ["compaction/start", "compaction/end"], types
            assert self.log.events[-1].data["error"]
            assert self.log.messages() == surface, "a failed DSH compaction changed the surface"
            event("dsh: failed, closed with its error")
            return
        if result is None:
            assert len(self.log.events) == before, "nothing to compact, but events were written"
            event("dsh: nothing to compact")
            return
        types = [e.type for e in self.log.events[before:]]
        assert types == [
            "compaction/start",
            "compaction/summary",
            "user/message",
            "compaction/end",
        ], types
        event("dsh: compacted")
        self.expected = self.log.messages()

    @rule(retain=st.integers(min_value=0, max_value=300), point=CRASH_POINT, tear=TEAR)
    def crash_during_dsh_compaction(self, retain: int, point: int, tear: float | None) -> None:
        nodes = self.log.node_messages()
        if select_compactable_range(nodes, measure(DSH_HEADER, nodes), retain) is None:
            return
        before = len(self.log.events)
        stale = self.log.stale_compaction()
        crash = Crash(1 + point % 4, tear)
        engine = self._dsh_engine(fail=False)
        with (
            mock.patch.object(harness.fs.files, "append_fd", crash),
            contextlib.suppress(OSError, CommitError, SummaryError),
        ):
            engine.compact_now(DSH_HEADER, retain_tokens=retain)
        if crash.in_flight is None:  # refused before writing (summary not smaller): no crash
            self.expected = self.log.messages()
            return
        STEPS["crashes"] += 1
        event(f"dsh: crash at event {crash.at} of 4")
        assert self.log.events == tuple(read_events(self.path)[: len(self.log.events)])
        started = len(self.log.events) > before
        assert (self.log.open_compaction() is not None) == started, "an open start went unseen"
        if started:
            with pytest.raises(CompactionBusyError):
                engine.compact_now(DSH_HEADER, retain_tokens=retain)
        committed, live = list(self.log.events), self.log.messages()
        self._reopen()
        self._check_reopened(crash, committed, live)
        self._check_interrupted(list(self.log.events[before:]), stale)
        self.expected = self.log.messages()

    @rule()
    def reload(self) -> None:
        stale = self.log.stale_compaction()
        self._reopen()
        assert self.log.recovered == []
        assert self.log.stale_compaction() == stale

    # --- invariants -----------------------------------------------------------------------

    @invariant()
    def count_steps(self) -> None:
        self.steps += 1

    @invariant()
    def seqs_are_contiguous(self) -> None:
        assert [e.seq for e in self.log.events] == list(range(len(self.log.events)))

    @invariant()
    def the_file_replays_to_the_live_surface(self) -> None:
        on_disk = read_events(self.path)
        assert on_disk == list(self.log.events)
        assert fold(on_disk) == self.log.surface

    @invariant()
    def surface_is_the_model(self) -> None:
        messages = self.log.messages()
        assert messages == self.expected
        validate_pairing(messages)
        assert self.log.open_compaction() is None

    @invariant()
    def every_replace_is_one_generation(self) -> None:
        replaces = sum(e.replace_range is not None for e in self.log.events)
        assert self.log.surface.replace_generation == replaces

    @invariant()
    def the_file_only_grows(self) -> None:
        data = self.path.read_bytes() if self.path.exists() else b""
        assert data.startswith(self.disk), "a committed line was rewritten"
        self.disk = data

    @invariant()
    def every_original_is_kept(self) -> None:
        kept = Counter(_key(e.message) for e in self.log.events if e.message is not None)
        assert not self.originals - kept, "an original message left the log"


def _key(message: Message) -> str:
    return json.dumps(message.to_record(), sort_keys=True, ensure_ascii=False)


QUICK = settings(
    max_examples=15, stateful_step_count=30, deadline=None, suppress_health_check=list(HealthCheck)
)
"""Few runs, short ones: the rules and invariants are the full profile's."""


class TestEventLogMachine(EventLogMachine.TestCase):
    """The quick profile, in the default run: 15 runs of up to 30 steps."""

    settings = QUICK


@pytest.mark.slow
class TestEventLogMachineLong(EventLogMachine.TestCase):
    """The full profile (the hypothesis profile's examples, 50 steps each): ``pytest -m slow``."""
