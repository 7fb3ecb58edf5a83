"""Combinations: readings of a set of cards, comparison, and the lookup table per variant.

A :class:`Combo` is one *reading* of some cards: its kind, size (cards), key (what it is
compared by within its class) and tier (0 for ordinary plays; bombs have tiers, a higher
tier beats any lower one, whatever the key).  A game builds a :class:`ComboIndex` once per
variant from the list of every legal combination; classifying a play is then one dict
lookup on packed rank counts, and generating the legal plays of a hand is a filter over
the same table — validation and generation share one definition of legality.

>>> table = ComboIndex([(pack_counts([2]), Combo("pair", 2, 0)), (pack_counts([0, 2]), Combo("pair", 2, 1)),
...                     (pack_counts([4]), Combo("bomb", 4, 0, tier=1))])
>>> [c.kind for c in table.classify(pack_counts([0, 2]))]
['pair']
>>> beats(Combo("pair", 2, 1), Combo("pair", 2, 0)), beats(Combo("bomb", 4, 0, 1), Combo("pair", 2, 1))
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import combinations_with_replacement
from typing import NamedTuple

import numpy as np

from .cards import GUARD, N_RANKS, counts, pack_counts


#: a game's classification of a play's cards, card by card
Classify = Callable[[list[int]], tuple["Combo", ...]]


class Combo(NamedTuple):
    """One reading of a play."""

    kind: str
    size: int
    key: int
    tier: int = 0  # 0: not a bomb; bombs compare by tier, then key


def beats(a: Combo, b: Combo) -> bool:
    """True if *a* played on *b* is legal and beats it."""
    if a.tier != b.tier:
        return a.tier > b.tier
    if a.tier:
        return a.key > b.key
    return a.kind == b.kind and a.size == b.size and a.key > b.key


def strongest(readings: tuple[Combo, ...]) -> tuple[Combo, ...]:
    """A lead's readings as they count: the strongest one of each kind and size.

    >>> strongest((Combo("full_house", 5, 9), Combo("full_house", 5, 13), Combo("bomb", 5, 12, 2)))
    (Combo(kind='full_house', size=5, key=13, tier=0), Combo(kind='bomb', size=5, key=12, tier=2))
    """
    if len(readings) < 2:
        return readings
    best: dict[tuple[str, int], Combo] = {}
    for c in readings:
        cls = (c.kind, c.size)
        if cls not in best or c.key > best[cls].key:
            best[cls] = c
    return tuple(best.values())


def any_beats(plays: tuple[Combo, ...], lasts: tuple[Combo, ...]) -> bool:
    """True if some reading of the play beats some reading of the last play."""
    for a in plays:
        for b in lasts:
            if beats(a, b):
                return True
    return False


class ComboIndex:
    """Every legal combination of a variant, keyed by packed rank counts."""

    #: classes larger than this are searched with NumPy
    VECTOR_AT = 64

    def __init__(self, entries: Iterable[tuple[int, Combo]]):
        readings: dict[int, list[Combo]] = {}
        for packed, combo in entries:
            lst = readings.setdefault(packed, [])
            if combo not in lst:
                lst.append(combo)
        self.readings: dict[int, tuple[Combo, ...]] = {p: tuple(v) for p, v in readings.items()}
        #: (kind, size) -> [(key, packed)] sorted by key; bombs -> [(tier, key, packed)]
        self.classes: dict[tuple[str, int], list[tuple[int, int]]] = {}
        bombs: list[tuple[int, int, int]] = []
        for packed, combos in self.readings.items():
            for c in combos:
                if c.tier:
                    bombs.append((c.tier, c.key, packed))
                else:
                    self.classes.setdefault((c.kind, c.size), []).append((c.key, packed))
        #: large classes also as NumPy arrays (keys, counts matrix), sorted by key
        self.class_arrays: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
        for cls, keyed in self.classes.items():
            keyed.sort()
            if len(keyed) > self.VECTOR_AT:
                self.class_arrays[cls] = (np.array([k for k, _ in keyed]),
                                          np.array([counts(p) for _, p in keyed], dtype=np.int16))
        self.bombs = sorted(set(bombs))
        #: readings of plays with wild cards, cached by the game's name of a play
        self.wild_readings: dict[object, tuple[Combo, ...]] = {}
        self.packed = list(self.readings)
        self.matrix = np.array([counts(p) for p in self.packed], dtype=np.int16).reshape(-1, N_RANKS)
        #: each entry's packed counts in two int64 halves (ranks 0..7, 8..14), for the
        #: guard test of :func:`~replay.cards.contains` on all of them at once
        self.halves = halves(self.packed)
        #: the entries from the smallest to the largest (their indexes; their halves), and
        #: how many have at most n cards (n = 0..30): a hand is tested on those only
        sizes = np.array([total(p) for p in self.packed], dtype=np.int64)
        self.by_size = np.argsort(sizes, kind="stable")
        self.sized_halves = (self.halves[0][self.by_size], self.halves[1][self.by_size])
        self.at_most = np.searchsorted(sizes[self.by_size], np.arange(31), side="right")

    def __len__(self) -> int:
        return len(self.readings)

    #: the wild-card move generator built on this table (see :meth:`WildMoves.of`)
    _wild_moves: WildMoves | None = None

    def classify(self, packed: int) -> tuple[Combo, ...]:
        """All readings of *packed*; empty if the cards form no combination."""
        return self.readings.get(packed, ())

    def cached(self, name: object, classify: Callable[[], tuple[Combo, ...]]) -> tuple[Combo, ...]:
        """The readings of a play with wild cards by its *name*, from ``classify()`` once."""
        found = self.wild_readings.get(name)
        if found is None:
            if len(self.wild_readings) >= WildMoves.MEMO:
                self.wild_readings.clear()
            found = self.wild_readings[name] = classify()
        return found

    def iter_beating(self, hand: int, lasts: tuple[Combo, ...]) -> Iterator[int]:
        """Packed plays held in *hand* that beat some reading in *lasts* (no duplicates)."""
        seen: set[int] = set()
        for last in lasts:
            if not last.tier:
                cls = (last.kind, last.size)
                lst = self.classes.get(cls, ())
                arrays = self.class_arrays.get(cls)
                if arrays is not None:
                    keys, matrix = arrays
                    start = int(np.searchsorted(keys, last.key, side="right"))
                    have = np.array(counts(hand), dtype=np.int16)
                    for k in np.nonzero((matrix[start:] <= have).all(axis=1))[0]:
                        packed = lst[start + int(k)][1]
                        if packed not in seen:
                            seen.add(packed)
                            yield packed
                else:
                    for key, packed in lst:
                        if key > last.key and packed not in seen and ((hand | GUARD) - packed) & GUARD == GUARD:
                            seen.add(packed)
                            yield packed
            for tier, key, packed in self.bombs:
                if (tier > last.tier or (tier == last.tier and key > last.key)) and packed not in seen \
                        and ((hand | GUARD) - packed) & GUARD == GUARD:
                    seen.add(packed)
                    yield packed

    def has_beating(self, hand: int, lasts: tuple[Combo, ...]) -> bool:
        for _ in self.iter_beating(hand, lasts):
            return True
        return False

    def all_plays(self, hand: int) -> list[int]:
        """Every packed combination held in *hand* (a lead), by a vectorised filter over
        the entries no larger than the hand, in the table's order."""
        packed = self.packed
        n = self.at_most[total(hand)]
        low, high = self.sized_halves
        rows = self.by_size[:n][held((low[:n], high[:n]), hand)]
        rows.sort()
        return [packed[i] for i in rows]

    def count_plays(self, hand: int) -> int:
        """``len(all_plays(hand))``, without the list."""
        n = self.at_most[total(hand)]
        low, high = self.sized_halves
        return int(np.count_nonzero(held((low[:n], high[:n]), hand)))


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

    #: readings cached per table at most this many (then the cache starts again)
    MEMO = 200_000
    #: the kernel's loop (set with ``fast``)
    wild_moves: Callable[..., None]

    def __init__(self, table: ComboIndex, wild_bomb: int, flushable: frozenset[str] = frozenset()):
        self.table = table
        #: each entry's packed counts in two int64 halves: ranks 0..7 and ranks 8..14
        self.low, self.high = table.halves
        self.size = np.array([total(p) for p in table.packed])
        self.bomb = np.array([max(c.tier for c in table.readings[p]) > 0 for p in table.packed], dtype=bool)
        #: entries whose cards can read as a flush of their kind (a straight: a straight flush)
        self.flushable = [any(c.kind in flushable for c in table.readings[p]) for p in table.packed]
        self.always = self.bomb | np.array(self.flushable, dtype=bool)
        self.wild_bomb = self.size >= wild_bomb
        #: the (rank, count) parts of each entry
        self.parts = [[(r, n) for r, n in enumerate(counts(p)) if n] for p in table.packed]
        self.memo: dict[object, tuple[Combo, ...]] = {}
        #: the compiled kernel's copy of the entries (replay/_kernel.pyx, wild_moves), where
        #: it is built: the loop of :meth:`moves` in C, the Python loop being the reference
        self.fast: object | None = None
        from .kernel import compiled

        if compiled is not None and int(self.size.max(initial=0)) <= 30:
            self.fast = compiled.WildTable(list(table.packed), self.size.tolist(), self.always.tolist(),
                                           self.flushable, wild_bomb)
            self.wild_moves = compiled.wild_moves

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
        if len(self.memo) >= self.MEMO:
            self.memo.clear()
        self.memo[key] = readings

    def moves(self, by_rank: list[list[int]], spare: list[int], natural: int, last: tuple[Combo, ...] | None,
              classify: Classify) -> MoveList:
        """The moves from table entries: *by_rank* the natural cards of each rank (lowest
        first), *spare* the wild cards in the order they fill shortages, *classify* the
        game's card-by-card classification (asked once per name of a move)."""
        out = MoveList(self, last, classify)
        out.by_rank, out.spare = by_rank, spare
        if self.fast is not None:
            self.wild_moves(self.fast, out, out.made, by_rank, spare, natural, last, classify, self.memo, self.remember)
            return out
        return self.moves_python(out, by_rank, spare, natural, last, classify)

    def moves_python(self, out: MoveList, by_rank: list[list[int]], spare: list[int], natural: int,
                     last: tuple[Combo, ...] | None, classify: Classify) -> MoveList:
        """:meth:`moves` in Python (the reference of the kernel's ``wild_moves``), into *out*."""
        idx, low, high, shorts = self.candidates(natural, len(spare), last)
        parts, made, memo, flushable = self.parts, out.made, self.memo, self.flushable
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
                self.remember(name, readings)
            if readings and (last is None or any_beats(readings, last)):
                out.append((cards, readings))
        return out


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


def cards_by_rank(hand: bytearray, skip: int = -1) -> list[list[int]]:
    """The card ids held in *hand* (card counts by id) grouped by rank, lowest suit first,
    ranks 3..2 and the two jokers (15 lists), without the card *skip* (a wild card): one
    lookup per rank of its four suits' counts, read as one integer. The lists are shared
    between calls: read-only.

    >>> cards_by_rank(bytearray([0, 2, 1, 0] + [0] * 48 + [0, 1]))[0], cards_by_rank(bytearray(54))[14]
    ([1, 1, 2], [])
    """
    x = int.from_bytes(hand, "little")
    if skip >= 0:
        x &= ~(0xFF << (8 * skip))
    out = []
    for r in range(13):
        counts4 = (x >> (32 * r)) & 0xFFFFFFFF
        found = _RANK_CARDS[r].get(counts4)
        if found is None:
            found = _RANK_CARDS[r][counts4] = [4 * r + k for k in range(4) for _ in range((counts4 >> (8 * k)) & 0xFF)]
        out.append(found)
    out.append([52] * ((x >> 416) & 0xFF))
    out.append([53] * ((x >> 424) & 0xFF))
    return out


#: the cards of each rank by its four suits' counts (one byte each), made on first use
_RANK_CARDS: list[dict[int, list[int]]] = [{} for _ in range(13)]


LOW40 = (1 << 40) - 1
_GUARD_LOW = GUARD & LOW40
_GUARD_HIGH = GUARD >> 40


def halves(packed: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Packed counts as two int64 arrays: ranks 0..7 (40 bits) and ranks 8..14."""
    values = np.array(packed, dtype=object)
    return (values & LOW40).astype(np.int64), (values >> 40).astype(np.int64)


def held(halves: tuple[np.ndarray, np.ndarray], hand: int) -> np.ndarray:
    """Which packed entries (:func:`halves`) *hand* holds: the guard test of
    :func:`~replay.cards.contains`, each field of the hand at least the entry's."""
    low, high = halves
    a = ((hand & LOW40) | _GUARD_LOW) - low
    a &= _GUARD_LOW
    b = ((hand >> 40) | _GUARD_HIGH) - high
    b &= _GUARD_HIGH
    both: np.ndarray = (a == _GUARD_LOW) & (b == _GUARD_HIGH)
    return both


#: in the high half (ranks 8..14): the count fields of the jokers, and of the ranks 8..12
_HIGH_JOKERS = ((1 << 75) - (1 << 65)) >> 40
_HIGH_NATURAL = ((1 << 65) - (1 << 40)) >> 40


# ----------------------------------------------------------------- building blocks


def chains(low: int, high: int, min_len: int, max_len: int) -> Iterator[list[int]]:
    """Runs of consecutive rank indexes within [low, high], of min..max length."""
    for length in range(min_len, max_len + 1):
        for start in range(low, high - length + 2):
            yield list(range(start, start + length))


def kicker_sets(ranks: Iterable[int], k: int, per_rank: int) -> Iterator[tuple[int, ...]]:
    """Multisets of *k* ranks from *ranks*, each rank at most *per_rank* times."""
    for combo in combinations_with_replacement(sorted(ranks), k):
        if per_rank < k and any(combo.count(r) > per_rank for r in set(combo)):
            continue
        yield combo


# ----------------------------------------------------------------- tests on packed counts
#
# A packed hand holds 5 bits per rank (4 of count, the top one a guard, see cards.pack).
# These answer "which ranks hold at least n cards?" for every rank at once with a few
# integer operations: the beating-play checks (Table.can_beat) are built from them.

#: 1 in the lowest bit of every rank field
ONES = sum(1 << (5 * r) for r in range(N_RANKS))
#: the guard bit of each rank
RANK_GUARD = tuple(1 << (5 * r + 4) for r in range(N_RANKS))
#: guard bits of the ranks 3..2 (no jokers) and 3..A (what ordinary sequences run over)
NORMAL = sum(RANK_GUARD[:13])
TO_ACE = sum(RANK_GUARD[:12])
#: guard bits of the ranks from rank index k up (ABOVE[0] is every rank, ABOVE[15] none)
ABOVE = tuple(sum(RANK_GUARD[r] for r in range(k, N_RANKS)) for k in range(N_RANKS + 1))


def above(key: int) -> int:
    """Guard bits of the ranks whose index is greater than *key* (a key may lie past the
    ranks, as a Shuangkou pair of jokers does)."""
    return ABOVE[min(max(key + 1, 0), N_RANKS)]


def at_least(hand: int, n: int) -> int:
    """Guard bits of the ranks holding at least *n* (1..16) cards.

    >>> at_least(pack_counts([2, 0, 3]), 2) == RANK_GUARD[0] | RANK_GUARD[2]
    True
    """
    return ((hand | GUARD) - n * ONES) & GUARD


def capped(hand: int, n: int) -> int:
    """Packed counts with every count cut to at most *n*."""
    d = ((hand | GUARD) - n * ONES)
    g = d & GUARD
    return hand - (d & ((g >> 4) * 15))


def total(hand: int) -> int:
    """Number of cards in a packed hand (at most 30)."""
    return hand % 31


def runs(bits: int, length: int, stride: int = 5) -> int:
    """The bits of *bits* that start a run of *length* consecutive set bits (*stride* apart)."""
    # runs of 1, 2, 4, ... by doubling, then the longest of those that fits, shifted to
    # cover the rest: a few operations for a run of 12 instead of eleven
    out, span = bits, 1
    while 2 * span <= length:
        out &= out >> (stride * span)
        span *= 2
    if span < length:
        out &= out >> (stride * (length - span))
    return out


#: guard bits of the two jokers; the count fields of the ranks 3..2 (jokers masked out)
JOKERS = RANK_GUARD[13] | RANK_GUARD[14]
NATURAL = (1 << 65) - 1
#: cards per rank of the kinds that are one rank repeated
SAME_RANK = {"single": 1, "pair": 2, "triple": 3}


def _one_deck_beats() -> Callable[[int, Combo, frozenset[str]], bool | None]:
    # the constants as closure cells, which Python reads as fast as locals (module
    # globals cost a dict lookup each, a third of this function's time: the pass path)
    guard, normal, ones, jokers, four, above, top = GUARD, NORMAL, ONES, JOKERS, 4 * ONES, ABOVE, N_RANKS
    same_test = {kind: (n * ONES, GUARD if n == 1 else NORMAL) for kind, n in SAME_RANK.items()}

    def one_deck_beats(hand: int, last: Combo, kinds: frozenset[str]) -> bool | None:
        """For one-deck games (bombs of four of a rank, tier 1; the rocket, tier 2): True or
        False when bombs, the rocket or a single, pair or triple decide whether *hand* beats
        *last*; None when the game must test *last*'s kind itself."""
        kind, _, key, tier = last
        held = hand | guard
        if tier:
            bombs = (held - four) & normal if "bomb" in kinds else 0
            rocket = (held - ones) & jokers == jokers and "rocket" in kinds
            return tier == 1 and bool(bombs & above[min(key + 1, top)] or rocket)
        if (held - four) & normal and "bomb" in kinds or (held - ones) & jokers == jokers and "rocket" in kinds:
            return True
        same = same_test.get(kind)
        if same is None:
            return None
        return bool((held - same[0]) & same[1] & above[min(key + 1, top)])

    return one_deck_beats


one_deck_beats = _one_deck_beats()


def positions(hand: int) -> int:
    """Packed counts by sequence position where the ace is also low: A (0), 2 (1), 3..A (2..13)."""
    return ((hand >> 55) & 31) | (((hand >> 60) & 31) << 5) | ((hand & ((1 << 60) - 1)) << 10)


def window_holds(held: int, length: int, need: int, first: int, last: int) -> bool:
    """True if some window of *length* fields starting at *first*..*last* holds *need* cards."""
    window = (1 << (5 * length)) - 1
    for start in range(max(0, first), last + 1):
        if ((held >> (5 * start)) & window) % 31 >= need:
            return True
    return False


def count_at(hand: int, rank: int) -> int:
    return (hand >> (5 * rank)) & 31


def iter_ranks(bits: int) -> Iterator[int]:
    """Rank indexes of the guard bits set in *bits*, lowest first."""
    while bits:
        low = bits & -bits
        yield (low.bit_length() - 5) // 5
        bits ^= low


def packed_of(rank_counts: dict[int, int]) -> int:
    total = 0
    for r, n in rank_counts.items():
        total += n << (5 * r)
    return total


__all__ = ["Combo", "ComboIndex", "beats", "any_beats", "chains", "kicker_sets", "packed_of", "pack_counts"]
