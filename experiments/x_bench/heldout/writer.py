"""One held-out conversation from one random stream (:class:`HeldoutWriter`): the facts
(:mod:`experiments.x_bench.heldout.planter`), filler to the size's target, then the continuation.

``tools``: a third of the filler turns look tickets up (the ``lookup`` tool), and one fact is only
inside a tool result; ``chat``: no tool at all. The tune split's checks hold
(:func:`experiments.x_bench.corpus_check.check_conversation`): each value only in its own turn,
the size within 10 % of its target.
"""

from __future__ import annotations

import random
from dataclasses import replace

from experiments.x_bench.corpus_check import LANGS, SIZES, CorpusError, check_conversation
from experiments.x_bench.heldout.languages import LANGUAGES, TOOL
from experiments.x_bench.heldout.planter import HeldoutPlanter
from experiments.x_bench.schema import Conversation, ToolStep, Turn
from experiments.x_bench.turns import merge_plants, place_facts, planted_at, turn_tokens

__all__ = ["CONTINUATION_TURNS", "HELDOUT_VERSION", "SHAPES", "HeldoutWriter", "heldout_id"]

HELDOUT_VERSION = 1
"""Bumped whenever the same seed would give other bytes."""
SHAPES = ("tools", "chat")
CONTINUATION_TURNS = 10
_TOOL_SHARE = 0.35


def heldout_id(seed: int, size: str, lang: str, shape: str) -> str:
    """The conversation's id: it names the split and the shape, so no run mixes them with the
    tune split's (``en-2k-s01``)."""
    return f"heldout-{shape}-{lang}-{size}-s{seed:02d}"


class HeldoutWriter:
    """Writes one held-out conversation."""

    def __init__(self, seed: int, size: str, lang: str, shape: str) -> None:
        if size not in SIZES:
            raise CorpusError(f"Unknown size {size!r}; the sizes are {', '.join(SIZES)}.")
        if lang not in LANGS:
            raise CorpusError(f"Unknown language {lang!r}; the languages are zh, en.")
        if shape not in SHAPES:
            raise CorpusError(f"Unknown shape {shape!r}; the shapes are {', '.join(SHAPES)}.")
        self.seed, self.size, self.lang, self.shape = seed, size, lang, shape
        self.rng = random.Random(
            f"ctxlab-bench-heldout/{HELDOUT_VERSION}/{seed}/{size}/{lang}/{shape}"
        )
        self.t = LANGUAGES[lang]

    def _chat_turn(self) -> Turn:
        r, f = self.rng, self.t.filler
        ask = r.choice(f.asks).format(topic=r.choice(f.topics))
        user = self.t.joiner.join([r.choice(f.openers), ask]) if r.random() < 0.3 else ask
        return Turn(0, user, self.t.joiner.join(r.sample(f.sentences, r.randint(2, 5))))

    def _tool_turn(self) -> Turn:
        r, f = self.rng, self.t.filler
        component = r.choice(f.components)
        lines = [
            f"#{r.randint(100, 9999)} [{r.choice(f.ticket_states)}] {r.choice(f.ticket_titles)} "
            f"({r.choice(f.owners)}, {r.randint(1, 60)}d)"
            for _ in range(r.randint(6, 10) if self.size == "2k" else r.randint(10, 18))
        ]
        reply = r.choice(f.tool_replies).format(
            component=component, count=len(lines), age=r.randint(10, 60)
        )
        query = f"open tickets {component}"
        step = ToolStep(TOOL, {"query": query}, "\n".join(lines))
        return Turn(0, r.choice(f.tool_asks).format(component=component), reply, step)

    def _filler_turn(self) -> Turn:
        if self.shape == "tools" and self.rng.random() < _TOOL_SHARE:
            return self._tool_turn()
        return self._chat_turn()

    def continuation(self) -> list[Turn]:
        pairs = self.rng.sample(self.t.filler.continuation, CONTINUATION_TURNS)
        return [Turn(0, user, reply, phase="continuation") for user, reply in pairs]

    def conversation(self) -> Conversation:
        facts, plants = HeldoutPlanter(self.rng, self.seed, self.t, self.shape).plant_all()
        tail = self.continuation()
        fixed = sum(turn_tokens(p.turn) for p in plants) + sum(turn_tokens(t) for t in tail)
        room = SIZES[self.size] - fixed
        fillers: list[Turn] = []
        used = 0
        while used < room:
            turn = self._filler_turn()
            if used + turn_tokens(turn) > room:
                turn = self._chat_turn()  # a chat turn to end on: no large overshoot
            fillers.append(turn)
            used += turn_tokens(turn)
        turns = merge_plants(fillers, used, sorted(plants, key=lambda p: p.fraction)) + tail
        turns = [replace(turn, index=n) for n, turn in enumerate(turns)]
        planted = {key: n for n, key in planted_at(turns, plants).items()}
        conversation = Conversation(
            id=heldout_id(self.seed, self.size, self.lang, self.shape),
            lang=self.lang,  # type: ignore[arg-type]
            size=self.size,
            seed=self.seed,
            system=self.t.system if self.shape == "tools" else self.t.chat_system,
            tool_description=self.t.tool_description if self.shape == "tools" else "",
            turns=turns,
            facts=place_facts(facts, turns, planted),
            tokens=sum(turn_tokens(t) for t in turns),
            abstain_markers=list(self.t.abstain_markers),
            generator=self._generator(),
        )
        check_conversation(conversation)
        return conversation

    def _generator(self) -> dict[str, object]:
        return {
            "module": "experiments.x_bench.heldout",
            "version": HELDOUT_VERSION,
            "split": "heldout",
            "shape": self.shape,
        }
