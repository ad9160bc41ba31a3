"""The compaction cost ledger (experiments/x_cost/ledger.py, cost_tap.py): hand-made usage, missing
usage, cached tokens, two compactions in a row; and a real agent over real HTTP on 127.0.0.1
under both engines, the server reporting usage the way DeepSeek and llama.cpp do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.loopback import Reply, ScriptedHTTPServer, completion, json_reply

from experiments.x_cost.ledger import (
    MEASURED,
    NO_CALL,
    USAGE_MISSING,
    LedgerCompaction,
    LedgerRequest,
    build_ledger,
)
from experiments.x_cost.usage_tap import TappedCall, UsageTap, ledger_from_calls
from harness.agent import Agent
from harness.client import ChatClient, RetryPolicy
from harness.compaction.agentscope import CompactionConfig, PruneConfig
from harness.compaction.dsh import DshConfig
from harness.compaction.factory import make_engine
from harness.errors import ConfigError
from harness.model import Usage
from harness.store.eventlog import EventLog, EventLogHistory


def req(prompt: int | None, metered: int | None, *compactions: LedgerCompaction) -> LedgerRequest:
    usage = None if prompt is None else Usage(prompt, 3)
    return LedgerRequest(usage, metered, compactions)


def comp(before: int, after: int, *usages: Usage | None) -> LedgerCompaction:
    return LedgerCompaction(before, after, usages, "m")


SUMMARY = Usage(prompt_tokens=200, completion_tokens=20, cached_tokens=150)


# --- hand-made usage ----------------------------------------------------------------------------


def test_one_compaction_cost_savings_and_net_from_hand_made_usage() -> None:
    # r1 and r2 each carry 2 provider tokens per meter token; the compaction removed 50 meter
    # tokens, so each later request carries 100 fewer prompt tokens.
    ledger = build_ledger([req(100, 50), req(60, 30, comp(80, 30, SUMMARY)), req(70, 35)])

    (row,) = ledger.compactions
    assert row.state == MEASURED and row.request == 1 and row.window == 2
    assert (row.summary.prompt_tokens, row.summary.cached_tokens) == (200, 150)
    assert row.summary.completion_tokens == 20 and row.summary.total == 220
    assert [(s.request, s.removed_tokens) for s in row.later] == [(1, 100), (2, 100)]
    assert (row.savings, row.net) == (200, -20)
    assert (ledger.cost, ledger.cached, ledger.savings, ledger.net) == (220, 150, 200, -20)
    assert [(r.prompt_tokens, r.without_compaction) for r in ledger.requests] == [
        (100, 100),
        (60, 160),
        (70, 170),
    ]
    assert ledger.cumulative() == ([100, 380, 450], [100, 260, 430])


def test_a_summary_larger_than_its_span_removes_a_negative_number_of_tokens() -> None:
    ledger = build_ledger([req(40, 40), req(90, 90, comp(50, 80, SUMMARY))])
    assert ledger.compactions[0].removed_metered == -30
    assert ledger.savings == -30 and ledger.net == -250


# --- missing usage ------------------------------------------------------------------------------


def test_a_summary_call_without_usage_is_usage_missing_never_estimated() -> None:
    ledger = build_ledger([req(100, 50), req(60, 30, comp(80, 30, None)), req(70, 35)])

    (row,) = ledger.compactions
    assert row.state == USAGE_MISSING
    assert row.summary.prompt_tokens is None and row.summary.total is None
    assert row.savings == 200 and row.net is None
    assert ledger.cost is None and ledger.net is None and ledger.missing == 1
    assert ledger.cumulative()[0] == [100, None, None]
    assert ledger.to_dict()["compactions"][0]["state"] == "usage missing"


def test_a_later_request_without_usage_leaves_the_savings_unknown() -> None:
    ledger = build_ledger([req(60, 30, comp(80, 30, SUMMARY)), req(None, 35)])

    (row,) = ledger.compactions
    assert [s.removed_tokens for s in row.later] == [100, None]
    assert row.savings is None and row.state == USAGE_MISSING and ledger.missing == 1
    assert ledger.requests[1].without_compaction is None
    assert ledger.cumulative()[1] == [160, None]


def test_a_request_without_a_meter_reading_leaves_its_saving_unknown() -> None:
    ledger = build_ledger([req(60, None, comp(80, 30, SUMMARY))])
    assert ledger.compactions[0].savings is None


# --- cached tokens ------------------------------------------------------------------------------


def test_cached_tokens_add_up_and_unknown_stays_unknown() -> None:
    known = build_ledger([req(60, 30, comp(80, 30, SUMMARY, Usage(10, 1, 4)))])
    assert known.compactions[0].summary.calls == 2
    assert known.cached == 154 and known.cost == 231

    unknown = build_ledger([req(60, 30, comp(80, 30, SUMMARY, Usage(10, 1, None)))])
    row = unknown.compactions[0]
    assert row.summary.cached_tokens is None and unknown.cached is None
    assert row.state == MEASURED and unknown.cost == 231  # the cost does not need the cache


def test_a_compaction_without_a_summary_call_costs_nothing() -> None:
    ledger = build_ledger([req(60, 30, comp(80, 80))])
    assert ledger.compactions[0].state == NO_CALL and ledger.cost == 0 and ledger.net == 0


# --- two compactions in a row -------------------------------------------------------------------


def test_two_compactions_in_a_row_each_is_credited_on_every_later_request() -> None:
    first, second = comp(100, 60, SUMMARY), comp(60, 50, Usage(90, 10, 0))
    ledger = build_ledger([req(50, 50), req(60, 60, first), req(50, 50, second), req(55, 55)])

    one, two = ledger.compactions
    assert (one.request, one.window, two.request, two.window) == (1, 1, 2, 2)
    assert [s.removed_tokens for s in one.later] == [40, 40, 40]
    assert [s.removed_tokens for s in two.later] == [10, 10]
    assert (one.savings, two.savings) == (120, 20)
    # without compaction a request carries what every earlier compaction removed
    assert [r.without_compaction for r in ledger.requests] == [50, 100, 100, 105]
    assert ledger.cost == 320 and ledger.savings == 140 and ledger.net == -180


def test_two_compactions_before_one_request_share_it() -> None:
    ledger = build_ledger([req(60, 60, comp(100, 80, SUMMARY), comp(80, 60, SUMMARY))])
    one, two = ledger.compactions
    assert (one.window, two.window) == (0, 1)
    assert (one.savings, two.savings) == (20, 20)


def test_a_compaction_after_the_last_request_has_cost_and_no_savings() -> None:
    ledger = build_ledger([req(100, 50)], trailing=(comp(80, 30, SUMMARY),))
    (row,) = ledger.compactions
    assert row.request == 1 and row.later == () and row.window == 0
    assert (row.savings, row.net) == (0, -220)
    assert ledger.cumulative() == ([100, 320], [100, 100])


# --- a real agent over real HTTP, both engines --------------------------------------------------

AGENT_USAGE = {"prompt_tokens": 500, "completion_tokens": 4}
SUMMARY_TEXT = "## Summary\n- the user asked four questions"


def _is_summary(body: dict[str, Any]) -> bool:
    last = body["messages"][-1]["content"]
    return body["messages"][0]["role"] == "user" or "checkpoint" in last.lower()


def server(summary_usage: dict[str, Any], timings: dict[str, Any] | None = None) -> Any:
    def answer(body: dict[str, Any]) -> Reply:
        if _is_summary(body):
            reply = completion({"role": "assistant", "content": SUMMARY_TEXT}, summary_usage)
            if timings is not None:
                reply["timings"] = timings
            return json_reply(reply)
        usage = dict(AGENT_USAGE, prompt_tokens=100 + 10 * len(body["messages"]))
        return json_reply(completion({"role": "assistant", "content": "好的。" * 20}, usage))

    return ScriptedHTTPServer(answer=answer)


def client(base_url: str) -> ChatClient:
    return ChatClient("m", base_url=base_url, api_key="test-key", retry=RetryPolicy(max_retries=0))


def dsh_session(base_url: str, path: Path, window: int) -> tuple[UsageTap, EventLog, Agent]:
    """A DSH agent with a ``window``-token context and a 20-token tail, on the event log at
    ``path``, whose calls to the server at ``base_url`` go through a usage tap."""
    tap = UsageTap(client(base_url))
    log = EventLog(path)
    history = EventLogHistory(log)
    config = DshConfig(context_window=window, retain_tokens=20)
    agent = Agent(
        tap, "你是助手。", engine=make_engine(config, tap, history=history), history=history
    )
    return tap, log, agent


TURNS = [f"第 {n} 个问题：" + "请记住这一段内容。" * 80 for n in range(1, 6)]


def test_agentscope_session_ledger_reads_deepseek_cache_hits() -> None:
    usage = {"prompt_tokens": 700, "completion_tokens": 40, "prompt_cache_hit_tokens": 640}
    config = CompactionConfig.count_only(5, 2, prune=PruneConfig(), meter="agentscope-2.0.3")
    with server(usage) as http:
        tap = UsageTap(client(http.base_url))
        agent = Agent(tap, "你是助手。", engine=make_engine(config, tap))
        results = [agent.call(t) for t in TURNS]
    ledger = ledger_from_calls(results, tap.calls)

    assert [c.request for c in ledger.compactions] == [2, 3, 4]
    for row in ledger.compactions:
        assert (row.summary.prompt_tokens, row.summary.cached_tokens) == (700, 640)
        assert row.summary.completion_tokens == 40 and row.state == MEASURED
        assert row.removed_metered > 0 and row.savings is not None and row.savings > 0
    assert ledger.cost == 3 * 740 and ledger.cached == 3 * 640
    sent = [r.usage.prompt_tokens for res in results for r in res.requests if r.usage]
    assert [r.prompt_tokens for r in ledger.requests] == sent


def test_dsh_session_ledger_reads_llama_cpp_cache_count(tmp_path: Path) -> None:
    usage = {"prompt_tokens": 650, "completion_tokens": 30}
    with server(usage, timings={"cache_n": 600}) as http:
        tap, log, agent = dsh_session(http.base_url, tmp_path / "s.jsonl", 350)
        results = [agent.call(t) for t in TURNS[:3]]
    ledger = ledger_from_calls(results, tap.calls)

    assert ledger.compactions, "the server's usage should have pushed DSH over its threshold"
    for row in ledger.compactions:
        assert (row.summary.prompt_tokens, row.summary.cached_tokens) == (650, 600)
        assert row.meter and row.state == MEASURED
    summaries = [e for e in log.events if e.type == "compaction/summary"]
    assert len(summaries) == len(ledger.compactions)
    paid = [c for c in tap.calls if c.purpose == "summary"]
    assert ledger.cost == 680 * len(paid)  # every summary call the server answered is counted


def test_summary_calls_that_ended_in_no_compaction_are_still_paid(tmp_path: Path) -> None:
    # A summary as long as the turns is refused by DSH (not smaller than what it replaces).
    usage = {"prompt_tokens": 650, "completion_tokens": 30}
    with server(usage) as http:
        tap, _, agent = dsh_session(http.base_url, tmp_path / "s.jsonl", 170)
        short = [t[:40] for t in TURNS[:3]]
        results = [agent.call(t) for t in short]
    ledger = ledger_from_calls(results, tap.calls)

    events = [e for res in results for r in res.requests for e in r.compactions]
    paid = [c for c in tap.calls if c.purpose == "summary"]
    assert len(events) < len(paid), "some summary should have been refused"
    assert ledger.cost == 680 * len(paid)


def test_a_failed_summary_call_puts_the_compaction_in_usage_missing() -> None:
    def answer(body: dict[str, Any]) -> Reply:
        if _is_summary(body):
            error = {"error": {"message": "summariser unavailable", "type": "invalid_request"}}
            return 400, json.dumps(error).encode(), "application/json"
        return json_reply(completion({"role": "assistant", "content": "好"}, AGENT_USAGE))

    config = CompactionConfig.count_only(3, 1, prune=PruneConfig())
    with ScriptedHTTPServer(answer=answer) as http:
        tap = UsageTap(client(http.base_url))
        agent = Agent(tap, "s", engine=make_engine(config, tap))
        results = [agent.call(t) for t in TURNS[:2]]
    ledger = ledger_from_calls(results, tap.calls)

    assert [c.state for c in ledger.compactions] == [USAGE_MISSING]
    assert ledger.cost is None and ledger.net is None and ledger.missing == 1
    assert tap.calls[1] == TappedCall("summary", None, failed=True)


def test_results_the_tap_did_not_see_are_refused() -> None:
    with server({"prompt_tokens": 1, "completion_tokens": 1}) as http:
        agent = Agent(client(http.base_url), "s")
        results = [agent.call("hello")]
    with pytest.raises(ConfigError, match="tap saw 0 answered requests"):
        ledger_from_calls(results, [])
