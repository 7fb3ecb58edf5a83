"""Table.can_beat: the beating-play check by direct tests on the packed hand, for every game.

It must agree with the slow definitions: a scan of the combination table for the plain
games (exact), and "some generated legal move beats" for every game on recorded positions
and on random hands.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import stepping, with_hand
from paipu.replay.cards import RANK_BIT, parse_cards
from paipu.replay.combos import Combo
from paipu.replay.games import doudizhu, guandan, paodekuai, shuangkou
from paipu.replay.replayer import make_table
from paipu.replay.sim import simulate

SEEDS = st.integers(0, 10_000)
PLAIN = [(doudizhu.Doudizhu, doudizhu.beating_exists, doudizhu.HUOPIN),
         (paodekuai.Paodekuai, paodekuai.beating_exists, paodekuai.HUOPIN),
         (paodekuai.Paodekuai, paodekuai.beating_exists, paodekuai.CLASSIC)]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(PLAIN), SEEDS)
def test_plain_games_agree_with_a_scan_of_the_table_for_every_combination(game, seed):
    engine, exists, rules = game
    table = engine.combo_table(rules)
    rng = random.Random(seed)
    deck = list(rules.deck)
    rng.shuffle(deck)
    hand = sum(RANK_BIT[c] for c in deck[:rng.randint(1, 20)])
    for last in sorted({c for readings in table.readings.values() for c in readings}):
        assert exists(hand, last, rules) == table.has_beating(hand, (last,)), (last, hand)


GAMES = [("doudizhu", "huopin"), ("paodekuai", "huopin"), ("paodekuai", "classic"), ("guandan", "standard"),
         ("shuangkou", "huopin")]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(GAMES), SEEDS)
def test_can_beat_is_some_legal_move_on_recorded_positions(game, seed):
    record = list(simulate(game[0], game[1], 1, seed))[-1]
    checked = 0
    for _, action, table in stepping(record):
        if table.phase == "play" and not table.over and table.last is not None and action["act"] in ("play", "pass"):
            seat = table.turn
            assert table.can_beat(seat) == bool(table.legal_moves(seat)), (record["id"], _)
            checked += 1
    assert checked or record["actions"][-1]["act"] == "escape" or record.get("result", {}).get("redeal")


def _wild_table(game: str):
    record = list(simulate(game, None, 1, 7))[0]
    table = make_table(record)
    table.setup()
    if table.phase == "tribute":
        table.start_play(0, table.turn)
    return table


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["guandan", "shuangkou"]), SEEDS)
def test_wild_card_games_agree_with_the_generated_moves_on_random_hands(game, seed):
    table = _wild_table(game)
    rng = random.Random(seed)
    lasts = sorted({c for readings in table.combos.readings.values() for c in readings})
    if game == "guandan":
        lasts += [Combo("straight_flush", 5, k, guandan.TIER_STRAIGHT_FLUSH) for k in range(4, 14)]
    else:  # the joker-only plays
        lasts += [c for n in (1, 2, 3, 4) for c in shuangkou._jokers_alone([52, 53, 52, 53][:n])]
        lasts += [Combo("single", 1, 13), Combo("pair", 2, 13), Combo("pair", 2, 15)]
    deck = list(table.rules.deck)
    rng.shuffle(deck)
    cards = deck[:rng.randint(1, 27)]
    if rng.random() < 0.5:  # wild cards in hand
        cards += [table.wild, table.wild] if game == "guandan" else [52, 53]
    seat = table.turn
    with_hand(table, seat, cards)
    for last in rng.sample(lasts, 25):
        table.last = (last,)
        assert table.can_beat(seat) == bool(table.legal_moves(seat)), (last, sorted(cards))


def _after(game: str, cards: str, last: Combo) -> bool:
    table = _wild_table(game)
    seat = table.turn
    with_hand(table, seat, parse_cards(cards))
    table.last = (last,)
    found = table.can_beat(seat)
    assert found == bool(table.legal_moves(seat))
    return found


def test_guandan_wild_hearts_fill_a_bomb():
    table = _wild_table("guandan")
    wild = {0: "3h", 12: "2h"}.get(table.level)
    assert wild is not None  # the first hand of a match is played at level 2
    four_eights = Combo("bomb", 4, guandan.value(5, table.level), 1)
    assert _after("guandan", f"9s 9d {wild} {wild}", four_eights)
    assert not _after("guandan", f"9s 9d {wild} 4c", four_eights)
    assert not _after("guandan", f"7s 7d 7c {wild}", four_eights)  # four 7s are below four 8s


def test_shuangkou_two_jokers_are_a_pair_above_the_twos():
    pair_of_twos = Combo("pair", 2, 12)
    assert _after("shuangkou", "SJ BJ 3s", pair_of_twos)
    assert not _after("shuangkou", "SJ 3s 4s", pair_of_twos)  # 3 + joker is a pair of 3s
    assert _after("shuangkou", "SJ 3s 3h 3d", pair_of_twos)  # a bomb of four 3s


def test_shuangkou_pairs_of_jokers_compare_by_their_big_jokers():
    two_big, big_and_small = Combo("pair", 2, 15), Combo("pair", 2, 14)
    assert _after("shuangkou", "BJ BJ 3s", big_and_small)
    assert not _after("shuangkou", "SJ BJ 3s 4h", big_and_small)  # (3s 3h SJ BJ would be a bomb of four 3s)
    assert not _after("shuangkou", "BJ BJ 2s 3h", two_big)  # only a bomb is above two big jokers
    assert _after("shuangkou", "BJ BJ SJ 2s", two_big)  # three jokers and a two: a bomb of four 2s
    single_big = Combo("single", 1, 14)
    assert not _after("shuangkou", "BJ 2s 2h", single_big)


def _bomb_keys(rng: random.Random, rules) -> list[int]:
    """Bomb keys to beat: plain bombs, joker bombs and bomb chains of random runs."""
    keys = [shuangkou.bomb_key(size, shuangkou.CLASS_PLAIN, ranks=(rng.randrange(13),)) for size in range(4, 13)]
    keys += [shuangkou.bomb_key(6, shuangkou.CLASS_JOKERS), shuangkou.bomb_key(7, shuangkou.CLASS_JOKERS)]
    for _ in range(40):
        order = rng.choice([shuangkou.ORDER_HIGH, shuangkou.ORDER_LOW])
        length = rng.randint(rules.chain_min_bombs, 6)
        start = rng.randrange(13 - length + 1)
        counts = [0] * 13
        for r in order[start:start + length]:
            counts[r] = rng.randint(4, 6)
        chain = shuangkou.bomb_chain(counts, rules)
        if chain is not None:
            keys.append(chain.key)
    return keys


@settings(max_examples=40, deadline=None)
@given(SEEDS, st.sampled_from([2, 3]))
def test_shuangkou_bomb_chain_test_agrees_with_trying_every_way_of_adding_the_jokers(seed, chain_min_bombs):
    # chain_beats decides by stars, class, bombs and cards, and tries the jokers' ways only
    # on a tie: the same answers as the enumeration of every run and every way
    import dataclasses

    rules = dataclasses.replace(shuangkou.HUOPIN, chain_min_bombs=chain_min_bombs)
    rng = random.Random(seed)
    keys = _bomb_keys(rng, rules)
    agree = found = 0
    for _ in range(30):
        counts = [0] * 13
        for r in rng.sample(range(13), rng.randint(2, 8)):  # many ranks with three cards or more
            counts[r] = rng.choice([1, 2, 3, 3, 4, 4, 5, 6, 7, 8])
        natural = sum(n << (5 * r) for r, n in enumerate(counts))
        jokers = rng.randint(0, 4)
        for key in rng.sample(keys, 12):
            expected = shuangkou.chain_beats_by_enumeration(natural, jokers, key, rules)
            assert shuangkou.chain_beats(natural, jokers, key, rules) == expected, (counts, jokers, key)
            agree += 1
            found += expected
    assert 0 < found < agree  # both answers were tested


def test_guandan_straight_flush_test_agrees_with_the_windows_of_each_suit():
    # the four suits' windows summed at once against flush_windows, one suit at a time
    # (what legal_moves enumerates), on random hands at every level and key
    rng = random.Random(6)
    found = 0
    for _ in range(5000):
        hand = bytearray(54)
        for c in rng.sample(list(range(52)) * 2, rng.randint(1, 27)):
            hand[c] += 1
        level = rng.randrange(13)
        wilds, key = hand[4 * level + 1], rng.randrange(-1, 14)
        ends = guandan._WINDOW_ENDS[max(4, key + 1)] if key < 13 else 0
        expected = any(guandan.flush_windows(hand, suit, wilds, level) & ends for suit in range(4))
        assert guandan.straight_flush_exists(hand, wilds, level, key) == expected, (list(hand), level, key)
        found += expected
    assert 100 < found < 4900
