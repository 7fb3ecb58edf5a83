"""Legal-move generation with wild cards (Guandan, Shuangkou): the generator built from rank
counts and the number of wilds gives exactly the moves, in the same order and with the same
readings, as the slow reference that classifies every candidate card by card."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import stepping, with_hand
from paipu.replay.combos import Combo
from paipu.replay.games import guandan, shuangkou
from paipu.replay.replayer import make_table
from paipu.replay.sim import simulate

SEEDS = st.integers(0, 10_000)
MODULES = {"guandan": guandan, "shuangkou": shuangkou}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(MODULES)), SEEDS)
def test_generated_moves_equal_the_reference_on_recorded_positions(game, seed):
    module = MODULES[game]
    record = list(simulate(game, None, 1, seed))[-1]
    checked = 0
    for k, action, table in stepping(record):
        if table.phase == "tribute" and action["act"] in ("play", "pass"):
            assert table.start_play(k, action["seat"]) is None
        if table.phase == "play" and not table.over and action["act"] in ("play", "pass"):
            assert module.legal_moves(table) == module.legal_moves_reference(table), (record["id"], k)
            checked += 1
    assert checked or action["act"] == "escape"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(MODULES)), SEEDS, st.integers(0, 4))
def test_generated_moves_equal_the_reference_on_random_hands_with_wild_cards(game, seed, wilds):
    module = MODULES[game]
    table = make_table(list(simulate(game, None, 1, 5))[0])
    table.setup()
    if table.phase == "tribute":
        table.start_play(0, table.turn)
    rng = random.Random(seed)
    wild_cards = [table.wild] * 2 if game == "guandan" else [52, 52, 53, 53]
    wild_cards = wild_cards[:wilds]
    deck = list(table.rules.deck)
    for c in wild_cards:
        deck.remove(c)
    if game == "guandan":
        deck = [c for c in deck if c != table.wild]
    else:
        deck = [c for c in deck if c < 52]
    rng.shuffle(deck)
    cards = deck[:rng.randint(1, 27 - len(wild_cards))] + wild_cards
    with_hand(table, table.turn, cards)
    lasts = sorted({c for readings in table.combos.readings.values() for c in readings})
    if game == "guandan":
        lasts += [Combo("straight_flush", 5, k, guandan.TIER_STRAIGHT_FLUSH) for k in range(4, 14)]
    for last in [None] + rng.sample(lasts, 8):
        table.last = None if last is None else (last,)
        assert module.legal_moves(table) == module.legal_moves_reference(table), (last, sorted(cards))
