"""vcrpy's httpx backends that are not installed are looked for once per process, not once per
cassette entered (lab/recorder/absent_backends.py)."""

from __future__ import annotations

import importlib.abc
import importlib.util
import subprocess
import sys
import textwrap

from support.paths import ROOT

from lab.recorder.absent_backends import HTTPX_BACKENDS, mark_absent_backends

# A fresh interpreter: the marks are per process, and this one may have made them already.
_COUNT_SEARCHES = textwrap.dedent(
    """
    import importlib.abc, sys
    from pathlib import Path
    from lab.recorder.cassette import cassette_client
    asked = []
    class Counting(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in {"httpx_curl_cffi", "pyreqwest", "httpx2"}:
                asked.append(name)
            return None
    sys.meta_path.insert(0, Counting())
    cassettes = sorted(Path("cassettes").rglob("*.json"))[:5]
    for path in cassettes:
        try:
            with cassette_client(path, mode="replay"):
                pass  # entered, nothing asked: the replay then says so
        except Exception:
            pass
    print(len(cassettes), len(asked))
    """
)


def test_replaying_cassettes_searches_for_a_missing_backend_once() -> None:
    missing = [n for n in HTTPX_BACKENDS if importlib.util.find_spec(n) is None]
    done = subprocess.run(
        [sys.executable, "-c", _COUNT_SEARCHES], capture_output=True, text=True, cwd=ROOT,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    entered, searches = map(int, done.stdout.split())
    assert entered == 5
    # once per missing backend in all (before: each of them again on every cassette entered)
    assert searches <= len(missing)


def test_an_installed_backend_is_left_alone(monkeypatch: object) -> None:
    class Found(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, path: object = None, target: object = None) -> object:
            return importlib.util.spec_from_loader(name, loader=None) if name == "httpx2" else None

    finder = Found()
    saved = {n: sys.modules.pop(n) for n in HTTPX_BACKENDS if n in sys.modules}
    sys.meta_path.insert(0, finder)
    mark_absent_backends.cache_clear()
    try:
        marked = mark_absent_backends()
        assert "httpx2" not in marked and "httpx2" not in sys.modules
    finally:
        sys.meta_path.remove(finder)
        mark_absent_backends.cache_clear()
        for name in HTTPX_BACKENDS:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
        sys.modules.update(saved)
