"""E2's rules over the flush of step 1 and the search of step 3, strict enough that a plausible
wrong answer fails them (a row no wrong answer can move is no test): a flush that only copies the
user's instruction, word for word, names both facts but extracted nothing; a search whose Source
lines point to MEMORY.md and to the daily file, followed by an empty answer, is not the seed's
"Source 都指向 MEMORY.md" run. Split from :mod:`experiments.e2.claims` (the table of specs), which
passes each rule the note naming how the row was judged."""

from __future__ import annotations

from collections import Counter

from experiments.e2.view import E2View
from lab import Verdict, copied_messages

__all__ = ["FACTS", "has_facts", "s1_flush", "s3_searches"]

FACTS = ("上海港", "ALPHA")
MEMORY = "MEMORY.md"


def has_facts(text: str) -> bool:
    return all(fact in text for fact in FACTS)


def s1_flush(view: E2View, rule: str) -> Verdict:
    """The first flush names both facts and is not the user's message copied back."""
    first_flush = view.final_daily_text.split("## Memory Flush")[1:2]
    flushed = first_flush[0] if first_flush else ""
    copied = copied_messages(flushed, [s.user for s in view.steps])
    named = bool(first_flush) and has_facts(flushed)
    value = "yes" if named and not copied else "no"
    if named and copied:
        value = "no: it copies the user's message verbatim"
    why = (
        f"the flush's line is the user's step-1 message word for word ({len(copied[0])} "
        "characters), its instruction not to call any tool included: it names both facts "
        "because the user's sentence does, not because it extracted them"
        if copied
        else f"the flush model ({view.source}) did not name both facts"
    )
    return Verdict(
        value,
        note=f"judged by judge `copied_messages` (a copied instruction is not a flush); {rule}",
        differs_note=f"{why}; {rule}",
    )


def s3_searches(view: E2View, rule: str) -> Verdict:
    """Step 3 searched memory, every Source line points to MEMORY.md, and it then answered."""
    s3 = view.steps[2]
    tools = Counter(s3.tool_calls)
    answered = bool(s3.answer.strip())
    value = f"memory_search×{tools['memory_search']}; sources: " + (", ".join(s3.sources) or "none")
    value += "; answer: " + ("given" if answered else "empty")
    others = [source for source in s3.sources if source != MEMORY]
    holds = bool(s3.sources) and not others and answered
    why = (
        "no Source line points to MEMORY.md"
        if MEMORY not in s3.sources
        else f"Source lines also point to {', '.join(others)} (the seed's all point to MEMORY.md)"
        if others
        else "the step ended with an empty answer"
    )
    if holds is False and others and not answered:
        why += ", and the step ended with an empty answer"
    return Verdict(
        value,
        holds,
        note=f"judged by every cited source being MEMORY.md and an answer given; {rule}",
        differs_note=f"{why}; {rule}",
    )
