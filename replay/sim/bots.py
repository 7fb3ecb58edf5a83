"""A heuristic player that plays like a person, for ``paipu simulate``.

It chooses only among the plays the engine generates (``Table.legal_moves``), so every
simulated hand is legal by construction; the audit re-checks that anyway.

- Leading: the play that sheds the lowest cards, longer shapes first (a straight from 3
  before a single 3); bombs only when nothing else is left.
- Following a partner: pass, unless the play goes out.
- Following an opponent: the smallest play of the same kind that beats it; a bomb only
  when an opponent is close to going out (or the bomb goes out).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..cards import RANK, counts, pack
from ..table import Table
from .core import Move, Policy


def choose_play(table: Table, rng: random.Random, partners: frozenset[int] = frozenset(), danger: int = 4,
                must_play: bool = False, high_single: bool = False, strong: int = 12,
                bomb_chance: float = 0.1, moves: Sequence[Move] | None = None) -> list[int] | None:
    """The cards the seat to act plays, or None to pass, from ``table.legal_moves``
    (*moves*, when the caller has them already).

    *must_play*: never pass while a play is possible (有出必出). *high_single*: a single is
    the highest card held (报单: the next seat has one card left). *strong*: the key from
    which a following play is worth keeping for later. *bomb_chance*: how often a bomb is
    thrown when no opponent is close to going out.
    """
    seat = table.turn
    if moves is None:
        moves = table.legal_moves(seat)
    if not moves:
        return None
    choice = _choose(table, rng, moves, partners, danger, strong, bomb_chance)
    if choice is None and must_play:
        choice = min(moves, key=lambda m: (m[1][0].tier, m[1][0].key))
    if high_single and choice is not None and choice[1][0].kind == "single":
        choice = max((m for m in moves if m[1][0].kind == "single"), key=lambda m: m[1][0].key)
    return None if choice is None else choice[0]


def _choose(table: Table, rng: random.Random, moves: Sequence[Move], partners: frozenset[int], danger: int,
            strong: int, bomb_chance: float) -> Move | None:
    seat = table.turn
    for move in moves:
        if len(move[0]) == table.left[seat]:
            return move  # goes out
    hand = table.packed[seat]
    wild = getattr(table, "wild", -1)
    ordinary = [m for m in moves if not m[1][0].tier]
    bombs = [m for m in moves if m[1][0].tier]

    def smallest_bomb() -> Move:
        return min(bombs, key=lambda m: (m[1][0].tier, m[1][0].key))

    if table.last is None:
        if ordinary:  # shed the lowest cards, in the longest shape, sparing wild cards
            return min(ordinary, key=lambda m: (min(RANK[c] for c in m[0]), m[0].count(wild), -len(m[0]),
                                                m[1][0].key, rng.random()))
        return smallest_bomb()
    if table.last_seat in partners:
        return None
    opponents_close = any(table.left[s] <= danger for s in range(table.n)
                          if s != seat and s not in partners and table.active[s])
    if ordinary:
        best = min(ordinary, key=lambda m: (m[1][0].key, _breaks(hand, pack(m[0])), m[0].count(wild)))
        # keep strong cards early in the hand unless the threat is real
        if best[1][0].key >= strong and not opponents_close and rng.random() < 0.5:
            return None
        return best
    if bombs and (opponents_close or rng.random() < bomb_chance):
        return smallest_bomb()
    return None


def _breaks(hand: int, packed: int) -> int:
    """How many ranks the play leaves partly behind (breaking pairs and triples)."""
    h, p = counts(hand), counts(packed)
    return sum(1 for r in range(len(p)) if p[r] and h[r] > p[r])


@dataclass(frozen=True)
class Heuristic:
    """The first bot (``--bot simple``): :func:`choose_play` for plays, hand strength for
    bids. It looks at every legal play and plans nothing."""

    def play(self, table: Table, rng: random.Random, moves: Sequence[Move], hints: dict[str, Any]) -> list[int] | None:
        return choose_play(table, rng, moves=moves, **{k: v for k, v in hints.items() if k != "actions"})

    def bid(self, table: Table, rng: random.Random, seat: int, power: float, stage: str) -> bool:
        if stage == "grab":
            return power >= 6.5 or rng.random() < 0.05
        return power >= 4 or rng.random() < 0.15


SIMPLE = Heuristic()

from .planner import FAST, STRONG  # noqa: E402  (the planner is a policy over this module's Move)
#: the bots that play hands out (the evaluator's playouts among them); ``paipu simulate
#: --bot`` also offers the search bot, which decides by the evaluator (replay/sim/search.py
#: names every level: ``LEVELS``, ``bot_named``), so this module does not import it
BOTS: dict[str, Policy] = {"fast": FAST, "strong": STRONG, "simple": SIMPLE}

#: the policy of a seat nobody chose (the drivers' default)
HEURISTIC = FAST
