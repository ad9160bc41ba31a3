"""The recorded model calls of a cassette, read for an evidence page: each request's messages
and the answer, shortened but exact, with the usage and cache tokens the server reported.

A cassette (``cassettes/<experiment>/<set>/<name>.json``, vcrpy-style) holds ``interactions``,
each a request and its response. Nothing is paraphrased: a long text keeps its head and tail
verbatim and says how many characters were left out between them (:class:`Clip`), so what is
shown can be found, as is, in the cassette. Every text stays a plain string; the template
escapes it (model output may hold HTML).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["HEAD", "TAIL", "Call", "Clip", "Message", "clip", "read_calls"]

HEAD = 240
"""Characters kept from the start of a long text."""
TAIL = 160
"""Characters kept from its end."""


@dataclass(frozen=True)
class Clip:
    """A text shortened but exact: ``head``, then ``cut`` characters left out, then ``tail``
    (``cut`` 0 and ``tail`` empty when the text is shown whole)."""

    head: str
    cut: int = 0
    tail: str = ""


def clip(text: str, head: int = HEAD, tail: int = TAIL) -> Clip:
    """``text`` whole when it is short, else its first ``head`` and last ``tail`` characters
    around the count of those left out (never a cut of fewer than 40 characters)."""
    if len(text) <= head + tail + 40:
        return Clip(text)
    return Clip(text[:head], len(text) - head - tail, text[-tail:])


@dataclass(frozen=True)
class Message:
    role: str
    name: str
    text: Clip
    chars: int
    """The message's full length in characters."""


@dataclass(frozen=True)
class Call:
    """One recorded interaction: request, answer and usage."""

    index: int
    """Its position in the cassette, from 1."""
    cassette: str
    """The cassette's path relative to the cassettes folder's parent (``cassettes/E3/…``)."""
    messages: tuple[Message, ...]
    answer: Message | None
    tools_offered: int
    tool_calls: tuple[str, ...]
    """Each tool call of the answer as ``name(arguments)``, shortened."""
    usage: tuple[tuple[str, str], ...]
    """``(name, value)`` of the response's usage: prompt, completion and cached tokens."""
    status: int
    label: str = ""
    """What the call was, where the experiment's evidence rules know it (``round 4``)."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep their text, name the others
        return "\n".join(
            str(p.get("text", "")) if isinstance(p, dict) and "text" in p else json.dumps(p)
            for p in content
        )
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def _message(raw: dict[str, Any]) -> Message:
    text = _text(raw.get("content"))
    return Message(str(raw.get("role", "")), str(raw.get("name", "") or ""), clip(text), len(text))


def _usage(body: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    usage = body.get("usage") or {}
    shown = [
        (name, str(usage[key]))
        for name, key in (
            ("prompt tokens", "prompt_tokens"),
            ("completion tokens", "completion_tokens"),
            ("total tokens", "total_tokens"),
        )
        if key in usage
    ]
    details = usage.get("prompt_tokens_details") or {}
    if "cached_tokens" in details:
        shown.append(("cached prompt tokens", str(details["cached_tokens"])))
    elif "prompt_cache_hit_tokens" in usage:
        shown.append(("cached prompt tokens", str(usage["prompt_cache_hit_tokens"])))
    else:
        shown.append(("cached prompt tokens", "not reported by the server"))
    timings = body.get("timings") or {}
    if "cache_n" in timings:
        shown.append(("server cache_n", str(timings["cache_n"])))
    return tuple(shown)


def _tool_call(raw: dict[str, Any]) -> str:
    function = raw.get("function") or {}
    arguments = clip(str(function.get("arguments", "")), 80, 40)
    cut = f"… {arguments.cut} chars …" if arguments.cut else ""
    return f"{function.get('name', '?')}({arguments.head}{cut}{arguments.tail})"


def _call(index: int, cassette: str, interaction: dict[str, Any]) -> Call:
    request = (interaction.get("request") or {}).get("body") or {}
    sent = request.get("json") if isinstance(request, dict) else None
    sent = sent if isinstance(sent, dict) else {}
    response = interaction.get("response") or {}
    body = (response.get("body") or {}).get("json")
    body = body if isinstance(body, dict) else {}
    choice = (body.get("choices") or [{}])[0]
    answer = choice.get("message") if isinstance(choice, dict) else None
    return Call(
        index,
        cassette,
        tuple(_message(m) for m in sent.get("messages") or [] if isinstance(m, dict)),
        _message(answer) if isinstance(answer, dict) else None,
        len(sent.get("tools") or []),
        tuple(_tool_call(t) for t in (answer or {}).get("tool_calls") or [] if isinstance(t, dict)),
        _usage(body),
        int((response.get("status") or {}).get("code", 0) or 0),
    )


def read_calls(path: Path, shown_as: str) -> list[Call]:
    """Every interaction of the cassette at ``path``, in recorded order; ``shown_as`` is the
    path the page names it by. A file that is not a cassette gives no calls."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    interactions = data.get("interactions") if isinstance(data, dict) else None
    return [
        _call(n, shown_as, raw)
        for n, raw in enumerate(interactions or [], start=1)
        if isinstance(raw, dict)
    ]
