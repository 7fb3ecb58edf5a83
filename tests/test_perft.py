"""Pinned counts, perft-style: the size of every variant's combination table (Guandan's
per level) and the number of legal moves at fixed positions of every game.

A change to classification or move generation that changes any count fails here; when
the change is meant, docs/rules.md says why and the pin moves with it. Table sizes that
follow from the rule book by counting are written as that count.
"""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import submultisets

from paipu.replay.cards import RANK_BIT, parse_cards
from paipu.replay.combos import any_beats, strongest
from paipu.replay.games import find_game, find_rules
from paipu.replay.replayer import make_table
from paipu.replay.sim import simulate


def table_of(game: str, variant: str, level: int | None = None):
    rules = find_rules(game, variant)
    engine = find_game(game).engine
    return engine.combo_table(rules, level) if level is not None else engine.combo_table(rules)


def kinds(table) -> Counter:
    return Counter(c.kind for readings in table.readings.values() for c in readings)


# ---------------------------------------------------------------- combination tables

def seq(lo: int, hi: int, positions: int) -> int:
    """Runs of every length lo..hi over *positions* consecutive ranks."""
    return sum(positions - n + 1 for n in range(lo, hi + 1))


def test_doudizhu_table():  # RLCard's table (tests/test_doudizhu_combos.py checks it card for card)
    t = table_of("doudizhu", "huopin")
    assert len(t) == 27471
    assert kinds(t) == {"airplane_single": 21822, "airplane_pair": 2939, "four_two_single": 1326, "four_two_pair": 858,
                        "triple_single": 13 * 14, "triple_pair": 13 * 12, "pair_chain": seq(3, 10, 12),
                        "triple_chain": seq(2, 6, 12), "straight": seq(5, 12, 12), "single": 15, "pair": 13,
                        "triple": 13, "bomb": 13, "rocket": 1}


def test_paodekuai_huopin_table():
    t = table_of("paodekuai", "huopin")
    assert len(t) == 64396
    assert kinds(t) == {"airplane": 60061, "four_three": 4732, "triple_two": 1014, "pair_chain": seq(2, 8, 12),
                        "triple_chain": seq(2, 5, 12), "straight": seq(5, 12, 12), "single": 13, "pair": 13,
                        "triple": 13, "bomb": 13}
    # cards with several readings: 1,569 with two airplanes (3334445556: 333444 or 444555),
    # 8 with four (three airplanes and the triple chain: 333444555666)
    several = Counter(len(rs) for rs in t.readings.values() if len(rs) > 1)
    assert several == {2: 1569, 4: 8}
    assert sum(map(len, t.readings.values())) == 64396 + 1569 + 3 * 8


def test_paodekuai_classic_table():
    t = table_of("paodekuai", "classic")
    # sequences over A 2 3 … K A (14 places, A once): the 13-card runs read A-low and A-high
    assert kinds(t) == {"triple_pair": 13 * 12, "pair_chain": seq(3, 13, 14), "straight": seq(5, 13, 14),
                        "single": 15, "pair": 13, "triple": 13, "bomb": 13, "rocket": 1}
    assert len(t) == 342 - 2


def test_shuangkou_table():
    # natural cards only: jokers are wild and read in classify; bombs of 4..12 cards
    t = table_of("shuangkou", "huopin")
    assert kinds(t) == {"bomb": 13 * 9, "pair_chain": seq(3, 12, 12), "triple_chain": seq(3, 9, 12),
                        "straight": seq(5, 12, 12), "single": 13, "pair": 13, "triple": 13}
    assert len(t) == 296


@pytest.mark.parametrize("level", range(13))
def test_guandan_table_at_every_level(level):
    t = table_of("guandan", "standard", level)
    # singles and pairs with the jokers, triples, full houses (a triple and another pair),
    # straights, pair chains and plates over A 2 … K A, bombs of 4..10, the joker bomb
    assert kinds(t) == {"single": 15, "pair": 15, "triple": 13, "full_house": 13 * 14, "straight": 10,
                        "pair_chain": 12, "plate": 13, "bomb": 13 * 7, "joker_bomb": 1}
    assert len(t) == 352
    # the level rank is the top non-joker single, the 2 the lowest unless it is the level
    singles = sorted((c.key, p) for p, rs in t.readings.items() for c in rs if c.kind == "single")
    top_natural = singles[-3][1]
    assert top_natural == RANK_BIT[4 * level]


# ---------------------------------------------------------------- legal moves at fixed positions

def position(game: str, variant: str, hand: str, last: str | None = None, level: str = "2",
             opening: bool = False):
    """A table with *hand* for the seat to act, *last* the play to beat (None: it leads),
    Guandan at *level*; *opening*: the hand's first play (the opening rule applies)."""
    record = next(simulate(game, variant, 1, 1))
    record.pop("match", None)
    record = {**record, "actions": [], "result": {}}
    if game == "guandan":
        record.update(level=level, levels=[level, level])
    table = make_table(record)
    assert table.setup() is None
    seat = 0
    ids = parse_cards(hand)
    table.hands[seat] = bytearray(54)
    table.packed[seat] = 0
    table.give(seat, ids)
    table.left[seat] = len(ids)
    table.turn, table.phase, table.first_play_done = seat, "play", not opening
    if last is not None:
        last_ids = parse_cards(last)
        readings = table.classify(last_ids, sum(RANK_BIT[c] for c in last_ids), None)
        assert readings, last
        table.last = strongest(readings)
    return table, seat


def brute_force_plays(table, seat) -> set[int]:
    """Every sub-multiset of the hand (by rank) that classifies, beats the last play and
    passes the game's own restrictions: what move generation must give for plain games."""
    out = set()
    for packed in submultisets(table.packed[seat]):
        readings = table.combos.classify(packed)
        if readings and (table.last is None or any_beats(readings, table.last)) and table.allows(seat, packed):
            out.add(packed)
    return out


DDZ_HAND = "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s 2h 2d SJ BJ 3h 3d 3c"
AIRPLANES = "3s 3h 3d 4s 4h 4d 5s 5h 5d 6s 6h 6d 7c 8c 9c Tc"
PDK_HAND = "3d 4d 4s 4h 4c 5d 5s 5h 6h 7d 8d 9d Td Jd Qd Kd"
PDK_PAIRS = "Ah 2s 7s 7h 8s 8h 9s 9h Ts Th Js Jh Qs Qh Ks Kh"
PDK_PLANES = "3s 3h 3c 4s 4h 4c 5s 5h 5c 6s 7s 8s 9s Ts"
CLASSIC_LOW = "3c 3d 3h 3s 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac Ks Kh Kd"
CLASSIC_TWOS = "9s 9h 9d Ts Th Td 2s 2h 2d 2c 4s 4h 5s 5h 6s 6h 7s 7h"
CLASSIC_HIGH = "4d 5d 6d 7d 8s 8h 8d Js Jh Jd Qs Qh Qd As Ah Ad SJ BJ"

PLAIN_POSITIONS = [  # (game, variant, hand, last, opening, legal plays)
    ("doudizhu", "huopin", DDZ_HAND, None, False, 178),
    ("doudizhu", "huopin", DDZ_HAND, "4h", False, 15),
    ("doudizhu", "huopin", DDZ_HAND, "5h 5d", False, 3),
    ("doudizhu", "huopin", DDZ_HAND, "4h 4d 4c 6h", False, 16),
    ("doudizhu", "huopin", DDZ_HAND, "4h 5h 6h 7h 8h", False, 8),
    ("doudizhu", "huopin", AIRPLANES, None, False, 158),
    ("doudizhu", "huopin", AIRPLANES, "9h 9d 9s Th Td Ts Jc Qc", False, 0),
    ("doudizhu", "huopin", "2s 2h 2d 2c SJ BJ", "As Ah Ad Ac", False, 2),
    ("doudizhu", "huopin", "3s 4h 5d 6c 7s 8h 9d", "3h 4s 5c 6d 7h", False, 2),
    ("doudizhu", "huopin", "Js Jh Qs Qh Ks Kh As Ah", "3s 3h 4s 4h 5s 5h", False, 2),
    ("doudizhu", "huopin", "7s 7h 7d 7c 8s 9s", None, False, 9),
    ("doudizhu", "huopin", "3s", "2s", False, 0),
    ("paodekuai", "huopin", PDK_HAND, None, False, 394),
    ("paodekuai", "huopin", PDK_HAND, "3s", False, 11),
    ("paodekuai", "huopin", PDK_HAND, "3s 3h", False, 3),
    ("paodekuai", "huopin", PDK_HAND, "3s 3h 3c 6s 7s", False, 93),
    ("paodekuai", "huopin", PDK_HAND, "3s 4c 5c 6c 7c", False, 7),
    ("paodekuai", "huopin", PDK_PAIRS, None, False, 47),
    ("paodekuai", "huopin", PDK_PAIRS, "3h 3c 4h 4c", False, 6),
    ("paodekuai", "huopin", PDK_PLANES, None, False, 154),
    ("paodekuai", "huopin", PDK_PLANES, "6h 6d 6c 7h 7d 7c 8h 8d 9h 9d", False, 0),
    ("paodekuai", "huopin", "9s 9h 9d 9c Kd", "8s 8h 8d 8c", False, 1),
    ("paodekuai", "huopin", "Ks Kh Kd Kc 3d 4d 5d", None, False, 11),
    ("paodekuai", "huopin", "4s", "Ah", False, 0),
    ("paodekuai", "classic", CLASSIC_LOW, None, True, 14),
    ("paodekuai", "classic", CLASSIC_LOW, None, False, 56),
    ("paodekuai", "classic", CLASSIC_LOW, "4d", False, 12),
    ("paodekuai", "classic", CLASSIC_TWOS, None, False, 39),
    ("paodekuai", "classic", CLASSIC_TWOS, "3s 3h 4c 4d 5c 5d", False, 3),
    ("paodekuai", "classic", CLASSIC_HIGH, None, False, 32),
    ("paodekuai", "classic", CLASSIC_HIGH, "Ks Kh Kc 3s 3h", False, 4),
    ("paodekuai", "classic", CLASSIC_HIGH, "2s 2h 2d 2c", False, 1),
    ("paodekuai", "classic", "As 2s 3s 4s 5s 6s 7s", "Ah 2h 3h 4h 5h", False, 2),
    ("paodekuai", "classic", "Ac Ad 2c 2d 3c 3d", None, False, 7),
    ("paodekuai", "classic", "Tc Jc Qc Kc Ac", "9s Ts Js Qs Ks", False, 1),
    ("paodekuai", "classic", "3c", "BJ", False, 0),
]


@pytest.mark.parametrize("game,variant,hand,last,opening,count", PLAIN_POSITIONS)
def test_legal_plays_at_fixed_positions(game, variant, hand, last, opening, count):
    table, seat = position(game, variant, hand, last, opening=opening)
    plays = table.legal_plays(seat)
    assert len(plays) == len(set(plays)) == count
    assert set(plays) == brute_force_plays(table, seat)
    assert len(table.legal_moves(seat)) == count


JOKERS = "SJ SJ BJ BJ"
SK_RUN = f"{JOKERS} 3s 3h 4s 5s 6s 7s 8s"
SK_BOMBS = f"{JOKERS} 3s 3h 3d 3c 4s 4h 4d 4c 5s 5h 5d 5c"
GD_LOW = "2h 2h 3s 4s 5s 6d 7c 8c 8d"
GD_ACE = "Ah Ah 9s Ts Js Qs Ks"

WILD_POSITIONS = [  # (game, hand, last, level, legal moves)
    ("shuangkou", JOKERS, None, "2", 8),
    ("shuangkou", SK_RUN, None, "2", 65),
    ("shuangkou", SK_RUN, "9h", "2", 18),
    ("shuangkou", SK_RUN, "4h 4d", "2", 23),
    ("shuangkou", SK_RUN, "5h 5d 5c", "2", 19),
    ("shuangkou", SK_RUN, "4h 5h 6h 7h 8h", "2", 19),
    ("shuangkou", SK_BOMBS, None, "2", 51),
    ("shuangkou", SK_BOMBS, "7s 7h 7d 7c 7s", "2", 18),
    ("shuangkou", SK_BOMBS, "6s 6h 6d 6c 7s 7h 7d 7c 8s 8h 8d 8c", "2", 7),
    ("shuangkou", "SJ BJ 9s 9h Ts Th Js Jh", "3s 3h 4s 4h 5s 5h", "2", 6),
    ("shuangkou", f"{JOKERS} Ks Kh Kd As Ah Ad 2s 2h", None, "2", 36),
    ("shuangkou", f"{JOKERS} 2s", "Ks Kh Kd Kc Ks Kh Kd Kc", "2", 0),
    ("guandan", "2h 2h", None, "2", 2),
    ("guandan", GD_LOW, None, "2", 33),
    ("guandan", GD_LOW, "9s", "2", 3),
    ("guandan", GD_LOW, "3h 3d", "2", 8),
    ("guandan", GD_LOW, "4h 4d 4c 9s 9d", "2", 7),
    ("guandan", GD_LOW, "As 2s 3c 4c 5d", "2", 7),
    ("guandan", "7h 7h 7s 7d 5s 5d 6s 6d", None, "7", 22),
    ("guandan", "7h 7h 7s 7d 5s 5d 6s 6d", "4s 4h 4d 4c", "7", 5),
    ("guandan", GD_ACE, None, "A", 21),
    ("guandan", GD_ACE, "8c 8d 8h 8s 8c", "A", 4),
    ("guandan", "Th Th SJ SJ BJ BJ 3s 3d", None, "T", 13),
    ("guandan", "Th Th 2s 2d", "SJ SJ BJ BJ", "T", 0),
]


@pytest.mark.parametrize("game,hand,last,level,count", WILD_POSITIONS)
def test_legal_moves_with_wild_cards_at_fixed_positions(game, hand, last, level, count):
    variant = {"shuangkou": "huopin", "guandan": "standard"}[game]
    table, seat = position(game, variant, hand, last, level=level)
    moves = table.legal_moves(seat)
    assert len({tuple(sorted(cards)) for cards, _ in moves}) == len(moves) == count
