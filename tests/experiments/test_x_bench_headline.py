"""X-BENCH's answer first: ctxlab's profile against the reference prompt, masking and truncation
per recorded model, on exactly the conversations recorded under both ctxlab and the reference."""

from __future__ import annotations

import dataclasses

import pandas as pd
from support.bench_runs import LARGER, SMALL
from support.bench_runs import bench_run as _run
from support.bench_runs import bench_view as _view

from experiments.x_bench.headline import dominating, headline, headline_models
from experiments.x_bench.page import x_bench_section
from experiments.x_bench.view import RunRecord

SET, OTHER = SMALL, LARGER


def _runs() -> list[RunRecord]:
    runs = []
    for conversation in ("a", "b", "c"):
        runs += [_run("masking", conversation, 0.9, "none"), _run("truncation", conversation, 0.1,
                 "none", carried_tokens=[200])]  # fmt: skip
        runs.append(_run("ctxlab", conversation, 1.0))
    # the reference recorded on two of the three: the headline keeps those two only
    runs += [_run("reference", c, 0.3, carried_tokens=[300]) for c in ("a", "b")]
    runs.append(_run("masking", "a", 0.9))  # masking's probe on one of them only
    runs.append(_run("ctxlab", "a", 0.5, OTHER))  # no reference on the other model
    return runs


def test_the_headline_compares_on_the_conversations_both_were_recorded_on() -> None:
    view = _view(_runs())
    assert headline_models(view) == [(SET, "2k")]
    rows = {r.condition: r for r in headline(view, SET, "2k")}
    assert list(rows) == ["ctxlab", "reference", "masking", "truncation"]
    assert {r.conversations for r in rows.values()} == {2}
    assert rows["reference"].difference == (0.7, 0.7, 0.7)
    assert rows["masking"].survival == 0.9  # the model-free run, not the probe's
    assert rows["truncation"].carried_tokens == 200.0
    assert rows["ctxlab"].difference is None and rows["ctxlab"].carried_tokens == 450.0
    assert rows["ctxlab"].correct == 0.5
    assert rows["masking"].correct is None  # its probe is missing on one conversation


def test_no_headline_without_both_conditions_recorded() -> None:
    runs = [r for r in _runs() if r.condition != "reference"]
    assert headline_models(_view(runs)) == []
    assert headline(_view(runs), SET, "2k") == []


def test_the_page_answers_first() -> None:
    section = x_bench_section(_view(_runs()), pd.DataFrame())
    answer = section.index("### The answer")
    assert answer < section.index("### Conditions")
    assert f"**{SET}**, 2 conversations at 2K: ctxlab keeps 100% of the planted facts" in section
    assert "the reference prompt 30% carrying 300" in section


def test_the_frontier_names_a_condition_that_keeps_as_much_for_less() -> None:
    view = _view(_runs())
    rows = headline(view, SET, "2k")
    assert dominating(rows) == []  # truncation and the reference carry less but keep less
    cheaper = [dataclasses.replace(rows[0], carried_tokens=900.0), *rows[1:]]
    assert dominating(cheaper) == []  # masking carries less (450) but keeps less (0.9)
    rich = [dataclasses.replace(rows[0], survival=0.8, carried_tokens=900.0), *rows[1:]]
    assert dominating(rich) == ["masking"]
    assert "Not dominated" in x_bench_section(view, pd.DataFrame())


def test_a_condition_that_never_compacted_is_left_out_of_the_headline() -> None:
    # masking never compacted on "a" (it kept everything by spending nothing): no comparison
    # at equal budget, so its row and ctxlab's difference with it stand on "b" alone
    runs = [dataclasses.replace(r, compactions=0, carried_tokens=[], survival=1.0)
            if (r.condition, r.conversation, r.model) == ("masking", "a", "none") else r
            for r in _runs()]  # fmt: skip
    rows = {r.condition: r for r in headline(_view(runs), SET, "2k")}
    assert rows["masking"].conversations == 1 and rows["masking"].never_compacted == 1
    assert rows["masking"].survival == 0.9
    assert rows["masking"].difference == (0.1, 0.1, 0.1)
    assert rows["ctxlab"].never_compacted == 0 and rows["ctxlab"].conversations == 2
    section = x_bench_section(_view(runs), pd.DataFrame())
    assert "| masking (never compacted on 1: left out) |" in section
    assert "Never compacted (" in section and "`a` under `masking` @ none" in section
