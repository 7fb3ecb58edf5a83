"""比大小 Toy: a small climbing game declared from the test folder alone, to prove that
a game declares itself in one place (nothing outside this folder names it): its engine and
rules here, its statistic in ``sql/``, its report section in ``report.py`` and ``words.py``,
its figure compared on shared deals in ``report.py`` and ``sql/compare.sql``.

Two seats, the twenty cards 3–7, ten each; singles and pairs (a setting may leave pairs
out: ``kinds-=pair``); seat 0 leads; the first
seat out wins 1 point per card the other still holds (the ``margin`` outcome column).
"""

from __future__ import annotations

from typing import Any


from paipu.replay.combos import Combo, packed_of
from paipu.replay.game import Game
from paipu.replay.rules import Rules
from paipu.replay.table import Table
from paipu.replay.verdicts import Violation

DECK = tuple(range(20))  # ranks 3..7, four suits
KINDS = {"single": "单张", "pair": "对子"}


def iter_combos(rules: Rules):
    for r in range(5):
        yield packed_of({r: 1}), Combo("single", 1, r)
        if "pair" in rules.kinds:  # a setting may leave pairs out (``--rule kinds-=pair``)
            yield packed_of({r: 2}), Combo("pair", 2, r)


class ToyHand(Table):
    """One hand of the toy game."""

    iter_combos = staticmethod(iter_combos)  # type: ignore[assignment]

    def setup(self) -> Violation | None:
        v = self.check_deal(self.spec.deal)
        if v is not None:
            return v
        self.turn = 0
        return None

    def on_out(self, i: int, seat: int) -> None:
        self.over = True
        self.end_reason = "out"

    def outcome(self) -> dict[str, Any]:
        winner = self.out[0]
        margin = self.left[1 - winner]
        return {"order": [winner, 1 - winner], "scores": [margin if s == winner else -margin for s in (0, 1)],
                "margin": margin}


PLAIN = Rules(game="toy", variant="plain", players=2, deck=DECK, kinds=frozenset(KINDS), max_play=2)

GAME = Game(name="toy", title="Toy", title_zh="比大小", aliases=("bdx", "比大小"), variants={"plain": PLAIN},
            engine=ToyHand, kinds=KINDS, outcome_columns={"margin": "int16"}, stats=("toy_margin",),
            report={"metrics": ("first_lead", "big_margin"), "charts": ("seat_advantage", "margin", "ends")})
