"""Paodekuai (paodekuai/huopin and paodekuai/classic): every rule, legal and illegal side."""

from __future__ import annotations

import copy

import pytest
from helpers import CLASSIC_HEAD, PDK_HEAD, code_at, pdk_verdict, stepping, submultisets, table_after, text_record
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from paipu.replay.cards import CARD_NAMES, pack, parse_cards
from paipu.replay.combos import any_beats
from paipu.replay.games.paodekuai import CLASSIC, HUOPIN, Paodekuai
from paipu.replay.replayer import replay
from paipu.replay.sim import simulate

H = Paodekuai.combo_table(HUOPIN)
C = Paodekuai.combo_table(CLASSIC)


def kinds(table, text: str) -> list[str]:
    return sorted(c.kind for c in table.classify(pack(parse_cards(text))))


# ---------------------------------------------------------------- huopin combinations


@pytest.mark.parametrize("cards,kind", [
    ("3s", "single"), ("2s", "single"), ("3s 3h", "pair"), ("3s 3h 3d", "triple"),
    ("3s 3h 3d 4s 9c", "triple_two"), ("3s 3h 3d 9s 9c", "triple_two"),
    ("3s 4s 5s 6s 7h", "straight"), ("Ts Js Qs Ks Ah", "straight"),
    ("3s 3h 4s 4h", "pair_chain"), ("3s 3h 3d 4s 4h 4d", "triple_chain"),
    ("3s 3h 3d 4s 4h 4d 9c 9d Tc Jc", "airplane"), ("3s 3h 3d 4s 4h 4d 5s 6c 6d 6h", "airplane"),
    ("3s 3h 3d 3c 5s 6h 7d", "four_three"), ("3s 3h 3d 3c 5s 5h 5d", "four_three"), ("3s 3h 3d 3c", "bomb"),
])
def test_huopin_combinations(cards, kind):
    assert kinds(H, cards) == [kind]


@pytest.mark.parametrize("cards", [
    "Js Qs Ks Ah 2s",            # 2 never in a straight
    "3s 4s 5s 6s",               # straight of four
    "3s 3h",  # placeholder replaced below
    "3s 3h 3d 4s 4h 4d 5c",      # short airplane: 2 triples need exactly 4 cards more
    "3s 3h 3d 4s",               # no triple+1 in huopin
    "3s 3h 3d 3c 4s 4h",         # four+two is not four+three
    "3s 3h 3d 3c 3s",            # a kicker never shares the triple's or four's rank
    "Ks Kh As Ah 2s 2h",         # 2 never in a chain
])
def test_huopin_not_combinations(cards):
    if cards == "3s 3h":
        cards = "3s 4h"
    assert kinds(H, cards) == []


def test_airplane_readings_count_at_their_strongest():
    readings = H.classify(pack(parse_cards("3s 3h 3d 4s 4h 4d 5s 5h 5d 6c")))
    assert sorted(c.key for c in readings) == [1, 2]  # 333444+5556 and 444555+3336
    lower = H.classify(pack(parse_cards("3s 3h 3d 4s 4h 4d 9c 9d Tc Jc")))
    assert any_beats(readings, lower) and not any_beats(lower, readings)


@pytest.mark.parametrize("a,b,wins", [
    ("4s", "3s", True), ("2s", "As", True), ("As", "2s", False), ("3s 3h 3d 3c", "2s", True),
    ("4s 4h 4d 4c", "3s 3h 3d 3c", True), ("4s 5s 6s 7s 8s", "3s 4h 5h 6h 7h", True),
    ("4s 5s 6s 7s 8s 9s", "3s 4h 5h 6h 7h", False), ("4s 4h 4d 3s 3h", "3c 3d 3s 9s 9h", True),
    ("5s 5h 5d 5c 3s 3h 3d", "4s 4h 4d 4c As Ah Ad", True),
])
def test_huopin_compare(a, b, wins):
    assert any_beats(H.classify(pack(parse_cards(a))), H.classify(pack(parse_cards(b)))) is wins


# ---------------------------------------------------------------- classic combinations


@pytest.mark.parametrize("cards,kind", [
    ("As 2s 3s 4s 5h", "straight"), ("2s 3s 4s 5s 6h", "straight"), ("Ts Js Qs Ks Ah", "straight"),
    ("As Ah 2s 2h 3s 3h", "pair_chain"), ("3s 3h 3d 4s 4h", "triple_pair"), ("SJ BJ", "rocket"),
    ("BJ", "single"), ("3s 3h 3d 3c", "bomb"),
])
def test_classic_combinations(cards, kind):
    assert kinds(C, cards) == [kind]


@pytest.mark.parametrize("cards", [
    "Ks As 2s 3s 4h",        # no wrap
    "Js Qs Ks As 2h",        # 2 only below 3
    "3s 3h 4s 4h",           # pair chains from three pairs
    "3s 3h 3d 4s",           # no triple+1
    "3s 3h 3d 4s 5s",        # triple+pair needs a pair
    "9s Ts Js Qs SJ",        # no jokers in straights
    "3s 3h 3d 4s 4h 4d",     # no triple chain in classic
])
def test_classic_not_combinations(cards):
    assert kinds(C, cards) == []


@pytest.mark.parametrize("a,b,wins", [
    ("2s 3s 4s 5s 6h", "As 2h 3h 4h 5d", True), ("3s 4s 5s 6s 7h", "2s 3h 4h 5h 6d", True),
    ("As 2h 3h 4h 5d", "2s 3s 4s 5s 6h", False), ("Ts Js Qs Ks Ah", "9s Ts Js Qs Kh", True),
    ("SJ BJ", "2s 2h 2d 2c", True), ("2s 2h 2d 2c", "SJ BJ", False), ("BJ", "SJ", True),
])
def test_classic_compare(a, b, wins):
    assert any_beats(C.classify(pack(parse_cards(a))), C.classify(pack(parse_cards(b)))) is wins


# ---------------------------------------------------------------- huopin hands

OPEN = "0 play 3d\n1 play 2s\n2 pass\n"


def test_three_of_diamonds_holder_leads_without_playing_it():
    assert pdk_verdict("0 play 4d 4s 4h 4c\n1 pass\n2 pass\n0 escape\n") is None
    assert pdk_verdict("1 play 2s\n") == ("first_play", 0)


def test_must_play_when_holding_a_beating_play():
    assert pdk_verdict("0 play 3d\n1 pass\n") == ("must_play", 1)
    assert pdk_verdict(OPEN + "0 pass\n") == ("must_play", 3)   # seat 0 holds a bomb
    assert pdk_verdict(OPEN + "0 play 4d 4s 4h 4c\n1 pass\n2 pass\n0 escape\n") is None


def test_pass_without_a_beating_play_is_legal():
    assert pdk_verdict(OPEN + "0 play 4d 4s 4h 4c\n1 pass\n2 pass\n0 play 3d\n") == ("not_in_hand", 6)
    assert pdk_verdict(OPEN + "0 play 4d 4s 4h 4c\n1 pass\n2 pass\n0 play 5d\n1 play Ah\n2 pass\n0 escape\n") is None


def test_two_in_a_straight_and_short_airplane_are_invalid():
    assert pdk_verdict("0 play 3d\n1 play Js Qs Ks Ah 2s\n") == ("invalid_combo", 1)
    assert pdk_verdict("0 play 3d 4d 4s 4h 5d 5s 5h\n") == ("invalid_combo", 0)
    assert pdk_verdict("0 play 4d 4s 4h 5d 5s 5h 3d 6h 7d 8d\n1 pass\n2 pass\n0 escape\n") is None


LET_GO = """\
0 play 3d
1 play 2s
2 pass
0 pass
1 play 7s 7h 8s 8h 9s 9h Ts Th Js Jh Qs Qh Ks Kh
2 pass
0 play 4d 4s 4h 4c
1 pass
2 pass
0 play 5d
1 play Ah
"""


def test_let_go_seat_pays_every_losers_loss_and_bomb_earns_xiqian():
    r = replay(text_record(PDK_HEAD, LET_GO, params={"must_play": False}, room={"name": "初级场", "coef": 10}))
    assert r.ok, r.violation
    assert [(e.kind, e.action, e.seat) for e in r.events if e.kind in ("let_go", "xiqian", "bomb")] == [
        ("bomb", 6, 0), ("xiqian", 8, 0), ("let_go", 9, 0)]
    out = r.outcome
    assert out["winner"] == 1 and out["let_go"] == 0
    # seat 0: 10 cards left, played 6 of 16 (fewer than half): ×2 = 20; seat 2 played none: 16 × 3 = 48
    assert out["factors"] == [2, 0, 3] and out["cards_left"] == [10, 0, 16]
    assert out["scores"] == [-68, 68, 0]
    assert out["xiqian"] == [3200, -1600, -1600]
    assert out["coins"] == [-680 + 3200, 680 - 1600, -1600]


def test_no_let_go_when_the_single_is_the_highest():
    moves = LET_GO.replace("0 play 5d\n", "0 play Kd\n")
    r = replay(text_record(PDK_HEAD, moves, params={"must_play": False}))
    assert r.ok and r.outcome["let_go"] is None
    assert r.outcome["scores"] == [-20, 68, -48]


def test_xiqian_only_for_a_bomb_nobody_beats():
    moves = OPEN + "0 play 4d 4s 4h 4c\n1 pass\n2 pass\n0 escape\n"
    r = replay(text_record(PDK_HEAD, moves, room={"xiqian": 500}))
    assert r.outcome["xiqian"] == [1000, -500, -500]
    moves = "0 play 3d\n1 play 2s\n2 pass\n0 play 4d 4s 4h 4c\n1 escape\n"   # the trick is not over
    assert replay(text_record(PDK_HEAD, moves, room={"xiqian": 500})).outcome["xiqian"] == [0, 0, 0]


def test_xiqian_capped_by_what_a_seat_carries():
    moves = OPEN + "0 play 4d 4s 4h 4c\n1 pass\n2 pass\n0 escape\n"
    r = replay(text_record(PDK_HEAD, moves, room={"xiqian": 500, "coef": 1}, stacks=[1000, 1000, 200]))
    assert r.outcome["xiqian"] == [700, -500, -200]


def test_huopin_scoring_factors():
    # seat 1 goes out at once after the 2: 0 played 1 card (of 16: fewer than half) -> ×2, 2 played none -> ×3
    moves = "0 play 3d\n1 play 2s\n2 pass\n0 pass\n1 play 7s 7h 8s 8h 9s 9h Ts Th Js Jh Qs Qh Ks Kh\n2 pass\n0 pass\n1 play Ah\n"
    r = replay(text_record(PDK_HEAD, moves, params={"must_play": False}))
    assert r.ok and r.outcome["scores"] == [-30, 78, -48]


# ---------------------------------------------------------------- classic hands

CLASSIC_GAME = """\
0 play 3c 3d 3h
1 play 9s 9h 9d
2 pass
0 pass
1 play Ts Th Td
2 pass
0 play Ks Kh Kd
1 pass
2 pass
0 play 3s 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac
"""


def test_classic_scoring_the_seeds_example():
    r = replay(text_record(CLASSIC_HEAD, CLASSIC_GAME))
    assert r.ok, r.violation
    # seat 1: 12 cards left, more than 10 ×2, a bomb held ×2 = 48 (the seed's example)
    # seat 2: 18 left ×2, the rocket held ×2, no card played ×2 = 144
    assert r.outcome["scores"] == [192, -48, -144]


def test_classic_opening_needs_three_of_clubs():
    assert pdk_verdict("0 play 3d 3h 3s\n", head=CLASSIC_HEAD) == ("first_play", 0)
    assert pdk_verdict("1 play 9s\n", head=CLASSIC_HEAD) == ("first_play", 0)


def test_classic_has_no_must_play():
    assert pdk_verdict("0 play 3c\n1 pass\n2 pass\n0 escape\n", head=CLASSIC_HEAD) is None


def test_classic_deck_and_seats_as_parameters():
    rules = CLASSIC.with_params({"players": 4, "deck": 52})
    assert rules.hand_sizes() == [13, 13, 13, 13] and len(rules.deck) == 52
    assert CLASSIC.with_params({"players": 4}).hand_sizes() == [14, 14, 13, 13]
    with pytest.raises(ValueError):
        HUOPIN.with_params({"deck": 52})


def test_wrong_deal_is_bad_deal():
    head = PDK_HEAD.replace("Ad Ac", "Ad As")
    assert pdk_verdict("0 play 3d\n", head=head) == ("bad_deal", None)


# ---------------------------------------------------------------- properties

SEEDS = st.integers(0, 10**9)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(SEEDS, st.sampled_from(["huopin", "classic"]), st.sampled_from([{}, {"players": 2}, {"players": 4, "deck": 52}]))
def test_simulated_hands_replay_clean(seed, variant, params):
    if variant == "huopin":
        params = {}
    record = next(simulate("paodekuai", variant, 1, seed, escape_rate=0.1, params=params or None))
    r = replay(record)
    assert r.ok, r.violation
    for key, value in record["result"].items():
        assert r.outcome[key] == value


@FAST
@given(SEEDS, st.data())
def test_pass_under_must_play_is_caught(seed, data):
    record = next(simulate("paodekuai", "huopin", 1, seed))
    follows = [k for k, action, table in stepping(record) if action["act"] == "play" and table.last is not None]
    assume(follows)
    i = data.draw(st.sampled_from(follows))
    bad = copy.deepcopy(record)
    bad["actions"][i] = {"seat": record["actions"][i]["seat"], "act": "pass"}
    assert code_at(bad) == ("must_play", i)


@settings(max_examples=15, deadline=None)
@given(SEEDS, st.sampled_from(["huopin", "classic"]), st.data())
def test_generated_plays_are_exactly_the_validating_plays(seed, variant, data):
    record = next(simulate("paodekuai", variant, 1, seed))
    stop = data.draw(st.integers(0, len(record["actions"]) - 1))
    table = table_after(record, stop)
    seat = table.turn
    generated = set(table.legal_plays(seat))
    validating = set()
    for packed in submultisets(table.packed[seat]):
        v, *_ = table.verify_play(stop, seat, [CARD_NAMES[c] for c in table.cards_for(seat, packed)])
        if v is None:
            validating.add(packed)
    assert generated == validating
