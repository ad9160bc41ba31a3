"""``python -m benchmarks.fsync_turns --store S --turns N``: N agent turns with a tool call
each, through :class:`HarnessAgent` with its default settings (durability ``per-turn``, the
memory hooks on), on a fresh workspace; for counting the durability syscalls a turn costs::

    strace -f -c -e trace=fsync,fdatasync python -m benchmarks.fsync_turns --store eventlog

The workspace is built and the session opened (one warm-up turn) before ``--turns`` are run,
and the script prints where the counted part starts, so the count can be read per turn:
``strace`` counts the whole process, so run it once with ``--turns 0`` and subtract.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from harness.harness_agent import HarnessAgent
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.testing import FunctionModel
from harness.tools import Tool


def _reply(request: ChatRequest) -> Message:
    last = request.messages[-1]
    if last.role == "user":
        call = ToolCall(f"call_{len(request.messages)}", "lookup", '{"q": "上海港 booking"}')
        return Message.assistant("", [call])
    return Message.assistant("confirmed, 已确认")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fsync_turns")
    parser.add_argument("--store", choices=["state", "eventlog"], default="eventlog")
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        agent = HarnessAgent(
            FunctionModel(_reply),
            "You are terse.",
            workspace_root=Path(tmp),
            tools=[Tool.from_function(lambda q: f"found {q}", name="lookup")],
            store=args.store,
        )
        agent.call("warm up")
        agent.await_quiescence()
        for turn in range(args.turns):
            agent.call(f"turn {turn}: the booking for 上海港")
        agent.await_quiescence()
        agent.close()


if __name__ == "__main__":
    main()
