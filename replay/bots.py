"""A heuristic player that plays like a person, for ``paipu simulate``.

It chooses only among the plays the engine generates (``Table.legal_plays``), so every
simulated hand is legal by construction; the audit re-checks that anyway.

- Leading: the play that sheds the lowest cards, longer shapes first (a straight from 3
  before a single 3); bombs only when nothing else is left.
- Following a partner: pass, unless the play goes out.
- Following an opponent: the smallest play of the same kind that beats it; a bomb only
  when an opponent is close to going out (or the bomb goes out).
"""

from __future__ import annotations

import random

from .cards import counts
from .combos import Combo
from .table import Table


def choose_play(table: Table, rng: random.Random, partners: frozenset[int] = frozenset(),
                danger: int = 4, must_play: bool = False, high_single: bool = False) -> int | None:
    """A packed play for the seat to act, or None to pass.

    *must_play*: never pass while a play is possible (有出必出). *high_single*: a single is
    the highest card held (报单: the next seat has one card left).
    """
    seat = table.turn
    plays = table.legal_plays(seat)
    if not plays:
        return None
    choice = _choose(table, rng, plays, partners, danger)
    if choice is None and must_play:
        classify = table.table.classify
        choice = min(plays, key=lambda p: (classify(p)[0].tier, classify(p)[0].key))
    if high_single and choice is not None and table.table.classify(choice)[0].kind == "single":
        singles = [p for p in plays if table.table.classify(p)[0].kind == "single"]
        choice = max(singles, key=lambda p: table.table.classify(p)[0].key)
    return choice


def _choose(table: Table, rng: random.Random, plays: list[int], partners: frozenset[int], danger: int) -> int | None:
    seat = table.turn
    hand = table.packed[seat]
    classify = table.table.classify
    for p in plays:
        if p == hand:
            return p  # goes out
    ordinary = [p for p in plays if not classify(p)[0].tier]
    bombs = [p for p in plays if classify(p)[0].tier]
    if table.last is None:
        if ordinary:
            return min(ordinary, key=lambda p: _lead_key(classify(p)[0], p, rng))
        return min(bombs, key=lambda p: (classify(p)[0].tier, classify(p)[0].key))
    if table.last_seat in partners:
        return None
    opponents_close = any(table.left[s] <= danger for s in range(table.n)
                          if s != seat and s not in partners and table.active[s])
    if ordinary:
        best = min(ordinary, key=lambda p: (classify(p)[0].key, _breaks(hand, p)))
        # keep strong cards early in the hand unless the threat is real
        if classify(best)[0].key >= 12 and not opponents_close and rng.random() < 0.5:
            return None
        return best
    if bombs and (opponents_close or rng.random() < 0.1):
        return min(bombs, key=lambda p: (classify(p)[0].tier, classify(p)[0].key))
    return None


def _lead_key(c: Combo, packed: int, rng: random.Random) -> tuple:
    low = min(r for r, n in enumerate(counts(packed)) if n)
    return (low, -c.size, c.key, rng.random())


def _breaks(hand: int, packed: int) -> int:
    """How many ranks the play leaves partly behind (breaking pairs and triples)."""
    h, p = counts(hand), counts(packed)
    return sum(1 for r in range(len(p)) if p[r] and h[r] > p[r])


def choose_move(table: Table, rng: random.Random, partners: frozenset[int] = frozenset(),
                danger: int = 4) -> list[int] | None:
    """Like :func:`choose_play`, for games whose moves are concrete cards (wild cards):
    the table's ``legal_moves`` gives (cards, readings) pairs."""
    seat = table.turn
    moves = table.legal_moves(seat)
    if not moves:
        return None
    left = table.left[seat]
    for cards, _ in moves:
        if len(cards) == left:
            return cards
    ordinary = [(cards, r) for cards, r in moves if not r[0].tier]
    bombs = [(cards, r) for cards, r in moves if r[0].tier]
    wild = getattr(table, "wild", -1)

    def cost(move) -> tuple:
        cards, readings = move
        return (readings[0].key, cards.count(wild), -len(cards), rng.random())

    if table.last is None:
        if ordinary:
            return min(ordinary, key=lambda m: (min(m[1][0].key, 99), cost(m)[1], -len(m[0]), rng.random()))[0]
        return min(bombs, key=lambda m: (m[1][0].tier, m[1][0].key))[0]
    if table.last_seat in partners:
        return None
    close = any(table.left[s] <= danger for s in range(table.n) if s != seat and s not in partners and table.active[s])
    if ordinary:
        best = min(ordinary, key=cost)
        if best[1][0].key >= 13 and not close and rng.random() < 0.5:
            return None
        return best[0]
    if bombs and (close or rng.random() < 0.15):
        return min(bombs, key=lambda m: (m[1][0].tier, m[1][0].key))[0]
    return None
