"""Meter error over the recorded requests: each meter against the provider's prompt_tokens.

The gated rows read the default recorded set (the 1.5B model's plain cassettes, the population
the 3 % gate was set on); one report-only row gives the anchored meter over every recorded set
(both models, gate variants included).

The anchored meters are replayed per conversation (same system prompt and tools) through
:class:`harness.meter.TokenMeter`: a reading before each request, ``observe`` after it, so a
request's figure uses the previous request's real count. Their rows count only the requests
where that count was known; the heuristic rows count every request.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Iterator
from pathlib import Path

from benchmarks.common import Row
from harness.messages import Message
from harness.meter import AGENTSCOPE, CTXLAB, DSH, Pricer, TokenMeter, build_meter
from harness.meter.tokenizer import load_tokenizer_pricer, tokenizer_available
from harness.model import Usage
from lab.cassette_sets import DEFAULT_SET

__all__ = ["rows"]

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
Request = tuple[str, list[Message], list[dict[str, object]], int]


def cassette_requests(root: Path, every_set: bool = False) -> Iterator[Request]:
    """``(cassette, messages, tools, prompt_tokens)`` for every chat request with usage, from
    the default set's plain cassettes (a flat ``<experiment>/<name>.json`` too), or with
    ``every_set`` from every recorded set; a cassette is named by its path, so each one's
    requests calibrate their own meter."""
    default = [*root.glob("*/*.json"), *root.glob(f"*/{DEFAULT_SET}/*.json")]
    paths = [*root.glob("*/*.json"), *root.glob("*/*/*.json")] if every_set else default
    for path in sorted(p for p in paths if every_set or "-" not in p.stem):
        for interaction in json.loads(path.read_text(encoding="utf-8"))["interactions"]:
            body = interaction["request"]["body"].get("json") or {}
            answer = interaction["response"]["body"].get("json") or {}
            usage = answer.get("usage") or {}
            if "messages" in body and usage.get("prompt_tokens"):
                messages = [Message.from_wire(m) for m in body["messages"]]
                cassette = path.relative_to(root).with_suffix("").as_posix()
                yield cassette, messages, list(body.get("tools") or []), usage["prompt_tokens"]


def script(messages: list[Message]) -> str:
    text = "".join(m.content for m in messages).replace(" ", "")
    return "zh" if len(_CJK.findall(text)) > 0.2 * max(len(text), 1) else "en"


def _heuristic(pricer: Pricer, messages: list[Message], tools: list[dict[str, object]]) -> int:
    if pricer is AGENTSCOPE:
        return pricer.header(messages, [])  # AgentScope never counts the tools
    return pricer.header(messages, tools)  # DSH prices the system prompt as a bare text block


def _errors(
    requests: list[Request], pricers: dict[str, Pricer]
) -> dict[str, list[tuple[str, float]]]:
    errors: dict[str, list[tuple[str, float]]] = {name: [] for name in pricers}
    for _, messages, tools, real in requests:
        for name, pricer in pricers.items():
            estimate = _heuristic(pricer, messages, tools)
            errors[name].append((script(messages), abs(estimate - real) / real * 100))
    return errors


def _anchored_errors(requests: list[Request], profile: str) -> list[tuple[str, float]]:
    meters: dict[tuple[object, ...], TokenMeter] = {}
    errors = []
    for cassette, messages, tools, real in requests:
        head = messages[0].content if messages else ""
        names = tuple(json.dumps(t, sort_keys=True) for t in tools)
        meter = meters.setdefault((cassette, head, names), build_meter(profile))
        split = 1 if messages and messages[0].role == "system" else 0
        price, envelope = meter.header(messages[:split], tools)
        reading = meter.read(price + meter.price_all(messages[split:]), envelope)
        if reading.baseline == "usage":
            errors.append((script(messages), abs(reading.tokens - real) / real * 100))
        meter.observe(reading, Usage(real, 0))
    return errors


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def rows(cassettes: Path) -> list[Row]:
    requests = list(cassette_requests(cassettes))
    pricers: dict[str, Pricer] = {
        "AgentScope 2.5 chars": AGENTSCOPE,
        "dsh 4 chars": DSH,
        "ctxlab heuristic": CTXLAB,
    }
    anchored = {"ctxlab anchored": "ctxlab-anchored", "dsh anchored": "dsh"}
    if tokenizer_available():
        pricers["exact tokenizer (DeepSeek-V4)"] = load_tokenizer_pricer()
        anchored["tokenizer anchored"] = "tokenizer-anchored"
    found = _errors(requests, pricers)
    for name, profile in anchored.items():
        found[name] = _anchored_errors(requests, profile)
    out = []
    for name, errors in found.items():
        for part in ("zh", "en", "all"):
            values = [e for s, e in errors if part in ("all", s)]
            gate = 3.0 if name == "ctxlab anchored" and part == "all" else None
            out.append(
                Row(
                    "meter error",
                    f"{name}, {part} (n={len(values)})",
                    _median(values),
                    "%",
                    gate,
                    note="median of abs(estimate − prompt_tokens) ÷ prompt_tokens",
                )
            )
    every = _median(
        [
            e
            for _, e in _anchored_errors(
                list(cassette_requests(cassettes, True)), "ctxlab-anchored"
            )
        ]
    )
    out.append(
        Row(
            "meter error",
            "ctxlab anchored, every recorded set (report only)",
            every,
            "%",
            note="both local models and the gate variants; the gate is set on the default set",
        )
    )
    if not tokenizer_available():
        out.append(Row("meter error", "exact tokenizer: not installed", float("nan"), "%"))
    return out
