"""What a ``ctxlab bench`` leaves for ``ctxlab bench merge``, and the merge.

Every bench writes, beside its tables, ``bench-shard.json`` (which grid it played: ctxlab's
version, the provider and model, the conditions, a digest of the conversations, its shard
``i/n``; and its runs) and ``bench-conversations.json`` (the conversations, so a merge on
another machine needs nothing else). An unsharded bench is shard 1/1.

:func:`merge_shards` reads the folders of shards 1 to n of one grid, refuses in one sentence a
shard of another grid, version or setting, a missing shard and a run missing from every shard,
and returns the runs in the grid's order: the merged tables are byte for byte an unsharded
bench's. Merging is idempotent: a folder given twice, or the merged folder itself (shard 1/1),
adds nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.x_bench.grid import Shard, grid_cells
from experiments.x_bench.schema import Conversation, dump_conversation, load_conversations
from experiments.x_bench.view import RunRecord
from harness import ConfigError
from harness.fs.files import write_atomic
from lab import ShapeError, ctxlab_version, from_data

__all__ = [
    "CONVERSATIONS",
    "MANIFEST",
    "ShardManifest",
    "conversations_json",
    "merge_shards",
    "write_shard",
]

MANIFEST = "bench-shard.json"
CONVERSATIONS = "bench-conversations.json"
FORMAT = 1


@dataclass(frozen=True)
class ShardManifest:
    """Which grid a bench played, and which shard of it."""

    ctxlab: str
    model: str
    """The provider and model name (not the base URL: each machine may use its own server)."""
    conditions: list[str]
    conversations: str
    """SHA-256 of the conversations' JSON, in order."""
    shard: Shard

    @classmethod
    def of(
        cls, conversations: Sequence[Conversation], names: Sequence[str], model: str, shard: Shard
    ) -> ShardManifest:
        digest = hashlib.sha256(conversations_json(conversations).encode("utf-8")).hexdigest()
        return cls(ctxlab_version(), model, list(names), digest, shard)

    def differs(self, other: ShardManifest) -> str:
        """The first setting in which ``other`` is of another grid than this; "" if none."""
        for name in ("ctxlab", "model", "conditions", "conversations"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine != theirs:
                return f"{name} {_short(theirs)} instead of {_short(mine)}"
        whole = (1, 1) in (self.shard, other.shard)  # a whole bench merges with any split
        if self.shard[1] != other.shard[1] and not whole:
            return f"a split into {other.shard[1]} shards instead of {self.shard[1]}"
        return ""


def _short(value: Any) -> str:
    text = ",".join(value) if isinstance(value, list) else str(value)
    return text[:12] if len(text) == 64 else text  # a digest: its head is enough


def conversations_json(conversations: Sequence[Conversation]) -> str:
    return "[\n" + ",\n".join(dump_conversation(c).rstrip("\n") for c in conversations) + "\n]\n"


def write_shard(
    out: Path,
    manifest: ShardManifest,
    conversations: Sequence[Conversation],
    records: Sequence[RunRecord],
) -> None:
    data = {
        "format": FORMAT,
        **dataclasses.asdict(manifest),
        "runs": [dataclasses.asdict(r) for r in records],
    }
    write_atomic(out / CONVERSATIONS, conversations_json(conversations))
    write_atomic(out / MANIFEST, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def _read(folder: Path) -> tuple[ShardManifest, list[RunRecord]]:
    path = folder / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.pop("format") != FORMAT:
            raise ValueError("another format")
        runs = [from_data(RunRecord, r) for r in data.pop("runs")]
        data["shard"] = tuple(data["shard"])
        return ShardManifest(**data), runs
    except FileNotFoundError:
        raise ConfigError(
            f"{folder} holds no finished bench ({MANIFEST}): finish that shard first."
        ) from None
    except (OSError, ValueError, KeyError, TypeError, ShapeError) as exc:
        raise ConfigError(f"{path} is not a shard ctxlab bench wrote ({exc}).") from None


def merge_shards(
    folders: Sequence[Path],
) -> tuple[list[Conversation], list[str], list[RunRecord], ShardManifest]:
    """The conversations, conditions and runs (in the grid's order) of shards ``folders``."""
    read = [(folder, *_read(folder)) for folder in folders]
    first_folder, first, _ = read[0]
    for folder, manifest, _ in read[1:]:
        if why := first.differs(manifest):
            raise ConfigError(
                f"{folder} is a shard of another bench than {first_folder} ({why}); merge only "
                "the shards of one grid, ctxlab version and setting."
            )
    total = max(m.shard[1] for _, m, _ in read)
    missing = sorted(set(range(1, total + 1)) - {m.shard[0] for _, m, _ in read})
    whole = any(m.shard == (1, 1) for _, m, _ in read)
    if missing and not whole:
        shards = ", ".join(f"{i}/{total}" for i in missing)
        raise ConfigError(f"The shards {shards} are missing: merge every shard of the grid.")
    conversations = load_conversations(first_folder / CONVERSATIONS)
    runs = _runs(read)
    order = [(c.conversation.id, c.condition) for c in grid_cells(conversations, first.conditions)]
    if lost := [key for key in order if key not in runs]:
        conversation, condition = lost[0]
        raise ConfigError(
            f"No shard holds the run of {conversation} under {condition} ({len(lost)} run(s) "
            "missing): run its shard again to finish it, then merge."
        )
    merged = dataclasses.replace(first, shard=(1, 1))
    return conversations, list(first.conditions), [runs[key] for key in order], merged


def _runs(
    read: list[tuple[Path, ShardManifest, list[RunRecord]]],
) -> dict[tuple[str, str], RunRecord]:
    """Every shard's runs by (conversation, condition); one run found twice must be the same."""
    runs: dict[tuple[str, str], RunRecord] = {}
    for folder, _, records in read:
        for record in records:
            key = (record.conversation, record.condition)
            if runs.setdefault(key, record) != record:
                raise ConfigError(
                    f"{folder} holds another result for {key[0]} under {key[1]} than an "
                    "earlier shard; merge only the shards of one bench."
                )
    return runs
