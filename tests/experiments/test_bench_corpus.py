"""X-BENCH's corpus generator: byte-identical per seed, the committed seed range pinned, every
planted fact where the fact list says, and the conversation format round-trips."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import ROOT

from experiments.x_bench import corpus
from experiments.x_bench.corpus import SEEDS, SIZES, conversation_text, generate, turn_messages
from experiments.x_bench.generate import main as generate_main
from experiments.x_bench.schema import (
    FACT_KINDS,
    BenchFileError,
    Conversation,
    Fact,
    Turn,
    conversation_from_data,
    dump_conversation,
    load_conversations,
)
from experiments.x_bench.turns import priced
from harness.meter.pricers import estimate_tokens

PINNED_DIGESTS = {
    # sha256 (first 16 hex digits) of seed 1's JSON per size and language: a change to the
    # generator that changes any byte of a conversation must bump GENERATOR_VERSION and these
    # digests together. (Re-pinned once without a bump when the generator moved to
    # experiments.x_bench: only the "generator.module" field of the metadata changed.)
    ("2k", "zh"): "1fcce2603aa0e802",
    ("2k", "en"): "8e282c8bcef99869",
    ("8k", "zh"): "9a916bdab7b2e551",
    ("8k", "en"): "eecde03fd9a2103d",
    ("24k", "zh"): "9af3e52add4acd64",
    ("24k", "en"): "c7e6cc4cc2547627",
}


def _digest(seed: int, size: str, lang: str) -> str:
    return hashlib.sha256(dump_conversation(generate(seed, size, lang)).encode()).hexdigest()


def test_the_committed_seed_range_is_pinned() -> None:
    assert range(1, 13) == corpus.SEEDS
    assert corpus.GENERATOR_VERSION == 1
    assert SIZES == {"2k": 2_000, "8k": 8_000, "24k": 24_000}


def test_seed_one_gives_the_committed_bytes() -> None:
    digests = {(size, lang): _digest(1, size, lang)[:16] for size in SIZES for lang in ("zh", "en")}
    assert digests == PINNED_DIGESTS


def test_two_runs_of_the_module_with_one_seed_write_identical_bytes(tmp_path: Path) -> None:
    # One run in a process of its own (another hash seed), one through main(argv) in this one:
    # a second process would only pay the start-up again.
    args = ["--seed", "7", "--size", "2k", "--lang", "zh"]
    command = [sys.executable, "-m", "experiments.x_bench.generate", *args]
    subprocess.run([*command, "--out", str(tmp_path / "c1.json")], check=True, cwd=ROOT)
    assert generate_main([*args, "--out", str(tmp_path / "c2.json")]) == 0
    outs = [(tmp_path / f"c{n}.json").read_bytes() for n in (1, 2)]
    assert outs[0] == outs[1]
    assert outs[0] == dump_conversation(generate(7, "2k", "zh")).encode()
    assert generate(8, "2k", "zh") != generate(7, "2k", "zh")


def test_the_module_refuses_an_unknown_size_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    # Through main(argv) in this process: the module as a process is run by the test above.
    with pytest.raises(SystemExit) as exited:
        generate_main(["--seed", "1", "--size", "3k", "--lang", "zh"])
    assert exited.value.code == 2
    assert "invalid choice: '3k'" in capsys.readouterr().err


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", list(SIZES))
def test_every_seed_generates_within_ten_percent_of_its_size(size: str, lang: str) -> None:
    for seed in SEEDS:
        conversation = generate(seed, size, lang)
        measured = sum(estimate_tokens(turn_messages(t)) for t in conversation.turns)
        assert measured == conversation.tokens
        assert abs(measured - SIZES[size]) <= SIZES[size] / 10


def _planted(conversation: Conversation, fact: Fact) -> Turn:
    assert fact.turn is not None
    return conversation.turns[fact.turn]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_kind_is_planted_once_where_the_fact_list_says(lang: str) -> None:
    for seed in SEEDS:
        conversation = generate(seed, "2k", lang)
        kinds = [f.kind for f in conversation.facts]
        assert set(kinds) == set(FACT_KINDS) - {"recall"}  # recall: imported corpora only
        assert kinds.count("identifier") == 4
        texts = conversation_text(conversation.turns)
        for fact in conversation.facts:
            if fact.kind == "abstention":
                assert fact.turn is None and not fact.values
                continue
            turn = _planted(conversation, fact)
            assert turn.phase == "conversation"
            for value in fact.values:
                assert [n for n, text in enumerate(texts) if value in text] == [fact.turn]
            if fact.kind == "tool_only":
                assert turn.tool is not None and fact.values[0] in turn.tool.result
                assert fact.values[0] not in turn.user + turn.assistant
            if fact.kind == "update":
                assert fact.earlier_turn is not None and fact.turn is not None
                assert fact.earlier_turn < fact.turn
                assert fact.reject[0] in texts[fact.earlier_turn]
            assert fact.depth is not None and 0 <= fact.depth < 1
            assert fact.band == ("early", "middle", "late")[min(int(fact.depth * 3), 2)]


def test_the_code_word_is_written_as_the_article_writes_it() -> None:
    zh = generate(1, "2k", "zh")
    word = next(f for f in zh.facts if f.kind == "code_word").values[0]
    assert any(f"暗号：{word}" in t.user for t in zh.turns)
    en = generate(1, "2k", "en")
    word = next(f for f in en.facts if f.kind == "code_word").values[0]
    assert any(f"the password is {word}" in t.user for t in en.turns)


def test_depth_bands_rotate_with_the_seed() -> None:
    bands = {generate(seed, "2k", "en").facts[0].band for seed in SEEDS}
    assert bands == {"early", "middle", "late"}


def test_the_continuation_ends_every_conversation() -> None:
    conversation = generate(3, "8k", "en")
    tail = [t for t in conversation.turns if t.phase == "continuation"]
    assert len(tail) == corpus.CONTINUATION_TURNS == 10
    assert conversation.turns[-len(tail) :] == tail
    assert all(t.tool is None for t in tail)


def test_a_conversation_round_trips_through_its_file(tmp_path: Path) -> None:
    conversations = [generate(2, "2k", "zh"), generate(2, "2k", "en")]
    path = tmp_path / "mine.json"
    path.write_text(json.dumps([json.loads(dump_conversation(c)) for c in conversations]))
    assert load_conversations(path) == conversations
    single = tmp_path / "one.json"
    single.write_text(dump_conversation(conversations[0]), encoding="utf-8")
    assert load_conversations(single) == conversations[:1]


def test_a_file_without_tokens_is_priced_as_the_generator_prices_it(tmp_path: Path) -> None:
    # trigger and tail of a user's own conversation come from its tokens (docs/bench.md)
    conversation = generate(3, "8k", "zh")
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(_without(json.loads(dump_conversation(conversation)), "tokens")))
    assert [priced(c) for c in load_conversations(path)] == [conversation]


def _without(data: dict[str, object], key: str) -> dict[str, object]:
    return {k: v for k, v in data.items() if k != key}


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "does not exist"),
        ("{not json", "is not JSON (line 1"),
        ("[]", "holds no conversation"),
        ("{}", "has no 'turns'"),
        ("missing-facts", "has no 'facts'"),
        ("bad-kind", "is not one of identifier"),
        ("bad-lang", "lang must be 'zh' or 'en'"),
        ("twice", "items 0 and 1 have the same id 'en-2k-s01'"),
        ("fact-twice", "the fact id 'identifier-id' is used more than once"),
        ("bad-tokens", "'tokens' has the wrong type (str)"),
        ("bad-generator", "'generator' has the wrong type (str)"),
    ],
)
def test_a_bad_conversations_file_gets_one_sentence(
    tmp_path: Path, content: str | None, words: str
) -> None:
    path = tmp_path / "mine.json"
    good = json.loads(dump_conversation(generate(1, "2k", "en")))
    if content == "missing-facts":
        content = json.dumps(_without(good, "facts"))
    elif content == "bad-kind":
        good["facts"][0]["kind"] = "rumour"
        content = json.dumps(good)
    elif content == "bad-lang":
        content = json.dumps(good | {"lang": "fr"})
    elif content == "twice":
        content = json.dumps([good, good])
    elif content == "fact-twice":
        content = json.dumps(good | {"facts": [good["facts"][0], *good["facts"]]})
    elif content == "bad-tokens":
        content = json.dumps(good | {"tokens": "big"})
    elif content == "bad-generator":
        content = json.dumps(good | {"generator": "me"})
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(BenchFileError) as error:
        load_conversations(path)
    message = str(error.value)
    assert words in message
    if content not in (None, "{not json", "[]", "{}") and not content.startswith("[{"):
        assert message.startswith("mine.json item 0 (id 'en-2k-s01')"), message
    assert message.count(". ") == 0 and "\n" not in message


def test_the_json_schema_names_the_fields_of_the_format() -> None:
    schema = json.loads((ROOT / "docs" / "bench-conversation.schema.json").read_text())
    assert set(schema["properties"]) == {f.name for f in dataclasses.fields(Conversation)}
    turn = schema["properties"]["turns"]["items"]["properties"]
    assert set(turn) == {f.name for f in dataclasses.fields(Turn)}
    fact = schema["properties"]["facts"]["items"]
    assert set(fact["properties"]) == {f.name for f in dataclasses.fields(Fact)}
    assert fact["properties"]["kind"]["enum"] == list(FACT_KINDS)
    assert set(schema["required"]) <= set(schema["properties"])


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
_GOOD_TEXT = dump_conversation(generate(1, "2k", "en"))
_GOOD = json.loads(_GOOD_TEXT)


def _paths(data: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every place in ``data`` a value sits (keys of objects, indices of lists)."""
    found = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data[:3]):
            found += _paths(value, (*prefix, index))
    return found


_PLACES = _paths(_GOOD)
_GOOD_DUMPED = json.dumps(_GOOD, ensure_ascii=False)


def _with(place: tuple[object, ...], value: object) -> dict[str, Any]:
    """The good conversation with ``value`` at ``place`` (``_DROP``: the field taken away): the
    objects and lists on the way to ``place`` are copies, the rest is shared with ``_GOOD``
    (a whole deep copy per place was most of the test's CPU; the test checks that the reader
    left ``_GOOD`` as it was)."""
    data: Any = dict(_GOOD)
    parent = data
    for step in place[:-1]:
        child = parent[step]
        parent[step] = dict(child) if isinstance(child, dict) else list(child)
        parent = parent[step]
    if value is _DROP and isinstance(parent, dict):
        del parent[place[-1]]
    elif value is not _DROP:
        parent[place[-1]] = value
    return data


_DROP = object()


@pytest.mark.quick_examples(20)  # costly examples: [full] under -m slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_JSON | st.just(_DROP))
def test_a_hostile_conversation_is_read_or_refused_in_one_sentence(value: object) -> None:
    # The value in every place of a good conversation (or the field taken away) in turn: each
    # reads as a Conversation or is refused with one BenchFileError, never another exception.
    for place in _PLACES:
        try:
            conversation = conversation_from_data(_with(place, value), "mine.json item 0")
        except BenchFileError as error:
            assert "\n" not in str(error)
        else:
            assert conversation.tokens >= 0
    assert json.dumps(_GOOD, ensure_ascii=False) == _GOOD_DUMPED  # the shared parts unchanged
