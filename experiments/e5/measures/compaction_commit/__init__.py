"""What happens around one compaction's commit, measured on scripted agents and event logs:
AgentScope's pre-compaction hooks, ``disableCompaction`` and a summary larger than its prefix
(:mod:`.compact_hooks`), DeepSeek-Harness's commit events and overflow bookkeeping
(:mod:`.dsh_commit`), and where one user's files land (:mod:`.namespace`). Judged by
:mod:`experiments.e5.claims.compaction_commit`."""

from __future__ import annotations

from experiments.e5.measures.compaction_commit.compact_hooks import (
    measure_compact_hooks,
    measure_disabled_overflow,
    measure_larger_summary,
)
from experiments.e5.measures.compaction_commit.dsh_commit import measure_dsh_commit
from experiments.e5.measures.compaction_commit.namespace import measure_namespace
from experiments.e5.view.compaction_commit import CompactionCommit

__all__ = ["measure_compaction_commit"]


def measure_compaction_commit() -> CompactionCommit:
    commit, prune_progress, retry_reset, stability = measure_dsh_commit()
    return CompactionCommit(
        hooks=measure_compact_hooks(),
        disabled_overflow=measure_disabled_overflow(),
        larger_summary=measure_larger_summary(),
        commit=commit,
        prune_progress=prune_progress,
        retry_reset=retry_reset,
        stability=stability,
        namespace=measure_namespace(),
    )
