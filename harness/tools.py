"""Tools the model can call: a Python callable with a JSON schema."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, get_type_hints

from harness.errors import ConfigError
from harness.messages import ToolCall

__all__ = ["Tool", "ToolBox"]

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
        for tool in tools:
            if tool.name in self._tools:
                raise ConfigError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = tool

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> tuple[dict[str, Any], ...]:
        return tuple(tool.schema() for tool in self._tools.values())

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
