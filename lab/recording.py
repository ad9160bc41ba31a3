"""Re-record experiments' cassettes from a live provider: the code behind ``ctxlab record`` and
``pytest --record-mode=rewrite``.

For ``--provider local`` without a base URL, a local server is started for the block and
stopped after it: one per kind of server the experiments need (llama-cpp-python for most,
llama.cpp's own ``llama-server`` for E4, which reports cached prompt tokens).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab.experiment import RunSettings
from lab.preflight import KEY_PROBE_TIMEOUT, preflight
from lab.registry import EXPERIMENTS
from lab.runner import record_experiments, select

if TYPE_CHECKING:
    from harness.timeouts import Timeouts
    from lab.recorder import ProviderSpec

__all__ = ["Recording", "dependents", "record", "recordable", "unreplayed_sets"]


@dataclass(frozen=True)
class Recording:
    """Where live traffic comes from, as given on the command line."""

    provider: str
    """``deepseek``, ``local`` or ``openai-compatible``."""
    model: str | None = None
    """The model; for ``local`` without a base URL, which local model to serve (``qwen1.5b``,
    the default, or ``qwen0.5b``; :data:`lab.recorder.local.modelfile.LOCAL_MODELS`)."""
    base_url: str | None = None
    """For ``local``: use this running server instead of starting one."""
    api_key_env: str | None = None
    timeouts: Timeouts | None = None
    """The client's timeouts; None = the defaults and ``CTXLAB_*TIMEOUT``."""
    threads: int = 2
    """For ``local`` without a base URL: the server's threads (a busy machine records faster
    with 1; the flag is in each cassette's provenance)."""
    variant: str = ""
    """Record with a ctxlab switch on (``gate``; :mod:`lab.variants`), into
    ``<name>-<variant>.json`` beside the plain cassettes."""
    slice: tuple[int, int] | None = None
    """X-BENCH: record part ``K`` of ``N`` of its cassettes (``--slice K/N``)."""
    conditions: tuple[str, ...] = ()
    """X-BENCH: record only these conditions (``--conditions``); empty = all."""
    concurrency: int = 1
    """Cassettes (X-BENCH's) or experiments recorded at once (``--concurrency``), each in a
    process of its own (:mod:`lab.record_pool`)."""
    shard: tuple[int, int] | None = None
    """Record only shard ``i`` of ``n`` (``--shard``; :mod:`lab.record_shards`)."""
    max_tokens: int | None = None
    """Cap every answer at this many tokens (``max_tokens`` in the provider's params, so the
    cassette's provenance keeps it and replay sends it); None = no cap. For a model that never
    stops on its own (the 0.5B Qwen on E4's fourth turn ran past 5,000 tokens)."""

    def spec(self, spec: ProviderSpec) -> ProviderSpec:
        """``spec`` with this recording's cap in its params."""
        if self.max_tokens is None:
            return spec
        return dataclasses.replace(spec, params={**spec.params, "max_tokens": self.max_tokens})


def recordable(ids: Sequence[str]) -> list[str]:
    """The experiments among ``ids`` (all when empty) that have cassettes of their own, in
    report order (one that replays another's cassettes, X-GATE, records nothing itself)."""
    return [i for i in select(ids) if EXPERIMENTS[i].recordable]


def dependents(recorded: Sequence[str], cassettes: Path | None = None) -> list[str]:
    """The experiments, not among ``recorded``, that replay the cassettes of one of them
    (X-GATE and X-COST read E3's and E4's), in report order: after a recording they are stale
    until replayed. With ``cassettes``, only those with a set to replay there (X-GATE needs a
    set recorded with the gate variant)."""
    done = set(recorded)
    return [
        i
        for i, experiment in EXPERIMENTS.items()
        if i not in done
        and done & set(experiment.reads)
        and (cassettes is None or experiment.sets(cassettes))
    ]


def unreplayed_sets(recorded: Sequence[str], cassettes: Path, since: float) -> list[str]:
    """One sentence per experiment that replays what was just recorded but cannot replay a set
    written since ``since`` (a time stamp), naming the cassettes it lacks: X-GATE writes no row
    for a set without E3's gate variant, and said nothing about it."""
    from lab.cassette_sets import list_sets

    fresh = {
        s
        for r in recorded
        for s in list_sets(cassettes, EXPERIMENTS[r].cassette_folder)
        if any(f.stat().st_mtime >= since for f in (cassettes / r / s).glob("*.json"))
    }
    lines = []
    for i in dependents(recorded):
        experiment = EXPERIMENTS[i]
        for s in sorted(fresh - set(experiment.sets(cassettes))):
            needed = [tuple(r.split("/", 1)) for r in experiment.requires]
            missing = [
                f"{e}/{s}/{n}.json"
                for e, n in needed
                if not (cassettes / e / s / f"{n}.json").is_file()
            ]
            if missing:
                lines.append(
                    f"{i} wrote no row for {s}: it replays {', '.join(missing)}, which this "
                    "set does not hold (record it to add the row)"
                )
    return lines


def record(
    ids: Sequence[str],
    source: Recording,
    cassettes: Path,
    *,
    force: bool,
    progress: Callable[[str], None] = print,
) -> list[str]:
    """Run the experiments ``ids`` live, writing their cassettes under ``cassettes``; returns
    the ids recorded (scripted experiments have nothing to record and are skipped)."""
    from lab.recorder import provider_spec

    chosen = list(ids) or select(ids)  # empty: all of them
    limit = source.timeouts.total if source.timeouts is not None else KEY_PROBE_TIMEOUT
    preflight(
        chosen, source.provider, source.model, source.base_url, source.api_key_env,
        key_timeout=limit,
    )  # fmt: skip
    if source.provider != "local" or source.base_url:
        spec = source.spec(
            provider_spec(
                source.provider,
                model=source.model,
                base_url=source.base_url,
                api_key_env=source.api_key_env,
            )
        )
        settings = _settings(source, cassettes, spec, None, force, progress)
        recorded = record_experiments(ids, settings)
        model = spec.model
    else:
        recorded = _record_on_local_servers(ids, source, cassettes, force, progress)
        model = source.model or "qwen1.5b"
    if source.shard is not None:  # every cassette of the shard is there: merge may read it
        _write_shard(ids, source, cassettes, model)
    return recorded


def _write_shard(ids: Sequence[str], source: Recording, cassettes: Path, model: str) -> None:
    """``record-shard.json`` of a sharded recording (:mod:`lab.record_shards`)."""
    from lab.record_shards import RecordShard, cassettes_of, write_manifest
    from lab.version import ctxlab_version

    assert source.shard is not None
    experiments = recordable(ids)
    shard = RecordShard(
        ctxlab_version(),
        source.provider,
        model,
        experiments,
        source.variant,
        list(source.conditions),
        list(source.slice) if source.slice else None,
        source.max_tokens,
        source.shard,
        cassettes_of(cassettes, experiments),
    )
    write_manifest(cassettes, shard)


def _record_on_local_servers(
    ids: Sequence[str],
    source: Recording,
    cassettes: Path,
    force: bool,
    progress: Callable[[str], None],
) -> list[str]:
    """``record`` for ``--provider local`` without a base URL: one local server started per
    kind the experiments need, stopped after its experiments."""
    from lab.recorder import local_server, provider_spec
    from lab.recorder.local.modelfile import local_model

    for scripted in (i for i in select(ids) if not EXPERIMENTS[i].recordable):
        progress(f"{scripted}  scripted; nothing to record")
    served = local_model(source.model)
    recorded: list[str] = []
    for (server_kind, context), group in _by_local_server(recordable(ids)).items():
        with local_server(
            served, server=server_kind, log=progress, threads=source.threads, n_ctx=context
        ) as server:
            spec = source.spec(provider_spec("local", model=server.model, base_url=server.base_url))
            settings = _settings(source, cassettes, spec, server.as_dict(), force, progress)
            recorded += record_experiments(group, settings)
    return recorded


def _settings(
    source: Recording,
    cassettes: Path,
    spec: ProviderSpec,
    server_info: Mapping[str, Any] | None,
    force: bool,
    progress: Callable[[str], None],
) -> RunSettings:
    """The run settings that record from ``spec`` (``server_info``: the local server's)."""
    return RunSettings(
        cassettes,
        "record",
        spec,
        server_info,
        force=force,
        progress=progress,
        timeouts=source.timeouts,
        variant=source.variant,
        slice=source.slice,
        concurrency=source.concurrency,
        conditions=source.conditions,
        shard=source.shard,
    )


def _by_local_server(ids: Sequence[str]) -> dict[tuple[str, int], list[str]]:
    """The experiments by the local server they need: its kind and its context."""
    groups: dict[tuple[str, int], list[str]] = {}
    for experiment_id in ids:
        experiment = EXPERIMENTS[experiment_id]
        key = (experiment.local_server, experiment.local_context)
        groups.setdefault(key, []).append(experiment_id)
    return groups
