"""双扣 Shuangkou: shuangkou/huopin (火拼双扣), as docs/rules.md states it.

What differs from the shared table: all four jokers are wild (a lone joker is itself, two
jokers alone a pair above the twos, three and four jokers bombs), bombs of 4–12 cards,
bomb chains of three or more adjacent bombs (2 may join A and 3), stars and their
comparison (seed sections A–E), the end at the first seat out, 双扣/单扣/平扣.

Bomb strength is one integer (``Combo.key``, all bombs ``tier`` 1): stars, then the class
(plain 2 > chain 1 > joker bombs 0), then for chains the number of bombs, the number of
cards, and the ranks of the bombs from the biggest bomb down.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any, ClassVar


from ...cards import (BIG_JOKER, CARD_OF, DECK_108, GUARD, RANK, RANK_2, RANK_A, RANK_BIG_JOKER, RANK_BIT, RANK_SMALL_JOKER,
                     SMALL_JOKER)
from ...combos import (
    NATURAL, NORMAL, Combo, ComboIndex, above, any_beats, at_least, capped, cards_by_rank, chains, count_at,
    iter_ranks, packed_of, positions, runs, strongest, window_holds,
)
from ...game import Game
from ...kernel import compiled
from ...rules import Rules
from ...table import Table
from ...verdicts import Code, Event, Violation
from ...wild import LOW40, WildMoves

KINDS = {
    "single": "单张", "pair": "对子", "triple": "三张", "straight": "顺子", "pair_chain": "连对",
    "triple_chain": "连三张", "bomb": "炸弹", "bomb_chain": "连炸", "three_joker_bomb": "三王炸弹",
    "four_joker_bomb": "天王炸弹",
}
TIER_BOMB = 1
CLASS_JOKERS, CLASS_CHAIN, CLASS_PLAIN = 0, 1, 2
STAR_CAP = 9
#: sequence orders a bomb chain may follow: 3..K A 2 (2 high), and A 2 3..K (A and 2 low)
ORDER_HIGH = list(range(RANK_2 + 1))
ORDER_LOW = [RANK_A, RANK_2] + list(range(RANK_A))


@dataclass(frozen=True)
class ShuangkouRules(Rules):
    kinds: frozenset[str] = frozenset(KINDS)
    straight_min: int = 5
    pair_chain_min: int = 3
    triple_chain_min: int = 3
    #: the fewest bombs in a bomb chain: the seed's "2个以上" is read both ways (rules.md)
    chain_min_bombs: int = 3
    max_bomb: int = 12
    escape_base_multiple: int = 128

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.chain_min_bombs < 2:
            raise ValueError(f"params.chain_min_bombs: expected 2 or more, got {self.chain_min_bombs!r}")


HUOPIN = ShuangkouRules(game="shuangkou", variant="huopin", players=4, deck=DECK_108, max_play=27)


def bomb_key(stars: int, cls: int, bombs: int = 0, cards: int = 0, ranks: tuple[int, ...] = ()) -> int:
    """The comparison key of a bomb: stars, class, bombs, cards, then ranks (5 bits each)."""
    code = 0
    for k in range(6):
        code = code * 32 + (ranks[k] + 3 if k < len(ranks) else 0)
    return ((((stars * 4 + cls) * 16 + bombs) * 32 + cards) << 30) | code


def stars_of(c: Combo) -> int:
    """The stars of a bomb reading (0 for other plays)."""
    return c.key >> 41 if c.tier else 0


def iter_combos(rules: ShuangkouRules) -> Iterator[tuple[int, Combo]]:
    """The combinations of natural cards (jokers are assigned ranks before the lookup)."""
    kinds = rules.kinds
    for n, kind in ((1, "single"), (2, "pair"), (3, "triple")):
        if kind in kinds:
            for r in range(RANK_2 + 1):
                yield packed_of({r: n}), Combo(kind, n, r)
    for unit, kind, low in ((1, "straight", rules.straight_min), (2, "pair_chain", rules.pair_chain_min),
                            (3, "triple_chain", rules.triple_chain_min)):
        if kind in kinds:
            for chain in chains(0, RANK_A, low, rules.max_play // unit):
                yield packed_of({r: unit for r in chain}), Combo(kind, unit * len(chain), chain[-1])
    if "bomb" in kinds:
        for r in range(RANK_2 + 1):
            for size in range(4, rules.max_bomb + 1):
                yield packed_of({r: size}), Combo("bomb", size, bomb_key(size, CLASS_PLAIN, ranks=(r,)), TIER_BOMB)


def bomb_chain(counts: list[int], rules: ShuangkouRules) -> Combo | None:
    """The bomb-chain reading of per-rank counts, if they are 3+ adjacent bombs."""
    ranks = [r for r in range(RANK_2 + 1) if counts[r]]
    if len(ranks) < rules.chain_min_bombs or any(counts[r] < 4 for r in ranks):
        return None
    for order in (ORDER_HIGH, ORDER_LOW):
        pos = sorted(order.index(r) for r in ranks)
        if pos[-1] - pos[0] == len(pos) - 1:
            low = order is ORDER_LOW and RANK_2 in ranks and 0 in ranks
            value = {RANK_A: -2, RANK_2: -1} if low else {}
            sizes = sorted(((counts[r], value.get(r, r)) for r in ranks), reverse=True)
            stars = min(counts[r] for r in ranks) + len(ranks)
            total = sum(counts[r] for r in ranks)
            return Combo("bomb_chain", total, bomb_key(stars, CLASS_CHAIN, len(ranks), total,
                                                         tuple(v for _, v in sizes)), TIER_BOMB)
    return None


def classify_cards(table: ComboIndex, rules: ShuangkouRules, ids: list[int]) -> tuple[Combo, ...]:
    """Every reading of a Shuangkou play, at its strongest of each kind (jokers are wild)."""
    jokers = [c for c in ids if c >= 52]
    base = 0
    for c in ids:
        if c < 52:
            base += RANK_BIT[c]
    if not base:
        return _jokers_alone(jokers)
    if not jokers and len(ids) < 4 * rules.chain_min_bombs:
        return table.readings.get(base, ())  # natural cards, no chain possible: one lookup
    found: list[Combo] = []
    if not jokers:  # natural cards: one lookup
        found.extend(table.readings.get(base, ()))
    else:
        # a reading is a table entry of the play's size that contains the natural cards:
        # the jokers are the difference (no need to try every assignment of the jokers)
        for packed, readings in _by_size(table).get(len(ids), ()):
            if ((packed | GUARD) - base) & GUARD == GUARD:
                for reading in readings:
                    if reading not in found:
                        found.append(reading)
    if len(ids) >= 4 * rules.chain_min_bombs:
        for chain in chain_readings([(base >> (5 * r)) & 31 for r in range(RANK_2 + 1)], len(jokers), rules):
            if chain not in found:
                found.append(chain)
    if any(c.tier for c in found):  # bombs beat every other type: a play that is a bomb counts as one
        found = [c for c in found if c.tier]
    return tuple(sorted(strongest(tuple(found)), key=lambda c: (-c.tier, -c.key)))


def chain_readings(counts: list[int], jokers: int, rules: ShuangkouRules) -> list[Combo]:
    """Every bomb-chain reading of natural per-rank counts plus *jokers*: for each run of
    adjacent ranks that holds every natural rank and that the jokers can fill to four a
    rank, each way of adding the jokers left over to the run's bombs."""
    natural = [r for r in range(RANK_2 + 1) if counts[r]]
    if not natural:
        return []
    out: list[Combo] = []
    for order in (ORDER_HIGH, ORDER_LOW):
        pos = [order.index(r) for r in natural]
        lo, hi = min(pos), max(pos)
        for a in range(lo, -1, -1):
            for b in range(hi, len(order)):
                run = order[a:b + 1]
                if len(run) < rules.chain_min_bombs:
                    continue
                short = sum(max(0, 4 - counts[r]) for r in run)
                if short > jokers:
                    break
                base = list(counts)
                for r in run:
                    base[r] = max(4, base[r])
                for extra in combinations_with_replacement(run, jokers - short):
                    c = list(base)
                    for r in extra:
                        c[r] += 1
                    chain = bomb_chain(c, rules)
                    if chain is not None and chain not in out:
                        out.append(chain)
    return out


_SIZES: dict[int, dict[int, list[tuple[int, tuple[Combo, ...]]]]] = {}


def _by_size(table: ComboIndex) -> dict[int, list[tuple[int, tuple[Combo, ...]]]]:
    """The table's entries grouped by number of cards (built once per table)."""
    found = _SIZES.get(id(table))
    if found is None:
        found = {}
        for packed, readings in table.readings.items():
            size = sum((packed >> (5 * r)) & 31 for r in range(15))
            found.setdefault(size, []).append((packed, readings))
        _SIZES[id(table)] = found
    return found


def _jokers_alone(jokers: list[int]) -> tuple[Combo, ...]:
    n = len(jokers)
    if n == 1:
        return (Combo("single", 1, RANK[jokers[0]]),)
    if n == 2:  # big+big > big+small > small+small, all above a pair of twos
        return (Combo("pair", 2, RANK_2 + 1 + sum(RANK[c] - RANK_SMALL_JOKER for c in jokers)),)
    if n == 3:
        return (Combo("three_joker_bomb", 3, bomb_key(6, CLASS_JOKERS), TIER_BOMB),)
    if n == 4:
        return (Combo("four_joker_bomb", 4, bomb_key(7, CLASS_JOKERS), TIER_BOMB),)
    return ()


# ---------------------------------------------------------------------- beating-play check

UNIT = {"straight": 1, "pair_chain": 2, "triple_chain": 3}


def beating_exists(natural: int, small: int, big: int, last: Combo, rules: ShuangkouRules) -> bool:
    """True if a hand (packed natural counts, small and big jokers held) holds a play that
    beats *last*: direct tests per kind, the jokers filling shortages."""
    found = beats_but_chains(natural, small, big, last, rules.kinds, rules.max_bomb, rules.chain_min_bombs)
    return chain_beats(natural, small + big, last.key, rules) if found is None else found


def beats_but_chains(natural: int, small: int, big: int, last: Combo, kinds: frozenset[str], max_bomb: int,
                     chain_min: int) -> bool | None:
    """:func:`beating_exists` but for bomb chains: True or False, or None where a bomb is on
    the table and a chain of *chain_min* bombs could be made at all (:func:`chain_beats`
    then answers). The reference of the compiled kernel's ``shuangkou_beats``."""
    jokers = small + big
    key = last.key
    if not last.tier:
        if same_kind_exists(natural, small, big, last):
            return True
        return bool("bomb" in kinds and at_least(natural, max(1, 4 - jokers)) & NORMAL) or (
            jokers >= 3 and "three_joker_bomb" in kinds) or (jokers == 4 and "four_joker_bomb" in kinds)
    stars = key >> 41
    if "bomb" in kinds:
        for r in iter_ranks(at_least(natural, max(1, 4 - jokers)) & NORMAL):
            size = min(max_bomb, count_at(natural, r) + jokers)
            if size > stars or (size == stars and bomb_key(size, CLASS_PLAIN, ranks=(r,)) > key):
                return True
    if (jokers >= 3 and "three_joker_bomb" in kinds and bomb_key(6, CLASS_JOKERS) > key) or (
            jokers == 4 and "four_joker_bomb" in kinds and bomb_key(7, CLASS_JOKERS) > key):
        return True
    return None if "bomb_chain" in kinds and chain_possible(natural, jokers, chain_min) else False


#: the compiled kernel's seam: its shuangkou_beats where it is built (the same answers, and
#: None also for a value it does not take: beating_exists then answers), else
#: beats_but_chains (replay/_kernel.pyx; tests/test_kernel.py compares the two)
BEATING_EXISTS: Callable[[int, int, int, Combo, frozenset[str], int, int], bool | None] = (
    beats_but_chains if compiled is None else compiled.shuangkou_beats)


def same_kind_exists(natural: int, small: int, big: int, last: Combo) -> bool:
    """A play of the kind and size of the (non-bomb) *last* with a higher key."""
    key, kind = last.key, last.kind
    jokers = small + big
    if kind == "single":
        return bool(at_least(natural, 1) & above(key)) or (small > 0 and key < RANK_SMALL_JOKER) or (
            big > 0 and key < RANK_BIG_JOKER)
    if kind == "pair":  # jokers alone: a pair above the twos, by the number of big jokers
        return bool(at_least(natural, max(1, 2 - jokers)) & NORMAL & above(key)) or (
            jokers >= 2 and RANK_2 + 1 + min(big, 2) > key)
    if kind == "triple":
        return bool(at_least(natural, max(1, 3 - jokers)) & NORMAL & above(key))
    unit = UNIT[kind]
    length = last.size // unit
    held = capped(natural & ((1 << (5 * (RANK_A + 1))) - 1), unit)
    return window_holds(held, length, unit * length - jokers, key - length + 2, RANK_A + 1 - length)


def chain_beats(natural: int, jokers: int, key: int, rules: ShuangkouRules) -> bool:
    """A bomb chain above the bomb *key* (only asked when a bomb is on the table): for each
    run of adjacent ranks the jokers can fill to four a rank (its short count kept as the
    run grows), the strongest chain's stars by water-filling the jokers left over into the
    smallest bombs, then the class, the number of bombs and of cards compared with the
    key's; only a run that ties *key* on all of these tries each way of adding its jokers
    (:func:`run_beats`). The same answers as :func:`chain_beats_by_enumeration`."""
    shortest = rules.chain_min_bombs
    if not chain_possible(natural, jokers, shortest):
        return False
    counts = [count_at(natural, r) for r in range(RANK_2 + 1)]
    top = key >> 30  # the key's stars, class, bombs and cards
    for order in (ORDER_HIGH, ORDER_LOW):
        size = len(order)
        for a in range(size - shortest + 1):
            short = total = 0
            base: list[int] = []
            for b in range(a, size):
                n = counts[order[b]]
                if n < 4:
                    short += 4 - n
                    if short > jokers:
                        break
                    n = 4
                base.append(n)
                total += n
                length = b - a + 1
                if length < shortest:
                    continue
                spare = jokers - short
                # the most stars: the jokers left raise the smallest bombs one level at a time
                level = min(base)
                while True:
                    need = sum(level + 1 - x for x in base if x <= level)
                    if need > spare:
                        break
                    level += 1
                # the strongest chain's stars, class, bombs and cards against the key's (of
                # these only the stars differ between the ways of adding the jokers)
                mine = (((level + length) * 4 + CLASS_CHAIN) * 16 + length) * 32 + total + spare
                if mine != top:
                    if mine > top:
                        return True
                    continue
                if run_beats(order[a:b + 1], counts, spare, key, rules):
                    return True
    return False


def chain_possible(natural: int, jokers: int, shortest: int) -> bool:
    """Whether a bomb chain of *shortest* bombs can be made at all: a run of that many
    adjacent ranks (A low or high) each of which the *jokers* could fill to four."""
    fill = at_least(natural, 4 - jokers) & NORMAL if jokers < 4 else NORMAL
    return bool(runs(fill, shortest) or runs(positions(fill), shortest))


def run_beats(run: list[int], counts: list[int], spare: int, key: int, rules: ShuangkouRules) -> bool:
    """A chain over *run* (every natural card of its ranks, each filled to four) with the
    *spare* jokers added in some way, above the bomb *key*."""
    base = [0] * (RANK_2 + 1)
    for r in run:
        base[r] = max(4, counts[r])
    for extra in combinations_with_replacement(run, spare):
        c = list(base)
        for r in extra:
            c[r] += 1
        chain = bomb_chain(c, rules)
        if chain is not None and chain.key > key:
            return True
    return False


def chain_beats_by_enumeration(natural: int, jokers: int, key: int, rules: ShuangkouRules) -> bool:
    """The definition :func:`chain_beats` answers by direct tests (the reference of
    tests/test_can_beat.py): every run of adjacent ranks the jokers can fill to four a
    rank, with every natural card of its ranks, and each way of adding the jokers left over."""
    counts = [count_at(natural, r) for r in range(RANK_2 + 1)]
    for order in (ORDER_HIGH, ORDER_LOW):
        for a in range(len(order)):
            for b in range(a + rules.chain_min_bombs, len(order) + 1):
                run = order[a:b]
                short = sum(max(0, 4 - counts[r]) for r in run)
                if short > jokers:
                    break
                if run_beats(run, counts, jokers - short, key, rules):
                    return True
    return False


class Shuangkou(Table):
    """One hand of Shuangkou."""

    rules: ShuangkouRules  # the game's own rules (set by Table.__init__)


    plain_lookup: ClassVar[bool] = False
    #: do_play below only names the leader when none was recorded (turn -1), a play the
    #: compiled kernel hands to it
    kernel_plays: ClassVar[bool] = True
    iter_combos = staticmethod(iter_combos)  # type: ignore[assignment]

    def wild_cards(self) -> frozenset[int]:
        return frozenset((SMALL_JOKER, BIG_JOKER))

    def classify(self, ids: Sequence[int], packed: int, declared: list[str] | None) -> tuple[Combo, ...]:
        if declared is not None:
            stand = []
            for c, token in zip(ids, declared):
                d = CARD_OF.get(token)
                if d is None or (RANK[c] < RANK_SMALL_JOKER and d != c):
                    return ()
                stand.append(d)
            if len(stand) != len(ids):
                return ()
            jokers = [c for c in stand if RANK[c] >= RANK_SMALL_JOKER]
            if jokers and len(jokers) < len(stand):
                return ()  # a declared reading names the rank each joker stands for
            return classify_cards(self.combos, self.rules, stand)
        # the readings depend on the natural counts and the number of jokers (alone: which)
        natural = packed & NATURAL
        name = (natural, len(ids)) if natural else tuple(sorted(ids))
        return self.combos.cached(name, lambda: classify_cards(self.combos, self.rules, list(ids)))

    def setup(self) -> Violation | None:
        v = self.check_deal(self.spec.deal)
        if v is not None:
            return v
        leader = self.spec.leader
        lead_card = self.spec.lead_card
        if leader is None and lead_card is not None:
            holders = [s for s in range(4) if self.hands[s][CARD_OF[lead_card]]]
            if len(holders) == 1:
                leader = holders[0]
            else:
                return Violation(Code.BAD_RECORD, None, f"both copies of {lead_card} were dealt to seats {holders}: "
                                 "the record must name the leader")
        if leader is not None and lead_card is not None and not self.hands[leader][CARD_OF[lead_card]]:
            return Violation(Code.BAD_DEAL, None, f"the leader, seat {leader}, was not dealt the drawn card {lead_card}")
        self.turn = leader if leader is not None else -1
        self.stars = [0] * 4
        self.escaper: int | None = None
        return None

    def opening_rule(self) -> str:
        return "the holder of the drawn card leads"

    def known_cards(self, viewer: int, played: list[list[tuple[int, int]]]) -> dict[int, list[int]]:
        """The drawn card (``lead_card``, face up) in the first leader's hand until it
        plays a card of that name (which may be the other copy: then nothing is known)."""
        card = CARD_OF.get(self.spec.lead_card or "")
        firsts = [(plays[0][0], s) for s, plays in enumerate(played) if plays]
        leader = self.spec.leader if self.spec.leader is not None else min(firsts)[1] if firsts else None
        if card is None or leader is None or leader == viewer or any(c == card for _, c in played[leader]):
            return {}
        return {leader: [card]}

    def legal_moves(self, seat: int | None = None) -> list[tuple[list[int], tuple[Combo, ...]]]:
        return legal_moves(self, seat)  # with wild jokers, below

    def count_moves(self, seat: int) -> int:
        return count_moves(self, seat)  # len(legal_moves), below

    def beats_exist(self, seat: int, last: Combo) -> bool:
        hand = self.hands[seat]
        rules = self.rules
        natural = self.packed[seat] & NATURAL
        found = BEATING_EXISTS(natural, hand[52], hand[53], last, rules.kinds, rules.max_bomb, rules.chain_min_bombs)
        return found if found is not None else beating_exists(natural, hand[52], hand[53], last, rules)

    def do_play(self, i: int, action: dict[str, Any]) -> Violation | None:
        if self.turn < 0:
            self.turn = action["seat"]  # no drawn card recorded: the first play names the leader
        return super().do_play(i, action)

    def on_play(self, i: int, seat: int, ids: list[int], readings: tuple[Combo, ...], led: bool) -> None:
        c = readings[0]
        if c.tier:
            stars = stars_of(c)
            self.stars[seat] += stars
            self.events.append(Event(c.kind, i, seat, {"stars": stars, "cards": c.size}))
        self.note_play(i, seat, c, led)

    def outcome(self) -> dict[str, Any]:
        room = self.spec.room
        base = room.get("base", 1)
        out: dict[str, Any] = {"order": list(self.out), "stars": [min(s, STAR_CAP) for s in self.stars]}
        if self.end_reason == "escape":
            penalty = base * self.rules.escape_base_multiple
            escaper = self.escaper
            assert escaper is not None  # end_reason == "escape"
            scores = [0] * 4
            scores[escaper] = -penalty
            out.update(escape=self.escaper, scores=scores)
            if "coef" in room or "fee" in room:
                coins = [0] * 4
                coins[escaper] = -(penalty + room.get("fee", 0))
                out["coins"] = coins
            return out
        winner = self.out[0]
        team = TEAM[winner]
        left = sum(self.left[s] for s in range(4) if TEAM[s] != team)
        kou = "double" if left >= 12 else "single" if left >= 7 else "flat"
        mult = {"double": 3, "single": 2, "flat": 1}[kou]
        scores = [base * mult if TEAM[s] == team else -base * mult for s in range(4)]
        out.update(winner=winner, winning_team=team, kou=kou, kou_multiplier=mult, cards_left_losers=left,
                   scores=scores)
        return out



# ---------------------------------------------------------------------- legal moves


def legal_moves(self: Shuangkou, seat: int | None = None) -> list[tuple[list[int], tuple[Combo, ...]]]:
    """Plays the seat may make now, as concrete cards with their readings: each natural
    combination the hand can make with its jokers (the lowest cards of each rank, jokers for
    the shortage), the joker-only plays, and one bomb chain per run of adjacent ranks (every
    natural card of each rank, jokers filling a rank up to four). The same moves, in the
    same order, as :func:`legal_moves_reference`; candidates come from rank counts and the
    number of jokers (:class:`WildMoves`) and readings are cached by that name."""
    seat = self.turn if seat is None else seat
    hand = self.hands[seat]
    last = self.last
    table, rules = self.combos, self.rules
    gen = WildMoves.of(table, 3)  # three jokers alone are a bomb
    by_rank = cards_by_rank(hand)  # (the jokers' lists: unused by the natural table's entries)
    jokers = by_rank[RANK_SMALL_JOKER] + by_rank[RANK_BIG_JOKER]
    natural = self.packed[seat] & NATURAL
    moves = gen.moves(by_rank, jokers, natural, last, lambda cards: classify_cards(table, rules, cards))
    for k, combo in joker_plays(hand[52], hand[53]):  # jokers alone: singles, the pair, the joker bombs
        moves.add(list(combo), 0, k)
    most, shortest = len(jokers), rules.chain_min_bombs
    if not chain_possible(natural, most, shortest):
        return list(moves)
    lack = [max(0, 4 - len(x)) for x in by_rank]
    for order in (ORDER_HIGH, ORDER_LOW):
        for start in range(len(order)):
            short = 0
            for end in range(start, len(order)):
                short += lack[order[end]]
                if short > most:
                    break
                if end - start + 1 >= shortest:
                    run = order[start:end + 1]
                    cards = [c for r in run for c in by_rank[r]]
                    if len(cards) + short <= 27:
                        moves.add(cards + jokers[:short], sum(len(by_rank[r]) << (5 * r) for r in run), short)
    return list(moves)



def count_moves(self: Shuangkou, seat: int) -> int:
    """``len(legal_moves(self, seat))``, counted without making the moves
    (:meth:`WildMoves.count`). A joker-only play is the table entries' move of the same
    name when that move's jokers are the same cards; a bomb chain is that of any table
    entry of its name (both take every natural card of its ranks and the lowest jokers)."""
    hand = self.hands[seat]
    last = self.last
    table, rules = self.combos, self.rules
    gen = WildMoves.of(table, 3)
    small, big = hand[52], hand[53]
    jokers = [52] * small + [53] * big
    natural = self.packed[seat] & NATURAL
    chains = _chains_of(hand, natural, small + big, rules.chain_min_bombs)
    got = _COUNT_CLASSIFY.get(id(table))
    if got is None or got[0] is not rules:
        got = _COUNT_CLASSIFY[id(table)] = (rules, _classifier(table, rules))
    classify = got[1]
    n, _, made, alone = gen.count(hand, -1, jokers, natural, last, classify, names=chains is not None)
    if not (jokers or chains is not None):
        return n
    memo = gen.memo
    found: list[tuple[object, list[int]]] = []  # the plays beside the table entries' moves: (name, cards)
    for k, combo in joker_plays(small, big):
        if not (alone >> k & 1 and tuple(jokers[:k]) == combo):  # (both sorted: small jokers first)
            found.append((combo, list(combo)))
    if chains:
        assert made is not None  # (names asked: a chain is possible)
        found += [chain for chain in chains if chain[0] not in made]  # else the same cards: every natural
    for name, cards in found:  # card of the ranks, the lowest jokers
        readings = memo.get(name)
        if readings is None:
            readings = classify(cards)
            gen.remember(name, readings)
        if readings and (last is None or any_beats(readings, last)):
            n += 1
    return n


def _chains_of(hand: bytearray, natural: int, most: int, shortest: int
               ) -> list[tuple[tuple[int, int, int], list[int]]] | None:
    """The bomb chains :func:`legal_moves` would try for *hand* (card counts by id; its
    *natural* packed counts and *most* jokers), each once by name with its cards (every
    natural card of the run's ranks, the lowest jokers for the shortage), in that order;
    None if no chain of *shortest* bombs is possible at all (:func:`chain_possible`).
    Kept per hand: a seat is asked again at every pass until it plays."""
    name = (bytes(hand), shortest)
    if name in _CHAINS:
        return _CHAINS[name]
    if len(_CHAINS) > 100_000:
        _CHAINS.clear()
    found: list[tuple[tuple[int, int, int], list[int]]] | None = None
    if chain_possible(natural, most, shortest):
        found = []
        by_rank = cards_by_rank(hand)
        jokers = by_rank[RANK_SMALL_JOKER] + by_rank[RANK_BIG_JOKER]
        lack = [max(0, 4 - len(x)) for x in by_rank]
        seen: set[tuple[int, int, int]] = set()
        for order in (ORDER_HIGH, ORDER_LOW):
            for start in range(len(order)):
                short = 0
                for end in range(start, len(order)):
                    short += lack[order[end]]
                    if short > most:
                        break
                    if end - start + 1 >= shortest:
                        run = order[start:end + 1]
                        if sum(len(by_rank[r]) for r in run) + short <= 27:
                            packed = sum(len(by_rank[r]) << (5 * r) for r in run)
                            key = (packed & LOW40, packed >> 40, short)
                            if key not in seen:
                                seen.add(key)
                                found.append((key, [c for r in run for c in by_rank[r]] + jokers[:short]))
    _CHAINS[name] = found
    return found


_CHAINS: dict[tuple[bytes, int], list[tuple[tuple[int, int, int], list[int]]] | None] = {}


def _classifier(table: ComboIndex, rules: ShuangkouRules) -> Callable[[list[int]], tuple[Combo, ...]]:
    return lambda cards: classify_cards(table, rules, cards)


#: count_moves' classification of cards by table (whose identity the function keeps), with
#: the rules it classifies under (made again for other rules: a look-up by identity, where
#: the rules' own hash would cost more than the rest of the look-up)
_COUNT_CLASSIFY: dict[int, tuple[ShuangkouRules, Callable[[list[int]], tuple[Combo, ...]]]] = {}

_JOKER_PLAYS: dict[tuple[int, int], list[tuple[int, tuple[int, ...]]]] = {}


def joker_plays(small: int, big: int) -> list[tuple[int, tuple[int, ...]]]:
    """The plays of jokers alone a hand with *small* and *big* jokers can make, as (number
    of jokers, card ids), in the order :func:`legal_moves_reference` tries them (made once
    per pair of counts)."""
    found = _JOKER_PLAYS.get((small, big))
    if found is None:
        jokers = [52] * small + [53] * big
        found = _JOKER_PLAYS[small, big] = [
            (k, combo) for k in range(1, len(jokers) + 1)
            for combo in {tuple(sorted(x)) for x in combinations_with_replacement(jokers, k) if _available(x, jokers)}]
    return found


def legal_moves_reference(self: Shuangkou, seat: int | None = None) -> list[tuple[list[int], tuple[Combo, ...]]]:
    """The slow reference for :func:`legal_moves`: every table entry, joker-only play and
    bomb chain built into cards and classified card by card."""
    seat = self.turn if seat is None else seat
    hand = self.hands[seat]
    by_rank: dict[int, list[int]] = {}
    for c in range(54):
        if hand[c]:
            by_rank.setdefault(RANK[c], []).extend([c] * hand[c])
    jokers = by_rank.get(RANK_SMALL_JOKER, []) + by_rank.get(RANK_BIG_JOKER, [])
    nat = [len(by_rank.get(r, ())) for r in range(RANK_2 + 1)]
    seen: set[tuple[int, ...]] = set()
    moves = []

    def add(cards: list[int]) -> None:
        key = tuple(sorted(cards))
        if not cards or key in seen:
            return
        seen.add(key)
        readings = classify_cards(self.combos, self.rules, cards)
        if readings and (self.last is None or any_beats(readings, self.last)):
            moves.append((cards, readings))

    for packed in self.combos.readings:
        need = [(packed >> (5 * r)) & 31 for r in range(RANK_2 + 1)]
        short = sum(max(0, need[r] - nat[r]) for r in range(RANK_2 + 1))
        if short > len(jokers):
            continue
        cards = []
        for r in range(RANK_2 + 1):
            cards += by_rank.get(r, [])[:need[r]]
        add(cards + jokers[:short])
    for k in range(1, len(jokers) + 1):  # jokers alone: singles, the joker pair, three- and four-joker bombs
        for combo in {tuple(sorted(x)) for x in combinations_with_replacement(jokers, k) if _available(x, jokers)}:
            add(list(combo))
    for order in (ORDER_HIGH, ORDER_LOW):
        for start in range(len(order)):
            for end in range(start + self.rules.chain_min_bombs, len(order) + 1):
                run = order[start:end]
                short = sum(max(0, 4 - nat[r]) for r in run)
                if short > len(jokers):
                    break
                cards = [c for r in run for c in by_rank.get(r, [])]
                if len(cards) + short <= 27:
                    add(cards + jokers[:short])
    return moves


def _available(combo: tuple[int, ...], jokers: list[int]) -> bool:
    return all(combo.count(c) <= jokers.count(c) for c in set(combo))


def _classify(rules: Rules, ids: list[int], level: str | None) -> tuple[Combo, ...]:
    # the registry passes this game's own rules
    return classify_cards(Shuangkou.combo_table(rules), rules, ids)  # type: ignore[arg-type]


GAME = Game(
    name="shuangkou", title="Shuangkou", title_zh="双扣", aliases=("sk", "双扣", "雙扣"),
    variants={"huopin": HUOPIN}, engine=Shuangkou, kinds=KINDS, teams=((0, 2), (1, 3)),
    outcome_columns={"winning_team": "int8", "kou": "string", "stars": "list<int16>"},
    stats=("shuangkou",), classify=_classify,
    report={"metrics": ("kou_double", "first_lead", "bomb_hands", "escape"),
            "charts": ("seat_advantage", "first_lead", "kou", "bomb_hands", "bombs_by_kind", "bombs_by_seat",
                       "coins_tail", "ends", "compare")},
)

#: each seat's team and partners, from the declaration above
TEAM = GAME.seat_teams()
PARTNERS = GAME.seat_partners()
