"""Move generation with wild cards over a game's :class:`~replay.combos.ComboIndex`
(Guandan's level hearts, Shuangkou's jokers): :class:`WildMoves`, the Python loop beside
the compiled kernel's (``replay/_kernel.pyx``, ``wild_moves``; and their count, ``wild_count``), which it calls where it is
built (:data:`WILD_MOVES`). Apart from :mod:`replay.combos` because the kernel imports that module.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .cards import GUARD, counts
from .combos import MEMO, Classify, Combo, ComboIndex, any_beats, cards_by_rank, total
from .kernel import compiled

LOW40 = (1 << 40) - 1
#: a count of moves (:meth:`WildMoves.count`): how many, the names of the moves of one suit
#: with their suit, the names met (or None), the numbers of wild cards of the moves of
#: wild cards alone met (bit k: k wilds)
Counted = tuple[int, dict[tuple[int, int, int], int], set[tuple[int, int, int]] | None, int]
_GUARD_LOW = GUARD & LOW40
_GUARD_HIGH = GUARD >> 40
#: in the high half (ranks 8..14): the count fields of the jokers, and of the ranks 8..12
_HIGH_JOKERS = ((1 << 75) - (1 << 65)) >> 40
_HIGH_NATURAL = ((1 << 65) - (1 << 40)) >> 40


class WildMoves:
    """Move generation with wild cards over a :class:`ComboIndex`, from rank counts.

    A move is built from one table entry (rank-level counts): the hand's lowest natural
    cards of each rank, wild cards for the shortage. Which entries the hand can make is
    one vectorised pass over the table (shortage = what the natural counts lack, at most the
    wilds held); a move is then named by its natural counts and its number of wilds, and its
    readings are cached by the same name, so a hand never tries wild-card assignments once
    a shape has been seen. Following a play, only the entries whose moves could beat it are
    built: the same size, bombs, shapes that wild cards could turn into a bomb (at least
    *wild_bomb* cards with a wild among them) and the kinds in *flushable* (a straight of
    one suit reads as a straight flush).
    """

    #: the loop of :meth:`moves` and what it reads of the table (see :data:`WILD_MOVES`)
    fill: Callable[..., None]
    count_fill: Callable[..., Counted]
    entries: object

    def __init__(self, table: ComboIndex, wild_bomb: int, flushable: frozenset[str] = frozenset()):
        self.table = table
        packed = np.array(table.packed, dtype=object)
        #: each entry's packed counts in two int64 halves: ranks 0..7 and ranks 8..14
        self.low = (packed & LOW40).astype(np.int64)
        self.high = (packed >> 40).astype(np.int64)
        self.size = np.array([total(p) for p in table.packed])
        self.bomb = np.array([max(c.tier for c in table.readings[p]) > 0 for p in table.packed], dtype=bool)
        #: entries whose cards can read as a flush of their kind (a straight: a straight flush)
        self.flushable = [any(c.kind in flushable for c in table.readings[p]) for p in table.packed]
        self.always = self.bomb | np.array(self.flushable, dtype=bool)
        self.wild_bomb = self.size >= wild_bomb
        #: the (rank, count) parts of each entry
        self.parts = [[(r, n) for r, n in enumerate(counts(p)) if n] for p in table.packed]
        self.memo: dict[object, tuple[Combo, ...]] = {}
        #: the loop of :meth:`moves` over the entries: the compiled kernel's over its copy of
        #: them where it is built and they hold at most 30 cards each, else the Python loop
        #: over this object (:data:`WILD_MOVES`)
        if WildTable is not None and int(self.size.max(initial=0)) <= 30:
            self.entries = WildTable(list(table.packed), self.size.tolist(), self.always.tolist(), self.flushable,
                                     wild_bomb)
            self.fill, self.count_fill = WILD_MOVES, WILD_COUNT
        else:
            self.entries, self.fill, self.count_fill = self, _wild_moves, _wild_count

    @classmethod
    def of(cls, table: ComboIndex, wild_bomb: int, flushable: frozenset[str] = frozenset()) -> WildMoves:
        gen = table._wild_moves
        if gen is None:
            gen = table._wild_moves = cls(table, wild_bomb, flushable)
        return gen

    def candidates(self, natural: int, wilds: int, last: tuple[Combo, ...] | None
                   ) -> tuple[list[int], list[int], list[int], list[int]]:
        """(entry indexes, natural counts of each move as (low, high) packed halves, wilds used),
        in table order, for the entries the packed *natural* counts plus *wilds* can make
        (and, following *last*, that could beat it). The shortage of each entry is computed
        on packed counts for every entry at once (the guard-bit subtraction of ``contains``)."""
        d = (self.low | _GUARD_LOW) - (natural & LOW40)
        low = d & (((d & _GUARD_LOW) >> 4) * 15)  # what each rank lacks
        d = (self.high | _GUARD_HIGH) - (natural >> 40)
        high = d & (((d & _GUARD_HIGH) >> 4) * 15)
        short = (low + (high & _HIGH_NATURAL)) % 31
        ok = (short <= wilds) & ((high & _HIGH_JOKERS) == 0)  # jokers are never wild here
        if last is not None:
            keep = self.always | (self.wild_bomb & (short > 0))
            if not any(c.tier for c in last):
                keep |= self.size == last[0].size
            ok &= keep
        idx = np.flatnonzero(ok)
        return (idx.tolist(), (self.low[idx] - low[idx]).tolist(), (self.high[idx] - high[idx]).tolist(),
                short[idx].tolist())

    def remember(self, key: object, readings: tuple[Combo, ...]) -> None:
        if len(self.memo) >= MEMO:
            self.memo.clear()
        self.memo[key] = readings

    def moves(self, by_rank: list[list[int]], spare: list[int], natural: int, last: tuple[Combo, ...] | None,
              classify: Classify) -> MoveList:
        """The moves from table entries: *by_rank* the natural cards of each rank (lowest
        first), *spare* the wild cards in the order they fill shortages, *classify* the
        game's card-by-card classification (asked once per name of a move)."""
        out = MoveList(self, last, classify)
        out.by_rank, out.spare = by_rank, spare
        self.fill(self.entries, out, out.made, by_rank, spare, natural, last, classify, self.memo, self.remember)
        return out

    def count(self, hand: bytearray, skip: int, spare: list[int], natural: int, last: tuple[Combo, ...] | None,
              classify: Classify, names: bool = False
              ) -> Counted:
        """``len(self.moves(cards_by_rank(hand, skip), spare, ...))`` counted without making
        the moves, the names of the moves of one suit with their suit, and (with *names*)
        the names met (:func:`_wild_count`)."""
        if self.fill is _wild_moves or self.count_fill is _wild_count:
            return _wild_count(self, hand, skip, spare, natural, last, classify, self.memo, self.remember, names)
        return self.count_fill(self.entries, hand, skip, spare, natural, last, classify, self.memo, self.remember, names)


def _wild_moves(gen: WildMoves, out: MoveList, made: dict[tuple[int, int, int], list[int] | int],
                by_rank: list[list[int]], spare: list[int], natural: int, last: tuple[Combo, ...] | None,
                classify: Classify, memo: dict[object, tuple[Combo, ...]],
                remember: Callable[[object, tuple[Combo, ...]], None]) -> None:
    """:meth:`WildMoves.moves`' loop in Python (the reference of the compiled kernel's
    ``wild_moves``, which reads its copy of *gen*'s entries): appends (cards, readings) to
    *out* and each move's cards to *made* by name."""
    idx, low, high, shorts = gen.candidates(natural, len(spare), last)
    parts, flushable = gen.parts, gen.flushable
    for k, i in enumerate(idx):
        key = (low[k], high[k], shorts[k])
        if key in made:
            continue
        if last is not None and (key[0] or key[1]) and not flushable[i]:
            readings = memo.get(key)
            if readings is not None and not (readings and any_beats(readings, last)):
                made[key] = i  # its readings do not beat: its cards are made only if add() asks
                continue
        cards = []
        for r, n in parts[i]:
            cards += by_rank[r][:n]
        name: object = key
        if flushable[i] and len({c & 3 for c in cards}) == 1:
            name = (key, True)  # a straight of one suit also reads as a straight flush
        if key[2]:
            cards += spare[:key[2]]
            if not (key[0] or key[1]):
                name = tuple(cards)  # wild cards alone: which ones
        made[key] = cards
        readings = memo.get(name)
        if readings is None:
            readings = classify(cards)
            remember(name, readings)
        if readings and (last is None or any_beats(readings, last)):
            out.append((cards, readings))


def _wild_count(gen: WildMoves, hand: bytearray, skip: int, spare: list[int], natural: int,
                last: tuple[Combo, ...] | None, classify: Classify, memo: dict[object, tuple[Combo, ...]],
                remember: Callable[[object, tuple[Combo, ...]], None], names: bool = False
                ) -> Counted:
    """How many moves :func:`_wild_moves` would append (the same names, the same readings),
    counted without making them: a move's cards are put together only where its readings
    are not cached yet. Also returns the names of the moves made of one suit's natural cards
    and of a flushable entry (a straight of one suit, read as a straight flush too), each with
    its suit: a game's own straight flushes of the same cards are the same move
    (:meth:`MoveList.add`), which the game's count must not count twice; and, with
    *names* (else None), the names of every move met (counted or not: the moves
    :class:`MoveList` has ``made``); and the numbers of wild cards of the moves of wild
    cards alone met, as a bit mask (bit k: k wilds). *hand*: the card
    counts by id, *skip* a wild card not among the natural cards (-1: none), as
    :func:`~replay.combos.cards_by_rank` reads them."""
    by_rank = cards_by_rank(hand, skip)
    idx, low, high, shorts = gen.candidates(natural, len(spare), last)
    parts, flushable = gen.parts, gen.flushable
    seen: set[tuple[int, int, int]] = set()
    one_suit: dict[tuple[int, int, int], int] = {}
    n = alone = 0
    for k, i in enumerate(idx):
        key = (low[k], high[k], shorts[k])
        if key in seen:
            continue
        seen.add(key)
        name: object = key
        if not (key[0] or key[1]):
            alone |= 1 << key[2]
            name = tuple(spare[:key[2]])  # wild cards alone: which ones
        elif flushable[i]:
            suits = {c & 3 for r, m in parts[i] for c in by_rank[r][:m]}
            if len(suits) == 1:
                one_suit[key] = suits.pop()
                name = (key, True)
        readings = memo.get(name)
        if readings is None:
            cards = []
            for r, m in parts[i]:
                cards += by_rank[r][:m]
            readings = classify(cards + spare[:key[2]])
            remember(name, readings)
        if readings and (last is None or any_beats(readings, last)):
            n += 1
    return n, one_suit, seen if names else None, alone


#: the compiled kernel's seam (replay/_kernel.pyx): its copy of a table's entries and its
#: loops of moves and of their count over it where it is built, else none, and
#: _wild_moves and _wild_count over the WildMoves
#: (the same moves in the same order: tests/test_kernel.py, tests/test_kernel_wild.py)
WildTable: Callable[..., object] | None
WILD_MOVES: Callable[..., None]
WILD_COUNT: Callable[..., Counted]
if compiled is None:
    WildTable, WILD_MOVES, WILD_COUNT = None, _wild_moves, _wild_count
else:
    WildTable, WILD_MOVES, WILD_COUNT = compiled.WildTable, compiled.wild_moves, compiled.wild_count


class MoveList(list[tuple[list[int], tuple[Combo, ...]]]):
    """Moves being generated (see :meth:`WildMoves.moves`): the moves from table entries by
    name, and :meth:`add` for the game's other candidates, with the same deduplication."""

    def __init__(self, gen: WildMoves, last: tuple[Combo, ...] | None, classify: Classify):
        super().__init__()
        self.gen, self.last, self.classify = gen, last, classify
        #: each move from a table entry by name: its cards, or the entry's index where the
        #: move was not built (following a play, readings known not to beat it)
        self.made: dict[tuple[int, int, int], list[int] | int] = {}
        self.seen: set[tuple[int, ...]] = set()
        #: the hand's natural cards by rank and its wild cards (set by WildMoves.moves)
        self.by_rank: list[list[int]] = []
        self.spare: list[int] = []

    def made_cards(self, key: tuple[int, int, int]) -> list[int] | None:
        """The cards of the move named *key* made from a table entry, None if none was."""
        found = self.made.get(key)
        if isinstance(found, int):  # not built when it was met: built now
            cards: list[int] = []
            for r, n in self.gen.parts[found]:
                cards += self.by_rank[r][:n]
            found = self.made[key] = cards + self.spare[:key[2]]
        return found

    def add(self, cards: list[int], natural: int, short: int, flush: bool = False) -> None:
        """Another candidate: *natural* its packed natural counts, *short* its wild cards."""
        key = (natural & LOW40, natural >> 40, short)
        ordered = tuple(sorted(cards))
        if ordered in self.seen:
            return
        made = self.made_cards(key) if key in self.made else None
        if made is not None and tuple(sorted(made)) == ordered:
            return
        self.seen.add(ordered)
        name = ordered if not natural else (key, True) if flush else key
        memo = self.gen.memo
        readings = memo.get(name)
        if readings is None:
            readings = self.classify(cards)
            self.gen.remember(name, readings)
        if readings and (self.last is None or any_beats(readings, self.last)):
            self.append((cards, readings))
