"""One of the two processes of tests/harness/store/test_session_lock.py: a ``HarnessAgent`` calling
a session
another process is calling at the same time (run as a script: ``python session_writer.py ROOT
STORE ROLE ROUNDS``).

Round ``r`` works in ``ROOT/r<r>`` on session ``s1``, synchronised only through marker files
(no sleeps): ``a`` starts a call whose tool (``hold``) writes ``a-in-tool`` and then waits for
``b-waiting`` or ``b-refused``; ``b`` waits for ``a-in-tool`` (so ``a`` holds the session), opens
the session and calls it. In even rounds ``b`` waits for the session (its "is busy; waiting"
log line writes ``b-waiting``) and is served after ``a``; in odd rounds its ``busy_timeout`` is
0 and it must get SessionBusyError (it writes ``b-refused``). ``b`` prints one line per round:
``served`` or ``refused``. ``CTXLAB_SESSION_LOCK_OFF=1`` replaces the lock by a no-op (to show
the test fails without it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.errors import SessionBusyError
from harness.harness_agent import HarnessAgent
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.testing import FunctionModel
from harness.tools import Tool

WAIT_SECONDS = 60.0


def wait_for(*files: Path) -> None:
    """Return when one of ``files`` exists (an event another process writes)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not any(f.exists() for f in files):
        if time.monotonic() > deadline:
            raise TimeoutError(f"none of {[str(f) for f in files]} appeared")
        time.sleep(0.005)  # a poll of the event, not a fixed wait


def model(role: str, round_no: int) -> FunctionModel:
    calls = iter(range(10**6))

    def reply(request: ChatRequest) -> Message:
        last = request.messages[-1]
        if last.role == "tool":
            return Message.assistant(f"{role} done")
        return Message.assistant("", [ToolCall(f"{role}{round_no}_{next(calls)}", "hold", "{}")])

    return FunctionModel(reply)


class Marker(logging.Handler):
    """Writes ``file`` when the session lock logs that it waits."""

    def __init__(self, file: Path) -> None:
        super().__init__()
        self.file = file

    def emit(self, record: logging.LogRecord) -> None:
        if "is busy" in record.getMessage():
            self.file.touch()


def agent(folder: Path, store: str, role: str, round_no: int, **options: Any) -> HarnessAgent:
    def hold() -> str:
        """Hold the turn until the other process has tried the session."""
        if role == "a":
            (folder / "a-in-tool").touch()
            wait_for(folder / "b-waiting", folder / "b-refused")
        return f"{role} held"

    return HarnessAgent(
        model(role, round_no),
        workspace_root=folder,
        user_id="u",
        session_id="s1",
        store=store,  # type: ignore[arg-type]
        tools=[Tool.from_function(hold)],
        disable_memory_hooks=True,
        **options,
    )


@contextlib.contextmanager
def _no_lock(*args: Any, **kwargs: Any) -> Iterator[None]:
    yield None


def main(root: Path, store: str, role: str, rounds: int) -> None:
    if os.environ.get("CTXLAB_SESSION_LOCK_OFF"):
        import harness.harness_agent

        harness.harness_agent.session_lock = _no_lock  # type: ignore[assignment]
    for round_no in range(rounds):
        folder = root / f"r{round_no}"
        folder.mkdir(parents=True, exist_ok=True)
        if role == "a":
            agent(folder, store, role, round_no).call(f"a {round_no}")
            (folder / "a-done").touch()
            continue
        wait_for(folder / "a-in-tool")
        served = round_no % 2 == 0
        handler = Marker(folder / "b-waiting")
        logging.getLogger("harness.session").addHandler(handler)
        logging.getLogger("harness.session").setLevel(logging.INFO)
        try:
            timeout = WAIT_SECONDS if served else 0.0
            b = agent(folder, store, role, round_no, busy_timeout=timeout)
            b.call(f"b {round_no}")
            print("served", flush=True)
        except SessionBusyError:
            (folder / "b-refused").touch()
            print("refused", flush=True)
        except Exception as exc:  # the defect the test looks for (a bricked session)
            print(f"failed:{type(exc).__name__}", flush=True)
        finally:
            logging.getLogger("harness.session").removeHandler(handler)
        (folder / "b-waiting").touch()  # never leave a waiting (say, lock-less) holder behind
        wait_for(folder / "a-done")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]))
