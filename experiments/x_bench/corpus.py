"""X-BENCH's seeded corpus: scripted conversations with planted facts, byte for byte the same for
one seed.

A conversation is user turns, the scripted agent's tool calls (``search_records``, whose results
are large job logs) and replies, in Chinese or English, at about 2K, 8K or 24K tokens (priced
with the harness estimator, :func:`harness.meter.pricers.estimate_tokens`, over the messages the
agent loop builds from the turns, :func:`turn_messages`). Twelve facts are planted, one turn
each, at a depth drawn in a band that rotates with the seed: four identifiers (an id, a path, a
URL, an amount), a person's name, a code word (``暗号：夜莺`` / ``the password is falcon``), a
decision with its reason, a constraint (``never touch prod``), an update (the newer value must
win), a near-duplicate (a similar id is a distractor), a fact that is only inside a tool result,
and an abstention probe (asked, never said). Ten short continuation turns follow, with nothing
planted, so a compaction's summary is carried on before the probe.

``python -m experiments.x_bench.generate --seed S --size 2k|8k|24k --lang zh|en --out FILE`` writes
one conversation as JSON (:mod:`experiments.x_bench.schema`, documented in ``docs/bench.md``).

This module writes the ``tune`` split (the phrasing ctxlab's profile was written against; its
bytes are pinned, the cassettes replay them). :func:`generate` with ``split="heldout"`` hands over
to :mod:`experiments.x_bench.heldout` (the one import of that package outside it and its tests).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

from experiments.x_bench.corpus_check import LANGS, SIZES, CorpusError, check_conversation
from experiments.x_bench.planting import TOOL_NAME, FactPlanter
from experiments.x_bench.schema import Conversation, Fact, ToolStep, Turn
from experiments.x_bench.texts import TEXTS
from experiments.x_bench.turns import (
    Plant,
    call_id,
    conversation_text,
    merge_plants,
    place_facts,
    planted_at,
    turn_messages,
    turn_tokens,
)

__all__ = [
    "CONTINUATION_TURNS",
    "GENERATOR_VERSION",
    "LANGS",
    "SEEDS",
    "SHAPES",
    "SIZES",
    "SPLITS",
    "TOOL_NAME",
    "CorpusError",
    "call_id",
    "conversation_id",
    "conversation_text",
    "generate",
    "split_seeds",
    "split_shapes",
    "turn_messages",
]

GENERATOR_VERSION = 1
"""Bumped whenever the same seed would give other bytes."""
SEEDS = range(1, 13)
"""The committed seed range: every seed here generates (the planted values collide with
nothing) and X-BENCH draws its conversations from it; a test pins it."""
CONTINUATION_TURNS = 10
SPLITS: tuple[str, ...] = ("tune", "heldout")
"""``tune``: this module's phrasing, the one ctxlab's profile was written against (its seeds'
bytes are pinned: the cassettes replay them); ``heldout``: phrasing families written apart from
the profile (:mod:`experiments.x_bench.heldout`), never read by its tests or tuning."""
SHAPES: tuple[str, ...] = ("tools", "chat")
"""``tools``: filler with tool calls and a fact only in a tool result; ``chat``: no tool output."""


def conversation_id(seed: int, size: str, lang: str) -> str:
    return f"{lang}-{size}-s{seed:02d}"


class _Writer:
    """Writes one conversation from one random stream."""

    def __init__(self, seed: int, size: str, lang: str) -> None:
        if size not in SIZES:
            raise CorpusError(f"Unknown size {size!r}; the sizes are {', '.join(SIZES)}.")
        if lang not in LANGS:
            raise CorpusError(f"Unknown language {lang!r}; the languages are zh, en.")
        self.seed, self.size, self.lang = seed, size, lang
        self.rng = random.Random(f"ctxlab-bench/{GENERATOR_VERSION}/{seed}/{size}/{lang}")
        self.t: dict[str, Any] = TEXTS[lang]
        self.batch = self.rng.randint(3_000, 6_000)

    # -- facts ---------------------------------------------------------------------------------

    def facts(self) -> tuple[list[Fact], list[Plant]]:
        return FactPlanter(self.rng, self.seed, self.lang, self.t, self._log_line).plant_all()

    # -- filler --------------------------------------------------------------------------------

    def _log_line(self) -> str:
        r = self.rng
        return (
            f"2026-11-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d} "
            f"worker-{r.randint(1, 9)} {r.choice(self.t['log_events'])} "
            f"item {r.randint(10, 99)}/{r.randint(100, 400)} in {r.randint(20, 900)} ms"
        )

    def _chat_turn(self) -> Turn:
        r, t = self.rng, self.t
        user = r.choice(t["user_chat"]).format(topic=r.choice(t["topics"]))
        sentences = r.sample(t["sentences"], r.randint(2, 4))
        joiner = " " if self.lang == "en" else ""
        return Turn(0, user, joiner.join(sentences))

    def _tool_turn(self) -> Turn:
        r, t = self.rng, self.t
        self.batch += r.randint(1, 40)
        batch = f"B{self.batch}"
        lines = r.randint(8, 14) if self.size == "2k" else r.randint(12, 24)
        failed = r.randint(0, 3)
        log = "\n".join(self._log_line() for _ in range(lines))
        result = json.dumps({"batch": batch, "failed": failed, "log": log}, ensure_ascii=False)
        return Turn(
            0,
            t["user_tool"].format(batch=batch),
            r.choice(t["tool_reply"]).format(batch=batch, failed=failed),
            ToolStep(TOOL_NAME, {"query": f"job log {batch}"}, result),
        )

    def continuation(self) -> list[Turn]:
        t = self.t
        return [
            Turn(
                0,
                t["continuation_user"].format(k=k),
                t["continuation_reply"].format(k=k),
                phase="continuation",
            )
            for k in range(1, CONTINUATION_TURNS + 1)
        ]

    # -- the whole -----------------------------------------------------------------------------

    def conversation(self) -> Conversation:
        facts, plants = self.facts()
        tail = self.continuation()
        fixed = sum(turn_tokens(p.turn) for p in plants) + sum(turn_tokens(t) for t in tail)
        room = SIZES[self.size] - fixed
        fillers: list[Turn] = []
        used = 0
        while used < room:
            turn = self._tool_turn() if self.rng.random() < 0.4 else self._chat_turn()
            if used + turn_tokens(turn) > room:
                turn = self._chat_turn()  # a short turn to end on: no large overshoot
            fillers.append(turn)
            used += turn_tokens(turn)
        turns = merge_plants(fillers, used, sorted(plants, key=lambda p: p.fraction))
        turns += tail
        turns = [replace(turn, index=n) for n, turn in enumerate(turns)]
        planted = {key: n for n, key in planted_at(turns, plants).items()}
        facts = place_facts(facts, turns, planted)
        conversation = Conversation(
            id=conversation_id(self.seed, self.size, self.lang),
            lang=self.lang,  # type: ignore[arg-type]
            size=self.size,
            seed=self.seed,
            system=self.t["system"],
            tool_description=self.t["tool_description"],
            turns=turns,
            facts=facts,
            tokens=sum(turn_tokens(t) for t in turns),
            abstain_markers=list(self.t["abstain_markers"]),
            generator={"module": "experiments.x_bench.corpus", "version": GENERATOR_VERSION},
        )
        check_conversation(conversation)
        return conversation


def generate(
    seed: int, size: str, lang: str, split: str = "tune", shape: str = "tools"
) -> Conversation:
    """The conversation of ``seed`` at ``size`` in ``lang`` (the same every time) from ``split``:
    ``tune`` (this module's phrasing, tool outputs always: ``shape`` must be ``tools``) or
    ``heldout`` (:mod:`experiments.x_bench.heldout`, ``shape`` ``tools`` or ``chat``)."""
    if split not in SPLITS:
        raise CorpusError(f"Unknown split {split!r}; the splits are {', '.join(SPLITS)}.")
    if shape not in SHAPES:
        raise CorpusError(f"Unknown shape {shape!r}; the shapes are {', '.join(SHAPES)}.")
    if split == "heldout":
        from experiments.x_bench.heldout import generate_heldout

        return generate_heldout(seed, size, lang, shape)
    if shape != "tools":
        raise CorpusError("The tune split has tool outputs in every conversation: shape tools.")
    return _Writer(seed, size, lang).conversation()


def split_seeds(split: str) -> range:
    """The committed seed range of ``split`` (every seed in it generates)."""
    if split == "heldout":
        from experiments.x_bench.heldout import HELDOUT_SEEDS

        return HELDOUT_SEEDS
    if split != "tune":
        raise CorpusError(f"Unknown split {split!r}; the splits are {', '.join(SPLITS)}.")
    return SEEDS


def split_shapes(split: str) -> tuple[str, ...]:
    """The shapes ``split`` writes: tune only ``tools``; heldout ``tools`` and ``chat``."""
    return SHAPES if split == "heldout" else ("tools",)
