"""The bound on requests in flight (halved on a refusal once per window, grown back by one per
window answered, a refused request sent again after the wait) and the bounded retry of a run
whose model calls fail: played again from its start, then reported, never dropped."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from experiments.x_bench.corpus import generate
from experiments.x_bench.runs import ATTEMPTS, GridHooks, play_grid, run_all
from harness import Message
from harness.errors import APIConnectionError, BadRequestError, RateLimitError, ServerError
from harness.model import ChatRequest, ChatResponse
from harness.testing import FunctionModel
from lab.limiter import REFUSAL_ROUNDS, LimitedModel, Limiter

PROBE = "Answer each question below"


def test_a_refusal_halves_the_bound_once_per_window_and_answers_raise_it_back() -> None:
    limiter = Limiter(8)
    limiter.acquire()  # a request sent before the cut
    other = threading.Thread(target=lambda: (limiter.acquire(), limiter.refused(None)))
    other.start()
    other.join()
    assert limiter.limit == 4
    limiter.refused(None)  # sent before that cut: the same window, no second cut
    assert limiter.limit == 4 and limiter.counts.refusals == 2
    limiter.release(answered=False)
    limiter.release(answered=False)
    limiter.acquire()
    limiter.refused(None)  # sent after the cut: a new window
    limiter.release(answered=False)
    assert limiter.limit == 2
    for _ in range(2 + 3 + 4 + 5 + 6 + 7 + 20):
        limiter.acquire()
        limiter.release(answered=True)
    assert limiter.limit == 8  # back to the ceiling, never above


def test_the_bound_holds_requests_back() -> None:
    limiter = Limiter(1)
    limiter.acquire()
    entered = threading.Event()

    def second() -> None:
        limiter.acquire()
        entered.set()
        limiter.release(answered=True)

    thread = threading.Thread(target=second)
    thread.start()
    assert not entered.wait(0.2)
    limiter.release(answered=True)
    assert entered.wait(5)
    thread.join()


def _refusing(times: int) -> FunctionModel:
    calls = {"n": 0}

    def answer(request: ChatRequest) -> str:
        calls["n"] += 1
        if calls["n"] <= times:
            raise RateLimitError("slow down", status_code=429)
        return "ok"

    return FunctionModel(answer)


def test_a_refused_request_is_sent_again_a_bounded_number_of_times() -> None:
    waits: list[float] = []
    request = ChatRequest(messages=(Message.user("hi"),))
    model = LimitedModel(_refusing(3), Limiter(4), sleep=waits.append)
    assert model.complete(request).message.content == "ok"
    assert waits == [0.5, 1.0, 2.0]
    stubborn = LimitedModel(_refusing(100), Limiter(4), sleep=waits.append)
    with pytest.raises(RateLimitError):
        stubborn.complete(request)
    assert len(stubborn.model.requests) == REFUSAL_ROUNDS + 1  # type: ignore[attr-defined]
    assert stubborn.limiter.in_flight == 0


def _probe_fails(times: int, error: Exception) -> FunctionModel:
    """Summaries answered; the first ``times`` probes fail with ``error``."""
    failed = {"n": 0}

    def answer(request: ChatRequest) -> str | ChatResponse:
        if request.purpose != "probe":
            return "## SUMMARY\nThe team checks export papers."
        if failed["n"] < times:
            failed["n"] += 1
            raise error
        return "1. not known"

    return FunctionModel(answer, model_name="m")


def test_a_failed_run_is_played_again_then_reported() -> None:
    conversation = generate(1, "2k", "en")
    said: list[str] = []
    hooks = GridHooks(progress=said.append)
    flaky = _probe_fails(ATTEMPTS - 1, ServerError("down", status_code=503))
    outcome = play_grid([conversation], ["agentscope"], lambda *_: flaky, "m", hooks)
    assert [r.condition for r in outcome.records] == ["agentscope"] and not outcome.failed
    assert sum("playing it again from its start" in line for line in said) == ATTEMPTS - 1
    broken = _probe_fails(100, APIConnectionError("could not reach the server"))

    def model_for(_: object, name: str) -> FunctionModel | None:
        return broken if name == "agentscope" else None  # truncation plays without a model

    outcome = play_grid([conversation], ["truncation", "agentscope"], model_for, "m", hooks)
    assert [r.condition for r in outcome.records] == ["truncation"]  # the other is not dropped:
    [failure] = outcome.failed
    assert (failure.conversation, failure.condition) == (conversation.id, "agentscope")
    probes = [r for r in broken.requests if r.purpose == "probe"]
    assert len(probes) == ATTEMPTS  # agentscope's, on every attempt
    with pytest.raises(APIConnectionError):  # the experiment's run_all raises it
        run_all([conversation], ["agentscope"], lambda *_: broken, "m", hooks)


def test_a_run_that_cannot_pass_is_not_played_again() -> None:
    conversation = generate(1, "2k", "en")
    refused = _probe_fails(100, BadRequestError("bad request", status_code=400))
    outcome = play_grid([conversation], ["ctxlab"], lambda *_: refused, "m", GridHooks())
    assert len(outcome.failed) == 1
    assert sum(r.purpose == "probe" for r in refused.requests) == 1


def test_the_wrappers_name_the_wrapped_models_provider() -> None:
    """X-BENCH's counting wrapper reads ``provider`` off the model it is given."""
    from harness.model import provider_of
    from lab.request_cache import CachedModel, RequestCache

    inner = FunctionModel(lambda _: "ok")
    limited = LimitedModel(inner, Limiter(2))
    cached = CachedModel(limited, RequestCache(Path("unused")), "127.0.0.1:1")
    assert limited.provider == cached.provider == provider_of(inner) != "unknown"
