"""Shuangkou (shuangkou/huopin): wild jokers, bombs and stars, every comparison example of
the seed (sections A–E) both ways, 扣, escape, and simulated hands."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from helpers import code_at, stepping, table_after
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paipu.replay.cards import CARD_NAMES, parse_cards
from paipu.replay.combos import any_beats, strongest
from paipu.replay.games.shuangkou import HUOPIN, Shuangkou, classify_cards, stars_of
from paipu.replay.replayer import make_table, replay, run
from paipu.replay.sim import simulate

TABLE = Shuangkou.combo_table(HUOPIN)


def read(text: str):
    return classify_cards(TABLE, HUOPIN, parse_cards(text))


def spell(ranks: str) -> str:
    """'3333+44444' -> cards of distinct suits (two decks: each suit twice); B/R jokers."""
    out, seen = [], {}
    for ch in ranks.replace("+", ""):
        if ch in "BR":
            out.append({"B": "SJ", "R": "BJ"}[ch])
            continue
        k = seen.get(ch, 0)
        seen[ch] = k + 1
        out.append(ch + "shdc"[k % 4])
    return " ".join(out)


def beats(a: str, b: str) -> bool:
    ra, rb = read(spell(a)), read(spell(b))
    assert ra and rb, (a, b)
    return any_beats(ra, strongest(rb))


# ---------------------------------------------------------------- combinations and wild jokers


@pytest.mark.parametrize("ranks,kind", [
    ("3", "single"), ("R", "single"), ("33", "pair"), ("BB", "pair"), ("BR", "pair"), ("RR", "pair"),
    ("333", "triple"), ("34567", "straight"), ("3456789TJQKA", "straight"), ("334455", "pair_chain"),
    ("333444555", "triple_chain"), ("3333", "bomb"), ("333333333333", "bomb"), ("444R", "bomb"),
    ("BBR", "three_joker_bomb"), ("BBRR", "four_joker_bomb"), ("3333+4444+5555", "bomb_chain"),
    ("2222+AAAA+3333", "bomb_chain"), ("2222+AAAA+KKKK", "bomb_chain"), ("33445R", "pair_chain"),
    ("5679R", "straight"), ("44R", "triple"), ("5R", "pair"),
])
def test_combinations(ranks, kind):
    assert read(spell(ranks))[0].kind == kind


@pytest.mark.parametrize("ranks", [
    "3344R",            # no joker makes this a combination (the seed's own example)
    "JQKA2", "QQKKAA22", "333444",  # no 2 in sequences; triple chains need three triples
    "33344", "3333+4444", "QQQQ+KKKK+AAAA+2222+3333",  # no triple+pair; chains of 3+; no wrap
    "BR34",             # two jokers cannot make 3 and 4 one combination
])
def test_not_combinations(ranks):
    assert read(spell(ranks)) == ()


@pytest.mark.parametrize("low,ranks,kind", [
    (2, "3333+4444", "bomb_chain"), (2, "3333+444R", "bomb_chain"), (2, "2222+AAAA", "bomb_chain"),
    (3, "3333+4444", None), (4, "3333+4444+5555", None), (4, "3333+4444+5555+6666", "bomb_chain"),
])
def test_the_fewest_bombs_in_a_chain_is_a_parameter(low, ranks, kind):
    rules = dataclasses.replace(HUOPIN, chain_min_bombs=low)
    got = classify_cards(Shuangkou.combo_table(rules), rules, parse_cards(spell(ranks)))
    assert (got[0].kind if got else None) == kind


def test_a_two_bomb_chain_by_record_params():
    record = hand(5)
    assert replay(record).ok
    assert replay({**record, "params": {"chain_min_bombs": 2}}).ok
    assert code_at({**record, "params": {"chain_min_bombs": 1}}) == ("bad_record", None)
    rules = HUOPIN.with_params({"chain_min_bombs": 2})
    (chain,) = classify_cards(Shuangkou.combo_table(rules), rules, parse_cards(spell("5555+66666")))
    assert stars_of(chain) == 4 + 2  # the smallest bomb's size + the number of bombs


def test_a_joker_takes_the_highest_reading():
    from paipu.replay.cards import RANK_NAMES

    (c,) = read(spell("5678R"))
    assert (c.kind, RANK_NAMES[c.key]) == ("straight", "9")  # 5-9, not 4-8
    assert beats("5678R", "45678") and not beats("45678", "5678R")
    assert RANK_NAMES[read(spell("5679R"))[0].key] == "9"  # the joker can only be the 8


def test_lone_jokers_and_joker_pairs():
    assert beats("R", "B") and beats("B", "2") and not beats("2", "B")
    assert beats("BB", "22") and beats("BR", "BB") and beats("RR", "BR") and not beats("22", "BB")


# ---------------------------------------------------------------- stars and the seed's comparisons


@pytest.mark.parametrize("ranks,stars", [
    ("3333", 4), ("66666", 5), ("444R", 4), ("4444R", 5), ("44444R", 6), ("44444444R", 9),
    ("3333+4444+5555", 7), ("4444+55555+66666", 7), ("3333+4444+5555+6666", 8), ("77777+88888+99999", 8),
    ("BBR", 6), ("BBRR", 7),
])
def test_stars(ranks, stars):
    assert stars_of(read(spell(ranks))[0]) == stars


SEED_EXAMPLES = [  # (bigger, smaller): seed sections A–E
    ("5555", "4444"),                                     # A: same stars, by rank
    ("44444", "AAAA"),                                    # A: more stars
    ("3333+4444+5555+6666", "77777+88888+99999"),         # B a: 8 stars, more bombs
    ("6666+7777+8888", "3333+4444+5555"),                 # B b: same bombs, by rank
    ("3333+44444+555555+6666", "66666+77777+888888"),     # C a: 8 stars, more bombs
    ("4444+55555+66666", "6666+77777+8888"),              # C b: same bombs, more cards
    ("4444+55555+6666", "3333+4444+55555"),               # C c: same cards, by the biggest bombs' ranks
    ("JJJJJJJ", "4444+55555+6666"),                       # D: same stars, a plain bomb beats a chain
    ("333333", "BBR"),                                    # E: three jokers are the lowest 6-star play
    ("3333333", "BBRR"),                                  # E: four jokers the lowest 7-star play
    ("3333+4444+5555", "BBRR"),
    ("BBR", "22222"),                                     # 6 stars beat 5
    ("2222+AAAA+KKKK", "2222+AAAA+3333"),                 # with 2 and 3 in a chain, A and 2 count low
]


@pytest.mark.parametrize("big,small", SEED_EXAMPLES)
def test_seed_comparisons_both_ways(big, small):
    assert beats(big, small) and not beats(small, big)


def test_jokers_in_a_bomb_do_not_change_it():
    assert not beats("444R", "4444") and not beats("4444", "444R")


def test_bombs_beat_every_other_type():
    assert beats("3333", "3456789TJQKA") and beats("BBR", "RR") and not beats("AA", "3333")


# ---------------------------------------------------------------- hands

SEEDS = st.integers(0, 10**9)


def hand(seed: int, escape_rate: float = 0.0) -> dict:
    return next(simulate("shuangkou", None, 1, seed, escape_rate=escape_rate))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SEEDS)
def test_simulated_hands_replay_clean(seed):
    record = hand(seed, escape_rate=0.1)
    r = replay(record)
    assert r.ok, r.violation
    for key, value in record["result"].items():
        assert r.outcome[key] == value


def test_the_holder_of_the_drawn_card_leads():
    record = hand(3)
    first = record["actions"][0]["seat"]
    assert record["lead_card"] in record["deal"][first]
    bad = copy.deepcopy(record)
    bad["actions"][0]["seat"] = (first + 1) % 4
    assert code_at(bad) == ("first_play", 0)


def test_kou_from_the_losers_cards():
    record = hand(5)
    r = replay(record)
    left = r.outcome["cards_left_losers"]
    kou = "double" if left >= 12 else "single" if left >= 7 else "flat"
    assert r.outcome["kou"] == kou
    mult = {"double": 3, "single": 2, "flat": 1}[kou]
    base = record["room"]["base"]
    team = r.outcome["winner"] % 2
    assert r.outcome["scores"] == [base * mult if s % 2 == team else -base * mult for s in range(4)]


@pytest.mark.parametrize("left,kou", [(12, "double"), (20, "double"), (11, "single"), (7, "single"), (6, "flat"), (1, "flat")])
def test_kou_thresholds(left, kou):
    record = hand(5)
    table = make_table(record)
    table.setup()
    table.out = [0]
    table.end_reason = "out"
    table.left = [0, left - left // 2, 10, left // 2]
    assert table.outcome()["kou"] == kou


def test_escape_penalty():
    record = hand(7)
    record["actions"] = record["actions"][:3] + [{"seat": 2, "act": "escape"}]
    record.pop("result")
    r = replay(record)
    base, fee = record["room"]["base"], record["room"]["fee"]
    assert r.ok and r.outcome["scores"] == [0, 0, -128 * base, 0]
    assert r.outcome["coins"] == [0, 0, -(128 * base + fee), 0]


def test_stars_per_seat_capped_at_nine():
    record = hand(11)
    table = make_table(record)
    run(table, record["actions"])
    table.stars = [12, 3, 0, 9]
    assert table.outcome()["stars"] == [9, 3, 0, 9]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SEEDS, st.data())
def test_every_generated_move_validates(seed, data):
    record = hand(seed)
    plays = [k for k, a in enumerate(record["actions"]) if a["act"] in ("play", "pass")]
    stop = data.draw(st.sampled_from(plays))
    table = table_after(record, stop)
    seat = table.turn
    for cards, _ in table.legal_moves(seat):
        v, *_ = table.verify_play(stop, seat, [CARD_NAMES[c] for c in cards])
        assert v is None, (cards, v)


def test_legal_moves_with_four_jokers_in_hand():
    record = hand(13)
    table = make_table(record)
    table.setup()
    seat = table.turn
    hand_cards = table.hands[seat]
    for c in range(54):  # give the leader all four jokers for this check
        for s in range(4):
            if s != seat and c >= 52 and table.hands[s][c]:
                table.hands[s][c] -= 1
                hand_cards[c] += 1
    assert sum(hand_cards[52:54]) == 4
    moves = table.legal_moves(seat)
    kinds = {r[0].kind for _, r in moves}
    assert {"four_joker_bomb", "three_joker_bomb", "bomb", "pair", "single"} <= kinds


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SEEDS, st.data())
def test_single_rule_breaking_changes_are_caught_exactly(seed, data):
    record = hand(seed)
    leads, follows = [], []
    for k, action, table in stepping(record):
        if action["act"] == "play":
            (leads if table.last is None else follows).append(k)
    # the leader passes
    i = data.draw(st.sampled_from(leads))
    bad = copy.deepcopy(record)
    bad["actions"][i] = {"seat": record["actions"][i]["seat"], "act": "pass"}
    assert code_at(bad) == ("cannot_pass", i)
    # a card the seat does not hold
    plays = sorted(leads + follows)
    i = data.draw(st.sampled_from(plays))
    table = table_after(record, i)
    seat = record["actions"][i]["seat"]
    missing = [c for c in range(54) if not table.hands[seat][c]]
    bad = copy.deepcopy(record)
    bad["actions"][i]["cards"][0] = CARD_NAMES[data.draw(st.sampled_from(missing))]
    assert code_at(bad) == ("not_in_hand", i)
    # a play by the wrong seat
    i = data.draw(st.sampled_from(plays))
    bad = copy.deepcopy(record)
    bad["actions"][i]["seat"] = (bad["actions"][i]["seat"] + 1) % 4
    assert code_at(bad) == ("first_play" if i == plays[0] else "out_of_turn", i)
    # the record stops early, or goes on after the end
    cut = copy.deepcopy(record)
    del cut["actions"][data.draw(st.integers(0, len(record["actions"]) - 1)):]
    assert code_at(cut) == ("incomplete", None)
    longer = copy.deepcopy(record)
    longer["actions"].append({"seat": 0, "act": "pass"})
    assert code_at(longer) == ("after_end", len(record["actions"]))


def test_a_non_combination_and_a_weaker_follow():
    record = hand(21)
    table = make_table(record)
    table.setup()
    seat = table.turn
    cards = [c for c in range(52) if table.hands[seat][c]]
    pair_break = next((a, b) for a in cards for b in cards if (a >> 2) + 1 < (b >> 2) and b >> 2 <= 10)
    bad = copy.deepcopy(record)
    bad["actions"] = [{"seat": seat, "act": "play", "cards": [CARD_NAMES[pair_break[0]], CARD_NAMES[pair_break[1]]]}]
    assert code_at(bad) == ("invalid_combo", 0)
    high = max(cards, key=lambda c: c >> 2)
    nxt = (seat + 1) % 4
    follower_low = min((c for c in range(52) if table.hands[nxt][c]), key=lambda c: c >> 2)
    assert (follower_low >> 2) <= (high >> 2)  # this deal has a weaker single for the next seat
    bad["actions"] = [{"seat": seat, "act": "play", "cards": [CARD_NAMES[high]]},
                      {"seat": nxt, "act": "play", "cards": [CARD_NAMES[follower_low]]}]
    assert code_at(bad) == ("does_not_beat", 1)
