"""Every method through CompactBench's own runner on the same cases and the same model.

:func:`run_side_by_side` runs ``compactbench.runner.run_experiment`` once per method (CompactBench's
built-ins by key, ctxlab's engines by ``<path>:<ClassName>``, :data:`METHODS`), each writing
CompactBench's own ``results.jsonl`` to ``OUT/<method>.jsonl``, then reads each run's
``run_end`` aggregates (CompactBench's scorer) into one table. A run already complete in
``OUT`` is read, not run again; one cut short is resumed (CompactBench's ``--resume``); either
only when its ``run_start`` says the same method, suite, model, difficulty, drift cycles, seed
group and cases per template, else one sentence refuses it (:func:`same_run`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.model import ChatModel

__all__ = [
    "BUILT_IN",
    "METHODS",
    "Scores",
    "SideBySide",
    "run_side_by_side",
    "same_run",
    "table",
]

_METHODS_FILE = Path(__file__).with_name("methods.py")
METHODS: dict[str, str] = {
    "ctxlab": f"{_METHODS_FILE}:CtxlabMethod",
    "agentscope": f"{_METHODS_FILE}:AgentScopeMethod",
    "dsh": f"{_METHODS_FILE}:DshMethod",
}
"""ctxlab's engines, as CompactBench's runner loads an external method."""
BUILT_IN: tuple[str, ...] = ("hybrid-ledger", "naive-summary")
"""CompactBench's own methods the side-by-side runs by default beside ctxlab's."""
SCORES: tuple[str, ...] = (
    "overall_score",
    "drift_resistance",
    "constraint_retention",
    "contradiction_rate",
    "compression_ratio",
)


@dataclass(frozen=True)
class SideBySide:
    """What to run: CompactBench's suite from a user's copy, and how many cases."""

    benchmarks_dir: Path
    suite: str
    methods: tuple[str, ...]
    cases_per_template: int = 1
    drift_cycles: int = 1
    difficulty: str = "medium"
    seed_group: str = "default"


@dataclass(frozen=True)
class Scores:
    """One method's ``run_end`` aggregates (CompactBench's scorer) and its case count."""

    method: str
    cases: int
    values: dict[str, float]


def method_spec(method: str) -> str:
    """The runner's ``--method`` for ``method``: ctxlab's by path, CompactBench's by key."""
    return METHODS.get(method, f"built-in:{method}")


def run_side_by_side(
    plan: SideBySide,
    model: ChatModel,
    out: Path,
    progress: Callable[[str], None] = print,
) -> list[Scores]:
    """Run every method of ``plan`` on ``model`` and return their scores, in order."""
    from compactbench.dsl import DifficultyLevel
    from compactbench.runner import RunArgs, run_experiment

    from experiments.x_bench.compactbench_side.provider import registered

    _scorer_tokenizer()
    out.mkdir(parents=True, exist_ok=True)
    results = []
    with registered(model) as provider_key:
        for method in plan.methods:
            path = out / f"{method}.jsonl"
            same_run(path, plan, method, model.model_name)
            if _finished(path) is None:
                progress(f"compactbench: {method} on {plan.suite} ({model.model_name})")
                args = RunArgs(
                    method_spec=method_spec(method),
                    suite_key=plan.suite,
                    provider_key=provider_key,
                    model=model.model_name,
                    difficulty=DifficultyLevel(plan.difficulty),
                    drift_cycles=plan.drift_cycles,
                    case_count_per_template=plan.cases_per_template,
                    seed_group=plan.seed_group,
                    benchmarks_dir=plan.benchmarks_dir,
                    output_path=path,
                    resume=path.exists(),
                )
                asyncio.run(run_experiment(args))
            results.append(_scores(method, path))
    return results


TOKENIZER_HINT = (
    "CompactBench's scorer counts tokens with tiktoken's cl100k_base, which tiktoken downloads "
    "on first use; with no network, set TIKTOKEN_CACHE_DIR to a folder holding the file "
    "(docs/bench.md says where one comes from)"
)


def _scorer_tokenizer() -> None:
    """Load the scorer's tokenizer before any model call: one sentence when it cannot be had."""
    from compactbench.scoring import compression

    try:
        compression._encoder()
    except Exception as exc:  # tiktoken raises requests' and its own errors
        from harness import ConfigError

        raise ConfigError(f"{TOKENIZER_HINT} ({type(exc).__name__})") from exc


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _finished(path: Path) -> dict[str, Any] | None:
    """The run's ``run_end`` event, or None when the file is missing or the run was cut short."""
    if not path.exists():
        return None
    ends = [e for e in _events(path) if e.get("event") == "run_end"]
    return ends[-1] if ends else None


def _planned(plan: SideBySide, method: str, model: str) -> dict[str, object]:
    """What ``run_start`` says of a run of ``method`` under ``plan`` on ``model``."""
    return {
        "method_name": method,
        "suite_key": plan.suite,
        "target_model": model,
        "difficulty": plan.difficulty,
        "drift_cycles": plan.drift_cycles,
        "seed_group": plan.seed_group,
        "case_count_per_template": plan.cases_per_template,
    }


def same_run(path: Path, plan: SideBySide, method: str, model: str) -> None:
    """Refuse, in one sentence, a results file in ``OUT`` that is not a run of ``method`` under
    ``plan`` on ``model`` (another model, suite or cycle count would be read as this one's
    score, or resumed into it); a missing file, or one with no events yet, passes."""
    first = path.read_text("utf-8").split("\n", 1)[0] if path.exists() else ""
    start = json.loads(first) if first.strip() else {}
    if start.get("event") != "run_start":
        return
    differs = [
        f"{key} {start.get(key)!r} (asked: {want!r})"
        for key, want in _planned(plan, method, model).items()
        if start.get(key) != want
    ]
    if differs:
        from harness import ConfigError

        raise ConfigError(
            f"{path} is a run of another kind ({'; '.join(differs)}): use another --out, or "
            "remove the file to run it again"
        )


def _scores(method: str, path: Path) -> Scores:
    end = _finished(path)
    if end is None:
        from harness import ConfigError

        raise ConfigError(f"CompactBench's run of {method} left no run_end in {path}")
    cases = sum(1 for e in _events(path) if e.get("event") == "case_complete")
    return Scores(method, cases, {k: float(end[k]) for k in SCORES})


def table(scores: Sequence[Scores], model: str, command: str) -> str:
    """The side-by-side as Markdown: one row per method, CompactBench's aggregates."""
    head = "| method | cases | " + " | ".join(SCORES) + " |"
    rule = "| --- " * (len(SCORES) + 2) + "|"
    rows = [
        f"| {s.method} | {s.cases} | " + " | ".join(f"{s.values[k]:.3f}" for k in SCORES) + " |"
        for s in scores
    ]
    return "\n".join(
        [
            "# CompactBench side by side",
            "",
            f"Model: `{model}`. Scores are CompactBench 0.1.0's own (its runner and scorer).",
            f"Command: `{command}`",
            "",
            head,
            rule,
            *rows,
            "",
        ]
    )
