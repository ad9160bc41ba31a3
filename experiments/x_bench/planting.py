"""X-BENCH's planted facts, one builder per kind (:class:`FactPlanter`).

The builders draw from the conversation's one random stream, in a fixed order: the kinds in the
order of :meth:`FactPlanter.plant_all`, and within a kind its values, its turn, then its depth.
That order is part of the corpus bytes (``GENERATOR_VERSION``): a builder that draws in another
order gives another corpus for the same seed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from experiments.x_bench.schema import Fact, ToolStep, Turn
from experiments.x_bench.turns import BANDS, Plant

__all__ = ["IDENTIFIER_SHAPES", "TOOL_NAME", "FactPlanter"]

TOOL_NAME = "search_records"
IDENTIFIER_SHAPES = ("id", "path", "url", "amount")


class FactPlanter:
    """Plants the facts of one conversation: each fact, the turn that says it and its target
    depth (a slot per fact, its depth band rotating with the seed)."""

    def __init__(
        self,
        rng: random.Random,
        seed: int,
        lang: str,
        texts: dict[str, Any],
        log_line: Callable[[], str],
    ) -> None:
        self.rng, self.seed, self.lang = rng, seed, lang
        self.t = texts
        self.f: dict[str, Any] = texts["facts"]
        self.log_line = log_line
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
        self._tool_only()
        question = self.rng.choice(self.t["abstentions"])
        self.facts.append(
            Fact("abstention", "abstention", question, [], [], [], None, "nowhere", None, "none")
        )
        return self.facts, self.plants

    def _plant(self, fact: Fact, turn: Turn) -> None:
        """Plants ``fact`` in ``turn`` at the next slot's depth."""
        fraction, band = self._fraction(len(self.facts))
        self.facts.append(replace(fact, band=band))
        self.plants.append(Plant(fact.id, turn, fraction))

    def _fraction(self, slot: int) -> tuple[float, str]:
        band = (slot + self.seed) % len(BANDS)
        low = band / len(BANDS)
        return round(low + 0.03 + self.rng.random() * (1 / len(BANDS) - 0.06), 4), BANDS[band]

    def _statement_turn(self, statement: str) -> Turn:
        aside = self.rng.choice(self.t["asides"])
        user = f"{statement} {aside}".strip() if self.lang == "en" else statement + aside
        return Turn(0, user, self.rng.choice(self.t["acks"]))

    # -- one builder per kind ------------------------------------------------------------------

    def _identifiers(self) -> None:
        """An id, a path, a URL and an amount, said by the user (an amount's comma optional)."""
        r = self.rng
        city = r.choice(self.t["cities"])
        values = {
            "id": f"SO-2026-{r.randint(1000, 9999)}",
            "path": f"/srv/exports/{r.choice(['hh', 'rtm', 'anr', 'fxt'])}/"
            f"manifest-{r.randint(1000, 9999)}.csv",
            "url": f"https://track.{r.choice(['northline', 'bluewave', 'kestrel'])}.example/"
            f"api/v{r.randint(2, 5)}/shipments",
            "amount": f"{r.randint(12, 89)},{r.randint(100, 999)}",
        }
        for shape in IDENTIFIER_SHAPES:
            statement, question = self.f[shape]
            value = values[shape]
            expect = value.replace(",", "") if shape == "amount" else value
            fact = Fact(
                f"identifier-{shape}",
                "identifier",
                question.format(city=city),
                [value],
                [expect],
                [],
                None,
                "user",
                None,
                "",
                shape,
            )
            self._plant(fact, self._statement_turn(statement.format(value=value, city=city)))

    def _choices(self) -> None:
        """A person's name and a code word, each drawn from its pool."""
        for kind, pool in (("name", "names"), ("code_word", "code_words")):
            value = self.rng.choice(self.t[pool])
            statement, question = self.f[kind]
            fact = Fact(kind, kind, question, [value], [value], [], None, "user", None, "")  # type: ignore[arg-type]
            self._plant(fact, self._statement_turn(statement.format(value=value)))

    def _decision(self) -> None:
        """A decision with its reason, said by the assistant."""
        r, t = self.rng, self.t
        topic, choice, alt, reason, key = r.choice(t["decisions"])
        statement, question = self.f["decision"]
        said = statement.format(topic=topic, choice=choice, alt=alt, reason=reason)
        user = r.choice(t["user_chat"]).format(topic=r.choice(t["topics"]))
        fact = Fact(
            "decision",
            "decision",
            question.format(topic=topic),
            [choice, key],
            [choice, key],
            [],
            None,
            "assistant",
            None,
            "",
        )
        self._plant(fact, Turn(0, user, said))

    def _constraint(self) -> None:
        statement, value, key = self.rng.choice(self.t["constraints"])
        fact = Fact(
            "constraint",
            "constraint",
            self.f["constraint"][1],
            [value],
            [key],
            [],
            None,
            "user",
            None,
            "",
        )
        self._plant(fact, self._statement_turn(statement))

    def _update(self) -> None:
        """A value said twice: the newer must win; the older is planted before it."""
        r, f = self.rng, self.f
        old, new = r.sample(self.t["rooms"], 2)
        fact = Fact("update", "update", f["update"][1], [new], [new], [old], None, "user", None, "")
        self._plant(fact, self._statement_turn(f["update"][0].format(value=new)))
        fraction = round(self.plants[-1].fraction * (0.2 + 0.4 * r.random()), 4)
        self.plants.append(
            Plant(
                "update-old", self._statement_turn(f["update_old"][0].format(value=old)), fraction
            )
        )

    def _near_duplicate(self) -> None:
        """An invoice id said beside a distractor that differs in two swapped digits."""
        digits = f"{self.rng.randint(10000, 99999)}"
        swapped = digits[:-2] + digits[-1] + digits[-2]
        if swapped == digits:
            swapped = digits[:-1] + str((int(digits[-1]) + 1) % 10)
        real, distractor = f"INV-{digits}", f"INV-{swapped}"
        statement, question = self.f["near_duplicate"]
        fact = Fact(
            "near_duplicate",
            "near_duplicate",
            question,
            [real],
            [real],
            [distractor],
            None,
            "user",
            None,
            "",
        )
        turn = self._statement_turn(statement.format(value=real, distractor=distractor))
        self._plant(fact, turn)

    def _tool_only(self) -> None:
        """A seal number that is only inside a tool result."""
        r, f = self.rng, self.f
        container = f"TGHU{r.randint(1000000, 9999999)}"
        seal = f"SL-{r.randint(100000, 999999)}"
        result = self._container_record(container, seal)
        turn = Turn(
            0,
            f["tool_only_user"].format(container=container),
            f["tool_only_reply"],
            ToolStep(TOOL_NAME, {"query": container}, result),
        )
        fact = Fact(
            "tool_only",
            "tool_only",
            f["tool_only"][1].format(container=container),
            [seal],
            [seal],
            [],
            None,
            "tool",
            None,
            "",
        )
        self._plant(fact, turn)

    def _container_record(self, container: str, seal: str) -> str:
        record = {"container": container, "seal_no": seal, **self.t["container_fields"]}
        record["moves"] = [self.log_line() for _ in range(self.rng.randint(4, 8))]
        return json.dumps(record, ensure_ascii=False, indent=1)
