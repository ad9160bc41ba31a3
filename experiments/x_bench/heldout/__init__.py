"""X-BENCH's held-out split: conversations whose phrasing was written apart from ctxlab's profile
and gate, so a figure measured on them is not one the profile was tuned for.

The same fact kinds, scoring and sizes as the tune split (:mod:`experiments.x_bench.corpus`), in
other words: each fact family in at least six phrasings per language
(:mod:`~experiments.x_bench.heldout.en_facts`, :mod:`~experiments.x_bench.heldout.zh_facts`),
facts said in passing by the user or the assistant, updates said as corrections, names given
through roles, and two shapes: ``tools`` (tool lookups among the filler, one fact only in a tool
result) and ``chat`` (no tool output at all, so no ``tool_only`` fact).

Only the corpus's dispatch (:func:`experiments.x_bench.corpus.generate` with
``split="heldout"``) imports this package, and the tests of this package; nothing in
``harness/`` and no test of the profile or the gate reads it (``tests/project``'s layout test).
"""

from __future__ import annotations

from experiments.x_bench.heldout.writer import HELDOUT_VERSION, SHAPES, HeldoutWriter, heldout_id
from experiments.x_bench.schema import Conversation

__all__ = ["HELDOUT_SEEDS", "HELDOUT_VERSION", "SHAPES", "generate_heldout", "heldout_id"]

HELDOUT_SEEDS = range(1, 13)
"""The committed held-out seed range: every seed here generates at every size, language and shape
(a test checks); its ids (``heldout-chat-en-2k-s01``) never meet the tune split's."""


def generate_heldout(seed: int, size: str, lang: str, shape: str = "tools") -> Conversation:
    """The held-out conversation of ``seed`` at ``size`` in ``lang`` and ``shape`` (the same
    every time)."""
    return HeldoutWriter(seed, size, lang, shape).conversation()
