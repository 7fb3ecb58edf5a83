"""The wild-card games (Guandan, Shuangkou) in the compiled kernel against the Python code
it stands in for, the reference: move generation (``WildMoves.moves_python``) gives the
same moves, in the same order, with the same readings, on recorded positions and on
random hands with every number of wild cards following every kind of play; the beating
tests (``guandan.beating_exists``, ``shuangkou.beating_exists``) the same answers on
random hands for every kind of play; and the rank-grouped hand both move generators
start from equals a plain loop over the card counts.

The kernel comparisons are skipped where it is not built (tests/test_kernel.py fails a
missing kernel under PAIPU_REQUIRE_KERNEL=1).
"""

from __future__ import annotations

import random

import pytest

from helpers import stepping, with_hand
import dataclasses

from paipu.replay.cards import RANK, pack_counts
from paipu.replay.combos import Combo, cards_by_rank
from paipu.replay import wild
from paipu.replay.wild import WildMoves
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
    assert gens and gens[0].fill is wild.WILD_MOVES is not wild._wild_moves  # the kernel's loop ran
    with monkeypatch.context() as m:
        m.setattr(gens[0], "fill", wild._wild_moves)
        m.setattr(gens[0], "entries", gens[0])
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
    assert (gen.entries is not gen) == (gen.fill is not wild._wild_moves) == (compiled is not None)


def _lasts(game: str) -> list[Combo]:
    """Every reading of the game's table (Guandan at every level), the plays its table
    leaves to classify, keys past the ranks, and kinds the test does not know."""
    if game == "guandan":
        found = {c for level in range(13) for rs in guandan.GuandanHand.combo_table(guandan.STANDARD, level).readings.values()
                 for c in rs}
        found |= {Combo("straight_flush", 5, k, guandan.TIER_STRAIGHT_FLUSH) for k in range(4, 14)}
        found |= {Combo("single", 1, -1), Combo("pair", 2, 16), Combo("odd", 3, 2)}
    else:
        found = {c for rs in shuangkou.Shuangkou.combo_table(shuangkou.HUOPIN).readings.values() for c in rs}
        found |= {c for n in (1, 2, 3, 4) for c in shuangkou._jokers_alone([52, 53, 52, 53][:n])}
        found |= {Combo("single", 1, 13), Combo("pair", 2, 15), Combo("pair", 2, -3), Combo("odd", 3, 2)}
        rng = random.Random(0)
        for _ in range(60):  # bomb chains
            length = rng.randint(3, 5)
            start = rng.randrange(13 - length + 1)
            counts = [0] * 13
            for r in range(start, start + length):
                counts[r] = rng.randint(4, 6)
            found.add(shuangkou.bomb_chain(counts, shuangkou.HUOPIN))
    return sorted(found)


@needs_kernel
@pytest.mark.parametrize("game", sorted(MODULES))
def test_kernel_beating_tests_agree_with_the_python_ones(game):
    rng = random.Random(18)
    lasts = _lasts(game)
    if game == "guandan":
        kinds = [guandan.STANDARD.kinds, guandan.STANDARD.kinds - {"straight_flush", "joker_bomb"},
                 frozenset({"single", "pair", "bomb"})]
    else:
        kinds = [shuangkou.HUOPIN.kinds, shuangkou.HUOPIN.kinds - {"bomb_chain"},
                 frozenset({"single", "pair", "bomb_chain", "three_joker_bomb"})]
    answers: dict[object, int] = {}
    for _ in range(20000):
        counts = [rng.choice((0, 0, 1, 1, 2, 3, 4, 5, 6)) for _ in range(13)]
        last, allowed = rng.choice(lasts), rng.choice(kinds)
        if game == "guandan":
            level, wilds = rng.randrange(13), rng.randint(0, 2)
            counts += [rng.randint(0, 2), rng.randint(0, 2)]
            hand = bytearray(54)
            for r, n in enumerate(counts):  # the cards of each rank in random suits (jokers: their own)
                for _ in range(n):
                    hand[rng.randrange(4 * r, 4 * r + 4) if r < 13 else 52 + r - 13] += 1
            hand[4 * level + 1] = wilds  # the level's wild hearts
            natural = pack_counts(counts)
            try:
                want = guandan.beating_exists(hand, natural, wilds, level, last, allowed)
            except KeyError:  # a kind the game does not know
                want = None
            got = compiled.guandan_beats(hand, natural, wilds, level, last, allowed)
        else:
            small, big = rng.randint(0, 2), rng.randint(0, 2)
            rules = dataclasses.replace(shuangkou.HUOPIN, kinds=allowed, max_bomb=rng.choice((8, 12)))
            natural = pack_counts(counts)
            try:
                want = shuangkou.beating_exists(natural, small, big, last, rules)
            except KeyError:  # a kind the game does not know
                want = None
            got = compiled.shuangkou_beats(natural, small, big, last, rules.kinds, rules.max_bomb,
                                           rules.chain_min_bombs)
            try:  # the Python reference of the kernel's test, bomb chains left out alike
                assert shuangkou.beats_but_chains(natural, small, big, last, rules.kinds, rules.max_bomb,
                                                  rules.chain_min_bombs) is got, (counts, last, allowed)
            except KeyError:
                assert got is None
        if got is not None:
            assert got is want, (counts, last, allowed)
        else:  # left to Python: a kind the kernel does not know, or (Shuangkou) a bomb chain may beat a bomb
            assert last.kind == "odd" or (game == "shuangkou" and last.tier and "bomb_chain" in allowed), last
        answers[got] = answers.get(got, 0) + 1
    assert answers[True] > 5000 and answers[False] > 2000


def _count_both(table, seat: int, monkeypatch) -> tuple[int, int]:
    """The seat's moves counted (``count_moves``, with the kernel's count where it is built)
    and with the Python count, each against ``len(legal_moves)``: (count, moves)."""
    moves = len(table.legal_moves(seat))
    fast = table.count_moves(seat)
    gen = table.combos._wild_moves
    with monkeypatch.context() as m:
        m.setattr(gen, "count_fill", wild._wild_count)
        slow = table.count_moves(seat)
    assert fast == slow == moves, (fast, slow, moves)
    return fast, moves


@pytest.mark.parametrize("game", sorted(MODULES))
def test_counted_moves_are_the_legal_moves_on_recorded_positions(game, monkeypatch):
    """decisions' option counts for the wild-card games (count_moves) are len(legal_moves)
    for every seat with cards at every turn, leading and following."""
    checked = leads = nonzero = 0
    for seed in range(3):
        record = list(simulate(game, None, 1, 200 + seed))[-1]
        for k, action, table in stepping(record):
            if table.phase == "tribute" and action["act"] in ("play", "pass"):
                assert table.start_play(k, action["seat"]) is None
            if table.phase == "play" and not table.over and action["act"] in ("play", "pass"):
                for seat in range(4):
                    if table.left[seat]:
                        n, _ = _count_both(table, seat, monkeypatch)
                        checked += 1
                        leads += table.last is None
                        nonzero += n > 0
    assert checked > 300 and leads > 20 and nonzero > checked // 3


@pytest.mark.parametrize("game", sorted(MODULES))
@pytest.mark.parametrize("wilds", range(5))
def test_counted_moves_are_the_legal_moves_on_random_hands(game, wilds, monkeypatch):
    """The same on random hands with every number of wild cards (Guandan: up to two level
    hearts; Shuangkou: up to four jokers), leading and following every kind of play,
    straight flushes and joker plays included; suits chosen so that straights of one suit
    (a table entry's move that is also a straight flush) are met."""
    table = make_table(list(simulate(game, None, 1, 5))[0])
    table.setup()
    if table.phase == "tribute":
        table.start_play(0, table.turn)
    rng = random.Random(100 + wilds)
    wild_cards = ([table.wild] * 2 if game == "guandan" else [52, 52, 53, 53])[:wilds]
    not_drawn = {table.wild} if game == "guandan" else {52, 53}
    deck = [c for c in table.rules.deck if c not in not_drawn]
    lasts = _lasts(game)
    counted = flushes = 0
    for trial in range(15):
        if trial % 3 == 0:  # mostly one suit: straights of one suit, straight flushes
            suit = rng.randrange(4)
            pool = [c for c in deck if c & 3 == suit] + rng.sample(deck, 6)
        else:
            pool = deck
        cards = rng.sample(pool, min(len(pool), rng.randint(1, 27 - len(wild_cards)))) + wild_cards
        with_hand(table, table.turn, cards)
        for last in [None] + rng.sample(lasts, 12):
            table.last = None if last is None else (last,)
            n, _ = _count_both(table, table.turn, monkeypatch)
            counted += n
            if game == "guandan":
                flushes += sum(any(c.kind == "straight_flush" for c in r) for _, r in table.legal_moves(table.turn))
    assert counted > 100
    if game == "guandan" and wilds == 0:
        assert flushes > 0
