"""The memory tools: memory_save, memory_search, read_file, list_files, session_search.

File tools are confined to the user's workspace folder: a path that leaves it, through ``..``
or through a symlink, gets a clear error instead of a file.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.errors import PathEscapeError
from harness.files import read_lines
from harness.memory.index import MemoryIndex
from harness.memory.search import SearchLine, rank_lines
from harness.memory.workspace import MemoryWorkspace
from harness.secrets import redact_for_storage
from harness.tools import Tool

__all__ = ["MemoryTools"]

MAX_READ_LINES = 200


class MemoryTools:
    """Builds the memory tools for one workspace."""

    def __init__(self, workspace: MemoryWorkspace) -> None:
        self.workspace = workspace
        self.index = MemoryIndex(read_lines)
        """memory_search's index, kept between queries (:mod:`harness.memory.index`)."""

    def tools(self) -> list[Tool]:
        return [
            Tool.from_function(self.memory_save, name="memory_save"),
            Tool.from_function(self.memory_search, name="memory_search"),
            Tool.from_function(self.read_file, name="read_file"),
            Tool.from_function(self.list_files, name="list_files"),
            Tool.from_function(self.session_search, name="session_search"),
        ]

    def memory_save(self, content: str) -> str:
        """Save durable facts (a markdown bullet list) to MEMORY.md and today's ledger."""
        text = redact_for_storage(content.strip(), "memory_save")  # no key reaches memory files
        if not text:
            return "Error: nothing to save"
        memory = self.workspace.read_memory()
        separator = "" if not memory or memory.endswith("\n") else "\n"
        self.workspace.write_memory(f"{memory}{separator}\n{text}\n" if memory else f"{text}\n")
        self.workspace.append_entry("Memory Save", text)
        count = max(1, sum(line.lstrip().startswith("-") for line in text.splitlines()))
        return f"Saved {count} memor{'y' if count == 1 else 'ies'} to MEMORY.md"

    def memory_search(self, query: str) -> str:
        """Search MEMORY.md and the daily ledger; results cite Source: <file>#<line>."""
        hits = self.index.search(self._memory_files(), query)
        if not hits:
            return f"No matching memories found for: {query}"
        lines = [f"Source: {h.file}#{h.line}: {h.text}" for h in hits]
        return f"Found {len(hits)} matches:\n\n" + "\n".join(lines)

    def read_file(self, path: str, offset: int = 1, limit: int = MAX_READ_LINES) -> str:
        """Read a workspace file with line numbers, from line ``offset`` (1-based)."""
        target = self._resolve(path)
        if not target.is_file():
            return f"Error: {path} is not a file in the workspace"
        lines = read_lines(target)
        start = max(offset, 1)
        chosen = lines[start - 1 : start - 1 + max(limit, 1)]
        return "\n".join(f"{start + i}|{line}" for i, line in enumerate(chosen)) or "(empty)"

    def list_files(self, path: str = ".") -> str:
        """List a workspace folder (recursively), one relative path per line."""
        target = self._resolve(path)
        if not target.is_dir():
            return f"Error: {path} is not a folder in the workspace"
        found = sorted(p for p in target.rglob("*") if p.is_file())
        return "\n".join(self.workspace.relative(p) for p in found) or "(empty)"

    def session_search(self, query: str) -> str:
        """Search earlier sessions' transcripts for a phrase."""
        lines = []
        for path in sorted(self.workspace.sessions_dir.glob("*.jsonl")):
            for number, raw in enumerate(read_lines(path), 1):
                message = json.loads(raw).get("message") or {}
                if message.get("content"):
                    text = f"[{message['role'].upper()}] {message['content'][:200]}"
                    lines.append(SearchLine(self.workspace.relative(path), number, text))
        hits = rank_lines(lines, query, limit=10)
        if not hits:
            return f"No matching session entries for: {query}"
        return "\n".join(f"[{h.file}#{h.line}] {h.text}" for h in hits)

    def _memory_files(self) -> list[tuple[Path, str]]:
        files = [self.workspace.memory_file, *self.workspace.daily_files()]
        return [(path, self.workspace.relative(path)) for path in files]

    def _resolve(self, path: str) -> Path:
        base = self.workspace.base.resolve()
        target = (base / path).resolve()
        if target != base and base not in target.parents:
            raise PathEscapeError(f"{path!r} is outside the memory workspace")
        return target
