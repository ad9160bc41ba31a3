"""What a mutation matrix was computed from, so that a check can tell a current matrix from a
stale one without computing it again.

Every cell of ``mutations.csv`` is a function of the code (``harness/``, ``lab/``,
``experiments/``), the recordings (``cassettes/``) and the pinned libraries
(``pyproject.toml``, ``constraints.txt``); the seeds reach it only through
``lab/seed_sections.py``, which is code. :func:`inputs_digest` hashes all of them;
``ctxlab mutations`` writes the digest beside the matrix (:data:`INPUTS_FILE`) when it computed
every experiment, with each input's own hash and the names of the inputs its runs read
(:mod:`lab.mutations.reads`). A check whose digest equals the recorded one knows the committed
matrix was computed from this very tree; one where the only inputs that changed are files no
run read (a report page, a command's parser: none of the matrix's runs opens or imports them)
knows it is what this tree computes too (:func:`matrix_is_current`). Either needs to recompute
only a sample to catch a hand-edited cell (:func:`sample_of`); any other check recomputes the
whole matrix.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from harness.fs.files import write_atomic

__all__ = [
    "INPUTS_FILE",
    "INPUT_FILES",
    "INPUT_FOLDERS",
    "changed_inputs",
    "digest_of",
    "input_hashes",
    "inputs_digest",
    "matrix_is_current",
    "read_names",
    "recorded_digest",
    "recorded_reach",
    "recorded_read",
    "sample_of",
    "write_inputs",
]

INPUTS_FILE = "mutations.inputs.json"
"""Beside ``mutations.csv``: the digest of the tree the whole matrix was computed from."""
INPUT_FOLDERS = ("harness", "lab", "experiments")
"""The code's folders, under the folder that holds the packages (:data:`lab.project.SOURCE_ROOT`:
the checkout in an editable install)."""
INPUT_FILES = ("pyproject.toml", "constraints.txt")
_SKIPPED_PARTS = frozenset({"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


def _files_under(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(folder).parts
        bytecode = path.name.endswith((".pyc", ".pyo"))
        if path.is_file() and not bytecode and not _SKIPPED_PARTS.intersection(parts):
            yield path


def _inputs(source_root: Path, cassettes: Path) -> Iterator[tuple[str, Path]]:
    """Each input file, named as it is hashed: relative to ``source_root``, the recordings as
    ``cassettes/…`` wherever their folder is."""
    for name in INPUT_FILES:
        if (source_root / name).is_file():
            yield name, source_root / name
    for folder in INPUT_FOLDERS:
        for path in _files_under(source_root / folder):
            yield path.relative_to(source_root).as_posix(), path
    for path in _files_under(cassettes):
        yield f"cassettes/{path.relative_to(cassettes).as_posix()}", path


def input_hashes(source_root: Path, cassettes: Path) -> dict[str, str]:
    """Each input of the matrix by name (in the digest's fixed order), its bytes' SHA-256."""
    return {
        name: hashlib.sha256(path.read_bytes()).hexdigest()
        for name, path in _inputs(source_root, cassettes)
    }


def digest_of(hashes: Mapping[str, str]) -> str:
    """The digest of :func:`input_hashes` (in their order): :func:`inputs_digest`."""
    digest = hashlib.sha256()
    for name, file_hash in hashes.items():
        digest.update(name.encode("utf-8") + b"\0")
        digest.update(bytes.fromhex(file_hash))
    return digest.hexdigest()


def inputs_digest(source_root: Path, cassettes: Path) -> str:
    """The SHA-256 of every input of the matrix: each file's name and bytes, in a fixed order
    (caches and bytecode left out)."""
    return digest_of(input_hashes(source_root, cassettes))


def read_names(reads: Iterable[str], source_root: Path, cassettes: Path) -> list[str]:
    """The inputs' names (as :func:`input_hashes` names them) of the files in ``reads``
    (absolute, resolved paths: :mod:`lab.mutations.reads`), and always the pins
    (:data:`INPUT_FILES`: they name the libraries every run imports)."""
    paths = {str(path.resolve()): name for name, path in _inputs(source_root, cassettes)}
    return sorted({paths[path] for path in reads if path in paths} | set(INPUT_FILES))


def write_inputs(
    out_dir: Path,
    digest: str | None,
    reach: Mapping[str, Sequence[str]] | None = None,
    files: Mapping[str, str] | None = None,
    read: Sequence[str] | None = None,
) -> Path:
    """Record ``digest`` beside the matrix in ``out_dir``; None (a matrix of some experiments
    only, whose other rows may be older) records that no digest vouches for it. With it, the
    experiments each mutation could reach in that tree (:mod:`lab.mutations.reach`), which a
    check of the same tree reuses rather than tracing the runs again; and each input's hash
    (``files``: :func:`input_hashes`) with the names of those the runs read (``read``), which
    let a check of a tree where only unread files changed keep the matrix
    (:func:`matrix_is_current`)."""
    path = Path(out_dir) / INPUTS_FILE
    data: dict[str, object] = {"inputs_sha256": digest}
    if digest is not None and reach is not None:
        data["reach"] = {name: list(reach[name]) for name in sorted(reach)}
    if digest is not None and files is not None and read is not None:
        data["read"] = sorted(read)
        data["files"] = dict(files)
    write_atomic(path, json.dumps(data, indent=2) + "\n")
    return path


def _recorded(out_dir: Path) -> dict[str, object]:
    try:
        data = json.loads((Path(out_dir) / INPUTS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def recorded_digest(out_dir: Path) -> str | None:
    """The digest recorded beside the matrix in ``out_dir``; None when there is none or it
    cannot be read (the check then recomputes everything)."""
    value = _recorded(out_dir).get("inputs_sha256")
    return value if isinstance(value, str) else None


def recorded_reach(out_dir: Path) -> dict[str, list[str]] | None:
    """The experiments each mutation could reach, recorded with the digest; None when absent
    or malformed (the check then traces the runs again). Valid only while the matrix is
    current (:func:`matrix_is_current`)."""
    value = _recorded(out_dir).get("reach")
    if not isinstance(value, dict):
        return None
    fine = all(isinstance(v, list) and all(isinstance(e, str) for e in v) for v in value.values())
    return {str(k): list(v) for k, v in value.items()} if fine else None


def _recorded_reads(out_dir: Path) -> tuple[str, dict[str, str], set[str]] | None:
    """The recorded digest, input hashes and names read, when all three are there, well
    formed and agree (the hashes give the digest); else None."""
    data = _recorded(out_dir)
    digest, files, read = data.get("inputs_sha256"), data.get("files"), data.get("read")
    if not (isinstance(digest, str) and isinstance(files, dict) and isinstance(read, list)):
        return None
    if not all(isinstance(v, str) for v in (*files.values(), *read)):
        return None
    try:
        agrees = digest_of(files) == digest
    except ValueError:  # a hash that is not hex
        return None
    return (digest, files, set(read)) if agrees else None


def recorded_read(out_dir: Path) -> set[str] | None:
    """The names of the inputs the recorded matrix's runs read; None without a sound record."""
    recorded = _recorded_reads(out_dir)
    return None if recorded is None else recorded[2]


def changed_inputs(out_dir: Path, source_root: Path, cassettes: Path) -> list[str] | None:
    """The inputs whose bytes changed since the matrix in ``out_dir`` was computed, by name;
    None when that cannot be told: no per-file record, or an input added or removed (a
    directory listing may find a new file: every run may read it)."""
    recorded = _recorded_reads(out_dir)
    if recorded is None:
        return None
    files = recorded[1]
    now = input_hashes(source_root, cassettes)
    if now.keys() != files.keys():
        return None
    return [name for name, file_hash in now.items() if files[name] != file_hash]


def matrix_is_current(out_dir: Path, source_root: Path, cassettes: Path) -> bool:
    """Whether the whole matrix recorded in ``out_dir`` is what this tree would compute: its
    digest is this tree's, or the only inputs that changed are files none of its runs read
    (:mod:`lab.mutations.reads`; the pins count as read). Its recorded reach is then this
    tree's too."""
    if recorded_digest(out_dir) is None:
        return False
    changed = changed_inputs(out_dir, source_root, cassettes)
    if changed is None:
        return recorded_digest(out_dir) == inputs_digest(source_root, cassettes)
    read = (_recorded_reads(out_dir) or ("", {}, set(INPUT_FILES)))[2] | set(INPUT_FILES)
    return read.isdisjoint(changed)


def sample_of(names: Sequence[str], size: int, day: datetime.date | None = None) -> list[str]:
    """``size`` of ``names``, the same all day (UTC) and another the next: over the days every
    mutation is recomputed, and a day's check can be rerun as it ran."""
    day = day or datetime.datetime.now(datetime.UTC).date()
    if size >= len(names):
        return list(names)
    chosen = set(random.Random(day.toordinal()).sample(list(names), size))
    return [name for name in names if name in chosen]
