"""The deal check (one comparison of card weights, Table.check_deal): the same verdict and
message as counting every card, including deals that only differ by copies of one card."""

from __future__ import annotations

import copy

import pytest
from helpers import code_at

from paipu.replay.replayer import replay
from paipu.replay.sim import simulate


@pytest.mark.parametrize("game", ["doudizhu", "paodekuai", "guandan", "shuangkou"])
def test_a_card_dealt_twice_instead_of_another_is_named(game):
    record = next(simulate(game, None, 1, 3))
    assert code_at(record) is None
    bad = copy.deepcopy(record)
    hand = bad["deal"][0]
    twice, lost = hand[0], hand[1]
    hand[1] = twice  # seat 0 holds its first card once more, its second card not at all
    r = replay(bad)
    assert (r.violation.code, r.violation.action) == ("bad_deal", None)
    copies = 1 if game in ("doudizhu", "paodekuai") else 2
    others = sum(h.count(twice) for h in record["deal"][1:])
    if copies == 1 or others == 0:  # otherwise the extra copy may match the deck's second one
        assert f"too many {twice}" in r.violation.message
    assert f"missing {lost}" in r.violation.message or lost == twice


def test_four_copies_of_a_card_in_a_two_deck_game_are_not_one_of_the_next():
    # with two bits per card id, four 3s would carry into one 3h: the sizes rule that out
    record = next(simulate("guandan", None, 1, 4))
    bad = copy.deepcopy(record)
    deal = bad["deal"]
    where = [(s, k) for s, hand in enumerate(deal) for k, t in enumerate(hand) if t in ("3h", "4s", "4h")]
    for s, k in where[:3]:
        deal[s][k] = "3s"
    assert code_at(bad) == ("bad_deal", None)
