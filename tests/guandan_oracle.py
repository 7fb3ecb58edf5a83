"""Reading the open Guandan oracle (../shared/oracles/guandan) into paipu's terms."""

from __future__ import annotations

import json
import os

from paipu.replay.cards import BIG_JOKER, HEARTS, SMALL_JOKER, card_id
from paipu.replay.combos import any_beats, strongest
from paipu.replay.games.guandan import STANDARD, Guandan, classify_cards, parse_level

# a copy of ../shared/oracles/guandan (MIT, the guandan-world project), so the suite runs anywhere
ORACLE = os.path.join(os.path.dirname(__file__), "data", "guandan_oracle")
SUITS = {"Spade": 0, "Heart": 1, "Diamond": 2, "Club": 3}
TYPES = {"Single": "single", "Pair": "pair", "Triple": "triple", "FullHouse": "full_house", "Straight": "straight",
         "StraightFlush": "straight_flush", "Tube": "pair_chain", "Plate": "plate", "NaiveBomb": "bomb",
         "JokerBomb": "joker_bomb", "IllegalComp": None}
LEVEL = parse_level("5")
TABLE = Guandan.combo_table(STANDARD, LEVEL)
WILD = card_id(LEVEL, HEARTS)


def card(rank: int, suit: str) -> int:
    if rank == 15:
        return SMALL_JOKER
    if rank == 16:
        return BIG_JOKER
    return card_id({1: 11, 14: 11, 2: 12}.get(rank, rank - 3), SUITS[suit])


def readings(cards: list) -> tuple:
    return classify_cards(TABLE, [card(r, s) for r, s in cards], WILD)


def load(name: str) -> dict:
    with open(os.path.join(ORACLE, name), encoding="utf-8") as f:
        return json.load(f)


def ours(test: dict) -> tuple[bool, bool]:
    """(comp1 beats comp2, comp2 beats comp1) by paipu's rules: the answered play counts at
    its strongest reading of each kind, the answering play may use any reading."""
    a, b = readings(test["comp1"]["cards"]), readings(test["comp2"]["cards"])
    return bool(a and b and any_beats(a, strongest(b))), bool(a and b and any_beats(b, strongest(a)))


def by_single_strongest(test: dict) -> tuple[bool, bool]:
    """The oracle's way as far as we can tell: each play counts at one reading, its strongest."""
    a, b = readings(test["comp1"]["cards"]), readings(test["comp2"]["cards"])
    return bool(a and b and any_beats(a[:1], b[:1])), bool(a and b and any_beats(b[:1], a[:1]))
