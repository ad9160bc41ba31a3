"""The held-out split's planted facts (:class:`HeldoutPlanter`): the tune split's fact kinds, each
said in one of its language's phrasings (:mod:`experiments.x_bench.heldout.phrasing`), in passing.

A fact the user says sits inside a turn about something else (an opener, an ask about a filler
topic, the fact somewhere among them) and the assistant answers the ask; a fact the assistant
says sits mid-answer, after at least one sentence about the ask. A ``chat`` conversation has no
tool and so no ``tool_only`` fact.
"""

from __future__ import annotations

import random
from dataclasses import replace

from experiments.x_bench.heldout.languages import TOOL
from experiments.x_bench.heldout.phrasing import Language, Phrasing
from experiments.x_bench.schema import Fact, ToolStep, Turn
from experiments.x_bench.turns import BANDS, Plant

__all__ = ["HeldoutPlanter"]

_ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def _fact(key: str, kind: str, question: str, values: list[str], **more: object) -> Fact:
    """A fact said by the user unless ``where`` says otherwise; ``expect`` the values unless
    given."""
    expect = more.pop("expect", values)
    reject = more.pop("reject", [])
    where = more.pop("where", "user")
    shape = more.pop("shape", "")
    return Fact(key, kind, question, values, expect, reject, None, where, None, "", shape)  # type: ignore[arg-type]


class HeldoutPlanter:
    """Plants the facts of one held-out conversation from its random stream."""

    def __init__(self, rng: random.Random, seed: int, language: Language, shape: str) -> None:
        self.rng, self.seed, self.lang, self.shape = rng, seed, language, shape
        self.facts: list[Fact] = []
        self.plants: list[Plant] = []

    def plant_all(self) -> tuple[list[Fact], list[Plant]]:
        """The facts (the abstention probe last, never planted) and their planted turns."""
        self._identifiers()
        self._choices()
        self._decision()
        self._constraint()
        self._update()
        self._near_duplicate()
        if self.shape == "tools":
            self._tool_only()
        question = self.rng.choice(self.lang.abstentions)
        self.facts.append(_fact("abstention", "abstention", question, [], where="nowhere"))
        self.facts[-1] = replace(self.facts[-1], band="none")
        return self.facts, self.plants

    # -- where a fact goes ---------------------------------------------------------------------

    def _plant(self, fact: Fact, turn: Turn) -> None:
        band = (len(self.facts) + self.seed) % len(BANDS)
        low = band / len(BANDS)
        fraction = round(low + 0.03 + self.rng.random() * (1 / len(BANDS) - 0.06), 4)
        self.facts.append(replace(fact, band=BANDS[band]))
        self.plants.append(Plant(fact.id, turn, fraction))

    def said(self, phrasing: Phrasing, first: bool = False, **slots: str) -> Turn:
        """A turn saying ``phrasing`` in passing, by its speaker; ``first``: before the user's ask
        (a correction, which would read as taking the ask back after it)."""
        r, f, joiner = self.rng, self.lang.filler, self.lang.joiner
        sentence = phrasing.text.format(**slots)
        ask = r.choice(f.asks).format(topic=r.choice(f.topics))
        answer = r.sample(f.sentences, r.randint(1, 2))
        if phrasing.speaker == "assistant":
            answer.insert(r.randint(1, len(answer)), sentence)
            return Turn(0, ask, joiner.join(answer))
        opener = r.choice(f.openers)
        layouts = [[sentence, ask], [opener, sentence, ask]] + ([] if first else [[ask, sentence]])
        ack = r.choice(f.acks)
        return Turn(
            0, joiner.join(r.choice(layouts)), joiner.join([ack, *answer] if ack else answer)
        )

    # -- one builder per kind ------------------------------------------------------------------

    def _values(self) -> dict[str, str]:
        r = self.rng
        return {
            "id": f"{r.choice(('OPS', 'ENG', 'SUP', 'FIN', 'IT'))}-{r.randint(1000, 9999)}",
            "path": f"~/{r.choice(('work', 'projects', 'shared'))}/"
            f"{r.choice(('atlas', 'beacon', 'harbor', 'meridian'))}/"
            f"{r.choice(('drafts', 'config', 'exports', 'lists'))}/"
            f"{r.choice(('plan', 'notes', 'speakers', 'backup'))}-{r.randint(100, 999)}."
            f"{r.choice(('md', 'yaml', 'csv', 'txt'))}",
            "url": f"https://{r.choice(('status', 'docs', 'signup', 'dash', 'media'))}."
            f"{r.choice(('orbitline', 'tallgrass', 'bramble', 'quillon'))}.example/"
            f"{r.choice(('v1', 'launch', 'team', 'events'))}/{r.randint(100, 9999)}",
            "amount": f"{r.randint(12, 89)},{r.randint(100, 999)}",
        }

    def _identifiers(self) -> None:
        """An id, a path, a URL and an amount (a comma in the amount, none in the answer)."""
        values = self._values()
        for shape in ("id", "path", "url", "amount"):
            phrasing = self.rng.choice(self.lang.facts[shape])
            value = values[shape]
            expect = [value.replace(",", "")] if shape == "amount" else [value]
            fact = _fact(f"identifier-{shape}", "identifier", phrasing.question, [value],
                         expect=expect, where=phrasing.speaker, shape=shape)  # fmt: skip
            self._plant(fact, self.said(phrasing, value=value))

    def _choices(self) -> None:
        """A person's name (by a role) and a code word, each drawn from its pool."""
        for kind, pool in (("name", self.lang.names), ("code_word", self.lang.code_words)):
            value = self.rng.choice(pool)
            phrasing = self.rng.choice(self.lang.facts[kind])
            fact = _fact(kind, kind, phrasing.question, [value], where=phrasing.speaker)
            self._plant(fact, self.said(phrasing, value=value))

    def _decision(self) -> None:
        d = self.rng.choice(self.lang.decisions)
        phrasing = self.rng.choice(self.lang.facts["decision"])
        question = phrasing.question.format(area=d.area)
        fact = _fact("decision", "decision", question, [d.choice, d.key], where=phrasing.speaker)
        turn = self.said(phrasing, area=d.area, choice=d.choice, alt=d.alt, reason=d.reason)
        self._plant(fact, turn)

    def _constraint(self) -> None:
        rule = self.rng.choice(self.lang.rules)
        phrasing = self.rng.choice(self.lang.facts["constraint"])
        fact = _fact("constraint", "constraint", phrasing.question, [rule.action],
                     expect=[rule.key], where=phrasing.speaker)  # fmt: skip
        self._plant(fact, self.said(phrasing, action=rule.action))

    def _update(self) -> None:
        """A value said, then corrected in a later turn: the newer must win."""
        r = self.rng
        old, new = r.sample(self.lang.rooms, 2)
        phrasing = r.choice(self.lang.facts["update"])
        fact = _fact("update", "update", phrasing.question, [new], reject=[old],
                     where=phrasing.speaker)  # fmt: skip
        self._plant(fact, self.said(phrasing, first=True, value=new, old=old))
        fraction = round(self.plants[-1].fraction * (0.2 + 0.4 * r.random()), 4)
        first = self.said(r.choice(self.lang.facts["update_old"]), value=old)
        self.plants.append(Plant("update-old", first, fraction))

    def _near_duplicate(self) -> None:
        """A purchase order said beside a look-alike whose last two digits are swapped."""
        digits = f"{self.rng.randint(10000, 99999)}"
        swapped = digits[:-2] + digits[-1] + digits[-2]
        if swapped == digits:
            swapped = digits[:-1] + str((int(digits[-1]) + 1) % 10)
        real, distractor = f"PO-{digits}", f"PO-{swapped}"
        phrasing = self.rng.choice(self.lang.facts["near_duplicate"])
        fact = _fact("near_duplicate", "near_duplicate", phrasing.question, [real],
                     reject=[distractor], where=phrasing.speaker)  # fmt: skip
        self._plant(fact, self.said(phrasing, value=real, distractor=distractor))

    def _tool_only(self) -> None:
        """A serial number that is only inside the record a lookup returns."""
        r = self.rng
        subject = f"LT-{r.randint(1000, 9999)}"
        serial = "SN-" + "".join(r.choice(_ALNUM) for _ in range(7))
        record = r.choice(self.lang.facts["tool_only"])
        result = record.text.format(subject=subject, value=serial)
        user = r.choice(self.lang.tool_requests).format(subject=subject)
        turn = Turn(0, user, r.choice(self.lang.tool_replies),
                    ToolStep(TOOL, {"query": subject}, result))  # fmt: skip
        question = record.question.format(subject=subject)
        self._plant(_fact("tool_only", "tool_only", question, [serial], where="tool"), turn)
