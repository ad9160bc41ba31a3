"""What a replay and a plot cost (``ctxlab run``'s hot paths): each body canonicalised once, no copy
of a request per lookup, a plot drawn once; the answers are those of the long way."""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.figure import Figure
from PIL import Image
from vcr.request import Request as VcrRequest

from experiments.x_bench.pricing import RunningPrice, agentscope_price
from harness import Message
from lab.recorder import matching
from lab.recorder.matching import canonical_body, json_body_matcher
from lab.report.plots.canvas import DPI, PALETTE_COLOURS, PNG_COMPRESSION, new_figure, png


def _request(body: bytes) -> VcrRequest:
    return VcrRequest("POST", "http://x/v1/chat/completions", body, {})


def test_a_body_is_canonicalised_once_however_often_it_is_compared(monkeypatch) -> None:
    calls = []
    real = matching._canonical
    monkeypatch.setattr(matching, "_canonical", lambda v: calls.append(v) or real(v))
    recorded = [_request(b'{"n": %d, "m": [1, 2]}' % n) for n in range(5)]
    new = _request(b'{"m": [1, 2], "n": 4}')
    for _ in range(3):  # vcrpy looks a request up three times
        for old in recorded[:-1]:
            with pytest.raises(AssertionError):
                json_body_matcher(new, old)
        json_body_matcher(new, recorded[-1])
    assert len(calls) == 6  # five recordings and the request, no subtree of a mismatch


def test_a_request_whose_body_was_replaced_is_canonicalised_again() -> None:
    request = _request(b'{"a": 1}')
    assert canonical_body(request) == '{"a":1}'
    request.body = b'{"a": 2.0}'
    assert canonical_body(request) == '{"a":2.0}'
    assert canonical_body(_request(b"not json")) == repr(b"not json")


def _savefig_png(figure: Figure) -> bytes:
    """What :func:`png` wrote before it drew once: savefig, read back, quantised."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    with Image.open(io.BytesIO(buffer.getvalue())) as drawn:
        palette = drawn.convert("RGB").quantize(
            colors=PALETTE_COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
    out = io.BytesIO()
    palette.save(out, format="PNG", compress_level=PNG_COMPRESSION)
    return out.getvalue()


def _drawn(figure: Figure) -> None:
    top, bottom = figure.subplots(2, 1)
    top.plot([1, 5, 2, 8], label="ours")
    top.set_title("A constrained layout with a legend")
    top.legend(title="who")
    bottom.bar(["E1", "E2", "E3"], [3, 1, 2])
    bottom.set_xlabel("experiment")
    figure.suptitle("two panels")


def test_a_plot_drawn_once_gives_the_bytes_savefig_gave() -> None:
    with new_figure((6.8, 3.4), panels=2) as figure:
        _drawn(figure)
        expected = _savefig_png(figure)
    with new_figure((6.8, 3.4), panels=2) as figure:
        _drawn(figure)
        assert png(figure) == expected


@given(st.integers(0, 2**32 - 1))
def test_a_running_price_is_the_sum_of_the_prices(seed: int) -> None:
    chance = random.Random(seed)
    pool = [Message.user("x" * chance.randint(1, 60)) for _ in range(12)]
    running, last = RunningPrice(), []
    for _ in range(30):
        grown = last + [chance.choice(pool) for _ in range(chance.randint(0, 3))]
        if grown and chance.random() < 0.3:  # a system message built afresh
            grown[0] = Message.system("s" * chance.randint(1, 40))
        if chance.random() < 0.2:  # a compaction: shorter, or anything else
            grown = [chance.choice(pool) for _ in range(chance.randint(0, len(grown)))]
        assert running.of(grown) == agentscope_price(grown)
        last = grown
