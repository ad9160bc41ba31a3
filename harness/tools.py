"""Tools the model can call: a Python callable with a JSON schema; and large tool result
offload (:class:`LargeResultOffloader`), which moves a long result's text to a file and leaves a
preview and the path behind."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from harness.errors import ConfigError
from harness.fs.root import SafeRoot
from harness.messages import Message, ToolCall
from harness.secrets import redact_for_storage

__all__ = ["OFFLOAD_EXCLUDED_TOOLS", "LargeResultOffloader", "Tool", "ToolBox"]

logger = logging.getLogger("harness.compaction")

_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


@dataclass(frozen=True)
class Tool:
    """A callable the model may invoke by name with JSON arguments; it returns text."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    """A JSON Schema object describing the keyword arguments."""
    function: Callable[..., Any] = field(compare=False)

    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        parameters: Mapping[str, Any] | None = None,
    ) -> Tool:
        """Wrap ``function``; its schema is derived from the signature unless given.

        Derivation covers ``str``, ``int``, ``float`` and ``bool`` parameters; a parameter
        without a default is required.
        """
        schema = parameters if parameters is not None else _schema_from_signature(function)
        doc = description if description is not None else inspect.getdoc(function) or ""
        return cls(name or function.__name__, doc, schema, function)

    def schema(self) -> dict[str, Any]:
        """The tool in the chat-completions ``tools`` form."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.parameters),
            },
        }


def _schema_from_signature(function: Callable[..., Any]) -> dict[str, Any]:
    hints = get_type_hints(function)
    properties: dict[str, Any] = {}
    required = []
    for parameter in inspect.signature(function).parameters.values():
        json_type = _JSON_TYPES.get(hints.get(parameter.name, str))
        if json_type is None:
            raise ConfigError(
                f"cannot derive a JSON type for {function.__name__}({parameter.name})"
            )
        properties[parameter.name] = {"type": json_type}
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
    return {"type": "object", "properties": properties, "required": required}


class ToolBox:
    """The tools of one agent, looked up by name; runs a call and always returns text.

    A model's mistakes (unknown tool, arguments that are not a JSON object, a tool that raises)
    come back as an ``Error: ...`` text for the model to read, never as an exception.
    """

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._schemas: tuple[dict[str, Any], ...] | None = None
        for tool in tools:
            if tool.name in self._tools:
                raise ConfigError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = tool

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> tuple[dict[str, Any], ...]:
        """Every tool's :meth:`Tool.schema`, built once: the same objects go with every
        request, so a meter serialises them once (:class:`harness.meter.TokenMeter`). They are
        read-only (:data:`harness.model.ToolSchema` is a ``Mapping``); a request body copies
        them."""
        if self._schemas is None:
            self._schemas = tuple(tool.schema() for tool in self._tools.values())
        return self._schemas

    def run(self, call: ToolCall) -> str:
        """Run one call and return its result text (an error text on failure)."""
        tool = self._tools.get(call.name)
        if tool is None:
            return f"Error: unknown tool {call.name!r}; available: {', '.join(self._tools)}"
        try:
            arguments = call.parsed_arguments()
        except ValueError as exc:
            return f"Error: arguments for {call.name} are not a JSON object: {exc}"
        try:
            result = tool.function(**arguments)
        except Exception as exc:  # the model sees the failure and can correct itself
            return f"Error: {call.name} failed: {type(exc).__name__}: {exc}"
        return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


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
