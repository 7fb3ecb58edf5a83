"""掼蛋 Guandan: guandan/standard and guandan/no_tribute, as docs/rules.md states it.

What differs from the shared table: the level rank as trump, the two wild hearts of the
level rank (逢人配), straight flushes (suits matter), the bomb ladder, four seats in two
teams, 接风, places, 双下 and the upgrade, and coins doubled by big bombs.

Ranks: natural rank indexes of :mod:`replay.cards` (0 = 3 … 11 = A, 12 = 2, 13/14 jokers).
Level-aware value (singles, pairs, triples, full houses, bombs): 2 < 3 < … < A < level <
small joker < big joker. Sequence position (straights, pair chains, plates): A low 0,
2 = 1, 3 = 2, …, K = 12, A high = 13.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any, ClassVar


from ...cards import (
    CARD_NAMES, CARD_OF, DECK_108, HEARTS, RANK, RANK_2, RANK_A, RANK_BIG_JOKER, RANK_BIT, RANK_NAMES, RANK_SMALL_JOKER, SUIT,  # noqa: F401 - CARD_NAMES: the doctests
    card_id,
)
from ...combos import (
    JOKERS, NORMAL, Combo, ComboIndex, any_beats, at_least, capped, cards_by_rank, count_at, iter_ranks,
    packed_of, positions, window_holds,
)
from ...game import Game
from ...kernel import compiled
from ...rules import Rules, per_rules
from ...table import HandSetup, Table
from ...verdicts import Code, Event, Violation
from ...wild import LOW40, WildMoves
from ...words import words_of

KINDS = {
    "single": "单张", "pair": "对子", "triple": "三张", "full_house": "三带二", "straight": "顺子",
    "straight_flush": "同花顺", "pair_chain": "连对", "plate": "钢板", "bomb": "炸弹", "joker_bomb": "天王炸",
}
#: the bomb ladder: 4 < 5 < straight flush < 6 < 7 < 8 < 9 < 10 < joker bomb
BOMB_TIER = {4: 1, 5: 2, 6: 4, 7: 5, 8: 6, 9: 7, 10: 8}
TIER_STRAIGHT_FLUSH, TIER_JOKER_BOMB = 3, 9
#: sequence positions: A low, 2, 3 … K, A high
POSITION_RANK = [RANK_A, RANK_2] + list(range(RANK_A + 1))
LEVEL_NAMES = {"2": RANK_2, "T": 7, "10": 7}
LEVEL_NAMES.update({name: r for r, name in enumerate(RANK_NAMES[:12])})
#: the wild heart of each level rank
WILD_OF = [card_id(r, HEARTS) for r in range(RANK_2 + 1)]


def parse_level(text: str | None) -> int:
    """The natural rank index of a level name ("2".."A", also "10"); raises ValueError."""
    if text is None:
        return RANK_2
    found = LEVEL_NAMES.get(text) if type(text) is str else None  # as written (every hand asks)
    if found is not None:
        return found
    key = str(text).strip().upper()
    if key not in LEVEL_NAMES:
        raise ValueError(f"not a level: {text!r} (expected 2..10, J, Q, K or A)")
    return LEVEL_NAMES[key]


def level_name(rank: int) -> str:
    """A level written as the card notation writes its rank (``T``, never ``10``)."""
    return RANK_NAMES[rank]


def canonical_levels(value: Any) -> Any:
    """Level names as :func:`level_name` writes them (``10`` -> ``T``); other values as given."""
    if isinstance(value, list):
        return [canonical_levels(x) for x in value]
    if isinstance(value, str):
        try:
            return level_name(parse_level(value))
        except ValueError:
            return value
    return value


def value(rank: int, level: int) -> int:
    """Level-aware value of a rank: 2 lowest, then 3..A, the level rank, jokers."""
    if rank == level:
        return 13
    if rank == RANK_SMALL_JOKER:
        return 14
    if rank == RANK_BIG_JOKER:
        return 15
    if rank == RANK_2:
        return 0
    return rank + 1


@dataclass(frozen=True)
class GuandanRules(Rules):
    tribute: bool = True
    kinds: frozenset[str] = frozenset(KINDS)
    #: coins: losers pay X·N·mult + A; mult doubles per bomb of this size or more
    double_bomb_size: int = 5
    #: what follows A: "win" (a team that passes A wins the match) or "cycle" (round to 2)
    after_a: str = "win"
    #: failed hands at A that send a team back to 2 (0: never)
    a_fail_limit: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.after_a not in ("win", "cycle"):
            raise ValueError(f"params.after_a: expected \"win\" or \"cycle\", got {self.after_a!r}")
        if self.a_fail_limit < 0:
            raise ValueError(f"params.a_fail_limit: expected 0 (never) or more, got {self.a_fail_limit!r}")


STANDARD = GuandanRules(game="guandan", variant="standard", players=4, deck=DECK_108, max_play=10)
NO_TRIBUTE = GuandanRules(game="guandan", variant="no_tribute", players=4, deck=DECK_108, max_play=10, tribute=False)


def iter_combos(rules: GuandanRules, level: int) -> Iterator[tuple[int, Combo]]:
    """Every combination at rank level for one level rank (straight flushes are found by
    suit in :meth:`Guandan.classify`)."""
    kinds = rules.kinds
    normal = range(RANK_2 + 1)
    if "single" in kinds:
        for r in range(RANK_BIG_JOKER + 1):
            yield packed_of({r: 1}), Combo("single", 1, value(r, level))
    pairs = list(normal) + [RANK_SMALL_JOKER, RANK_BIG_JOKER]
    if "pair" in kinds:
        for r in pairs:
            yield packed_of({r: 2}), Combo("pair", 2, value(r, level))
    if "triple" in kinds:
        for r in normal:
            yield packed_of({r: 3}), Combo("triple", 3, value(r, level))
    if "full_house" in kinds:
        for t in normal:
            for p in pairs:
                if p != t:
                    yield packed_of({t: 3, p: 2}), Combo("full_house", 5, value(t, level))
    for unit, kind, length in ((1, "straight", 5), (2, "pair_chain", 3), (3, "plate", 2)):
        if kind not in kinds:
            continue
        for start in range(0, 14 - length + 1):
            positions = range(start, start + length)
            yield packed_of({POSITION_RANK[p]: unit for p in positions}), Combo(kind, unit * length, start + length - 1)
    if "bomb" in kinds:
        for r in normal:
            for size in range(4, 11):
                yield packed_of({r: size}), Combo("bomb", size, value(r, level), BOMB_TIER[size])
    if "joker_bomb" in kinds:
        yield packed_of({RANK_SMALL_JOKER: 2, RANK_BIG_JOKER: 2}), Combo("joker_bomb", 4, 0, TIER_JOKER_BOMB)


class Guandan(Table):
    """One hand of Guandan."""

    rules: GuandanRules  # the game's own rules (set by Table.__init__)

    plain_lookup: ClassVar[bool] = False
    ends_on_first_out: ClassVar[bool] = False
    _level_tables: ClassVar[dict[tuple[GuandanRules, int], ComboIndex]] = {}

    def __init__(self, rules: GuandanRules, setup: HandSetup | dict[str, Any], detail: bool = False):
        spec = setup if isinstance(setup, HandSetup) else HandSetup.of(setup)
        text = spec.level
        level = LEVEL_NAMES.get(text) if type(text) is str else None  # parse_level's first case, inline
        self.level = level = parse_level(text) if level is None else level
        self.wild = WILD_OF[level]
        Table.__init__(self, rules, spec, detail)

    @classmethod
    def combo_table(cls, rules: GuandanRules, level: int | None = None) -> ComboIndex:  # type: ignore[override]
        level = RANK_2 if level is None else level
        key = (rules, level)
        table = cls._level_tables.get(key)
        if table is None:
            table = cls._level_tables[key] = ComboIndex(iter_combos(rules, level))
            table.flushes = "straight_flush" in rules.kinds  # (kinds-=straight_flush: none read, none made)
        return table

    def wild_cards(self) -> frozenset[int]:
        return frozenset((self.wild,))

    def strength(self, card: int) -> int:
        return value(RANK[card], self.level)

    def table_for(self, rules: Rules) -> ComboIndex:
        try:
            tables: dict[int, ComboIndex] = rules._kept_level_tables  # type: ignore[attr-defined]  # (per_rules')
        except AttributeError:
            tables = per_rules(rules, "level_tables", dict)
        table = tables.get(self.level)
        if table is None:
            table = tables[self.level] = self.combo_table(self.rules, self.level)
        return table

    # ------------------------------------------------------------------ classification

    def classify(self, ids: Sequence[int], packed: int, declared: list[str] | None) -> tuple[Combo, ...]:
        if declared is not None:
            return classify_cards(self.combos, list(ids), self.wild, declared)
        # the readings depend on the natural counts, the number of wilds and (five cards) one suit
        wild = self.wild
        wilds = ids.count(wild)
        flush = False
        if len(ids) == 5:
            suits = {SUIT[c] for c in ids if c != wild}
            flush = len(suits) == 1 and -1 not in suits
        return self.combos.cached((packed - (wilds << (5 * self.level)), wilds, flush),
                                 lambda: classify_cards(self.combos, list(ids), wild))

    def beats_exist(self, seat: int, last: Combo) -> bool:
        hand = self.hands[seat]
        wilds = hand[self.wild]
        natural = self.packed[seat] - (wilds << (5 * self.level))
        found = BEATING_EXISTS(hand, natural, wilds, self.level, last, self.rules.kinds)
        return beating_exists(hand, natural, wilds, self.level, last, self.rules.kinds) if found is None else found


# ---------------------------------------------------------------------- beating-play check

#: guard bits of the ranks whose level-aware value is above a key: VALUE_ABOVE[level][key + 1]
VALUE_ABOVE = [[sum(1 << (5 * r + 4) for r in range(RANK_BIG_JOKER + 1) if value(r, level) > key) for key in range(-1, 17)]
               for level in range(RANK_2 + 1)]
#: sequence kinds: (cards per position, positions)
SEQUENCES = {"straight": (1, 5), "pair_chain": (2, 3), "plate": (3, 2)}
#: the smallest bomb size above each tier, and the size of each rank-bomb tier
SIZE_ABOVE_TIER = {t: min((s for s, st in BOMB_TIER.items() if st > t), default=99) for t in range(TIER_JOKER_BOMB + 1)}
SIZE_OF_TIER = {t: s for s, t in BOMB_TIER.items()}
_NONZERO = bytes([0] + [1] * 255)
#: five positions 8 bits apart (straight flushes are tested on one byte per position)
_FIVE = sum(1 << (8 * k) for k in range(5))


def beating_exists(hand: bytearray, natural: int, wilds: int, level: int, last: Combo, kinds: frozenset[str]) -> bool:
    """True if a hand (card counts, packed counts without the wild hearts, wild hearts held)
    holds a play that beats *last*: direct tests per kind, the wilds filling shortages."""
    tier, key = last.tier, last.key
    if not tier and same_kind_exists(natural, wilds, level, last):
        return True
    if tier >= TIER_JOKER_BOMB:
        return False
    # bombs: any bomb beats every other kind
    if "bomb" in kinds:
        size = SIZE_ABOVE_TIER[tier]
        if size <= 10 and at_least(natural, max(1, size - wilds)) & NORMAL:
            return True
        if tier in SIZE_OF_TIER and \
                at_least(natural, max(1, SIZE_OF_TIER[tier] - wilds)) & NORMAL & VALUE_ABOVE[level][key + 1]:
            return True
    if "joker_bomb" in kinds and at_least(natural, 2) & JOKERS == JOKERS:
        return True
    return tier <= TIER_STRAIGHT_FLUSH and "straight_flush" in kinds and \
        straight_flush_exists(hand, wilds, level, key if tier == TIER_STRAIGHT_FLUSH else -1)


#: the compiled kernel's seam: its guandan_beats where it is built (the same answers, and
#: None for a value it does not take, which beating_exists then answers), else
#: beating_exists itself (replay/_kernel.pyx; tests/test_kernel.py compares the two)
BEATING_EXISTS: Callable[[bytearray, int, int, int, Combo, frozenset[str]], bool | None] = (
    beating_exists if compiled is None else compiled.guandan_beats)


def same_kind_exists(natural: int, wilds: int, level: int, last: Combo) -> bool:
    """A play of the kind and size of the (non-bomb) *last* with a higher key."""
    key, kind = last.key, last.kind
    above = VALUE_ABOVE[level][key + 1]
    if kind == "single":
        return bool(at_least(natural, 1) & above) or (wilds >= 1 and key < 13)
    if kind == "pair":
        return bool(at_least(natural, max(1, 2 - wilds)) & NORMAL & above or at_least(natural, 2) & JOKERS & above) \
            or (wilds >= 2 and key < 13)
    if kind == "triple":
        return bool(at_least(natural, max(1, 3 - wilds)) & NORMAL & above)
    if kind == "full_house":
        for t in iter_ranks(at_least(natural, max(1, 3 - wilds)) & NORMAL & above):
            n = count_at(natural, t)
            spare = wilds - max(0, 3 - n)
            rest = natural - (n << (5 * t))
            if spare >= 2 or at_least(rest, 2 - spare) & NORMAL or at_least(rest, 2) & JOKERS:
                return True
        return False
    unit, length = SEQUENCES[kind]
    return window_holds(capped(positions(natural), unit), length, unit * length - wilds, key - length + 2, 14 - length)


#: one bit in every byte, the top bit of every byte (20 bytes: positions and their sums)
_BYTE_LOW = sum(1 << (8 * k) for k in range(20))
_BYTE_HIGH = _BYTE_LOW << 7
#: top bits of the bytes m..13: windows of five positions ending at m (a top above m - 1)
_WINDOW_ENDS = [sum(1 << (8 * k + 7) for k in range(max(4, m), 14)) for m in range(15)]


def flush_windows(hand: bytearray, suit: int, wilds: int, level: int, key: int = -1) -> int:
    """The straight flushes of one suit the hand can make, the wild hearts filling gaps,
    with a top position above *key*: bit 8·(start + 4) + 7 set for each start position.
    One byte per position holds 1 if the suit's card is there; multiplying by five ones
    sums every window of five positions into one byte at once."""
    need = 5 - wilds
    ends = _WINDOW_ENDS[max(4, key + 1)] if key < 13 else 0
    x = int.from_bytes(hand[suit:52:4].translate(_NONZERO), "little")
    if suit == HEARTS:
        x &= ~(1 << (8 * level))  # the wild hearts are counted apart
    if not ends or x.bit_count() < need:
        return 0
    bits = ((x & ((1 << 96) - 1)) << 16) | (((x >> 96) & 1) << 8) | ((x >> 88) & 1)
    sums = bits * _FIVE
    return ((sums | _BYTE_HIGH) - need * _BYTE_LOW) & _BYTE_HIGH & ends


#: four bytes a position (one a suit), positions A-low 0 … A-high 13: a window of five
#: positions summed by one multiplication, its top bytes tested at once (four suits)
_SUITS_FIVE = sum(1 << (32 * k) for k in range(5))
_SUITS_LOW = sum(1 << (8 * k) for k in range(4 * 18))
_SUITS_HIGH = _SUITS_LOW << 7
#: top bits of the bytes of the positions m..13 (and 4 up): windows ending above m - 1
_SUITS_ENDS = [sum(1 << (8 * k + 7) for k in range(4 * max(4, m), 4 * 14)) for m in range(15)]
_THREE_TO_ACE = (1 << (8 * 48)) - 1
_SUITS_NEED = [(5 - wilds) * _SUITS_LOW for wilds in range(5)]


def _suits_layout(x: int) -> int:
    """Card bytes (card id order) in sequence order: 3..A at positions 2..13, A at 0, 2 at 1."""
    return ((x & _THREE_TO_ACE) << 64) | ((x >> (8 * 44)) & 0xFFFFFFFF) | (((x >> (8 * 48)) & 0xFFFFFFFF) << 32)


#: every card byte but the wild heart's of each level, in sequence order
_NOT_WILD = [_suits_layout(((1 << (8 * 52)) - 1) ^ (0xFF << (8 * (4 * level + HEARTS))))
             for level in range(RANK_2 + 1)]


_FLUSHES: dict[tuple[bytes, int], int] = {}


def flush_ends(hand: bytearray, wilds: int, level: int) -> int:
    """The straight flushes of every suit the hand can make, the wild hearts filling gaps,
    as :func:`flush_windows` finds them suit by suit: bit 8·(4·top + suit) + 7 set for the
    window of five positions whose top position is *top* (the layout of
    :func:`straight_flush_exists`)."""
    return _flush_bits(hand, wilds, level) & _SUITS_ENDS[4]


def _flush_bits(hand: bytearray, wilds: int, level: int) -> int:
    name = (bytes(hand), level)
    ends = _FLUSHES.get(name)
    if ends is None:
        if len(_FLUSHES) > 100_000:
            _FLUSHES.clear()
        x = _suits_layout(int.from_bytes(hand.translate(_NONZERO), "little")) & _NOT_WILD[level]
        ends = _FLUSHES[name] = ((x * _SUITS_FIVE | _SUITS_HIGH) - _SUITS_NEED[wilds]) & _SUITS_HIGH
    return ends


def straight_flush_exists(hand: bytearray, wilds: int, level: int, key: int) -> bool:
    """A straight flush whose top position is above *key*, the wild hearts filling gaps:
    the hand's cards as one byte each (1 if held) in sequence order, four suits side by
    side, every window of five positions of every suit summed by one multiplication (the
    windows a hand can make are kept: a seat is asked again at every pass until it plays)."""
    if key >= 13:
        return False
    return bool(_flush_bits(hand, wilds, level) & _SUITS_ENDS[max(4, key + 1)])


def classify_cards(table: ComboIndex, ids: list[int], wild: int, declared: list[str] | None = None) -> tuple[Combo, ...]:
    """Every reading of a Guandan play, wild hearts standing for any non-joker card.

    With *declared* (the record's ``as``), only that reading counts: non-wild cards must
    stand for themselves, wild cards for any card but a joker.
    """
    if declared is not None:
        if len(declared) != len(ids):
            return ()
        stand = []
        for c, token in zip(ids, declared):
            d = CARD_OF.get(token)
            if d is None or (c != wild and d != c) or (c == wild and RANK[d] >= RANK_SMALL_JOKER):
                return ()
            stand.append(d)
        return _readings(table, stand, 0, None, declared=True)
    rest = [c for c in ids if c != wild]
    if not rest:  # played alone, wild hearts are level cards (逢人配 needs other cards)
        return _readings(table, ids, 0, None)
    return _readings(table, rest, len(ids) - len(rest), {SUIT[c] for c in rest})


def stand_for(table: ComboIndex, ids: list[int], wild: int, level: int, kind: str, key: str) -> list[int] | None:
    """What each card of a play stands for so that it reads as the declared combination
    (*kind* and its key as :meth:`.words.Words.name_key` names it), or None when the cards
    cannot form it: natural cards stand for themselves, wild hearts for any non-joker card.

    >>> t, w = Guandan.combo_table(STANDARD, 4), card_id(4, HEARTS)  # level 7: 7♥ is wild
    >>> six_six_two = [card_id(3, 0), card_id(3, 1), card_id(RANK_2, 2), w, w]
    >>> [CARD_NAMES[c] for c in stand_for(t, six_six_two, w, 4, "full_house", "2")]
    ['6s', '6h', '2d', '2s', '2s']
    >>> [CARD_NAMES[c] for c in stand_for(t, six_six_two, w, 4, "full_house", "6")]
    ['6s', '6h', '2d', '6s', '2s']
    >>> stand_for(t, six_six_two, w, 4, "straight", "6") is None
    True
    """
    wilds = [k for k, c in enumerate(ids) if c == wild]
    name_key = words_of(STANDARD).name_key  # the package's words (words.py), found through its declaration

    def fits(stand: list[int]) -> bool:
        return any(c.kind == kind and name_key(c, STANDARD, level) == key
                   for c in _readings(table, stand, 0, None, declared=True))

    if fits(list(ids)):
        return list(ids)
    for ranks in combinations_with_replacement(range(RANK_2 + 1), len(wilds)) if wilds else ():
        for suit in range(4):
            stand = list(ids)
            for k, r in zip(wilds, ranks):
                stand[k] = card_id(r, suit)
            if fits(stand):
                return stand
    return None


def _readings(table: ComboIndex, cards: list[int], wilds: int, suits: set[int] | None,
              declared: bool = False) -> tuple[Combo, ...]:
    base = 0
    for card in cards:
        base += RANK_BIT[card]
    found: list[Combo] = []
    options = combinations_with_replacement(range(RANK_2 + 1), wilds) if wilds else [()]
    for extra in options:
        packed = base
        for r in extra:
            packed += 1 << (5 * r)
        for c in table.readings.get(packed, ()):
            if c not in found:
                found.append(c)
    if suits is None:  # a declared reading: its own suits
        suits = {SUIT[card] for card in cards}
    if table.flushes and len(cards) + wilds == 5 and len(suits) == 1 and -1 not in suits:
        for c in list(found):
            if c.kind == "straight":
                sf = Combo("straight_flush", 5, c.key, TIER_STRAIGHT_FLUSH)
                if sf not in found:
                    found.append(sf)
    if not declared and any(c.tier for c in found):
        # a play that reads as a bomb counts as a bomb only: the seed ranks straight flushes
        # above every 5- and 4-card bomb and bombs above every other type, which a plain
        # reading of the same cards (a straight, a full house) would undo
        found = [c for c in found if c.tier]
    found.sort(key=lambda c: (-c.tier, -c.key))
    return tuple(found)


# ---------------------------------------------------------------------- the hand

LEVEL_CYCLE = [RANK_2] + list(range(RANK_A + 1))  # 2, 3, …, K, A, then 2 again
#: each level rank's place in LEVEL_CYCLE
CYCLE_AT = {r: k for k, r in enumerate(LEVEL_CYCLE)}
#: the levels a team goes up by the first place's partner's place (else 1)
UPGRADE_BY_PLACE = {2: 3, 3: 2}


def upgrade_level(rank: int, steps: int, cycle: bool = True) -> int:
    """The level *steps* above *rank*: cycling after A back to 2, or stopping at A."""
    at = CYCLE_AT.get(rank)
    k = (LEVEL_CYCLE.index(rank) if at is None else at) + steps  # (index: its ValueError for no level)
    return LEVEL_CYCLE[k % len(LEVEL_CYCLE) if cycle else min(k, len(LEVEL_CYCLE) - 1)]


@dataclass(slots=True)
class LevelsAfter:
    """What a finished hand does to the match: levels, failures at A, the match's end.
    Read-only by convention (not frozen: one is built for every hand, and a frozen
    dataclass is built several times slower)."""

    levels: list[int]
    upgrade: int
    double_down: bool
    #: failed hands at A per team so far (only counted with ``a_fail_limit``)
    a_fails: list[int]
    #: the team that won the match in this hand (过A), or None
    match_winner: int | None


def levels_after(rules: GuandanRules, levels: list[int], level: int, order: list[int],
                 a_fails: list[int] | None = None) -> LevelsAfter:
    """The upgrade rule of docs/rules.md §6.5 for a hand played at *level* with finishing
    *order* (the first two places at least), shared by the replay and the importers.

    >>> r = levels_after(STANDARD, [RANK_A, parse_level("5")], RANK_A, [0, 1, 2, 3])
    >>> r.match_winner, [level_name(x) for x in r.levels]
    (0, ['A', '5'])
    """
    first = order[0]
    team = TEAM[first]
    partner = PARTNER[first]
    place = order.index(partner) + 1 if partner in order else 4
    upgrade = UPGRADE_BY_PLACE.get(place, 1)
    new = list(levels)
    fails = list(a_fails or (0, 0))
    winner = None
    after_a = rules.after_a
    if after_a == "win" and level == RANK_A and levels[team] == RANK_A and place != 4:
        winner = team  # 过A: first place at its own A with the partner not last
    else:
        new[team] = upgrade_level(levels[team], upgrade, after_a == "cycle")
    limit = rules.a_fail_limit
    for t in (0, 1):
        if new[t] != RANK_A:
            fails[t] = 0
        elif limit and level == RANK_A and levels[t] == RANK_A and winner != t:
            fails[t] += 1  # a hand at its level A that it did not pass
            if fails[t] >= limit:
                new[t], fails[t] = RANK_2, 0
    return LevelsAfter(new, upgrade, place == 2, fails, winner)


#: the big joker's card id (resisting, 抗贡, needs both)
BIG_JOKER = card_id(RANK_BIG_JOKER, 0)


def tribute_seats(order: list[int]) -> tuple[list[int], list[int]]:
    """Who pays tribute after a hand that ended in *order* and to whom (docs/rules.md §6.6):
    after a 双下 (the winners took places 1 and 2; *order* then lists only them) both losers,
    to places 1 and 2; otherwise the losing seat placed lowest (the last place, or the third
    when the winner's partner came last), to place 1.

    >>> tribute_seats([0, 2]), tribute_seats([1, 0, 3, 2]), tribute_seats([1, 2, 0, 3])
    (([1, 3], [0, 2]), ([2], [1]), ([0], [1]))
    """
    first, second = order[0], order[1]
    if second == PARTNER[first]:
        return [s for s in range(4) if TEAM[s] != TEAM[first]], [first, second]
    return [s for s in order if TEAM[s] != TEAM[first]][-1:], [first]


class GuandanHand(Guandan):
    """A hand of Guandan: tribute (internal checks), the play, places, upgrade, coins."""

    #: step below differs from the shared one in the tribute phase only, where the compiled
    #: kernel hands every action to it
    kernel_plays: ClassVar[bool] = True
    kernel_passes: ClassVar[bool] = True

    #: the hand's state before its first action (class attributes: set per hand on change)
    resisted = False
    big_bombs = 0
    #: who pays tribute (None: unknown without the previous hand) and to whom
    givers: list[int] | None = None
    receivers: list[int] = []  # (never changed in place)
    #: the previous hand's first place, when known
    prev_first: int | None = None

    def setup(self) -> Violation | None:
        spec = self.spec
        v = self.check_deal(spec.deal)
        if v is not None:
            return v
        levels = spec.levels or ("2", "2")
        try:  # two levels as written (parse_level's first case), each hand
            level0, level1 = levels  # (teams 0 and 1)
            self.levels = [LEVEL_NAMES[level0], LEVEL_NAMES[level1]]
        except (KeyError, TypeError, ValueError):  # anything else: parse_level's answer or error
            self.levels = [parse_level(x) for x in levels]
        if spec.match is not None:
            v = self.check_match()
            if v is not None:
                return v
        self.phase = "tribute"
        self.tributes: list[tuple[int, int, int]] = []  # (giver, receiver, card)
        self.returns: list[tuple[int, int, int]] = []
        leader = spec.leader
        if leader is not None:
            self.turn = leader
        elif self.prev_first is not None:
            self.turn = self.prev_first  # no tribute, or resisted: the previous first place leads
        return None

    def check_match(self) -> Violation | None:
        """Levels, the level played and who pays tribute follow from the previous hand."""
        match = self.spec.match
        prev = self.previous
        if not isinstance(match, dict):
            return None
        if prev is not None and prev.get("match_over"):
            return Violation(Code.BAD_MATCH, None, f"the match {match['id']} was already over: team "
                             f"{prev['match_winner']} won it at level A (过A)")
        if match["hand"] == 1:
            if self.level != RANK_2 or self.levels != [RANK_2, RANK_2]:
                return Violation(Code.BAD_MATCH, None, "the first hand of a match is played at level 2 with both teams at 2, "
                                 f"not level {level_name(self.level)} with levels {[level_name(x) for x in self.levels]}")
            return None
        if prev is None:
            return None
        order = prev["order"]
        expected = [parse_level(x) for x in prev["levels"]]
        if self.levels != expected:
            return Violation(Code.BAD_MATCH, None, f"levels {[level_name(x) for x in self.levels]} do not follow from the "
                             f"previous hand, which ended at {prev['levels']}")
        want = expected[TEAM[order[0]]]
        if self.level != want:
            return Violation(Code.BAD_MATCH, None, f"this hand is played at level {level_name(self.level)}, but the team "
                             f"that won the previous hand is at {level_name(want)}")
        self.prev_first = order[0]
        if self.rules.tribute:
            self.givers, self.receivers = tribute_seats(order)
        return None

    def opening_rule(self) -> str:
        return "the recorded leader, the seat that gave the larger tribute, or the previous first place"

    # ------------------------------------------------------------------ tribute

    def do_other(self, i: int, action: dict[str, Any]) -> Violation | None:
        act, seat = action["act"], action["seat"]
        if act not in ("tribute", "return", "resist"):
            return Violation(Code.OUT_OF_TURN, i, f"{act!r} is not an act of Guandan", seat)
        if not self.rules.tribute:
            return Violation(Code.BAD_TRIBUTE, i, f"guandan/{self.rules.variant} has no tribute", seat)
        if self.phase != "tribute":
            return Violation(Code.BAD_TRIBUTE, i, f"{act} after the play began", seat)
        if self.givers is not None and seat not in self.givers and act != "return":
            return Violation(Code.BAD_TRIBUTE, i, f"seat {seat} does not pay tribute this hand (the previous hand makes "
                             f"{' and '.join(map(str, self.givers))} pay)", seat)
        if act == "resist":
            if self.resisted:
                return Violation(Code.BAD_TRIBUTE, i, "the tribute was resisted (抗贡) already", seat)
            if self.tributes:
                return Violation(Code.BAD_TRIBUTE, i, "resisting (抗贡) after a tribute was paid", seat)
            if self.givers_big_jokers(seat, resisting=True) < 2:
                return Violation(Code.BAD_TRIBUTE, i, "resisting (抗贡) needs both big jokers in the givers' hands", seat)
            self.resisted = True
            self.events.append(Event("resist", i, seat))
            return None
        card = CARD_OF.get(action["card"])
        to = action["to"]
        if card is None:
            return Violation(Code.BAD_CARD, i, f"not a card: {action['card']!r}", seat)
        if to == seat or TEAM[to] == TEAM[seat]:
            return Violation(Code.BAD_TRIBUTE, i, f"seat {seat} gave to seat {to}, its own team", seat)
        if not self.hands[seat][card]:
            return Violation(Code.BAD_TRIBUTE, i, f"seat {seat} does not hold {action['card']}", seat)
        if act == "tribute":
            if self.resisted:
                return Violation(Code.BAD_TRIBUTE, i, "a tribute after the tribute was resisted (抗贡)", seat)
            if self.givers_big_jokers(seat) >= 2:
                return Violation(Code.BAD_TRIBUTE, i, f"{self.givers_hold(seat)} both big jokers: no tribute is "
                                 "paid, the tribute is resisted (抗贡)", seat)
            if self.givers is not None and to not in self.receivers:
                return Violation(Code.BAD_TRIBUTE, i, f"tribute goes to {' or '.join(map(str, self.receivers))}, "
                                 f"not seat {to}", seat)
            if any(g == seat for g, _, _ in self.tributes):
                return Violation(Code.BAD_TRIBUTE, i, f"seat {seat} already paid its tribute", seat)
            if any(r == to for _, r, _ in self.tributes):
                return Violation(Code.BAD_TRIBUTE, i, f"seat {to} already received a tribute", seat)
            best = max(value(RANK[c], self.level) for c in range(54) if self.hands[seat][c] and c != self.wild)
            if card == self.wild or value(RANK[card], self.level) != best:
                return Violation(Code.BAD_TRIBUTE, i, f"a tribute is the giver's highest card (never a wild heart); "
                                 f"{action['card']} is not", seat)
            self.tributes.append((seat, to, card))
        else:
            if not any(g == to and r == seat for g, r, _ in self.tributes):
                return Violation(Code.BAD_TRIBUTE, i, f"seat {seat} returns a card to seat {to}, which paid it no tribute", seat)
            if any(g == seat and r == to for g, r, _ in self.returns):
                return Violation(Code.BAD_TRIBUTE, i, f"seat {seat} already returned a card to seat {to}", seat)
            if RANK[card] == self.level or not (RANK[card] <= 7 or RANK[card] == RANK_2):
                return Violation(Code.BAD_TRIBUTE, i, f"the card returned is of rank 10 or lower and not a level card; "
                                 f"{action['card']} is not", seat)
            self.returns.append((seat, to, card))
        self.hands[seat][card] -= 1
        self.packed[seat] -= RANK_BIT[card]
        self.hands[to][card] += 1
        self.packed[to] += RANK_BIT[card]
        self.events.append(Event(act, i, seat, {"card": card, "to": to}))
        return None

    def handing_options(self, seat: int, act: str) -> list[int]:
        """The cards *seat* may hand over by *act* now, one per card name: a tribute is its
        highest card (never the wild heart), a return a card of rank 10 or lower (the 2
        counts low) that is no level card (the checks of :meth:`do_other`)."""
        held = [c for c in range(54) if self.hands[seat][c]]
        if act == "tribute":
            best = max((value(RANK[c], self.level) for c in held if c != self.wild), default=None)
            return [c for c in held if c != self.wild and value(RANK[c], self.level) == best]
        return [c for c in held if RANK[c] != self.level and (RANK[c] <= 7 or RANK[c] == RANK_2)]

    def payers(self, seat: int, resisting: bool = False) -> list[int]:
        """The seats that pay tribute this hand, as the previous hand says; unknown without it,
        the fewest they can be: *seat* and those that paid already, or, for *seat* resisting,
        its team (after a 双下 both pay)."""
        if self.givers is not None:
            return self.givers
        if resisting:
            return sorted({seat} | PARTNERS[seat])
        return sorted({seat} | {g for g, _, _ in self.tributes})

    def givers_big_jokers(self, seat: int, resisting: bool = False) -> int:
        """The big jokers the givers (:meth:`payers`) held before the tribute: those in their
        hands and those they gave (a return is never a joker)."""
        givers = self.payers(seat, resisting)
        return sum(self.hands[g][BIG_JOKER] for g in givers) + \
            sum(1 for g, _, c in self.tributes if c == BIG_JOKER and g in givers)

    def givers_hold(self, seat: int) -> str:
        """"seats 1 and 3 hold" (or "seat 1 holds"): the givers, for a message."""
        givers = self.payers(seat)
        many = len(givers) > 1
        return f"seat{'s' if many else ''} {' and '.join(map(str, givers))} hold{'' if many else 's'}"

    def start_play(self, i: int, seat: int) -> Violation | None:
        """The tribute phase ends at the first play: check it was complete, set the leader."""
        if self.givers and not self.resisted and self.givers_big_jokers(seat) >= 2:
            return Violation(Code.BAD_TRIBUTE, i, f"{self.givers_hold(seat)} both big jokers: the record says "
                             "resist (抗贡) before the play", seat)
        if self.givers is not None and not self.resisted and len(self.tributes) != len(self.givers):
            return Violation(Code.BAD_TRIBUTE, i, f"the play began before seat(s) {' and '.join(map(str, self.givers))} "
                             f"paid tribute", seat)
        if self.tributes and len(self.returns) != len(self.tributes):
            return Violation(Code.BAD_TRIBUTE, i, f"{len(self.tributes)} tributes but {len(self.returns)} returns", seat)
        if len(self.tributes) == 2 and self.givers is not None:
            (g1, r1, c1), (g2, r2, c2) = self.tributes
            v1, v2 = value(RANK[c1], self.level), value(RANK[c2], self.level)
            if v1 != v2 and (r1 if v1 > v2 else r2) != self.receivers[0]:
                return Violation(Code.BAD_TRIBUTE, i, f"after 双下 the larger tribute goes to the first place, seat "
                                 f"{self.receivers[0]}", seat)
        self.phase = "play"
        if self.tributes and not self.resisted:
            # the seat that gave the larger tribute leads (equal tributes: the one given to first place)
            first = self.receivers[0] if self.receivers else -1
            giver = max(self.tributes, key=lambda t: (value(RANK[t[2]], self.level), t[1] == first))[0]
            self.turn = giver
        elif self.turn < 0:
            self.turn = seat  # unknown without the previous hand: the first play names the leader
        return None

    def step(self, i: int, action: dict[str, Any]) -> Violation | None:
        if self.phase == "tribute" and action["act"] in ("play", "pass"):
            v = self.start_play(i, action["seat"])
            if v is not None:
                return v
        return super().step(i, action)

    # ------------------------------------------------------------------ play and end

    def on_play(self, i: int, seat: int, ids: list[int], readings: tuple[Combo, ...], led: bool) -> None:
        c = readings[0]
        if c.tier:
            if c.kind in ("straight_flush", "joker_bomb") or c.size >= self.rules.double_bomb_size:
                self.big_bombs += 1
            self.events.append(Event(c.kind, i, seat, {"size": c.size}))
        self.note_play(i, seat, c, led)

    def on_out(self, i: int, seat: int) -> None:
        """The hand ends when a team has both seats out (with three out, that is always so)."""
        out = self.out
        if PARTNER[seat] in out:
            self.over = True
            self.end_reason = "out"
            if len(out) == 3:  # the last seat takes the last place
                out.append(next(s for s in range(4) if s not in out))
            self.after = after = self.match_after()  # kept for the outcome: the hand is over
            winner = after.match_winner
            if winner is not None:
                self.events.append(Event("match_won", i, out[0], {"team": winner}))

    def leader_after_out(self, seat: int) -> int:
        partner = PARTNER[seat]
        return partner if self.active[partner] else self.next_active(seat)

    def multiplier_now(self) -> int:
        return 1 << self.big_bombs

    def legal_moves(self, seat: int | None = None) -> list[tuple[list[int], tuple[Combo, ...]]]:
        return legal_moves(self, seat)  # with wild hearts, below

    def count_moves(self, seat: int) -> int:
        return count_moves(self, seat)  # len(legal_moves), below

    #: the hand's effect on the match, kept when the hand ends (on_out)
    after: LevelsAfter | None = None

    def match_after(self) -> LevelsAfter:
        """The hand's effect on the match (levels, failures at A, a won match)."""
        prev = self.previous or {}
        return levels_after(self.rules, self.levels, self.level, self.out, prev.get("a_fails"))

    def outcome(self) -> dict[str, Any]:
        order = self.out
        if self.end_reason == "escape":
            return {"order": list(order), "escape": self.escaper, "scores": [0] * 4}
        team = TEAM[order[0]]
        after = self.after or self.match_after()
        mult = 1 << self.big_bombs  # (multiplier_now)
        a, b, c, d = WINNERS[team]  # each seat: on the winning team? (four seats)
        lost = -mult
        winner = after.match_winner
        levels = after.levels
        out: dict[str, Any] = {
            "order": order.copy(), "winning_team": team, "double_down": after.double_down, "upgrade": after.upgrade,
            "levels": [RANK_NAMES[levels[0]], RANK_NAMES[levels[1]]] if len(levels) == 2 else list(map(level_name, levels)),
            "multiplier": mult, "scores": [mult if a else lost, mult if b else lost, mult if c else lost, mult if d else lost],
            "match_over": winner is not None}
        if winner is not None:
            out["match_winner"] = winner
        if self.rules.a_fail_limit:
            out["a_fails"] = list(after.a_fails)  # (its own list: the kept one is read again)
        room = self.spec.room
        if "coef" in room:  # coins_wanted(), inline
            x, fee = room.get("base", 1), room.get("fee", 0)
            won = x * room["coef"] * mult
            gain, loss = won - fee, -(won + fee)
            out["coins"] = [gain if a else loss, gain if b else loss, gain if c else loss, gain if d else loss]
        return out

    def canonical_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """Levels in a declared result read ``T`` and ``10`` alike."""
        if "levels" not in result:
            return result
        return {**result, "levels": canonical_levels(result["levels"])}




# ---------------------------------------------------------------------- legal moves

#: the cards of each straight flush: STRAIGHT_FLUSH_CARDS[suit][start position]
STRAIGHT_FLUSH_CARDS = [[[card_id(POSITION_RANK[p], suit) for p in range(start, start + 5)] for start in range(10)]
                        for suit in range(4)]


def legal_moves(self: GuandanHand, seat: int | None = None) -> list[tuple[list[int], tuple[Combo, ...]]]:
    """Every play the seat may make now, as concrete cards with their readings: each
    rank-level combination the hand can make with its natural cards plus wild hearts (the
    lowest cards of each rank, wilds for the shortage), and each straight flush. The same
    moves, in the same order, as :func:`legal_moves_reference`, which classifies every
    candidate again card by card; here candidates come from rank counts and the number of
    wilds (:class:`WildMoves`) and readings are cached by that name."""
    seat = self.turn if seat is None else seat
    hand = self.hands[seat]
    wild = self.wild
    wilds = hand[wild]
    last = self.last
    table = self.combos
    gen = WildMoves.of(table, 4, FLUSHABLE)
    by_rank = cards_by_rank(hand, wild)
    moves = gen.moves(by_rank, [wild] * wilds, self.packed[seat] - (wilds << (5 * self.level)), last,
                      lambda cards: classify_cards(table, cards, wild))
    if not table.flushes or last is not None and last[0].tier > TIER_STRAIGHT_FLUSH:
        return list(moves)  # five cards of five ranks read as a straight flush at best
    for suit in range(4):  # straight flushes
        ends = flush_windows(hand, suit, wilds, self.level)
        while ends:
            bit = ends & -ends
            ends ^= bit
            have = [c for c in STRAIGHT_FLUSH_CARDS[suit][bit.bit_length() // 8 - 5] if hand[c] and c != wild]
            missing = 5 - len(have)
            moves.add(have + [wild] * missing, sum(RANK_BIT[c] for c in have), missing, flush=True)
    return list(moves)


def count_moves(self: GuandanHand, seat: int) -> int:
    """``len(legal_moves(self, seat))``, counted without making the moves
    (:meth:`WildMoves.count`): a straight flush is the move of a table entry already
    counted when that entry's lowest cards are the same cards (all of the flush's suit)."""
    hand = self.hands[seat]
    wild = self.wild
    wilds = hand[wild]
    last = self.last
    table = self.combos
    gen = WildMoves.of(table, 4, FLUSHABLE)
    classify = _COUNT_CLASSIFY.get((id(table), wild))
    if classify is None:
        classify = _COUNT_CLASSIFY[id(table), wild] = _classifier(table, wild)
    n, one_suit, _, _ = gen.count(hand, wild, [wild] * wilds, self.packed[seat] - (wilds << (5 * self.level)),
                            last, classify)
    if not table.flushes or last is not None and last[0].tier > TIER_STRAIGHT_FLUSH:
        return n
    memo = gen.memo
    seen: set[tuple[int, ...]] = set()
    ends = flush_ends(hand, wilds, self.level)  # straight flushes: every suit's windows at once
    while ends:
        bit = ends & -ends
        ends ^= bit
        at = bit.bit_length() // 8 - 1  # the byte of the window's top: 4 x position + suit
        suit = at & 3
        have = [c for c in STRAIGHT_FLUSH_CARDS[suit][(at >> 2) - 4] if hand[c] and c != wild]
        cards = tuple(have)
        if cards in seen:
            continue  # the same cards as a window before (wild hearts in other places)
        seen.add(cards)
        missing = 5 - len(have)
        natural = sum(RANK_BIT[c] for c in have)
        key = (natural & LOW40, natural >> 40, missing)
        if one_suit.get(key) == suit:
            continue  # the table entry's move: the same cards
        readings = memo.get((key, True))
        if readings is None:
            readings = classify(have + [wild] * missing)
            gen.remember((key, True), readings)
        if readings and (last is None or any_beats(readings, last)):
            n += 1
    return n


def _classifier(table: ComboIndex, wild: int) -> Callable[[list[int]], tuple[Combo, ...]]:
    return lambda cards: classify_cards(table, cards, wild)


#: count_moves' classification of cards by table (whose identity the function keeps) and wild card
_COUNT_CLASSIFY: dict[tuple[int, int], Callable[[list[int]], tuple[Combo, ...]]] = {}

FLUSHABLE = frozenset({"straight"})


def legal_moves_reference(self: GuandanHand, seat: int | None = None) -> list[tuple[list[int], tuple[Combo, ...]]]:
    """The slow reference for :func:`legal_moves`: every table entry and straight flush
    built into cards and classified card by card."""
    seat = self.turn if seat is None else seat
    hand = self.hands[seat]
    wild = self.wild
    wilds = hand[wild]
    by_rank: dict[int, list[int]] = {}
    for c in range(54):
        if hand[c] and c != wild:
            by_rank.setdefault(RANK[c], []).extend([c] * hand[c])
    nat = [len(by_rank.get(r, ())) for r in range(15)]
    seen: set[tuple[int, ...]] = set()
    moves = []

    def add(cards: list[int]) -> None:
        key = tuple(sorted(cards))
        if key in seen:
            return
        seen.add(key)
        readings = classify_cards(self.combos, cards, wild)
        if readings and (self.last is None or any_beats(readings, self.last)):
            moves.append((cards, readings))

    for packed in self.combos.readings:
        need = [(packed >> (5 * r)) & 31 for r in range(15)]
        if need[13] > nat[13] or need[14] > nat[14]:
            continue
        short = sum(max(0, need[r] - nat[r]) for r in range(13))
        if short > wilds:
            continue
        cards = []
        for r in range(15):
            if need[r]:
                cards += by_rank.get(r, [])[:need[r]]
        add(cards + [wild] * short)
    for suit in range(4 if self.combos.flushes else 0):  # straight flushes (none without the kind)
        for start in range(10):
            want = [card_id(POSITION_RANK[p], suit) for p in range(start, start + 5)]
            have = [c for c in want if hand[c] and c != wild]
            missing = 5 - len(have)
            if missing <= wilds:
                add(have + [wild] * missing)
    return moves


def _classify(rules: Rules, ids: list[int], level: str | None) -> tuple[Combo, ...]:
    """Readings of *ids* at *level* (default 2), the level's hearts wild."""
    rank = parse_level(level)
    # the registry passes this game's own rules
    return classify_cards(GuandanHand.combo_table(rules, rank), ids, card_id(rank, HEARTS))  # type: ignore[arg-type]


GAME = Game(
    name="guandan", title="Guandan", title_zh="掼蛋", aliases=("gd", "掼蛋", "摜蛋"),
    variants={"standard": STANDARD, "no_tribute": NO_TRIBUTE}, engine=GuandanHand, kinds=KINDS,
    teams=((0, 2), (1, 3)), matches=True, parse_level=parse_level,
    outcome_columns={"winning_team": "int8", "double_down": "bool", "upgrade": "int16",
                     "level": "string", "levels_after": "list<string>", "match_over": "bool"},
    stats=("guandan",), classify=_classify,
    report={"metrics": ("double_down", "first_lead", "bomb_hands", "escape"),
            "charts": ("seat_advantage", "first_lead", "double_down", "upgrade", "tribute", "bomb_hands", "bombs_by_kind",
                       "bombs_by_seat", "coins_tail", "ends", "compare")},
)

#: each seat's team and partner, from the declaration above (indexed on the hot paths)
TEAM = GAME.seat_teams()
PARTNERS = GAME.seat_partners()
PARTNER = tuple(min(p) for p in PARTNERS)
#: for each team, whether each seat plays on it
WINNERS = tuple(tuple(TEAM[s] == team for s in range(4)) for team in (0, 1))
