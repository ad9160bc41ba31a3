"""X-BENCH's held-out split (:mod:`experiments.x_bench.heldout`): deterministic per seed, the tune
split's bytes untouched, at least six phrasings per fact family and language, chat conversations
without any tool output, each planted value only in its own turn, said in passing, and every
size within 10 % of its target; ``ctxlab bench --split heldout`` plays it offline."""

from __future__ import annotations

import csv
import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import ROOT

from experiments.x_bench.corpus import (
    SIZES,
    CorpusError,
    conversation_text,
    generate,
    split_seeds,
)
from experiments.x_bench.generate import main as generate_main
from experiments.x_bench.heldout import HELDOUT_SEEDS, HELDOUT_VERSION, SHAPES, generate_heldout
from experiments.x_bench.heldout.languages import LANGUAGES
from experiments.x_bench.schema import Conversation, dump_conversation
from lab.cli import main

PINNED_HELDOUT_DIGESTS = {
    # sha256 (first 16 hex digits) of seed 1's JSON: a change that moves any byte of a held-out
    # conversation bumps HELDOUT_VERSION and these digests together
    ("2k", "zh", "tools"): "b76550dd481f39cb",
    ("2k", "zh", "chat"): "fa001fa6f21a41b5",
    ("2k", "en", "tools"): "c6f5d04c7bb1b271",
    ("2k", "en", "chat"): "c59ed0ed15b55d99",
    ("8k", "zh", "tools"): "ad68b829df97f529",
    ("8k", "zh", "chat"): "f91cb91df276b12a",
    ("8k", "en", "tools"): "0241ff992477a14a",
    ("8k", "en", "chat"): "822831564ace6903",
}
FAMILIES = ("id", "path", "url", "amount", "name", "code_word", "decision", "constraint",
            "update_old", "update", "near_duplicate", "tool_only")  # fmt: skip
CELLS = [(size, lang, shape) for size in ("2k", "8k") for lang in ("zh", "en") for shape in SHAPES]


def _digest(conversation: Conversation) -> str:
    return hashlib.sha256(dump_conversation(conversation).encode()).hexdigest()[:16]


def test_the_committed_heldout_range_and_version_are_pinned() -> None:
    assert range(1, 13) == HELDOUT_SEEDS == split_seeds("heldout")
    assert split_seeds("tune") == range(1, 13)
    assert HELDOUT_VERSION == 1


def test_seed_one_of_the_heldout_split_gives_the_committed_bytes() -> None:
    digests = {cell: _digest(generate(1, cell[0], cell[1], "heldout", cell[2])) for cell in CELLS}
    assert digests == PINNED_HELDOUT_DIGESTS


@pytest.mark.parametrize("seed", [1, 7])
def test_the_tune_split_is_the_default_and_unchanged_by_the_dispatch(seed: int) -> None:
    # the committed digests of the tune split are pinned in test_bench_corpus.py; here the split
    # and shape arguments give the very same bytes as the call without them
    for size, lang in (("2k", "en"), ("8k", "zh")):
        default = dump_conversation(generate(seed, size, lang))
        assert dump_conversation(generate(seed, size, lang, "tune", "tools")) == default
        assert default != dump_conversation(generate(seed, size, lang, "heldout", "tools"))


def test_the_tune_split_has_no_chat_shape_and_unknown_names_are_refused() -> None:
    with pytest.raises(CorpusError, match="shape tools"):
        generate(1, "2k", "en", "tune", "chat")
    with pytest.raises(CorpusError, match="Unknown split 'dev'"):
        generate(1, "2k", "en", "dev")
    with pytest.raises(CorpusError, match="Unknown shape 'voice'"):
        generate(1, "2k", "en", "heldout", "voice")


def test_ids_and_generator_name_the_split_and_shape() -> None:
    conversation = generate(3, "2k", "zh", "heldout", "chat")
    assert conversation.id == "heldout-chat-zh-2k-s03"
    assert conversation.generator == {
        "module": "experiments.x_bench.heldout",
        "version": HELDOUT_VERSION,
        "split": "heldout",
        "shape": "chat",
    }
    tune_ids = {generate(3, "2k", lang).id for lang in ("zh", "en")}
    heldout_ids = {
        generate(3, "2k", lang, "heldout", s).id for lang in ("zh", "en") for s in SHAPES
    }
    assert not tune_ids & heldout_ids


def test_two_runs_of_the_module_with_one_seed_write_identical_bytes(tmp_path: Path) -> None:
    # One run in a process of its own (another hash seed), one through main(argv) in this one:
    # a second process would only pay the start-up again.
    args = ["--seed", "5", "--size", "2k", "--lang", "en", "--split", "heldout", "--shape", "chat"]
    command = [sys.executable, "-m", "experiments.x_bench.generate", *args]
    subprocess.run([*command, "--out", str(tmp_path / "c1.json")], check=True, cwd=ROOT)
    assert generate_main([*args, "--out", str(tmp_path / "c2.json")]) == 0
    outs = [(tmp_path / f"c{n}.json").read_bytes() for n in (1, 2)]
    assert outs[0] == outs[1] == dump_conversation(generate_heldout(5, "2k", "en", "chat")).encode()
    assert generate_heldout(6, "2k", "en", "chat") != generate_heldout(5, "2k", "en", "chat")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_fact_family_has_at_least_six_phrasings_per_language(lang: str) -> None:
    language = LANGUAGES[lang]
    assert set(language.facts) == set(FAMILIES)
    for family, phrasings in language.facts.items():
        assert len({p.text for p in phrasings}) >= 6, family
        slot = "{action}" if family == "constraint" else "{value}"
        if family == "decision":
            slot = "{choice}"
        assert all(slot in p.text for p in phrasings), family
        assert family == "update_old" or all(p.question for p in phrasings), family
    speakers = {p.speaker for family in FAMILIES[:-1] for p in language.facts[family]}
    assert speakers == {"user", "assistant"}
    pools = (language.names, language.code_words, language.rooms, language.decisions,
             language.rules, language.abstentions, language.tool_requests)  # fmt: skip
    assert all(len(set(pool)) >= 6 for pool in pools)


@pytest.mark.parametrize(("size", "lang", "shape"), CELLS)
def test_chat_conversations_have_no_tool_output_and_tools_ones_do(
    size: str, lang: str, shape: str
) -> None:
    for seed in HELDOUT_SEEDS:
        conversation = generate_heldout(seed, size, lang, shape)
        kinds = [f.kind for f in conversation.facts]
        tools = [t for t in conversation.turns if t.tool is not None]
        if shape == "chat":
            assert tools == [] and "tool_only" not in kinds
            assert conversation.tool_description == "" and "lookup" not in conversation.system
        else:
            assert tools and kinds.count("tool_only") == 1
        assert kinds.count("identifier") == 4 and kinds[-1] == "abstention"


def _check_values(conversation: Conversation) -> None:
    texts = conversation_text(conversation.turns)
    for fact in conversation.facts:
        if fact.kind == "abstention":
            assert fact.turn is None and not fact.values
            continue
        assert fact.turn is not None
        turn = conversation.turns[fact.turn]
        for value in fact.values:
            assert [n for n, text in enumerate(texts) if value in text] == [fact.turn]
            said = {"user": turn.user, "assistant": turn.assistant}.get(fact.where)
            if said is None:
                assert turn.tool is not None and value in turn.tool.result
                assert value not in turn.user + turn.assistant
            else:
                assert value in said
        for old in fact.reject:
            own = {fact.turn, fact.earlier_turn}
            assert {n for n, text in enumerate(texts) if old in text} <= own


@pytest.mark.parametrize(("size", "lang", "shape"), CELLS)
def test_every_value_occurs_only_in_its_own_turn(size: str, lang: str, shape: str) -> None:
    for seed in HELDOUT_SEEDS:
        conversation = generate_heldout(seed, size, lang, shape)
        _check_values(conversation)
        update = next(f for f in conversation.facts if f.kind == "update")
        assert update.earlier_turn is not None and update.turn is not None
        assert update.earlier_turn < update.turn


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_facts_are_said_in_passing_inside_a_turn_about_something_else(lang: str) -> None:
    # a fact the user says shares its message with an ask about a filler topic; one the
    # assistant says comes after at least one sentence answering that ask
    language = LANGUAGES[lang]
    filler = language.filler
    asks = {ask.format(topic=topic) for ask in filler.asks for topic in filler.topics}
    for seed in HELDOUT_SEEDS:
        conversation = generate_heldout(seed, "2k", lang, "chat")
        for fact in conversation.facts:
            if fact.turn is None:
                continue
            turn = conversation.turns[fact.turn]
            if fact.where == "user":
                assert any(ask in turn.user for ask in asks)
            else:
                starts = [turn.assistant.find(s) for s in language.filler.sentences]
                first = min(at for at in starts if at >= 0)
                assert first < turn.assistant.index(fact.values[0])


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_committed_seed_lands_within_ten_percent_of_its_size(size: str, lang: str) -> None:
    for seed in HELDOUT_SEEDS:
        for shape in SHAPES:
            tokens = generate_heldout(seed, size, lang, shape).tokens
            assert abs(tokens - SIZES[size]) <= SIZES[size] / 10, (seed, shape, tokens)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=10**6),
    lang=st.sampled_from(["zh", "en"]),
    shape=st.sampled_from(SHAPES),
)
def test_any_seed_generates_deterministically_with_its_values_in_place(
    seed: int, lang: str, shape: str
) -> None:
    conversation = generate_heldout(seed, "2k", lang, shape)
    assert conversation == generate_heldout(seed, "2k", lang, shape)
    _check_values(conversation)
    assert abs(conversation.tokens - SIZES["2k"]) <= SIZES["2k"] / 10


def _conversations_of(out: Path) -> list[str]:
    with (out / "bench-runs.csv").open(encoding="utf-8") as file:
        return list(dict.fromkeys(row["conversation"] for row in csv.DictReader(file)))


def test_bench_plays_the_heldout_split_offline(tmp_path: Path) -> None:
    small = ["--sizes", "2k", "--seeds", "1", "--langs", "en", "--conditions", "truncation"]
    assert main(["bench", "--split", "heldout", *small, "--out", str(tmp_path / "h")]) == 0
    assert _conversations_of(tmp_path / "h") == [
        "heldout-tools-en-2k-s01",
        "heldout-chat-en-2k-s01",
    ]
    chat = ["--split", "heldout", "--shapes", "chat", *small, "--out", str(tmp_path / "c")]
    assert main(["bench", *chat]) == 0
    assert _conversations_of(tmp_path / "c") == ["heldout-chat-en-2k-s01"]
    assert main(["bench", *small, "--out", str(tmp_path / "t")]) == 0
    assert _conversations_of(tmp_path / "t") == ["en-2k-s01"]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--shapes", "chat"], "--shapes takes tools; not chat"),
        (["--split", "heldout", "--shapes", "voice"], "--shapes takes tools, chat; not voice"),
        (["--split", "heldout", "--conversations", "x.json"], "--split choose generated"),
    ],
)
def test_a_bad_split_choice_is_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], words: str
) -> None:
    assert main(["bench", *extra, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]


def _fragments(template: str, shortest: int) -> set[str]:
    """The fixed text of a tune template between its ``{slots}``, pieces of ``shortest`` or more
    characters."""
    pieces = re.split(r"\{[a-z_]+\}", template)
    return {p.strip(" .;:,。；：，") for p in pieces if len(p.strip(" .;:,。；：，")) >= shortest}


@pytest.mark.parametrize(("lang", "shortest"), [("en", 12), ("zh", 4)])
def test_no_heldout_phrasing_reuses_the_tune_splits_wording(lang: str, shortest: int) -> None:
    from experiments.x_bench.texts import TEXTS

    tune = TEXTS[lang]
    templates = [t for pair in tune["facts"].values() for t in pair if isinstance(t, str)]
    templates += [t for pair in tune["facts"].values() if isinstance(pair, tuple) for t in pair]
    templates += [c[0] for c in tune["constraints"]]
    fragments = set().union(*(_fragments(t, shortest) for t in templates))
    assert fragments
    heldout = [p.text for family in LANGUAGES[lang].facts.values() for p in family]
    assert _reused(fragments, heldout) == set()
    planted = tune["facts"]["code_word"][0]  # the tune split's own phrasing is found
    assert _reused(fragments, [*heldout, planted])


def _reused(fragments: set[str], texts: list[str]) -> set[str]:
    return {f for f in fragments for text in texts if f in text}
