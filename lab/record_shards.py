"""``ctxlab record --shard i/n`` and ``ctxlab record merge DIR… --out D``: one recording split
across machines (or jobs of a CI matrix), and put back together.

A job of a recording (:mod:`lab.record_pool`: one cassette of X-BENCH, or a whole
experiment) falls to the shard its (experiment, cassette, model) digest names, so the split
depends on nothing but the job: the same cassette is in the same shard on every machine and in
every rerun. A sharded recording writes, once all its cassettes are recorded,
``record-shard.json`` in its ``--cassettes`` folder: what was recorded (ctxlab's version, the
provider and model, the experiments, the variant, the conditions and slice, the answer cap),
its shard, and the SHA-256 of every cassette it holds.

:func:`merge_shards` reads the folders of shards 1 to n of one recording, refuses in one
sentence a shard of another recording, a missing shard, a cassette whose bytes are not those
its manifest names, and one cassette with two different contents; it copies the cassettes into
``--out`` and writes the merged manifest there (shard 1/1). Merging is idempotent: a folder given
twice, or the merged folder itself, adds nothing. The base URL is not compared: each machine may
use its own server of the same model.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import ConfigError
from harness.fs.files import write_atomic
from lab import sharding

__all__ = ["MANIFEST", "RecordShard", "in_shard", "merge_shards", "shard_of", "write_manifest"]

MANIFEST = "record-shard.json"
FORMAT = 1
SETTINGS = ("ctxlab", "provider", "model", "experiments", "variant", "conditions", "slice",
            "max_tokens")  # fmt: skip
"""What two shards of one recording must share."""


def shard_of(experiment: str, cassette: str, model: str, n: int) -> int:
    """The shard (1 to ``n``) that records ``cassette`` of ``experiment`` ("" for an
    experiment recorded whole) with ``model``."""
    return sharding.shard_of((experiment, cassette, model), n)


def in_shard(experiment: str, cassette: str, model: str, shard: tuple[int, int] | None) -> bool:
    return shard is None or shard_of(experiment, cassette, model, shard[1]) == shard[0]


@dataclass(frozen=True)
class RecordShard:
    """Which recording a ``--cassettes`` folder holds a shard of, and its cassettes."""

    ctxlab: str
    provider: str
    model: str
    experiments: list[str]
    variant: str
    conditions: list[str]
    slice: list[int] | None
    max_tokens: int | None
    shard: tuple[int, int]
    cassettes: dict[str, str] = field(default_factory=dict)
    """Each cassette's path under the folder (``E3/<set>/rounds.json``) → its SHA-256."""

    def differs(self, other: RecordShard) -> str:
        """The first setting in which ``other`` is of another recording than this; "" if none."""
        for name in SETTINGS:
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine != theirs:
                return f"{name} {_text(theirs)} instead of {_text(mine)}"
        whole = (1, 1) in (self.shard, other.shard)  # a whole recording merges with any split
        if self.shard[1] != other.shard[1] and not whole:
            return f"a split into {other.shard[1]} shards instead of {self.shard[1]}"
        return ""


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value)) or "none"
    return "none" if value in (None, "") else str(value)


def cassettes_of(folder: Path, experiments: Sequence[str]) -> dict[str, str]:
    """The cassettes under ``folder`` of ``experiments``, each with its SHA-256, in path order."""
    found = sorted(p for e in experiments for p in (folder / e).rglob("*.json") if p.is_file())
    return {p.relative_to(folder).as_posix(): _digest(p) for p in found}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(folder: Path, shard: RecordShard) -> None:
    data = {"format": FORMAT, **dataclasses.asdict(shard)}
    write_atomic(folder / MANIFEST, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def read_manifest(folder: Path) -> RecordShard:
    path = folder / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.pop("format") != FORMAT:
            raise ValueError("another format")
        data["shard"] = tuple(data["shard"])
        shard = RecordShard(**data)
        if not isinstance(shard.cassettes, dict) or len(shard.shard) != 2:
            raise ValueError("no cassettes or no shard")
        return shard
    except FileNotFoundError:
        raise ConfigError(
            f"{folder} holds no finished recording ({MANIFEST}): record that shard (again) "
            "until it ends without a cassette left out."
        ) from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{path} is not a shard ctxlab record wrote ({exc}).") from None


def merge_shards(folders: Sequence[Path], out: Path) -> RecordShard:
    """Copy the cassettes of the shards ``folders`` of one recording into ``out`` and write
    the merged manifest there; returns it."""
    read = [(folder, read_manifest(folder)) for folder in folders]
    first_folder, first = read[0]
    for folder, shard in read[1:]:
        if why := first.differs(shard):
            raise ConfigError(
                f"{folder} is a shard of another recording than {first_folder} ({why}); merge "
                "only the shards of one recording: the same experiments, ctxlab version, "
                "settings and model."
            )
    _refuse_missing(read)
    sources = _sources(read)
    for name, (folder, _) in sources.items():
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, (folder / name).read_bytes())
    merged = dataclasses.replace(
        first, shard=(1, 1), cassettes={n: d for n, (_, d) in sorted(sources.items())}
    )
    write_manifest(out, merged)
    return merged


def _refuse_missing(read: list[tuple[Path, RecordShard]]) -> None:
    total = max(s.shard[1] for _, s in read)
    missing = sorted(set(range(1, total + 1)) - {s.shard[0] for _, s in read})
    if missing and not any(s.shard == (1, 1) for _, s in read):
        shards = ", ".join(f"{i}/{total}" for i in missing)
        raise ConfigError(f"The shards {shards} are missing: merge every shard of the recording.")


def _sources(read: list[tuple[Path, RecordShard]]) -> dict[str, tuple[Path, str]]:
    """Every cassette → (the first folder that holds it, its digest); a cassette whose bytes
    are not its manifest's, or held twice with two contents, is refused."""
    sources: dict[str, tuple[Path, str]] = {}
    for folder, shard in read:
        for name, digest in shard.cassettes.items():
            _refuse_outside(folder, name)
            path = folder / name
            if not path.is_file() or _digest(path) != digest:
                raise ConfigError(
                    f"{path} is not the cassette {folder / MANIFEST} names (missing or changed "
                    "since it was recorded); record that shard again."
                )
            held = sources.setdefault(name, (folder, digest))
            if held[1] != digest:
                raise ConfigError(
                    f"{folder} and {held[0]} hold two different recordings of {name}; merge "
                    "only the shards of one recording."
                )
    return sources


def _refuse_outside(folder: Path, name: str) -> None:
    """A manifest names cassettes inside its folder, never a path that climbs out of it."""
    parts = Path(name).parts
    if Path(name).is_absolute() or ".." in parts or not name.endswith(".json") or not parts:
        raise ConfigError(f"{folder / MANIFEST} names {name!r}, which is not a cassette in it.")
