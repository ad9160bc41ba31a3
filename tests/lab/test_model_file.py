"""Where the local model's file comes from, and that ctxlab says so: a line with the path and
size when it writes (or reuses) the assembled copy, and no copy at all when a file can be read
in place (``$CTXLAB_MODEL_FILE``, or a model shipped in one part)."""

from __future__ import annotations

import hashlib
import sys
import types
from pathlib import Path

import pytest
from test_recording_localserver import fake_parts  # noqa: F401  (a fixture)

from lab.errors import LocalServerError
from lab.recorder.local.modelfile import MODEL_FILE_ENV, LocalModel, assemble_model


def test_assembling_says_where_and_how_big(
    fake_parts: LocalModel,  # noqa: F811
    tmp_path: Path,
) -> None:
    lines: list[str] = []
    cache = tmp_path / "cache"
    path = assemble_model(fake_parts, cache, log=lines.append)
    assert len(lines) == 1
    assert f"into {path} ({fake_parts.size} bytes" in lines[0]
    assert "from 3 parts" in lines[0] and MODEL_FILE_ENV in lines[0]
    assert assemble_model(fake_parts, cache, log=lines.append) == path
    assert lines[1] == f"using the assembled model {path} ({fake_parts.size} bytes)"


def test_a_given_model_file_is_used_in_place(
    fake_parts: LocalModel,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mine = assemble_model(fake_parts, tmp_path / "elsewhere")
    monkeypatch.setenv(MODEL_FILE_ENV, str(mine))
    lines: list[str] = []
    cache = tmp_path / "cache"
    assert assemble_model(fake_parts, cache, log=lines.append) == mine
    assert not cache.exists()  # no second copy
    assert lines == [
        f"using the model file {mine} in place ({fake_parts.size} bytes, from {MODEL_FILE_ENV})"
    ]


def test_a_given_file_that_is_not_the_model_is_refused(
    fake_parts: LocalModel,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    other = tmp_path / "other.gguf"
    other.write_bytes(b"x" * fake_parts.size)  # the right size, the wrong bytes
    monkeypatch.setenv(MODEL_FILE_ENV, str(other))
    with pytest.raises(LocalServerError, match=f"{MODEL_FILE_ENV}=.* is not the fake-model"):
        assemble_model(fake_parts, tmp_path / "cache")


def test_a_model_in_one_part_is_read_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    part = tmp_path / "whole.gguf"
    part.write_bytes(b"GGUF" + b"weights" * 100)
    module = types.ModuleType("ctxlab_fake_single_part")
    module.get_part_path = lambda: str(part)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    data = part.read_bytes()
    model = LocalModel("one", (module.__name__,), hashlib.sha256(data).hexdigest(), len(data))
    cache = tmp_path / "cache"
    assert assemble_model(model, cache) == part
    assert not cache.exists()
