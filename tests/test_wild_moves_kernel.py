"""Move generation with wild cards (Guandan, Shuangkou) in the compiled kernel against the
Python loop it replaces (``WildMoves.moves_python``, the reference): the same moves, in
the same order, with the same readings, on recorded positions and on random hands with
every number of wild cards following every kind of play; and the rank-grouped hand both
paths start from against a plain loop over the card counts.

The kernel comparisons are skipped where it is not built (tests/test_kernel.py fails a
missing kernel under PAIPU_REQUIRE_KERNEL=1).
"""

from __future__ import annotations

import random

import pytest

from helpers import stepping, with_hand
from paipu.replay.cards import RANK
from paipu.replay.combos import Combo, WildMoves, cards_by_rank
from paipu.replay.games import guandan, shuangkou
from paipu.replay.kernel import compiled
from paipu.replay.replayer import make_table
from paipu.replay.sim import simulate

needs_kernel = pytest.mark.skipif(compiled is None, reason="the compiled kernel is not built here")
MODULES = {"guandan": guandan, "shuangkou": shuangkou}


def both(table, monkeypatch) -> tuple[list, list]:
    """The seat to act's legal moves with the kernel's loop and with the Python one."""
    fast = table.legal_moves(table.turn)
    gens = [g for g in (table.combos._wild_moves,) if g is not None]
    assert gens and gens[0].fast is not None  # the kernel's loop ran
    with monkeypatch.context() as m:
        m.setattr(gens[0], "fast", None)
        slow = table.legal_moves(table.turn)
    return fast, slow


@needs_kernel
@pytest.mark.parametrize("game", sorted(MODULES))
def test_kernel_moves_equal_the_python_loop_on_recorded_positions(game, monkeypatch):
    checked = moves = 0
    for seed in range(3):
        record = list(simulate(game, None, 1, 100 + seed))[-1]
        for k, action, table in stepping(record):
            if table.phase == "tribute" and action["act"] in ("play", "pass"):
                assert table.start_play(k, action["seat"]) is None
            if table.phase == "play" and not table.over and action["act"] in ("play", "pass"):
                fast, slow = both(table, monkeypatch)
                assert fast == slow, (record["id"], k)
                checked += 1
                moves += len(fast)
    assert checked > 50 and moves > checked


@needs_kernel
@pytest.mark.parametrize("game", sorted(MODULES))
@pytest.mark.parametrize("wilds", range(5))
def test_kernel_moves_equal_the_python_loop_on_random_hands(game, wilds, monkeypatch):
    table = make_table(list(simulate(game, None, 1, 5))[0])
    table.setup()
    if table.phase == "tribute":
        table.start_play(0, table.turn)
    rng = random.Random(wilds)
    wild_cards = ([table.wild] * 2 if game == "guandan" else [52, 52, 53, 53])[:wilds]
    not_drawn = {table.wild} if game == "guandan" else {52, 53}  # the wild cards are added below
    deck = [c for c in table.rules.deck if c not in not_drawn]
    lasts = sorted({c for readings in table.combos.readings.values() for c in readings})
    if game == "guandan":
        lasts += [Combo("straight_flush", 5, k, guandan.TIER_STRAIGHT_FLUSH) for k in range(4, 14)]
    else:
        lasts += [c for n in (1, 2, 3, 4) for c in shuangkou._jokers_alone([52, 53, 52, 53][:n])]
    found = 0
    for _ in range(15):
        rng.shuffle(deck)
        cards = deck[:rng.randint(1, 27 - len(wild_cards))] + wild_cards
        with_hand(table, table.turn, cards)
        for last in [None] + rng.sample(lasts, 10):
            table.last = None if last is None else (last,)
            fast, slow = both(table, monkeypatch)
            assert fast == slow, (last, sorted(cards))
            found += len(fast)
    assert found > 100


def test_cards_by_rank_groups_the_hand_lowest_suit_first():
    rng = random.Random(3)
    for _ in range(300):
        hand = bytearray(54)
        for c in rng.sample(range(54), rng.randint(0, 30)):
            hand[c] = rng.randint(1, 2)
        skip = rng.choice([-1, rng.randrange(52)])
        expected: list[list[int]] = [[] for _ in range(15)]
        for c in range(54):
            if c != skip:
                expected[RANK[c]] += [c] * hand[c]
        assert cards_by_rank(hand, skip) == expected


def test_the_kernel_copy_of_the_table_is_made_only_where_it_is_built():
    gen = WildMoves(shuangkou.Shuangkou.combo_table(shuangkou.HUOPIN), 3)
    assert (gen.fast is not None) == (compiled is not None)
