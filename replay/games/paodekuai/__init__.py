"""跑得快 Paodekuai: paodekuai/huopin (火拼跑得快) and paodekuai/classic (扑克王).

Only what differs from the shared table lives here: the combinations of each variant,
the opening rule (3♦ holder leads / 3♣ holder leads with 3♣), 有出必出 (must play),
放走包赔 (let-go), 喜钱 (bomb bonus), and the end-of-hand scoring.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any


from ...cards import (
    DECK_48, DECK_52, DECK_54, RANK, RANK_2, RANK_A, RANK_BIG_JOKER, RANK_SMALL_JOKER, card_id, CLUBS,
    DIAMONDS,
)
from ...combos import (
    NATURAL, NORMAL, TO_ACE, Combo, above, at_least, capped, chains, count_at, iter_ranks, kicker_sets,
    packed_of, positions, runs, total,
)
from ...game import Game
from ...kernel import one_deck_beats
from ...rules import Rules
from ...settle import settle_coins
from ...table import Table
from ...verdicts import Code, Event, Violation

KINDS = {
    "single": "单张", "pair": "对子", "triple": "三张", "triple_two": "三带二", "triple_pair": "三带一对",
    "straight": "顺子", "pair_chain": "连对", "triple_chain": "三顺", "airplane": "飞机带翅膀",
    "four_three": "四带三", "bomb": "炸弹", "rocket": "王炸",
}
TIER_BOMB, TIER_ROCKET = 1, 2
#: 喜钱 by room (seed 000): 新手场 500, 初级场 1600, 中级场 3000
XIQIAN_ROOMS = {"新手": 500, "初级": 1600, "中级": 3000}
THREE_DIAMONDS = card_id(0, DIAMONDS)
THREE_CLUBS = card_id(0, CLUBS)


@dataclass(frozen=True)
class PaodekuaiRules(Rules):
    #: the card whose holder leads the first trick
    opening_card: int = THREE_DIAMONDS
    #: whether the first play must contain the opening card
    opening_card_played: bool = False
    #: 有出必出: a seat that can beat the last play must
    must_play: bool = True
    #: 放走包赔: a single played while the next seat holds one card must be the highest
    let_go: bool = True
    #: 喜钱: a bomb nobody beats earns the room's amount from each other seat
    xiqian: bool = True
    straight_min: int = 5
    pair_chain_min: int = 2
    triple_chain_min: int = 2
    #: classic sequences: A also low (A2345), 2 only below 3
    ace_low: bool = False
    #: scoring: "huopin" (cards left × 3/2/1) or "classic" (cards left, doublings)
    scoring: str = "huopin"

    def deck_param(self, value: Any) -> dict[str, Any]:
        if self.variant == "classic" and value in (52, 54):
            return {"deck": DECK_54 if value == 54 else DECK_52}
        raise ValueError(f"params.deck: expected 52 or 54 (classic only), got {value!r}")


HUOPIN = PaodekuaiRules(
    game="paodekuai", variant="huopin", players=3, deck=DECK_48, max_play=16,
    kinds=frozenset({"single", "pair", "triple", "triple_two", "straight", "pair_chain", "triple_chain",
                     "airplane", "four_three", "bomb"}),
)
CLASSIC = PaodekuaiRules(
    game="paodekuai", variant="classic", players=3, deck=DECK_54, max_play=27,
    kinds=frozenset({"single", "pair", "triple", "triple_pair", "straight", "pair_chain", "bomb", "rocket"}),
    opening_card=THREE_CLUBS, opening_card_played=True, must_play=False, let_go=False, xiqian=False,
    pair_chain_min=3, ace_low=True, scoring="classic",
)


def iter_combos(rules: PaodekuaiRules) -> Iterator[tuple[int, Combo]]:
    """Every legal combination of the variant."""
    kinds, cap = rules.kinds, rules.max_play
    normal = range(RANK_2 + 1)
    jokers = rules.deck and max(rules.deck) >= 52
    if "single" in kinds:
        for r in range(RANK_BIG_JOKER + 1 if jokers else RANK_2 + 1):
            yield packed_of({r: 1}), Combo("single", 1, r)
    for n, kind in ((2, "pair"), (3, "triple")):
        if kind in kinds:
            for r in normal:
                yield packed_of({r: n}), Combo(kind, n, r)
    if "bomb" in kinds:
        for r in normal:
            yield packed_of({r: 4}), Combo("bomb", 4, r, TIER_BOMB)
    if "rocket" in kinds and jokers:
        yield packed_of({RANK_SMALL_JOKER: 1, RANK_BIG_JOKER: 1}), Combo("rocket", 2, RANK_BIG_JOKER, TIER_ROCKET)
    for t in normal:
        others = [r for r in normal if r != t]
        if "triple_two" in kinds:
            for ks in kicker_sets(others, 2, 2):
                yield _with(t, 3, ks), Combo("triple_two", 5, t)
        if "triple_pair" in kinds:
            for k in others:
                yield packed_of({t: 3, k: 2}), Combo("triple_pair", 5, t)
        if "four_three" in kinds and cap >= 7:
            for ks in kicker_sets(others, 3, 3):
                yield _with(t, 4, ks), Combo("four_three", 7, t)
    for unit, kind, min_len in ((1, "straight", rules.straight_min), (2, "pair_chain", rules.pair_chain_min),
                                (3, "triple_chain", rules.triple_chain_min)):
        if kind not in kinds:
            continue
        for seq, key in sequences(rules, min_len, cap // unit):
            yield packed_of({r: unit for r in seq}), Combo(kind, unit * len(seq), key)
    if "airplane" in kinds:
        for chain in chains(0, RANK_A, rules.triple_chain_min, cap // 5):
            others = [r for r in normal if r not in chain]
            for ks in kicker_sets(others, 2 * len(chain), 4):
                counts_ = {r: 3 for r in chain}
                for k in ks:
                    counts_[k] = counts_.get(k, 0) + 1
                yield packed_of(counts_), Combo("airplane", 5 * len(chain), chain[-1])


def _with(rank: int, n: int, kickers: tuple[int, ...]) -> int:
    c = {rank: n}
    for k in kickers:
        c[k] = c.get(k, 0) + 1
    return packed_of(c)


#: classic sequence positions: A low (0), 2 (1), then 3..A (2..13)
_POSITION_RANK = [RANK_A, RANK_2] + list(range(RANK_A + 1))


def sequences(rules: PaodekuaiRules, min_len: int, max_len: int) -> Iterator[tuple[list[int], int]]:
    """(ranks, key) of every run for straights and chains: 3..A keyed by the top rank; in
    classic also A low and 2 below 3 (A2345, 23456), keyed by the top position, so an
    A-low run is the lowest."""
    if not rules.ace_low:
        for seq in chains(0, RANK_A, min_len, max_len):
            yield seq, seq[-1]
        return
    for seq in chains(0, 13, min_len, max_len):
        if seq[0] == 0 and seq[-1] == 13:
            continue  # the ace once only: no wrap
        yield [_POSITION_RANK[p] for p in seq], seq[-1]


UNIT = {"straight": 1, "pair_chain": 2, "triple_chain": 3}
#: kickers of the kinds with kickers: (cards of the main rank, kickers, most kickers of one rank)
KICKERS = {"triple_two": (3, 2, 2), "four_three": (4, 3, 3)}


def beating_exists(hand: int, last: Combo, rules: PaodekuaiRules) -> bool:
    """True if the packed *hand* holds a play that beats *last*: direct tests per kind."""
    decided = one_deck_beats(hand, last, rules.kinds)
    return decided if decided is not None else kind_beats(hand, last, rules)


def kind_beats(hand: int, last: Combo, rules: PaodekuaiRules) -> bool:
    """:func:`beating_exists` for the kinds that one_deck_beats leaves to the game."""
    kind, key = last.kind, last.key
    if kind in KICKERS or kind == "triple_pair":
        need, kickers, per_rank = KICKERS.get(kind, (3, 1, 2))
        for t in iter_ranks(at_least(hand, need) & NORMAL & above(key)):
            rest = (hand - (count_at(hand, t) << (5 * t))) & NATURAL
            if (kind == "triple_pair" and at_least(rest, 2)) or (kind != "triple_pair" and total(capped(rest, per_rank)) >= kickers):
                return True
        return False
    if kind == "airplane":
        length = last.size // 5
        for s in iter_ranks(runs(at_least(hand, 3) & TO_ACE, length) & above(key - length + 1)):
            rest = hand & NATURAL
            for r in range(s, s + length):
                rest -= count_at(hand, r) << (5 * r)
            if total(rest) >= 2 * length:
                return True
        return False
    unit = UNIT[kind]
    length = last.size // unit
    if rules.ace_low and kind in ("straight", "pair_chain"):  # classic: runs over positions, A low to A high
        # (a run of all 14 positions would hold the ace twice; the longest run is 13)
        return bool(runs(at_least(positions(hand), unit), length) & above(key - length + 1))
    return bool(runs(at_least(hand, unit) & TO_ACE, length) & above(key - length + 1))


class Paodekuai(Table):
    """One hand of Paodekuai (either variant)."""

    rules: PaodekuaiRules  # the game's own rules (set by Table.__init__)

    iter_combos = staticmethod(iter_combos)  # type: ignore[assignment]

    def setup(self) -> Violation | None:
        v = self.check_deal(self.spec.deal)
        if v is not None:
            return v
        rules = self.rules
        card = rules.opening_card
        opener = 0
        for seat, hand in enumerate(self.hands):
            if hand[card]:
                opener = seat
                break
        self.turn = self.opener = opener
        # the variant's rules of play and pass, asked only where they apply (a check the
        # variant does not have costs a call on every play or pass otherwise)
        self.has_play_rules = rules.opening_card_played
        self.has_pass_rules = rules.must_play
        return None

    # the state every hand starts from (class attributes: fewer to set per hand; the list
    # of let-go plays is replaced, never changed in place; the 喜钱 each seat got or paid,
    # a list of its own from the first bomb that earns it, none before)
    released: int | None = None
    let_goes: tuple[tuple[int, int], ...] = ()
    xiqian: list[int] = ()  # type: ignore[assignment]

    def opening_rule(self) -> str:
        from ...cards import CARD_NAMES

        return f"the holder of {CARD_NAMES[self.rules.opening_card]} leads"

    # ------------------------------------------------------------------ rules of play

    def check_play(self, i: int, seat: int, ids: list[int], readings: tuple[Combo, ...]) -> Violation | None:
        if not self.first_play_done and self.rules.opening_card_played and self.rules.opening_card not in ids:
            from ...cards import CARD_NAMES

            return Violation(Code.FIRST_PLAY, i, f"the first play must contain {CARD_NAMES[self.rules.opening_card]}", seat)
        return None

    def check_pass(self, i: int, seat: int) -> Violation | None:
        # a pass on the lead was refused before the game's rules are asked: last is set
        last: tuple[Combo, ...] = self.last  # type: ignore[assignment]
        rules = self.rules
        if not rules.must_play:
            return None
        if len(last) == 1:  # beating_exists, one call less (the pass path)
            can = one_deck_beats(self.packed[seat], last[0], rules.kinds)
            if can is None:
                can = kind_beats(self.packed[seat], last[0], rules)
        else:
            can = self.can_beat(seat)
        if can:
            return Violation(Code.MUST_PLAY, i, f"seat {seat} passed while holding a play that beats the last one (有出必出)", seat)
        return None

    def beats_exist(self, seat: int, last: Combo) -> bool:
        return beating_exists(self.packed[seat], last, self.rules)

    def pass_reveals(self) -> bool:
        return self.rules.must_play

    def allows(self, seat: int, packed: int) -> bool:
        if not self.first_play_done and self.rules.opening_card_played:
            return (packed >> (5 * RANK[self.rules.opening_card])) & 31 > 0
        return True

    def cards_for(self, seat: int, packed: int) -> list[int]:
        ids = super().cards_for(seat, packed)
        card = self.rules.opening_card
        if not self.first_play_done and self.rules.opening_card_played and card not in ids and self.hands[seat][card]:
            k = next((k for k, c in enumerate(ids) if RANK[c] == RANK[card]), None)
            if k is not None:
                ids[k] = card
        return ids

    def on_play(self, i: int, seat: int, ids: list[int], readings: tuple[Combo, ...], led: bool) -> None:
        c = readings[0]
        if c.kind == "single" and self.rules.let_go:
            nxt = seat + 1 if seat + 1 < self.n else 0
            if not self.active[nxt]:
                nxt = self.next_active(seat)
            if self.left[nxt] == 1 and self.packed[seat] >> (5 * (RANK[ids[0]] + 1)):
                self.let_goes += ((seat, nxt),)
                self.events.append(Event("let_go", i, seat, {"released": nxt}))
        if c.tier:
            self.events.append(Event(c.kind, i, seat, {"rank": c.key}))
        if self.detail:
            self.note_play(i, seat, c, led)

    def on_trick_won(self, i: int, seat: int) -> None:
        if self.rules.xiqian and self.last[0].tier:  # type: ignore[index]  # a trick is won over a play
            self.pay_xiqian(i, seat)

    def on_out(self, i: int, seat: int) -> None:
        super().on_out(i, seat)
        if self.rules.xiqian and self.last[0].tier:  # type: ignore[index]  # out on a play; a bomb that ends the hand is beaten by nobody
            self.pay_xiqian(i, seat)

    def pay_xiqian(self, i: int, seat: int) -> None:
        room, stacks = self.spec.room, self.spec.stacks
        amount: Any = room["xiqian"] if "xiqian" in room else _xiqian_of_room(room.get("name"))
        xiqian = self.xiqian
        if not xiqian:
            xiqian = self.xiqian = [0] * self.n
        got = 0
        for s in range(self.n):
            if s != seat:
                pay = amount if stacks is None else min(amount, max(0, stacks[s] + xiqian[s]))
                xiqian[s] -= pay
                got += pay
        xiqian[seat] += got
        self.events.append(Event("xiqian", i, seat, {"amount": amount, "received": got}))

    # ------------------------------------------------------------------ settlement

    def outcome(self) -> dict[str, Any]:
        n = self.n
        paid = self.xiqian
        xiqian = list(paid) if paid else [0] * n  # the outcome's own list
        if self.end_reason == "escape":
            out: dict[str, Any] = {"order": list(self.out), "scores": [0] * n, "escape": self.escaper,
                                   "xiqian": xiqian}
            if "coef" in self.spec.room:  # coins_wanted(), inline
                out["coins"] = list(xiqian)
            return out
        winner = self.out[0]
        left = self.left
        # what one card left costs each loser, its loss and the winner's total, in one pass
        # over the seats (this runs for every hand settled)
        factors = self.factors(winner)
        scores = [0] * n
        total = 0
        for s in range(n):
            loss = left[s] * factors[s]  # the winner's factor is 0
            scores[s] = -loss
            total += loss
        let_go = None
        for g, released in reversed(self.let_goes):
            if released == winner:
                let_go = g
                break
        if let_go is not None:  # 放走包赔: the let-go seat pays every loser's loss alone
            scores = [0] * n
            scores[let_go] = -total
        scores[winner] = total
        out = {"order": list(self.out), "winner": winner, "scores": scores, "factors": factors,
               "cards_left": list(left), "let_go": let_go, "xiqian": xiqian}
        room = self.spec.room
        if "coef" in room:  # coins_wanted(), inline
            stacks = self.spec.stacks
            if paid and any(paid):  # 喜钱 paid: it counts in the stacks and the coins
                if stacks is not None:
                    stacks = [x + q for x, q in zip(stacks, xiqian)]
                coins = settle_coins(scores, room["coef"], room.get("fee", 0), stacks)
                out["coins"] = [c + q for c, q in zip(coins, xiqian)]
            else:
                out["coins"] = settle_coins(scores, room["coef"], room.get("fee", 0), stacks)
        return out

    def factors(self, winner: int) -> list[int]:
        """What one card left costs each loser (0 for the winner), the scoring rule read
        once. Huopin: ×3 for a seat that played no card, ×2 for one that played fewer than
        half its dealt cards (its cards played fewer than its cards left: the two add up to
        the cards dealt), else ×1."""
        left, played, n = self.left, self.cards_played, self.n
        factors = [0] * n
        if self.rules.scoring == "classic":
            for s in range(n):
                if s != winner:
                    f = (2 if left[s] > 10 else 1) << self.held_bombs(s)
                    factors[s] = 2 * f if played[s] == 0 else f
            return factors
        for s in range(n):
            if s != winner:
                p = played[s]
                factors[s] = 3 if p == 0 else 2 if p < left[s] else 1
        return factors


@cache
def _xiqian_of_room(name: str | None) -> int:
    for key, amount in XIQIAN_ROOMS.items():
        if name and key in name:
            return amount
    return 0



GAME = Game(
    name="paodekuai", title="Paodekuai", title_zh="跑得快", aliases=("pdk", "跑得快", "扑克王"),
    variants={"huopin": HUOPIN, "classic": CLASSIC}, engine=Paodekuai, kinds=KINDS,
    outcome_columns={"let_go": "int8", "xiqian": "list<float64>", "let_goes": "int16",
                     "xiqian_bombs": "int16"},
    stats=("paodekuai_events",),
    report={"metrics": ("first_lead", "let_go", "let_go_paid", "xiqian", "bomb_hands", "escape"),
            "charts": ("seat_advantage", "first_lead", "paodekuai_events", "bomb_hands", "bombs_by_kind",
                       "bombs_by_seat", "coins_tail", "ends", "compare")},
)
