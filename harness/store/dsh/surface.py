"""What the model sees of a session log (either format): the folded surface, node by node with
its price, the compactions, and the totals — what ``ctxlab show`` prints.

Prices are DeepSeek-Harness's token-meter heuristic (:mod:`harness.meter.dsh_heuristic`); a node
read from a dsh file is priced over its own content blocks (:func:`~harness.store.dsh.messages.
price_message`), so a message of several blocks costs what dsh says it costs. The header is the
latest ``request/header`` (system prompt and tools) priced the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.messages import Message
from harness.meter.dsh_heuristic import price_header
from harness.meter.dsh_heuristic import price_message as price_ours
from harness.store.dsh.messages import message_of, price_message
from harness.store.eventlog.events import Event, thaw
from harness.store.eventlog.log import EventLog

__all__ = ["Node", "SessionView", "render", "view"]


@dataclass(frozen=True)
class Node:
    """One surface node."""

    seq: int
    type: str
    message: Message
    price: int


@dataclass(frozen=True)
class SessionView:
    """A session as the model sees it."""

    format: str
    nodes: tuple[Node, ...]
    replace_generation: int
    header_tokens: int
    compactions: tuple[dict[str, Any], ...]
    """One per ``compaction/start``: id, engine or ``dsh``, seqs of its events, outcome."""

    @property
    def surface_tokens(self) -> int:
        return sum(node.price for node in self.nodes)


def node_price(event: Event) -> int:
    """A surface event's price (dsh's blocks when it was read from a dsh file)."""
    raw = event.data.get("dsh")
    if isinstance(raw, Mapping):
        return price_message(event.type, message_of(event.type, thaw(raw)))
    message = event.message
    assert message is not None
    return price_ours(message)


def view(log: EventLog) -> SessionView:
    """The view of ``log`` as it stands."""
    nodes = tuple(
        Node(seq, log.events[seq].type, message, node_price(log.events[seq]))
        for seq, message in log.node_messages()
    )
    header = log.latest("request/header")
    header_tokens = 0
    if header is not None:
        data = thaw(header.data)
        messages = [Message.from_record(m) for m in data.get("messages", ())]
        header_tokens = price_header(messages, data.get("tools", ()))
    return SessionView(
        log.codec.format, nodes, log.replace_generation, header_tokens, _compactions(log)
    )


def _compactions(log: EventLog) -> tuple[dict[str, Any], ...]:
    found: dict[str, dict[str, Any]] = {}
    for event in log.events:
        if not event.type.startswith("compaction/"):
            continue
        cid = str(event.data.get("compaction_id"))
        entry = found.setdefault(cid, {"id": cid, "engine": event.data.get("engine", "dsh")})
        kind = event.type.removeprefix("compaction/")
        entry[kind] = event.seq
        if kind == "summary":
            entry["shadowed"] = list(event.data.get("shadowed_seqs") or ())
            entry["shadowed_tokens"] = event.data.get("shadowed_token_count")
        if kind == "end":
            entry["error"] = event.data.get("error")
    return tuple(found.values())


def _text(message: Message) -> str:
    parts = []
    if message.reasoning_content:
        parts.append(f"[reasoning] {message.reasoning_content}")
    if message.content:
        parts.append(message.content)
    parts += [f"[call {c.id}] {c.name}({c.arguments})" for c in message.tool_calls]
    if message.tool_call_id:
        parts[:0] = [f"[result of {message.tool_call_id}]"]
    text = " ".join(parts).replace("\n", " ") or "(empty: no message derived)"
    return text if len(text) <= 100 else text[:99] + "…"


def render(session: SessionView) -> str:
    """Plain text: one line per node, the compactions, the totals."""
    lines = [f"format: {session.format}, surface: {len(session.nodes)} nodes"]
    for node in session.nodes:
        name = f" ({node.message.name})" if node.message.name else ""
        lines.append(
            f"  seq {node.seq:>5}  {node.message.role:<9} {node.price:>6} tok  "
            f"{_text(node.message)}{name}"
        )
    for c in session.compactions:
        outcome = "open" if "end" not in c else ("failed: " + c["error"] if c["error"] else "ok")
        lines.append(
            f"compaction {c['id']} ({c['engine']}): start {c.get('start')}, summary "
            f"{c.get('summary')}, end {c.get('end')}, shadowed {c.get('shadowed')} "
            f"({c.get('shadowed_tokens')} tok), {outcome}"
        )
    lines.append(
        f"tokens (dsh heuristic): surface {session.surface_tokens}, header "
        f"{session.header_tokens}, total {session.surface_tokens + session.header_tokens}; "
        f"replaces landed: {session.replace_generation}"
    )
    return "\n".join(lines)
