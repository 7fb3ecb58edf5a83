"""Dou Dizhu (doudizhu/huopin): every rule of docs/rules.md, legal and illegal side."""

from __future__ import annotations

import pytest
from helpers import ANTI_SPRING, BID_0, DDZ_HEAD, SPRING, STRAIGHT, ddz, run, verdict

from paipu.replay.replayer import replay

# ---------------------------------------------------------------- the deal


def test_deal_legal():
    assert verdict(SPRING) is None


def test_deal_duplicate_card_is_bad_deal():
    head = DDZ_HEAD.replace("bottom: BJ 2c 3d", "bottom: BJ 2c 3h")
    assert verdict(BID_0, head=head) == ("bad_deal", None)


def test_deal_wrong_size_is_bad_deal():
    head = DDZ_HEAD.replace(" 3c\n", "\n").replace("bottom: BJ 2c 3d", "bottom: BJ 2c 3d 3c")
    r = replay(ddz(BID_0, head=head))
    assert (r.violation.code, r.violation.action) == ("bad_deal", None)
    assert "seat 2 was dealt 16 cards, expected 17" in r.violation.message


# ---------------------------------------------------------------- bidding


def test_call_without_grabs_makes_caller_landlord():
    r = run(SPRING)
    assert r.outcome["landlord"] == 0 and r.outcome["grabs"] == 0


def test_landlord_is_last_grabber_and_each_grab_doubles():
    r = run("0 bid yes\n1 grab yes\n2 grab yes\n0 grab no\n1 escape\n")
    assert r.ok
    assert r.outcome["landlord"] == 2
    assert r.table.grabs == 2


def test_caller_final_grab_keeps_landlord():
    r = run("0 bid yes\n1 grab yes\n2 grab no\n0 grab yes\n0 play 3h\n1 escape\n")
    assert r.ok and r.outcome["landlord"] == 0 and r.table.grabs == 2


def test_no_final_grab_turn_when_nobody_grabbed():
    # nobody grabbed: the caller is landlord at once and leads; a grab now is out of turn
    assert verdict(BID_0 + "0 grab yes\n") == ("out_of_turn", 3)


def test_declined_seat_gets_no_grab_turn():
    # seat 0 declined, seat 1 called: only seat 2 may grab, then seat 1's final turn
    assert verdict("0 bid no\n1 bid yes\n0 grab yes\n") == ("out_of_turn", 2)
    r = run("0 bid no\n1 bid yes\n2 grab yes\n1 grab yes\n1 escape\n")
    assert r.ok and r.outcome["landlord"] == 1 and r.table.grabs == 2


def test_bid_out_of_turn():
    assert verdict("1 bid yes\n") == ("out_of_turn", 0)
    assert verdict("0 bid no\n2 bid yes\n") == ("out_of_turn", 1)


def test_bid_after_call_is_out_of_turn():
    assert verdict("0 bid yes\n1 bid yes\n") == ("out_of_turn", 1)


def test_grab_while_calling_is_out_of_turn():
    assert verdict("0 grab yes\n") == ("out_of_turn", 0)


def test_all_decline_is_a_redeal_with_no_play():
    r = run("0 bid no\n1 bid no\n2 bid no\n")
    assert r.ok and r.outcome["redeal"] is True and r.outcome["scores"] == [0, 0, 0]
    assert verdict("0 bid no\n1 bid no\n2 bid no\n0 play 3h\n") == ("after_end", 3)


def test_all_decline_after_a_show_makes_first_shower_landlord():
    r = run("2 show 4\n1 show 5\n2 bid no\n0 bid no\n1 bid no\n2 play 3c\n0 escape\n")
    assert r.ok and r.outcome["landlord"] == 2


def test_first_shower_bids_first():
    assert verdict("1 show 5\n0 bid yes\n") == ("out_of_turn", 1)
    assert verdict("1 show 5\n1 bid yes\n2 grab no\n0 grab no\n1 escape\n") is None


def test_show_factors_before_bidding():
    assert verdict("0 show 2\n") == ("bad_bid", 0)
    assert verdict("0 show 6\n") == ("bad_bid", 0)
    assert verdict("0 show 5\n0 show 4\n") == ("bad_bid", 1)
    assert verdict("0 bid yes\n1 show 5\n") == ("bad_bid", 1)


def test_landlord_show_after_bottom_doubles():
    r = run(BID_0 + "0 show 2\n" + SPRING[len(BID_0):])
    assert r.ok and r.outcome["multiplier"] == 16  # 2 (show) × 2 (bomb) × 2 (rocket) × 2 (spring)


def test_only_landlord_shows_after_deal_and_before_first_play():
    assert verdict(BID_0 + "1 show 2\n") == ("bad_bid", 3)
    assert verdict(BID_0 + "0 show 3\n") == ("bad_bid", 3)
    assert verdict(BID_0 + "0 play 3h\n0 show 2\n") == ("bad_bid", 4)


def test_largest_show_factor_counts_once():
    r = run("1 show 3\n2 show 5\n1 bid yes\n2 grab no\n0 grab no\n1 play 4h\n2 escape\n")
    assert r.ok and r.table.action_multiplier(0) == 5


def test_peek_at_most_twice_and_only_while_bidding():
    assert verdict("0 peek\n0 peek\n" + SPRING) is None
    assert verdict("0 peek\n0 peek\n0 peek\n") == ("bad_bid", 2)
    assert verdict(BID_0 + "1 peek\n") == ("bad_bid", 3)


def test_first_bidder_is_the_recorded_leader():
    head = DDZ_HEAD.replace("leader: 0", "leader: 2")
    assert verdict("0 bid yes\n", head=head) == ("out_of_turn", 0)
    assert verdict("2 bid yes\n0 grab no\n1 grab no\n2 escape\n", head=head) is None


# ---------------------------------------------------------------- play


def test_landlord_leads_first_trick():
    assert verdict(BID_0 + "1 play 4h\n") == ("first_play", 3)


def test_leader_may_not_pass():
    assert verdict(BID_0 + "0 pass\n") == ("cannot_pass", 3)


def test_play_of_card_not_held():
    assert verdict(BID_0 + "0 play 4h\n") == ("not_in_hand", 3)


def test_play_of_no_combination():
    assert verdict(BID_0 + "0 play 3s 4s\n") == ("invalid_combo", 3)


def test_bad_card_token_in_a_play():
    rec = ddz(BID_0)
    rec["actions"].append({"seat": 0, "act": "play", "cards": ["3x"]})
    r = replay(rec)
    assert (r.violation.code, r.violation.action) == ("bad_card", 3)


def test_a_declared_combination_is_the_only_reading():
    """``declared`` ([kind, key], as paipu combo names them) keeps one reading of a play."""
    assert verdict(BID_0 + f'0 play {STRAIGHT} {{"declared": ["straight", "A"]}}\n0 escape\n') is None
    assert verdict(BID_0 + f'0 play {STRAIGHT} {{"declared": ["straight", "K"]}}\n') == ("invalid_combo", 3)
    r = run(BID_0 + '0 play 3h 3d {"declared": ["single", "3"]}\n')
    assert (r.violation.code, r.violation.action) == ("invalid_combo", 3)
    assert "3h 3d cannot be the declared single 3" in r.violation.message


def test_follow_must_beat_same_kind():
    assert verdict(BID_0 + "0 play 3h\n1 play 4h\n2 play 3c\n") == ("does_not_beat", 5)
    assert verdict(BID_0 + "0 play 3h 3d\n1 play 4h\n") == ("does_not_beat", 4)
    assert verdict(BID_0 + "0 play 3h\n1 play 4h\n2 play Td\n0 play 2s\n1 pass\n2 pass\n0 escape\n") is None


def test_bomb_beats_other_kinds_and_rocket_beats_bomb():
    moves = BID_0 + "0 play 3h\n1 play 4h\n2 pass\n0 play 2s 2h 2d 2c\n1 pass\n2 pass\n0 escape\n"
    assert verdict(moves) is None


def test_pass_out_of_turn():
    assert verdict(BID_0 + "0 play 3h\n2 pass\n") == ("out_of_turn", 4)


def test_trick_won_when_others_pass_then_winner_leads():
    assert verdict(BID_0 + "0 play 3h\n1 play 4h\n2 pass\n0 pass\n0 play 3d\n") == ("out_of_turn", 7)
    assert verdict(BID_0 + "0 play 3h\n1 play 4h\n2 pass\n0 pass\n1 pass\n") == ("cannot_pass", 7)


def test_action_after_the_end():
    assert verdict(SPRING + "1 pass\n") == ("after_end", 13)


def test_incomplete_hand():
    assert verdict(BID_0 + "0 play 3h\n") == ("incomplete", None)


# ---------------------------------------------------------------- scoring


def test_spring_doubles_and_scores():
    r = run(SPRING)
    assert r.outcome["spring"] is True and r.outcome["spring_kind"] == "spring"
    assert r.outcome["multiplier"] == 8
    assert r.outcome["scores"] == [16, -8, -8]
    assert r.outcome["order"] == [0]


def test_anti_spring_when_landlord_played_once():
    r = run(ANTI_SPRING)
    assert r.ok and r.outcome["winner"] == "farmers"
    assert r.outcome["spring_kind"] == "anti_spring" and r.outcome["multiplier"] == 2
    assert r.outcome["scores"] == [-4, 2, 2]


def test_no_spring_when_farmers_played():
    moves = BID_0 + f"""0 play 3h
1 play 4h
2 play Td
0 play 2s
1 pass
2 pass
0 play {STRAIGHT}
1 pass
2 pass
0 play 2h 2d 2c 3d
1 pass
2 pass
0 play SJ BJ
"""
    r = run(moves)
    assert r.ok and r.outcome["spring"] is False
    assert r.outcome["multiplier"] == 2 and r.outcome["scores"] == [4, -2, -2]


def test_grabs_and_room_multiplier_and_base():
    moves = "0 bid yes\n1 grab yes\n2 grab yes\n0 grab yes\n" + SPRING[len(BID_0):]
    r = run(moves, room={"base": 3, "multiplier": 2})
    # room 2 × grabs 8 × bomb 2 × rocket 2 × spring 2
    assert r.outcome["multiplier"] == 128
    assert r.outcome["scores"] == [768, -384, -384]


def test_coins_with_coefficient_and_fee():
    r = run(ANTI_SPRING, room={"coef": 100, "fee": 10})
    assert r.outcome["coins"] == [-410, 190, 190]


def test_a_whole_amount_of_coins_is_a_whole_number_with_either_engine(monkeypatch):
    """A float score or stack whose coins come out whole gives ints (200, not 200.0), with
    the compiled kernel's whole-coin case or the pure reference: the pure one returned
    floats for a float score before its seam (rules.md §2.6); a fraction stays a fraction."""
    from paipu.replay import settle

    cases = [([2.0, -1, -1], 100, 0, [1000, 1000, 1000]), ([2, -1, -1], 100, 10, [1000.0, 1000, 1000]),
             ([2, -1, -1], 100, 0, None)]
    for whole in {settle.SETTLE_WHOLE, settle._settle_whole}:
        monkeypatch.setattr(settle, "SETTLE_WHOLE", whole)
        got = [settle.settle_coins(*case) for case in cases]
        assert got == [[200, -100, -100], [190, -110, -110], [200, -100, -100]]
        assert {type(c) for coins in got for c in coins} == {int}
        assert settle.settle_coins([1, -1], 0.5, 0, None) == [0.5, -0.5]


def test_coins_capped_by_what_losers_carried():
    r = run(SPRING, room={"coef": 100, "fee": 10}, stacks=[10000, 500, 300])
    assert r.outcome["coins"] == [790, -500, -300]


def test_coins_capped_by_what_winner_carried():
    # the landlord wins 1600 but carried 1000: each farmer pays in proportion, 500
    r = run(SPRING, room={"coef": 100}, stacks=[1000, 5000, 5000])
    assert r.outcome["coins"] == [1000, -500, -500]


def test_coins_when_landlord_cannot_pay():
    # landlord owes 400 but carried 300: the farmers share 300
    r = run(ANTI_SPRING, room={"coef": 100}, stacks=[300, 5000, 5000])
    assert r.outcome["coins"] == [-300, 150, 150]


# ---------------------------------------------------------------- escape

GRAB3 = "0 bid yes\n1 grab yes\n2 grab yes\n0 grab yes\n"


@pytest.mark.parametrize("moves,scores", [
    ("0 escape\n", [-10, 0, 0]),                 # before any landlord: a farmer's 10 × base
    (BID_0 + "0 escape\n", [-20, 0, 0]),         # landlord under 10×: 20 × base
    (BID_0 + "2 escape\n", [0, 0, -10]),         # farmer under 10×
    # 8 (grabs) × 4 (the landlord holds 2222 and the rocket) = 32: landlord 4 × 2 × 32
    (GRAB3 + "0 escape\n", [-256, 0, 0]),
    (GRAB3 + "1 escape\n", [0, -64, 0]),         # farmer 2 × 32
])
def test_escape_penalties(moves, scores):
    r = run(moves)
    assert r.ok and r.outcome["scores"] == scores


def test_escape_counts_bombs_played_and_held():
    moves = GRAB3 + "0 play 2s 2h 2d 2c\n1 escape\n"
    r = run(moves)
    assert r.outcome["multiplier"] == 32 and r.outcome["scores"] == [0, -64, 0]


def test_escape_coins_capped():
    r = run(BID_0 + "2 escape\n", room={"coef": 100}, stacks=[5000, 5000, 700])
    assert r.outcome["coins"] == [0, 0, -700]


# ---------------------------------------------------------------- the declared result


def test_result_matching():
    assert verdict(SPRING, result={"landlord": 0, "multiplier": 8, "spring": True, "scores": [16, -8, -8], "order": [0]}) is None


@pytest.mark.parametrize("field,value", [
    ("multiplier", 4), ("landlord", 1), ("spring", False), ("scores", [8, -4, -4]), ("order", [1]), ("redeal", True),
])
def test_result_mismatch_names_field(field, value):
    r = run(SPRING, result={field: value})
    assert (r.violation.code, r.violation.action) == ("result_mismatch", None)
    assert f"result.{field}" in r.violation.message


# ---------------------------------------------------------------- declared readings and escape


def test_declared_reading_must_repeat_the_cards_without_wilds():
    assert verdict(BID_0 + "0 play 3h as 3h\n1 escape\n") is None
    assert verdict(BID_0 + "0 play 3h as 4h\n") == ("invalid_combo", 3)
    rec = ddz(BID_0)
    rec["actions"].append({"seat": 0, "act": "play", "cards": ["3h"], "as": ["3?"]})
    r = replay(rec)
    assert (r.violation.code, r.violation.action) == ("bad_card", 3)


def test_nothing_after_an_escape():
    assert verdict(BID_0 + "1 escape\n0 play 3h\n") == ("after_end", 4)
