"""Cards: notation of format.md, ids, decks, packed counts."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paipu.replay.cards import (
    DECK_48, DECK_52, DECK_54, DECK_108, CardError, canonical, card_name, cards_name, contains, counts, pack,
    parse_card, parse_cards,
)


@pytest.mark.parametrize("token,name", [
    ("3s", "3s"), ("Th", "Th"), ("10h", "Th"), ("10♥", "Th"), ("♠", None), ("A♣", "Ac"), ("2♦", "2d"),
    ("SJ", "SJ"), ("BJ", "BJ"), ("sj", "SJ"), ("qS", "Qs"), ("小王", "SJ"), ("大王", "BJ"),
])
def test_spellings_read_and_canonical_output(token, name):
    if name is None:
        with pytest.raises(CardError):
            parse_card(token)
    else:
        assert canonical(token) == name


@pytest.mark.parametrize("token", ["1s", "3x", "", "T", "11h", "3 s", "Js ", None, 3])
def test_not_cards(token):
    with pytest.raises(CardError) as e:
        parse_card(token)
    assert "not a card" in str(e.value)


def test_parse_cards_separators_and_error_position():
    assert cards_name(parse_cards("3h 3s,3d  4c")) == "3h 3s 3d 4c"
    with pytest.raises(CardError) as e:
        parse_cards("3h 3s zz 4c")
    assert e.value.index == 2 and e.value.token == "zz"


@given(st.lists(st.integers(0, 53), max_size=30))
def test_format_then_parse_is_identity(ids):
    assert parse_cards(cards_name(ids)) == ids


def test_decks():
    assert len(DECK_54) == 54 and len(set(DECK_54)) == 54
    assert len(DECK_52) == 52 and max(DECK_52) < 52
    assert len(DECK_48) == 48 and {card_name(c) for c in set(DECK_52) - set(DECK_48)} == {"2h", "2d", "2c", "As"}
    assert len(DECK_108) == 108 and set(Counter(DECK_108).values()) == {2}


@given(st.lists(st.integers(0, 53), max_size=27), st.lists(st.integers(0, 53), max_size=27))
def test_contains_agrees_with_multiset_inclusion(hand, play):
    rank = lambda ids: Counter(c >> 2 if c < 52 else c - 39 for c in ids)  # noqa: E731
    expected = all(rank(hand)[r] >= n for r, n in rank(play).items())
    assert contains(pack(hand), pack(play)) is expected


def test_counts_of_packed():
    assert counts(pack(parse_cards("3h 3s BJ 2c 2d 2h")))[:1] == [2]
    assert counts(pack(parse_cards("3h 3s BJ 2c 2d 2h")))[12:] == [3, 0, 1]
