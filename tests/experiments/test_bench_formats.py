"""Standard corpora into ``ctxlab bench``: each published format read from a small fixture of
our own (tests/experiments/data/formats/, written here in each format's shape, none of any
dataset's text), round-tripped through ctxlab's format, detected, and its unanchored facts
reported rather than lost."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from experiments.x_bench.formats import stream
from experiments.x_bench.formats.assemble import Asked, Said, assemble
from experiments.x_bench.formats.reader import read_conversations
from experiments.x_bench.schema import BenchFileError, dump_conversation, load_conversations
from experiments.x_bench.scoring import survived
from lab.cli import main

DATA = Path(__file__).parent / "data" / "formats"
LONGMEMEVAL, LOCOMO = DATA / "longmemeval.json", DATA / "locomo.json"
TEMPLATE = DATA / "compactbench-template.yaml"


def _round_trip(path: Path, tmp_path: Path, fmt: str = "auto") -> None:
    """Read ``path``, write it in ctxlab's format, read that back: the same conversations."""
    found = read_conversations(path, fmt)
    mine = tmp_path / "mine.json"
    mine.write_text("[" + ",".join(dump_conversation(c) for c in found.conversations) + "]")
    back = read_conversations(mine)
    assert back.format == "ctxlab"
    assert back.conversations == found.conversations
    assert back.conversations == load_conversations(mine)


def test_longmemeval_round_trips_and_reports_the_answer_said_nowhere(tmp_path: Path) -> None:
    found = read_conversations(LONGMEMEVAL)
    assert found.format == "longmemeval" and found.unanchored == 1
    first, temporal, absent = found.conversations
    fact = first.facts[0]
    assert (fact.kind, fact.values, fact.expect, fact.where) == ("recall", ["Tromsø"], ["Tromsø"],
                                                                 "user")  # fmt: skip
    assert first.turns[fact.turn or 0].user.startswith("[2024/02/20 (Tue) 18:40] I signed up")
    # "three weeks" is nowhere verbatim: kept, marked, not scored (not lost, not refused)
    assert temporal.facts[0].values == [] and "'three weeks'" in temporal.facts[0].unanchored
    assert survived(temporal.facts[0], "anything at all") is None
    assert absent.facts[0].kind == "abstention" and not absent.facts[0].unanchored
    _round_trip(LONGMEMEVAL, tmp_path)


def test_locomo_round_trips_with_its_evidence_and_case_of_the_turn(tmp_path: Path) -> None:
    (talk,) = read_conversations(LOCOMO).conversations
    by_id = {f.id: f for f in talk.facts}
    assert by_id["qa-0"].values == ["Pippa"] and by_id["qa-0"].turn == 0
    # the answer "thursdays" is kept as the turn spells it, so survival reads the turn's text
    assert by_id["qa-1"].values == ["Thursdays"] and by_id["qa-1"].expect == ["thursdays"]
    assert "(D1:3)" in by_id["qa-2"].unanchored and by_id["qa-2"].values == []
    assert by_id["qa-3"].kind == "abstention"
    assert talk.turns[0].user.startswith("[3:10 pm on 4 May, 2023] Ilse: I finally adopted")
    _round_trip(LOCOMO, tmp_path)


def test_an_answer_only_outside_its_evidence_is_unanchored() -> None:
    said = [Said("user", "The code is 41.", "m1"), Said("assistant", "Noted.", "m2")]
    asked = [Asked("q", "recall", "Which code?", ["41"], ["m2"])]
    (fact,) = assemble("c", said, asked, {}, "here").facts
    assert fact.values == [] and "(m2)" in fact.unanchored  # said, but not where it points
    # one value of two found is not the fact: unanchored, with no turn of its own
    asked = [Asked("q", "recall", "Code and reply?", ["41", "Later."], None)]
    (fact,) = assemble("c", said, asked, {}, "here").facts
    assert (fact.values, fact.turn, fact.band) == ([], None, "none")
    assert "'Later.'" in fact.unanchored
    # an empty answer (a dataset's slip) is unanchored, not a refused file
    (fact,) = assemble("c", said, [Asked("q", "recall", "?", [" "], None)], {}, "here").facts
    assert fact.values == [] and "empty answer" in fact.unanchored


def test_compactbench_cases_come_from_its_own_generator(tmp_path: Path) -> None:
    pytest.importorskip("compactbench", reason="the compactbench extra is not installed")
    found = read_conversations(TEMPLATE, cases=2)
    assert found.format == "compactbench" and len(found.conversations) == 2
    case = found.conversations[0]
    assert case.system == "You help a small team hand work over between shifts."
    kinds = {f.id: f.kind for f in case.facts}
    assert kinds == {"owner_recall": "recall", "stock_day": "decision", "no_unsigned": "constraint"}
    rule = next(f for f in case.facts if f.id == "no_unsigned")
    assert rule.reject == ["ship it now"] and rule.expect == [] and rule.unanchored
    assert case.generator["template"] == "ctxlab_own_handover"
    again = read_conversations(TEMPLATE, cases=2).conversations
    assert again == found.conversations  # CompactBench's seeds: the same cases every time
    _round_trip(TEMPLATE, tmp_path)


def test_without_the_extra_compactbench_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "compactbench", None)  # import compactbench fails
    with pytest.raises(BenchFileError) as error:
        read_conversations(TEMPLATE, "compactbench")
    assert "ctxlab[compactbench]" in str(error.value) and str(error.value).count(". ") == 0


@pytest.mark.parametrize(
    ("path", "fmt"), [(LONGMEMEVAL, "longmemeval"), (LOCOMO, "locomo"), (TEMPLATE, "compactbench")]
)
def test_auto_detects_each_format(path: Path, fmt: str) -> None:
    if fmt == "compactbench":
        pytest.importorskip("compactbench", reason="the compactbench extra is not installed")
    assert read_conversations(path).format == fmt


def test_a_file_fitting_two_formats_or_none_is_one_sentence_naming_it(tmp_path: Path) -> None:
    item = json.loads(LONGMEMEVAL.read_text())[0]
    both = tmp_path / "both.json"
    both.write_text(json.dumps([item | {"turns": [], "facts": []}]))
    with pytest.raises(BenchFileError) as error:
        read_conversations(both)
    message = str(error.value)
    assert str(both) in message and "ctxlab and longmemeval" in message and "--format" in message
    assert "tried (ctxlab, longmemeval, locomo, compactbench)" in message
    assert "\n" not in message and message.count(". ") == 0
    odd = tmp_path / "odd.json"
    odd.write_text('[{"messages": []}]')
    with pytest.raises(BenchFileError) as error:
        read_conversations(odd)
    message = str(error.value)
    assert str(odd) in message and "ctxlab, longmemeval, locomo, compactbench" in message
    assert "\n" not in message and message.count(". ") == 0
    # said which, the file is read as that format, and what does not fit is named
    with pytest.raises(BenchFileError, match="not a LoCoMo sample"):
        read_conversations(LONGMEMEVAL, "locomo")


def test_a_long_read_says_how_far_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    from experiments.x_bench.formats import reader

    monkeypatch.setattr(reader, "PROGRESS_SECONDS", 0.0)
    said: list[str] = []
    read_conversations(LONGMEMEVAL, say=said.append)
    assert said == [f"read {n} of 3 item(s) of {LONGMEMEVAL}" for n in (1, 2, 3)]


def test_limit_reads_only_the_first_items_of_a_file_over_the_size_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = json.loads(LONGMEMEVAL.read_text())
    big = tmp_path / "big.json"
    big.write_text(json.dumps(items * 40))  # ids repeat after 3: only the first 3 are read
    monkeypatch.setattr(stream, "MAX_FILE_BYTES", 20_000)
    monkeypatch.setattr(stream, "CHUNK_BYTES", 512)
    found = read_conversations(big, limit=3)
    assert [c.id for c in found.conversations] == ["lme-lme-own-1", "lme-lme-own-2",
                                                    "lme-lme-own-3_abs"]  # fmt: skip
    with pytest.raises(BenchFileError, match="pass a smaller --limit"):
        read_conversations(big, limit=100)


_ITEM = st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=20), max_size=3)


@given(st.lists(_ITEM, max_size=6), st.integers(1, 8), st.integers(1, 64))
def test_streamed_items_are_the_parsed_file_s_first_items(
    items: list[dict[str, object]], limit: int, chunk: int
) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "items.json"
        path.write_text(json.dumps(items, ensure_ascii=False, indent=1), encoding="utf-8")
        old, stream.CHUNK_BYTES = stream.CHUNK_BYTES, chunk
        try:
            assert list(stream.first_items(path, limit)) == items[:limit]
        finally:
            stream.CHUNK_BYTES = old


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as file:
        return list(csv.DictReader(file))


def test_bench_on_locomo_counts_the_unanchored_and_marks_never_compacted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["bench", "--conversations", str(LOCOMO), "--out", str(out)]) == 0
    said = capsys.readouterr()
    assert "read 1 conversation(s), 4 fact(s)" in said.out and "1 fact(s) unanchored" in said.out
    assert "read 1 conversation(s)" not in said.err  # stderr is for progress and refusals
    rows = {r["condition"]: r for r in _rows(out / "bench-runs.csv")}
    # two facts scored (the unanchored one and the abstention are not): both kept by full
    assert rows["full"]["survival"] == "1.0" and rows["full"]["lost"] == "[]"
    # the conversation stays under the trigger: no condition compacted, each is marked
    assert rows["full"]["note"] == "" and rows["truncation"]["note"] == "never compacted"
    markdown = (out / "bench.md").read_text()
    assert "### Facts left unanchored" in markdown and "1 of 4 fact(s)" in markdown
    assert "Never compacted" in markdown and "`locomo-own-1` under `masking` @ none" in markdown
    # every condition paired with truncation or masking never compacted: no pair at one budget
    assert "None at equal budget: every pair had a run that never compacted" in markdown


def test_import_options_without_conversations_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "--limit", "2", "--format", "locomo"]) == 2
    assert "--format, --limit choose how --conversations is read" in capsys.readouterr().err


def test_ctxlab_s_own_format_takes_an_unanchored_fact_only_without_values(
    tmp_path: Path,
) -> None:
    (talk,) = read_conversations(LOCOMO).conversations
    data = json.loads(dump_conversation(talk))
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps(data))
    assert read_conversations(mine, "ctxlab").unanchored == 1
    data["facts"][2]["values"] = ["April"]  # an unanchored fact with a value: which is it?
    mine.write_text(json.dumps(data))
    with pytest.raises(BenchFileError, match="an unanchored fact is not scored"):
        read_conversations(mine, "ctxlab")


def test_the_ray_executor_is_sent_the_file_read_here_in_ctxlab_s_format() -> None:
    import argparse

    from experiments.x_bench.cli_import import imported_json

    args = argparse.Namespace(conversations=LOCOMO, format="auto", limit=1, cases=1,
                              difficulty="medium")  # fmt: skip
    sent = imported_json(args)
    assert sent is not None and (args.format, args.limit) == ("ctxlab", None)
    (talk,) = read_conversations(LOCOMO).conversations
    assert json.loads(sent) == [json.loads(dump_conversation(talk))]
