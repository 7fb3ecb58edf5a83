"""斗地主 Dou Dizhu: doudizhu/huopin (火拼斗地主), as docs/rules.md states it, and the rules of
two AI libraries' engines, doudizhu/openspiel and doudizhu/douzero (docs/rules.md §2.10), that
judge the games read from their formats.

Only what differs from the shared table lives here: the combinations with the RLCard
kicker profile, bidding (叫/抢地主, 明牌, 黄金眼), the landlord's bottom cards and lead,
spring, the multiplier, points, coins and escape.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any


from ...cards import DECK_54, RANK_2, RANK_A, RANK_BIG_JOKER, RANK_SMALL_JOKER, CARD_OF
from ...combos import (
    JOKERS, NATURAL, NORMAL, TO_ACE, Combo, above, at_least, capped, chains, count_at, iter_ranks, kicker_sets,
    packed_of, runs, total,
)
from ...game import Game
from ...kernel import one_deck_beats
from ...rules import Rules
from ...settle import settle_coins
from ...table import Table
from ...verdicts import Code, Event, Violation

# kinds: English name -> Chinese name
KINDS = {
    "single": "单张", "pair": "对子", "triple": "三张", "triple_single": "三带一", "triple_pair": "三带二",
    "straight": "顺子", "pair_chain": "连对", "triple_chain": "飞机(三顺)", "airplane_single": "飞机带单",
    "airplane_pair": "飞机带对", "four_two_single": "四带二", "four_two_pair": "四带两对",
    "bomb": "炸弹", "rocket": "火箭",
}
TIER_BOMB, TIER_ROCKET = 1, 2
SHOW_FACTORS_BEFORE = (5, 4, 3)
SHOW_FACTOR_LANDLORD = 2


@dataclass(frozen=True)
class DoudizhuRules(Rules):
    kinds: frozenset[str] = frozenset(KINDS)
    straight_min: int = 5
    pair_chain_min: int = 3
    triple_chain_min: int = 2
    #: 黄金眼 uses per seat while bidding
    peek_limit: int = 2
    #: escape penalties (base multiples under the threshold, score multiples at or above it)
    escape_threshold: int = 10
    escape_landlord: tuple[int, int] = (20, 4)
    escape_farmer: tuple[int, int] = (10, 2)
    # where the AI libraries' engines allow more than huopin (docs/rules.md §2.10):
    #: single kickers (四带二, airplanes) may be both jokers
    kicker_rocket: bool = False
    #: an airplane's single kickers may be a triple that continues its chain (333444555 + 666)
    wing_next_to_chain: bool = False
    #: an airplane's single kickers may be four of a rank (333444555666 + 7777)
    wing_four: bool = False
    #: an airplane with single kickers compares by its highest triple, a kicker triple too
    airplane_highest_triple: bool = False
    #: any bomb may follow the rocket (which still beats every bomb)
    bomb_on_rocket: bool = False

    def huopin_kickers(self) -> bool:
        """True when kickers and airplanes follow huopin's rules (no flag above is set)."""
        return not (self.kicker_rocket or self.wing_next_to_chain or self.wing_four or self.airplane_highest_triple)


HUOPIN = DoudizhuRules(game="doudizhu", variant="huopin", players=3, deck=DECK_54, bottom=3)
#: OpenSpiel's dou_dizhu (open_spiel/games/dou_dizhu/dou_dizhu_utils.cc): no 四带二, a kicker
#: triple may continue an airplane's chain, and a bomb may follow the rocket
OPENSPIEL = DoudizhuRules(game="doudizhu", variant="openspiel", players=3, deck=DECK_54, bottom=3,
                          kinds=frozenset(KINDS) - {"four_two_single", "four_two_pair"},
                          wing_next_to_chain=True, bomb_on_rocket=True)
#: DouZero's GameEnv (douzero/env/move_generator.py, move_detector.py, move_selector.py):
#: kickers may be both jokers, an airplane's kickers a triple next to its chain or a four,
#: and airplanes compare by their highest triple
DOUZERO = DoudizhuRules(game="doudizhu", variant="douzero", players=3, deck=DECK_54, bottom=3,
                        kicker_rocket=True, wing_next_to_chain=True, wing_four=True, airplane_highest_triple=True)


def iter_combos(rules: DoudizhuRules) -> Iterator[tuple[int, Combo]]:
    """Every legal Dou Dizhu combination (the RLCard profile, docs/rules.md)."""
    kinds, cap = rules.kinds, rules.max_play
    normal = range(RANK_2 + 1)  # 3..2
    every = range(RANK_BIG_JOKER + 1)  # 3..BJ
    jokers = (RANK_SMALL_JOKER, RANK_BIG_JOKER)

    def ok_singles(ks: tuple[int, ...], chain: list[int]) -> bool:
        if RANK_SMALL_JOKER in ks and RANK_BIG_JOKER in ks and not rules.kicker_rocket:
            return False  # kickers never hold both jokers
        for r in set(ks):
            n = ks.count(r)
            if (n >= 4 and not rules.wing_four) or (n > 1 and r in jokers):
                return False  # no four of a rank; one small and one big joker per deck
            if n == 3 and (r == chain[0] - 1 or r == chain[-1] + 1 <= RANK_A) and not rules.wing_next_to_chain:
                return False  # a wing triple may not continue the chain
        return True

    if "single" in kinds:
        for r in every:
            yield packed_of({r: 1}), Combo("single", 1, r)
    if "pair" in kinds:
        for r in normal:
            yield packed_of({r: 2}), Combo("pair", 2, r)
    if "triple" in kinds:
        for r in normal:
            yield packed_of({r: 3}), Combo("triple", 3, r)
    if "bomb" in kinds:
        for r in normal:
            yield packed_of({r: 4}), Combo("bomb", 4, r, TIER_BOMB)
    if "rocket" in kinds:
        yield packed_of({RANK_SMALL_JOKER: 1, RANK_BIG_JOKER: 1}), Combo("rocket", 2, RANK_BIG_JOKER, TIER_ROCKET)
        if rules.bomb_on_rocket and "bomb" in kinds:  # the rocket read as the lowest bomb too
            yield packed_of({RANK_SMALL_JOKER: 1, RANK_BIG_JOKER: 1}), Combo("bomb", 2, -1, TIER_BOMB)
    for t in normal:
        if "triple_single" in kinds:
            for k in every:
                if k != t:
                    yield packed_of({t: 3, k: 1}), Combo("triple_single", 4, t)
        if "triple_pair" in kinds:
            for k in normal:
                if k != t:
                    yield packed_of({t: 3, k: 2}), Combo("triple_pair", 5, t)
        if "four_two_single" in kinds:
            for ks in kicker_sets([r for r in every if r != t], 2, 2):
                if ks[0] in jokers and ks[1] in jokers and not (rules.kicker_rocket and ks[0] != ks[1]):
                    continue
                counts = {t: 4}
                for k in ks:
                    counts[k] = counts.get(k, 0) + 1
                yield packed_of(counts), Combo("four_two_single", 6, t)
        if "four_two_pair" in kinds:
            for ks in kicker_sets([r for r in normal if r != t], 2, 1):
                yield packed_of({t: 4, ks[0]: 2, ks[1]: 2}), Combo("four_two_pair", 8, t)
    for unit, kind, min_len in ((1, "straight", rules.straight_min), (2, "pair_chain", rules.pair_chain_min),
                                (3, "triple_chain", rules.triple_chain_min)):
        if kind in kinds:
            for chain in chains(0, RANK_A, min_len, cap // unit):
                yield packed_of({r: unit for r in chain}), Combo(kind, unit * len(chain), chain[-1])
    for chain in chains(0, RANK_A, rules.triple_chain_min, cap // 4):
        if "airplane_single" in kinds and 4 * len(chain) <= cap:
            others = [r for r in every if r not in chain]
            for ks in kicker_sets(others, len(chain), 4 if rules.wing_four else 3):
                if not ok_singles(ks, chain):
                    continue
                counts = {r: 3 for r in chain}
                for k in ks:
                    counts[k] = counts.get(k, 0) + 1
                key = max(r for r, n in counts.items() if n == 3) if rules.airplane_highest_triple else chain[-1]
                yield packed_of(counts), Combo("airplane_single", 4 * len(chain), key)
        if "airplane_pair" in kinds and 5 * len(chain) <= cap:
            others = [r for r in normal if r not in chain]
            for ks in kicker_sets(others, len(chain), 1):
                counts = {r: 3 for r in chain}
                for k in ks:
                    counts[k] = 2
                yield packed_of(counts), Combo("airplane_pair", 5 * len(chain), chain[-1])


#: unit (cards per rank) of each sequence kind
UNIT = {"straight": 1, "pair_chain": 2, "triple_chain": 3, "airplane_single": 4, "airplane_pair": 5}


def beating_exists(hand: int, last: Combo, rules: DoudizhuRules) -> bool:
    """True if the packed *hand* holds a play that beats *last*: direct tests per kind."""
    decided = one_deck_beats(hand, last, rules.kinds)
    if decided is not None:
        return decided
    kind, key = last.kind, last.key
    if kind in ("triple_single", "triple_pair", "four_two_single", "four_two_pair"):
        need = 4 if kind.startswith("four") else 3
        for t in iter_ranks(at_least(hand, need) & NORMAL & above(key)):
            rest = hand - (count_at(hand, t) << (5 * t))
            if kind == "triple_single":
                ok = total(rest) >= 1
            elif kind == "triple_pair":
                ok = bool(at_least(rest, 2) & NORMAL)
            elif kind == "four_two_single":  # two kickers, at most two of a rank, never both jokers
                ok = total(capped(rest, 2) & NATURAL) + (1 if at_least(rest, 1) & JOKERS else 0) >= 2
            else:
                ok = (at_least(rest, 2) & NORMAL).bit_count() >= 2
            if ok:
                return True
        return False
    unit = UNIT[kind]
    length = last.size // unit
    starts = runs(at_least(hand, 3 if unit > 3 else unit) & TO_ACE, length) & above(key - length + 1)
    if unit <= 3:
        return bool(starts)
    for s in iter_ranks(starts):
        rest = hand
        for r in range(s, s + length):
            rest -= count_at(hand, r) << (5 * r)
        if unit == 5:  # airplane with pairs: one pair of each of `length` other ranks
            if (at_least(rest, 2) & NORMAL).bit_count() >= length:
                return True
            continue
        # airplane with singles: no four of a rank, one joker at most, no triple next to the chain
        room = total(capped(rest, 3) & NATURAL) + (1 if at_least(rest, 1) & JOKERS else 0)
        for r in (s - 1, s + length):
            if 0 <= r <= RANK_A and count_at(rest, r) >= 3:
                room -= 1
        if room >= length:
            return True
    return False


class Doudizhu(Table):
    """One hand of Dou Dizhu."""

    rules: DoudizhuRules  # the game's own rules (set by Table.__init__)

    iter_combos = staticmethod(iter_combos)  # type: ignore[assignment]

    # the bidding state every hand starts from (class attributes: fewer to set per hand;
    # the mappings and sets are replaced, never changed in place)
    stage = "before"  # before -> call -> grab -> final
    shows: Mapping[int, int] = MappingProxyType({})
    first_shower: int | None = None
    declined: frozenset[int] = frozenset()
    caller: int | None = None
    grab_queue: tuple[int, ...] = ()
    grabs = 0
    last_grabber: int | None = None
    landlord: int | None = None
    bombs = 0
    rockets = 0

    def setup(self) -> Violation | None:
        spec = self.spec
        v = self.check_deal(spec.deal, spec.bottom)
        if v is not None:
            return v
        room = spec.room
        self.base: int = room.get("base", 1)
        self.room_mult: int = room.get("multiplier", 1)
        self.phase = "bidding"
        self.leader_given = spec.leader
        self.peeks = [0] * self.n
        return None

    def opening_rule(self) -> str:
        return "the landlord leads the first trick"

    def partners(self, seat: int) -> frozenset[int]:
        """The other farmers, for a farmer (none before the landlord is known)."""
        if self.landlord is None or seat == self.landlord:
            return frozenset()
        return frozenset(s for s in range(self.n) if s not in (seat, self.landlord))

    def plays_alone(self) -> bool:
        """No: the bidding forms the sides (the landlord against the farmers)."""
        return False

    def known_cards(self, viewer: int, played: list[list[tuple[int, int]]]) -> dict[int, list[int]]:
        """A shown hand (明牌) whole; the bottom's cards the landlord has not played (the
        bottom is public after the bidding)."""
        known: dict[int, list[int]] = {}
        for s in range(self.n):
            if s == viewer:
                continue
            if s in self.shows:
                hand = self.hands[s]
                known[s] = [c for c in range(54) for _ in range(hand[c])]
            elif s == self.landlord and self.phase == "play":
                gone = {c for _, c in played[s]}
                known[s] = [c for c in (CARD_OF[t] for t in self.spec.bottom or ()) if c not in gone]
        return known

    # ------------------------------------------------------------------ bidding

    def do_other(self, i: int, action: dict[str, Any]) -> Violation | None:
        act, seat = action["act"], action["seat"]
        if act == "show":
            return self.do_show(i, seat, action["factor"])
        if act == "peek":
            if self.phase != "bidding":
                return Violation(Code.BAD_BID, i, f"seat {seat} used 黄金眼 (peek) after bidding; it is only allowed while bidding", seat)
            self.peeks[seat] += 1
            if self.peeks[seat] > self.rules.peek_limit:
                return Violation(Code.BAD_BID, i, f"seat {seat} used 黄金眼 (peek) a {self.peeks[seat]}rd time; at most {self.rules.peek_limit} per hand", seat)
            return None
        if act == "bid":
            return self.do_bid(i, seat, action["call"])
        if act == "grab":
            return self.do_grab(i, seat, action["grab"])
        return Violation(Code.OUT_OF_TURN, i, f"{act!r} is not an act of Dou Dizhu", seat)

    def do_show(self, i: int, seat: int, factor: int) -> Violation | None:
        if self.phase == "bidding" and self.stage == "before":
            if factor not in SHOW_FACTORS_BEFORE:
                return Violation(Code.BAD_BID, i, f"a show before bidding has factor 5, 4 or 3 (明牌开始 / 发牌明牌), not {factor}", seat)
            if seat in self.shows:
                return Violation(Code.BAD_BID, i, f"seat {seat} already showed its cards", seat)
            self.shows = {**self.shows, seat: factor}
            if self.first_shower is None:
                self.first_shower = seat
            self.events.append(Event("show", i, seat, {"factor": factor}))
            return None
        if self.phase == "play" and not self.first_play_done:
            if seat != self.landlord:
                return Violation(Code.BAD_BID, i, f"after the deal only the landlord (seat {self.landlord}) may show, not seat {seat}", seat)
            if factor != SHOW_FACTOR_LANDLORD:
                return Violation(Code.BAD_BID, i, f"the landlord's show after taking the bottom has factor 2, not {factor}", seat)
            if self.shows.get(seat) == SHOW_FACTOR_LANDLORD:
                return Violation(Code.BAD_BID, i, f"seat {seat} already showed its cards", seat)
            self.shows = {**self.shows, seat: max(self.shows.get(seat, 0), factor)}
            self.events.append(Event("show", i, seat, {"factor": factor}))
            return None
        when = "during bidding" if self.phase == "bidding" else "after the first play"
        return Violation(Code.BAD_BID, i, f"seat {seat} showed {when}; shows are made before bidding (×5, ×4, ×3) or by the landlord before the first play (×2)", seat)

    def do_bid(self, i: int, seat: int, call: bool) -> Violation | None:
        if self.phase != "bidding" or self.stage not in ("before", "call"):
            where = "grabbing" if self.phase == "bidding" else self.phase
            return Violation(Code.OUT_OF_TURN, i, f"seat {seat} bid during {where}; calling is over", seat)
        if self.stage == "before":
            self.stage = "call"
            if self.first_shower is not None:
                self.turn = self.first_shower
            elif self.leader_given is not None:
                self.turn = self.leader_given
            else:
                self.turn = seat  # no leader recorded: the first bid names the first bidder
        if seat != self.turn:
            return Violation(Code.OUT_OF_TURN, i, f"seat {seat} bid, but it is seat {self.turn}'s turn to bid", seat)
        if call:
            self.caller = seat
            self.events.append(Event("call", i, seat))
            self.grab_queue = tuple(s for s in ((seat + k) % self.n for k in range(1, self.n)) if s not in self.declined)
            if self.grab_queue:
                self.stage = "grab"
                self.turn = self.grab_queue[0]
            else:
                self.start_play(seat)
            return None
        self.declined = self.declined | {seat}
        if len(self.declined) == self.n:
            if self.first_shower is not None:
                self.start_play(self.first_shower)
            else:
                self.over = True
                self.end_reason = "redeal"
                self.phase = "over"
                self.events.append(Event("redeal", i, None))
            return None
        self.turn = (seat + 1) % self.n
        return None

    def do_grab(self, i: int, seat: int, grab: bool) -> Violation | None:
        if self.phase != "bidding" or self.stage not in ("grab", "final"):
            where = "calling" if self.phase == "bidding" else self.phase
            return Violation(Code.OUT_OF_TURN, i, f"seat {seat} grabbed during {where}; there is no grab turn now", seat)
        if seat != self.turn:
            return Violation(Code.OUT_OF_TURN, i, f"seat {seat} grabbed, but it is seat {self.turn}'s turn", seat)
        if grab:
            self.grabs += 1
            self.last_grabber = seat
            self.events.append(Event("grab", i, seat))
        if self.stage == "final":
            assert self.last_grabber is not None  # the caller grabbed last, or another seat did
            self.start_play(self.last_grabber)  # the caller's own grab makes it the last grabber
            return None
        self.grab_queue = self.grab_queue[1:]
        caller = self.caller
        assert caller is not None  # grabbing starts after a call
        if self.grab_queue:
            self.turn = self.grab_queue[0]
        elif self.grabs:
            self.stage = "final"
            self.turn = caller
        else:
            self.start_play(caller)
        return None

    def start_play(self, landlord: int) -> None:
        self.landlord = landlord
        self.give(landlord, [CARD_OF[t] for t in self.spec.bottom or ()])
        self.phase = "play"
        self.turn = landlord
        self.events.append(Event("landlord", None, landlord))

    # ------------------------------------------------------------------ play

    def on_play(self, i: int, seat: int, ids: list[int], readings: tuple[Combo, ...], led: bool) -> None:
        c = readings[0]
        if c.tier:
            if c.tier == TIER_ROCKET:
                self.rockets += 1
            else:
                self.bombs += 1
            self.events.append(Event(c.kind, i, seat, {"rank": c.key}))
        if self.detail:
            self.note_play(i, seat, c, led)

    def beats_exist(self, seat: int, last: Combo) -> bool:
        if last.kind in ("airplane_single", "four_two_single") and not self.rules.huopin_kickers():
            return Table.beats_exist(self, seat, last)  # the libraries' kicker rules: a scan of the table
        return beating_exists(self.packed[seat], last, self.rules)

    def multiplier_now(self) -> int:
        return self.room_mult * self.action_multiplier(self.bombs + self.rockets)

    # ------------------------------------------------------------------ settlement

    def action_multiplier(self, bombs: int) -> int:
        show = max(self.shows.values()) if self.shows else 1
        return show << (self.grabs + bombs)


    def outcome(self) -> dict[str, Any]:
        n = self.n
        end = self.end_reason
        if end == "redeal" or end == "escape":
            out: dict[str, Any] = {"order": list(self.out), "landlord": self.landlord, "redeal": end == "redeal"}
            if end == "escape":
                return self.escape_outcome(out)
            out.update(multiplier=self.room_mult, spring=False, scores=[0] * n)
            if self.coins_wanted():
                out["coins"] = [0] * n
            return out
        landlord = self.landlord
        assert landlord is not None  # the hand was played out, so bidding chose one
        landlord_wins = self.out[0] == landlord
        played = self.cards_played
        spring = landlord_wins and sum(played) == played[landlord]  # no farmer played a card
        anti_spring = not landlord_wins and self.plays_by[landlord] == 1
        show = max(self.shows.values()) if self.shows else 1
        mult = self.room_mult * (show << (self.grabs + self.bombs + self.rockets)) * (2 if spring or anti_spring else 1)
        unit = self.base * mult
        if not landlord_wins:
            unit = -unit
        scores = [-unit] * n
        scores[landlord] = 2 * unit
        out = {"order": list(self.out), "landlord": landlord, "redeal": False, "multiplier": mult,
               "spring": spring or anti_spring, "scores": scores, "winner": "landlord" if landlord_wins else "farmers",
               "spring_kind": "spring" if spring else "anti_spring" if anti_spring else None,
               "grabs": self.grabs, "show": show, "bombs": self.bombs, "rockets": self.rockets}
        if self.coins_wanted():
            out["coins"] = self.coins(scores)
        return out

    def escape_outcome(self, out: dict[str, Any]) -> dict[str, Any]:
        n, seat = self.n, self.escaper
        assert seat is not None  # end_reason == "escape"
        action_mult = self.action_multiplier(self.bombs + self.rockets + sum(map(self.held_bombs, range(self.n))))
        mult = self.room_mult * action_mult
        is_landlord = seat == self.landlord
        low, high = self.rules.escape_landlord if is_landlord else self.rules.escape_farmer
        if action_mult < self.rules.escape_threshold:
            penalty = low * self.base
        else:
            penalty = high * self.base * mult * (2 if is_landlord else 1)
        scores = [0] * n
        scores[seat] = -penalty
        out.update(multiplier=mult, spring=False, scores=scores, escape=seat)
        if self.coins_wanted():
            room = self.spec.room
            coins: list[float] = [0] * n
            coins[seat] = -penalty * room["coef"]
            stacks = self.spec.stacks
            if stacks is not None:
                coins[seat] = -min(-coins[seat], stacks[seat])
            out["coins"] = coins
        return out

    def coins(self, scores: list[int]) -> list[float]:
        room = self.spec.room
        return settle_coins(scores, room["coef"], room.get("fee", 0), self.spec.stacks)


GAME = Game(
    name="doudizhu", title="Dou Dizhu", title_zh="斗地主", aliases=("ddz", "斗地主", "鬥地主", "dou_dizhu"),
    variants={"huopin": HUOPIN, "openspiel": OPENSPIEL, "douzero": DOUZERO}, engine=Doudizhu, kinds=KINDS, roles={"landlord": "地主", "farmer": "农民"},
    outcome_columns={"landlord": "int8", "grabs": "int16", "show_factor": "int16",
                     "spring": "bool", "spring_kind": "string", "redeal": "bool"},
    stats=("landlord_wins", "spring", "multiplier_drivers"),
    report={"metrics": ("landlord_wins", "spring", "bomb_hands", "redeal", "escape"),
            "charts": ("landlord_wins", "landlord_by_bid", "multiplier_tail", "multiplier_drivers", "coins_tail",
                       "bomb_hands", "bombs_by_kind", "bombs_by_seat", "spring", "ends", "compare"),
            # compared on shared deals (paipu compare): its own first, not the first leader's (the landlord's)
            "figures": ("landlord_wins", "spring", "bombs", "multiplier", "tricks", "actions")},
)
