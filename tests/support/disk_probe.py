"""Run in a child process by tests/harness/test_disk_errors.py: calls on a HarnessAgent whose
workspace
is ``argv[1]`` until the disk refuses; prints one JSON line: the error's class and message, the
turns made, and how many messages a fresh reopen of the session reads back."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from harness.harness_agent import HarnessAgent
from harness.testing import FunctionModel


def agent(root: Path, store: str) -> HarnessAgent:
    model = FunctionModel(lambda r: "NO_REPLY" if r.purpose != "agent" else "ok " * 500)
    return HarnessAgent(
        model, workspace_root=root, user_id="u", session_id="s1", store=store,  # type: ignore[arg-type]
        disable_memory_hooks=True, disable_compaction=True,  # every message stays in view
    )  # fmt: skip


def main() -> None:
    root, store, turns = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    made, error = 0, None
    try:
        session = agent(root, store)
        for made in range(turns):  # the count is reported
            session.call(f"turn {made} " + "x" * 2000)
    except Exception as exc:  # what reaches a user of the library, whatever it is
        error = exc
    reread = len(agent(root, store).agent.context) if error is not None and made else 0
    kind = None if error is None else type(error).__name__
    print(json.dumps({"error": kind, "message": str(error or ""), "made": made, "reread": reread}))


if __name__ == "__main__":
    main()
