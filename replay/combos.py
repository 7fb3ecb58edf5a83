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
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .cards import GUARD, N_RANKS, counts, pack_counts

if TYPE_CHECKING:
    from .wild import WildMoves

#: readings of plays with wild cards cached per table at most this many (then the cache
#: starts again)
MEMO = 200_000

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
        #: guard test of :func:`~replay.cards.contains` on all of them at once; the entries
        #: from the smallest to the largest (their indexes; their halves), and how many
        #: have at most n cards (n = 0..30): a hand is tested on those only
        low, high = halves(self.packed)
        sizes = np.array([total(p) for p in self.packed], dtype=np.int64)
        self.by_size = np.argsort(sizes, kind="stable")
        self.sized_halves = (low[self.by_size], high[self.by_size])
        self.at_most = np.searchsorted(sizes[self.by_size], np.arange(31), side="right")

    def __len__(self) -> int:
        return len(self.readings)

    #: the wild-card move generator built on this table (see :meth:`replay.wild.WildMoves.of`)
    _wild_moves: WildMoves | None = None
    #: a straight of one suit also reads as a straight flush (Guandan's tables: False where
    #: the rules leave ``straight_flush`` out of their kinds)
    flushes: bool = True

    def classify(self, packed: int) -> tuple[Combo, ...]:
        """All readings of *packed*; empty if the cards form no combination."""
        return self.readings.get(packed, ())

    def cached(self, name: object, classify: Callable[[], tuple[Combo, ...]]) -> tuple[Combo, ...]:
        """The readings of a play with wild cards by its *name*, from ``classify()`` once."""
        found = self.wild_readings.get(name)
        if found is None:
            if len(self.wild_readings) >= MEMO:
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
