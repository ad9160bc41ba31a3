"""A hypothesis state machine over the memory store, against a simple model (a set of facts).

The store is a real ``MemoryWorkspace`` in a temp folder, written by ``MemoryFlusher`` (a
function model plays the flush model), ``MemoryTools.memory_save`` and ``Consolidator`` (a
function model that merges faithfully: every ``fact-NNNN`` token of its input, one bullet a
line). Rules append facts, consolidate, make the consolidation model fail, crash a consolidation,
a save or a flush at a chosen write point, move the clock on, archive, and reload the workspace.
The invariants live in ``memory_invariants``.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from support.memory_invariants import (
    FACT,
    FakeClock,
    StoreModel,
    WriteFaults,
    check_daily_files_only_grow,
    check_memory_never_half_written,
    check_no_fact_lost,
    check_watermark,
    daily_entries,
    facts_in,
    memory_text,
    read_watermark,
    snapshot_daily,
)

import harness.fs.root
from harness.errors import ServerError
from harness.fs.root import SafeRoot
from harness.memory import Consolidator, MemoryFlusher, MemoryTools, MemoryWorkspace
from harness.messages import Message
from harness.model import ChatRequest
from harness.testing import FunctionModel

STEPS: Counter[str] = Counter()
"""Examples and steps run in this process (for reporting how much the machine explored)."""

CRASH_POINT = st.integers(min_value=1, max_value=9)
TEAR = st.one_of(st.none(), st.floats(min_value=0, max_value=1))
"""How much of a failing write reaches the disk: nothing (None) or a fraction of it."""


class MemoryStoreMachine(RuleBasedStateMachine):
    """Flushes, saves and consolidations, with failures and crashes, never lose a fact."""

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="ctxlab-memory-sm-"))
        self.clock = FakeClock()
        self.model = StoreModel()
        self.next_fact = 0
        self.flush_reply = ""
        self.consolidation_fails = False
        self.flush_model = FunctionModel(lambda request: self.flush_reply)
        self.consolidation_model = FunctionModel(self._merge)
        real_write = harness.fs.root.SafeRoot.write_atomic

        def recording_write(fs: SafeRoot, path: str, data: str | bytes) -> None:
            if Path(path).name == "MEMORY.md":
                text = data if isinstance(data, str) else data.decode("utf-8")
                self.model.memory_texts.add(text)
            real_write(fs, path, data)

        self._patch = mock.patch.object(SafeRoot, "write_atomic", recording_write)
        self._patch.start()
        self._open()
        self.steps = -1  # the invariants run once before the first step

    def teardown(self) -> None:
        STEPS["examples"] += 1
        STEPS["steps"] += self.steps
        event(f"steps per example: {10 * (self.steps // 10)}-{10 * (self.steps // 10) + 9}")
        self._patch.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    # --- helpers --------------------------------------------------------------------------

    def _open(self) -> None:
        self.workspace = MemoryWorkspace(self.root, "u1", clock=self.clock)
        self.base = self.workspace.base
        self.flusher = MemoryFlusher(self.flush_model, self.workspace)
        self.consolidator = Consolidator(self.consolidation_model, self.workspace)
        self.tools = MemoryTools(self.workspace)

    def _merge(self, request: ChatRequest) -> str:
        if self.consolidation_fails:
            raise ServerError("injected 503", status_code=503)
        text = "\n".join(m.content for m in request.messages)
        tokens = dict.fromkeys(FACT.findall(text))
        return "# Memory\n" + "\n".join(f"- {token}" for token in tokens)

    def _new_facts(self, n: int) -> list[str]:
        facts = [f"fact-{self.next_fact + i:04d}" for i in range(n)]
        self.next_fact += n
        return facts

    @staticmethod
    def _conversation(facts: list[str]) -> list[Message]:
        return [Message.user(f"please remember {', '.join(facts)}"), Message.assistant("noted")]

    def _daily_facts(self) -> set[str]:
        return {f for entry in daily_entries(self.base) for f in facts_in(entry.text)}

    def _on_disk(self) -> set[str]:
        return self._daily_facts() | facts_in(memory_text(self.base) or "")

    def _fresh(self) -> int:
        """Daily entries newer than the watermark, by our own reading of the files."""
        watermark = read_watermark(self.base) or 0
        return sum(entry.instant > watermark for entry in daily_entries(self.base))

    def _state(self) -> tuple[Any, ...]:
        watermark = self.base / "memory" / ".consolidation_state"
        return (
            memory_text(self.base),
            watermark.read_bytes() if watermark.exists() else None,
            snapshot_daily(self.base),
        )

    def _check_written(self, watermark_before: int | None) -> None:
        memory = facts_in(memory_text(self.base) or "")
        assert self.model.facts <= memory, f"not merged: {sorted(self.model.facts - memory)}"
        newest = max(e.instant for e in daily_entries(self.base))
        assert read_watermark(self.base) == newest
        assert newest > (watermark_before or 0)

    # --- rules ----------------------------------------------------------------------------

    @rule(n=st.integers(min_value=1, max_value=3))
    def flush_new_facts(self, n: int) -> None:
        facts = self._new_facts(n)
        self.flush_reply = "\n".join(f"- {fact}" for fact in facts)
        entry = self.flusher.flush(self._conversation(facts))
        assert entry is not None and entry.kind == "Memory Flush"
        assert set(facts) <= self._daily_facts()
        self.model.facts |= set(facts)

    @rule()
    def memory_save(self) -> None:
        (fact,) = self._new_facts(1)
        assert self.tools.memory_save(f"- {fact}") == "Saved 1 memory to MEMORY.md"
        assert fact in facts_in(memory_text(self.base) or "")
        assert fact in self._daily_facts()
        self.model.facts.add(fact)

    @rule()
    def flush_with_nothing_to_keep(self) -> None:
        before = self._state()
        self.flush_reply = "NO_REPLY"
        assert self.flusher.flush(self._conversation(["nothing"])) is None
        assert self._state() == before

    @rule()
    def consolidate(self) -> None:
        fresh = self._fresh()
        asked = len(self.consolidation_model.requests)
        watermark = read_watermark(self.base)
        outcome = self.consolidator.consolidate()
        if fresh == 0:
            assert outcome.status == "skipped"
            assert len(self.consolidation_model.requests) == asked, "a skip called the model"
        else:
            assert outcome.status == "written", outcome
            assert outcome.entries == fresh
            self._check_written(watermark)

    @rule()
    def consolidate_with_failing_model(self) -> None:
        fresh = self._fresh()
        before = self._state()
        self.consolidation_fails = True
        try:
            outcome = self.consolidator.consolidate()
        finally:
            self.consolidation_fails = False
        assert outcome.status == ("skipped" if fresh == 0 else "failed")
        assert self._state() == before, "a failed consolidation changed the store"

    @rule(k=CRASH_POINT, tear=TEAR)
    def crash_during_consolidation(self, k: int, tear: float | None) -> None:
        fresh = self._fresh()
        watermark = read_watermark(self.base)
        memory_before = memory_text(self.base)
        with WriteFaults(k, tear).installed() as faults:
            try:
                outcome = self.consolidator.consolidate()
            except OSError:
                outcome = None
        event(f"consolidation crash: {faults.describe()}")
        assert outcome is not None, "a crashed write escaped consolidate() as an exception"
        if outcome.status == "failed" and outcome.log_line.startswith("Watermark write failed"):
            # MEMORY.md was rewritten, then the watermark write crashed: the watermark stays,
            # and MEMORY.md already holds every fact, so the next run only repeats the batch.
            assert faults.failed is not None
            assert read_watermark(self.base) == watermark, "a crashed write moved the watermark"
            memory = facts_in(memory_text(self.base) or "")
            assert self.model.facts <= memory
        elif outcome.status == "failed":
            assert faults.failed is not None
            assert read_watermark(self.base) == watermark
            assert memory_text(self.base) == memory_before, "a failed rewrite changed MEMORY.md"
        elif outcome.status == "written":
            # No crash, or one in the folder sync after a rename (write_atomic ignores it).
            assert faults.failed in (None, "fsync")
            assert fresh > 0
            self._check_written(watermark)
        else:
            assert fresh == 0 and not faults.points

    @rule(k=CRASH_POINT, tear=TEAR)
    def crash_during_save(self, k: int, tear: float | None) -> None:
        (fact,) = self._new_facts(1)
        with WriteFaults(k, tear).installed() as faults:
            try:
                self.tools.memory_save(f"- {fact}")
            except OSError:
                assert faults.failed is not None
        event(f"save crash: {faults.describe()}")
        if fact in self._on_disk():
            self.model.facts.add(fact)
        if faults.failed is None:
            assert fact in facts_in(memory_text(self.base) or "") and fact in self._daily_facts()

    @rule(k=CRASH_POINT, n=st.integers(min_value=1, max_value=3), tear=TEAR)
    def crash_during_flush(self, k: int, n: int, tear: float | None) -> None:
        facts = self._new_facts(n)
        self.flush_reply = "\n".join(f"- {fact}" for fact in facts)
        with WriteFaults(k, tear).installed() as faults:
            try:
                self.flusher.flush(self._conversation(facts))
            except OSError:
                assert faults.failed is not None
        event(f"flush crash: {faults.describe()}")
        landed = set(facts) & self._daily_facts()
        if tear is None or faults.failed != "write appended file":
            assert landed in (set(), set(facts)), "a flush landed in part"
        else:  # a torn append keeps a prefix of the section
            assert landed == set(facts[: len(landed)])
        if landed:
            self.model.facts |= landed

    @rule()
    def reload(self) -> None:
        self._open()

    @rule(hours=st.integers(min_value=1, max_value=60 * 24))
    def time_passes(self, hours: int) -> None:
        self.clock.advance(hours * 3600)

    @rule()
    def archive(self) -> None:
        moved = self.workspace.archive_old(90)
        event(f"archive moved {min(len(moved), 2)}+ files" if moved else "archive moved nothing")

    # --- invariants -----------------------------------------------------------------------

    @invariant()
    def count_steps(self) -> None:
        self.steps += 1

    @invariant()
    def no_fact_is_lost(self) -> None:
        check_no_fact_lost(self.model, self.base)

    @invariant()
    def watermark_is_sound(self) -> None:
        check_watermark(self.model, self.base)

    @invariant()
    def memory_is_never_half_written(self) -> None:
        check_memory_never_half_written(self.model, self.base)

    @invariant()
    def daily_files_only_grow(self) -> None:
        check_daily_files_only_grow(self.model, self.base)


QUICK = settings(
    max_examples=15, stateful_step_count=30, deadline=None, suppress_health_check=list(HealthCheck)
)
"""Few runs, short ones: the rules and invariants are the full profile's."""


class TestMemoryStore(MemoryStoreMachine.TestCase):
    """The quick profile, in the default run: 15 runs of up to 30 steps."""

    settings = QUICK


@pytest.mark.slow
class TestMemoryStoreLong(MemoryStoreMachine.TestCase):
    """The full profile (the hypothesis profile's examples, 50 steps each): ``pytest -m slow``."""
