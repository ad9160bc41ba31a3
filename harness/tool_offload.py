"""Large tool results: move the text to a file and leave a preview and the path behind."""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

from harness.fs.root import SafeRoot
from harness.messages import Message
from harness.secrets import redact_for_storage

__all__ = ["OFFLOAD_EXCLUDED_TOOLS", "LargeResultOffloader"]

logger = logging.getLogger("harness.compaction")

OFFLOAD_EXCLUDED_TOOLS = frozenset(
    {
        "read_file",
        "write_file",
        "edit_file",
        "grep_files",
        "glob_files",
        "list_files",
        "memory_search",
        "memory_get",
        "session_search",
    }
)
"""Tools whose results are never offloaded: reading a file back must not offload it again.

The seed says seven are excluded but names only two of them (read_file, memory_search), so
there is no seed list to follow; these are the nine of AgentScope 2.0.3's source
(``DEFAULT_EXCLUDED_TOOLS``). The claim row AS-OFFLOAD-EXCLUDED reports the difference."""


@dataclass(frozen=True)
class LargeResultOffloader:
    """Offload tool results longer than ``max_chars`` characters to ``large_tool_results/``.

    The saved text and its preview pass the secret scanner (:mod:`harness.secrets`): a key in
    the result is ``[REDACTED]`` in both, so ``read_file`` gives back the text less its secrets.

    Characters, not tokens: no tokenizer is needed, and the move is reversible because
    ``read_file`` on the path returns the full text.
    """

    workspace: Path
    """The folder that holds ``large_tool_results/``; paths in previews are relative to it."""
    max_chars: int = 80_000
    preview_chars: int = 2_000
    folder: str = "large_tool_results"
    excluded_tools: frozenset[str] = OFFLOAD_EXCLUDED_TOOLS

    def apply(self, message: Message) -> Message:
        """The message itself, or a copy whose text is a preview pointing at the saved file."""
        text = message.content
        if message.role != "tool" or len(text) <= self.max_chars:
            return message
        if message.metadata.get("tool_name") in self.excluded_tools:
            return message
        original_chars = len(text)
        # the file outlives the session on disk: the secret scanner redacts a key in it (and in
        # the preview, cut from the same text), logging where by line and pattern only
        text = redact_for_storage(text, f"{self.folder}/ (an offloaded tool result)")
        relative = self._relative_path(text)
        SafeRoot(self.workspace).write_atomic(relative, text)  # never through a symlink
        logger.info(
            "Offloaded large tool result [id=%s, chars=%d]", message.tool_call_id, len(text)
        )
        metadata = {**message.metadata, "offloaded_to": relative, "original_chars": original_chars}
        return dataclasses.replace(
            message, content=self._placeholder(text, relative), metadata=metadata
        )

    def _relative_path(self, text: str) -> str:
        """``<folder>/<hash>.txt``, the seed's path: the first 16 hex digits of the text's
        SHA-256. AgentScope's released code writes ``<folder>/<agent>/<callId>-<16 hex>``
        without an extension; ctxlab follows the seed (content-addressed: the same text
        offloaded twice is one file, different texts under one call id are two)."""
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        return f"{self.folder}/{digest}.txt"

    def _placeholder(self, text: str, relative: str) -> str:
        size = min(self.preview_chars, len(text) // 2)
        return (
            f"Tool output was too large ({len(text):,} chars) and has been saved to {relative}.\n"
            f"Use read_file with that path to read the full text.\n\n"
            f"Preview (first {size} chars):\n{text[:size]}\n\n"
            f"... and last {size} chars:\n{text[-size:]}"
        )
