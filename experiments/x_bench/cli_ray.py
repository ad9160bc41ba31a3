"""``ctxlab bench --executor ray``: the bench's shards as Ray tasks, merged into one bench.

Ray (the optional ``ray`` extra) is an existing distributed engine: ``--ray-tasks N`` splits the
grid into N shards (:mod:`experiments.x_bench.grid`, the split ``--shard i/n`` makes), each
played as one Ray task by ``ctxlab bench --shard i/N`` in a scratch folder of the node that runs
it, ``--concurrency`` runs at a time within it. A task hands back its shard's
``bench-shard.json`` and ``bench-conversations.json``; this process merges them as ``ctxlab
bench merge`` does (:mod:`experiments.x_bench.shards`) and writes the tables to ``--out``, byte
for byte those of one bench played here. ``ray.init()`` joins the cluster ``RAY_ADDRESS`` names
(``auto``: the one this machine belongs to), else starts one on this machine; a Ray session
already started (a test's) is used as it is. A task keeps no journal: a bench on Ray that stops
plays its shards again from the start (or ``--cache DIR`` on a disk the nodes share answers
what they asked before).
"""

from __future__ import annotations

import argparse
import copy
import tempfile
from pathlib import Path
from typing import Any

from harness import ConfigError

__all__ = ["bench_on_ray", "play_shard"]

INSTALL = "pip install -c constraints.txt -e '.[ray]'"


def bench_on_ray(args: argparse.Namespace) -> int:
    """Play the grid as ``args.ray_tasks`` Ray tasks and write the merged tables to ``args.out``;
    the status is 2 when a shard's runs failed (the tables are then not written)."""
    from experiments.x_bench.cli_import import imported_json

    ray = _ray()
    if args.shard:
        raise ConfigError("--executor ray plays every shard itself (--ray-tasks N): drop --shard.")
    if not ray.is_initialized():
        ray.init(include_dashboard=False)
    text = imported_json(args)  # read (any format) here; the tasks read ctxlab's JSON
    task = ray.remote(num_cpus=1, max_retries=0)(play_shard)
    shards = args.ray_tasks
    refs = [task.remote(_shard_args(args, i, shards), text) for i in range(1, shards + 1)]
    try:
        played = ray.get(refs)
    except ray.exceptions.RayTaskError as error:
        cause = error.cause if isinstance(error.cause, Exception) else error
        raise ConfigError(f"a Ray task of the bench failed: {cause}") from None
    failed = [i for i, (status, _) in enumerate(played, 1) if status != 0]
    if failed:
        names = ", ".join(f"{i}/{shards}" for i in failed)
        raise ConfigError(
            f"the shards {names} played on Ray ended with failed runs (their lines above say "
            "which): run the same command again."
        )
    with tempfile.TemporaryDirectory(prefix="ctxlab-ray-") as tmp:
        folders = [_put(Path(tmp) / f"shard-{i}", files) for i, (_, files) in enumerate(played, 1)]
        _merge(folders, args.out)
    return 0


def _ray() -> Any:
    from importlib import import_module

    try:  # by name: mypy checks this module where Ray is not installed too
        return import_module("ray")
    except ImportError:
        raise ConfigError(f"--executor ray needs Ray, the ray extra: {INSTALL}.") from None


def _shard_args(args: argparse.Namespace, i: int, n: int) -> argparse.Namespace:
    shard = copy.copy(args)
    shard.shard, shard.executor = f"{i}/{n}", "local"
    shard.fresh = True  # a scratch folder on the task's node: nothing to resume
    return shard


def play_shard(
    args: argparse.Namespace, conversations: bytes | None
) -> tuple[int, dict[str, bytes]]:
    """One shard of the bench, played (in a Ray task) in a scratch folder; its status and the
    files ``ctxlab bench merge`` reads."""
    from experiments.x_bench import EXPERIMENT
    from experiments.x_bench.cli_bench import bench
    from experiments.x_bench.shards import CONVERSATIONS, MANIFEST
    from lab import live_model

    context = EXPERIMENT.local_context  # the context X-BENCH is recorded with
    with tempfile.TemporaryDirectory(prefix="ctxlab-shard-") as tmp:
        args.out = Path(tmp) / "out"
        if conversations is not None:
            args.conversations = Path(tmp) / "conversations.json"
            args.conversations.write_bytes(conversations)
        status = bench(
            args, lambda options, hook: live_model(options, n_ctx=context, on_response=hook)
        )
        files = {n: (args.out / n).read_bytes() for n in (MANIFEST, CONVERSATIONS)}
    return status, files


def _put(folder: Path, files: dict[str, bytes]) -> Path:
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def _merge(folders: list[Path], out: Path) -> None:
    from experiments.x_bench.cli_bench import write_report
    from experiments.x_bench.shards import merge_shards, write_shard

    conversations, names, records, manifest = merge_shards(folders)
    write_report(conversations, records, names, out)
    write_shard(out, manifest, conversations, records)
