"""An installed module reads its own bytecode; the tree's modules keep the session's cache
(tests/support/installed_bytecode.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from support.installed_bytecode import installed_bytecode_kept

PREFIX = "/cache"


def _in_prefix(path: str, *args: object, **kwargs: object) -> str:
    name = Path(path).stem + f".{sys.implementation.cache_tag}.pyc"
    return f"{PREFIX}{Path(path).parent}/{name}"


def _own(source: str) -> str:
    """The bytecode file beside ``source``, where its installation compiled it."""
    path = Path(source)
    return str(path.parent / "__pycache__" / f"{path.stem}.{sys.implementation.cache_tag}.pyc")


def _module(folder: Path, compiled: bool) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "mod.py"
    source.write_text("x = 1\n")
    if compiled:
        (folder / "__pycache__").mkdir()
        (folder / "__pycache__" / f"mod.{sys.implementation.cache_tag}.pyc").write_bytes(b"")
    return str(source)


def test_installed_modules_read_their_own_bytecode_and_the_tree_keeps_the_prefix(
    tmp_path: Path,
) -> None:
    tree, venv = tmp_path / "checkout", tmp_path / "checkout" / ".venv"
    cache = installed_bytecode_kept(_in_prefix, str(tree), (str(venv),))
    own = _module(tree / "harness", compiled=True)  # a stray __pycache__ in the tree: not read
    assert cache(own).startswith(PREFIX)
    installed = _module(venv / "site-packages" / "pkg", compiled=True)
    assert cache(installed) == _own(installed)
    elsewhere = _module(tmp_path / "stdlib", compiled=True)
    assert cache(elsewhere) == _own(elsewhere)
    uncompiled = _module(venv / "site-packages" / "bare", compiled=False)
    assert cache(uncompiled).startswith(PREFIX)  # compiled once into the session's cache
