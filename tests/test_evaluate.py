"""paipu.evaluate: options valued over deals of the hidden cards (replay/evaluate.py)."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest
from helpers import ANTI_SPRING, BID_0, ddz, text_record

import paipu
from paipu.replay.cards import CARD_NAMES, CARD_OF, RANK
from paipu.replay.evaluate import (
    Solver, brute_force, clone, decision_state, evaluate, knowledge, options_of, pass_legal, set_hand,
)

# 跑得快 (huopin, 有出必出): seat 0 holds 3♦, two aces and the 2; seat 1 the last ace;
# seat 2 nothing above a king and no bomb, so it passes on seat 1's K♦.
PASS_HEAD = """\
hand e-1
game paodekuai huopin
seat 0 张三: 3d Ah Ad 2s 4d 4s 5d 5s 6d 6s 7d 7s 8d 8s 9d 9s
seat 1 李四: Kd Ac 3s 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Td Jd Qd
seat 2 王五: 3h 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ts Js Qs Ks
"""
PASS_ACTIONS = "0 play 3d\n1 play Kd\n2 pass\n"

#: Dou Dizhu (tests/helpers.py's deal): seat 1, a farmer, is down to 9d; the landlord leads 3d
OUT_NOW = ANTI_SPRING[:ANTI_SPRING.rindex("1 play")] + """\
1 play 4d 5d 6d 7d 8d
2 pass
0 play 2s 2h 2d 2c
1 pass
2 pass
0 play 3d
1 play 9d
"""


def ids(text: str) -> list[int]:
    return [CARD_OF[t] for t in text.split()]


def pass_position():
    record = text_record(PASS_HEAD, PASS_ACTIONS + "0 play Ah\n")
    table, passes = decision_state(record, 3)
    return record, table, knowledge(table, record, 3, passes)


# ---------------------------------------------------------------------------- sampling


def test_pass_under_must_play_is_a_constraint_on_the_passer():
    record, table, know = pass_position()
    assert table.turn == 0
    assert know.passes == [(2, table.last, 0)]  # seat 2 passed on K♦, has played nothing since
    assert know.need == {1: 15, 2: 16}


def test_sampled_hands_are_consistent_with_what_the_seat_knows():
    record, table, know = pass_position()
    deck = Counter(table.rules.deck)
    mine = Counter(c for c in range(54) for _ in range(table.hands[0][c]))
    played = Counter(ids("3d Kd"))
    for k in range(40):
        hands, relaxed = know.deal(random.Random(k), table)
        assert not relaxed
        assert {s: len(h) for s, h in hands.items()} == {1: table.left[1], 2: table.left[2]}
        dealt = Counter(hands[1]) + Counter(hands[2])
        assert dealt + mine + played == deck  # every card once: none of mine, none played
        # the pass: seat 2 could not have beaten K♦ (no ace, no 2, no bomb)
        assert CARD_OF["Ac"] in hands[1]
        assert max(Counter(RANK[c] for c in hands[2]).values()) < 4


def test_without_the_pass_constraint_the_ace_would_go_anywhere():
    """(The test above can fail: dealt freely, the last ace lands with seat 2 often.)"""
    record, table, know = pass_position()
    free = dataclasses.replace(know, passes=[])
    holders = Counter(1 if CARD_OF["Ac"] in free.deal(random.Random(k), table)[0][1] else 2 for k in range(40))
    assert holders[2] > 5


def test_a_deal_rejection_misses_is_repaired_to_honour_the_passes(monkeypatch):
    from paipu.replay import evaluate as module

    monkeypatch.setattr(module, "MAX_TRIES", 1)  # one draw: about half break seat 2's pass
    record, table, know = pass_position()
    for k in range(20):
        hands, relaxed = know.deal(random.Random(k), table)
        assert not relaxed and CARD_OF["Ac"] in hands[1] and len(hands[1]) == 15 and len(hands[2]) == 16
        assert max(Counter(RANK[c] for c in hands[2]).values()) < 4
    assert know.repaired > 3
    ev = evaluate(record, 3, samples=12, budget_ms=None)
    assert ev.relaxed == 0 and ev.repaired > 0 and ev.to_json()["repaired"] == ev.repaired


def test_an_impossible_pass_constraint_is_relaxed_and_said_so():
    record, table, know = pass_position()
    ace = CARD_OF["Ac"]
    unseen = list(know.unseen)
    unseen.remove(ace)
    stuck = dataclasses.replace(know, known={2: [ace]}, unseen=unseen, need={1: 15, 2: 15})
    hands, relaxed = stuck.deal(random.Random(0), table)
    assert relaxed and ace in hands[2] and len(hands[2]) == 16


def test_the_bottom_and_a_shown_hand_are_known_to_the_farmers():
    record = ddz("0 show 5\n" + BID_0 + "0 play 3h\n1 play 4h\n")
    table, passes = decision_state(record, 5)
    assert table.turn == 1 and passes == []  # no must-play in Dou Dizhu: passes reveal nothing
    know = knowledge(table, record, 5, passes)
    assert sorted(know.known[0]) == sorted(c for c in range(54) for _ in range(table.hands[0][c]))
    assert know.need == {0: 0, 2: 17}
    record = ddz(BID_0 + "0 play 3h\n1 play 4h\n")
    table, passes = decision_state(record, 4)
    know = knowledge(table, record, 4, passes)
    assert sorted(know.known[0]) == sorted(ids("2c 3d BJ"))  # the bottom, in the landlord's hand
    for k in range(10):
        hands, _ = know.deal(random.Random(k), table)
        assert set(ids("2c 3d BJ")) <= set(hands[0]) and len(hands[0]) == 19


# ---------------------------------------------------------------------------- evaluation


class RandomBot:
    """Any legal option, at random (a policy whose playouts hang on the random numbers)."""

    def play(self, table, rng, moves, hints):
        options = [m[0] for m in moves] + ([None] if pass_legal(table) else [])
        return rng.choice(options)


@pytest.mark.parametrize("bot", ["fast", RandomBot()])
def test_the_same_seed_gives_the_same_values(bot):
    record = text_record(PASS_HEAD, PASS_ACTIONS + "0 play Ah\n")
    a = evaluate(record, 3, samples=6, budget_ms=None, seed=7, bot=bot)
    b = evaluate(record, 3, samples=6, budget_ms=None, seed=7, bot=bot)
    c = evaluate(record, 3, samples=6, budget_ms=None, seed=8, bot=bot)
    assert [(o.cards, o.wins, o.points) for o in a.options] == [(o.cards, o.wins, o.points) for o in b.options]
    assert [o.points for o in a.options] != [o.points for o in c.options]


def test_options_are_every_legal_play_and_the_chosen_one_is_marked():
    record = text_record(PASS_HEAD, PASS_ACTIONS + "0 play Ah\n")
    ev = evaluate(record, 3, samples=2, budget_ms=None)
    # 有出必出: seat 0 holds plays that beat K♦, so it may not pass
    assert [o.label() for o in ev.options] == ["Ah", "2s"]
    assert [o.chosen for o in ev.options] == [True, False]
    assert ev.seat == 0 and ev.side == (0,) and ev.samples == 2 and ev.relaxed == 0


def test_a_seat_that_can_go_out_now_is_told_to():
    record = ddz(OUT_NOW)
    index = len(record["actions"]) - 1
    ev = evaluate(record, index, samples=16, budget_ms=None, exact_cards=0)
    assert ev.side == (1, 2)  # the farmers
    out, passing = ev.options
    assert out.label() == "9d" and out.chosen and passing.cards is None
    assert (out.win.mean, out.win.se) == (1.0, 0.0)
    assert passing.win.mean < 1.0
    assert ev.best("win") is out and ev.best() is out
    assert ev.difference(out, passing).mean > 0


def test_standard_errors_shrink_with_samples():
    record = text_record(PASS_HEAD, PASS_ACTIONS + "0 play Ah\n")
    few = evaluate(record, 3, samples=8, budget_ms=None).options[0].score
    many = evaluate(record, 3, samples=64, budget_ms=None).options[0].score
    assert few.se > 0 and many.se < few.se


def test_the_budget_stops_sampling_after_two_deals():
    record = text_record(PASS_HEAD, PASS_ACTIONS + "0 play Ah\n")
    ev = evaluate(record, 3, samples=1000, budget_ms=0)
    assert ev.samples == 2


def test_a_dou_dizhu_bid_is_valued_over_deals_of_the_bottom_too():
    """Seat 0 holds a straight 3..A, three 2s and a joker: calling wins far more often."""
    from paipu.replay.evaluate import BOTTOM

    record = ddz(OUT_NOW)
    table, passes = decision_state(record, 0)
    know = knowledge(table, record, 0, passes)
    assert know.need == {1: 17, 2: 17, BOTTOM: 3} and know.known == {}
    mine = {c for c in range(54) if table.hands[0][c]}
    for k in range(5):
        hands, _ = know.deal(random.Random(k), table)
        assert len(hands[BOTTOM]) == 3 and not (set(hands[BOTTOM]) | set(hands[1]) | set(hands[2])) & mine
    ev = evaluate(record, 0, samples=16, budget_ms=None)
    assert ev.seat == 0 and ev.side == ()  # (the side is known after the bidding)
    call, decline = ev.options
    assert (call.label(), call.chosen, decline.label(), decline.chosen) == ("bid yes", True, "bid no", False)
    assert call.win.mean > decline.win.mean + 0.2
    grab = evaluate(record, 1, samples=2, budget_ms=None)
    assert [(o.label(), o.chosen) for o in grab.options] == [("grab yes", False), ("grab no", True)]


def test_guandan_tribute_and_return_options_are_the_cards_the_rules_allow():
    """Hand 7 of the sample (level 10, 双下): seat 3 pays the second tribute, a 10 (its
    highest: 10♥ is the wild card, which it does not hold); seat 2 returns one of its
    cards of rank 10 or lower (the 2 counts low), one option per card name."""
    record = list(paipu.read_records("sample_logs/guandan_standard_simulated.jsonl"))[7]
    assert record["level"] == "T" and [a["act"] for a in record["actions"][:4]] == ["tribute"] * 2 + ["return"] * 2
    first = evaluate(record, 0, samples=2, budget_ms=None, previous=previous_of(7))
    assert [(o.label(), o.chosen) for o in first.options] == [("SJ", True)]  # (the small joker: its only top card)
    tribute = evaluate(record, 1, samples=2, budget_ms=None)
    assert [(o.label(), o.kind, o.chosen) for o in tribute.options] == \
        [("Ts", "tribute", True), ("Td", "tribute", False), ("Tc", "tribute", False)]
    assert tribute.side == (1, 3) and tribute.samples == 2
    back = evaluate(record, 2, samples=2, budget_ms=None)
    assert [o.label() for o in back.options] == ["3s", "3h", "4h", "4c", "5s", "5c", "6c", "8c", "9h", "9c", "2c"]
    assert [o.label() for o in back.options if o.chosen] == ["2c"] and back.side == (0, 2)
    # each option played out: the record's other return made by the bots, then the play
    assert all(len(o.wins) == 2 for o in back.options)


def previous_of(k: int) -> dict:
    """The previous hand's outcome in its match, for hand *k* of the Guandan sample."""
    from paipu.replay.replayer import Matches

    matches, before = Matches(), None
    for i, record in enumerate(paipu.read_records("sample_logs/guandan_standard_simulated.jsonl")):
        before = matches.previous(record)
        if i == k:
            return before
        matches.replay(record)
    raise AssertionError(k)


def test_the_first_of_two_tributes_is_valued_on_deals_that_pair_them_as_the_record_does():
    """Hand 7 after 双下 (seats 2 and 0 first and second): seat 1's small joker went to the
    first place, so seat 3's tribute was no larger. A deal giving seat 3 the big joker would
    send its tribute to the first place instead: such deals are not used."""
    from paipu.replay.evaluate import tribute_fits

    record = list(paipu.read_records("sample_logs/guandan_standard_simulated.jsonl"))[7]
    previous = previous_of(7)
    assert previous["order"][:2] == [2, 0]
    table, _ = decision_state(record, 0, previous)
    fits = tribute_fits(record["actions"], 0)
    after = clone(table)
    assert after.step(0, record["actions"][0]) is None and fits(after)
    hands = {s: [c for c in range(54) for _ in range(table.hands[s][c])] for s in (2, 3)}
    big = CARD_OF["BJ"]
    assert big in hands[2] and big not in hands[3]
    swapped = clone(table)
    low = hands[3][0]
    set_hand(swapped, 2, [c for c in hands[2] if c != big] + [low])
    set_hand(swapped, 3, hands[3][1:] + [big])
    assert swapped.step(0, record["actions"][0]) is None and not fits(swapped)
    ev = evaluate(record, 0, samples=6, budget_ms=None, previous=previous)
    assert ev.samples == 6 and ev.relaxed == 0


def test_during_the_tribute_the_hidden_hands_count_the_cards_handed_over():
    record = list(paipu.read_records("sample_logs/guandan_standard_simulated.jsonl"))[7]
    table, passes = decision_state(record, 2)  # after both tributes: seats 2 and 0 hold 28, 1 and 3 hold 26
    know = knowledge(table, record, 2, passes)
    assert know.need == {0: 28, 1: 26, 3: 26} and table.left == [27] * 4
    for k in range(5):
        hands, _ = know.deal(random.Random(k), table)
        assert {s: len(h) for s, h in hands.items()} == {0: 28, 1: 26, 3: 26}


def test_a_resist_is_no_decision_to_evaluate():
    record = list(paipu.read_records("sample_logs/guandan_standard_simulated.jsonl"))[5]
    assert record["actions"][0]["act"] == "resist"
    with pytest.raises(ValueError, match="action 0 is no play, pass, bid, tribute or return of the seat to act"):
        evaluate(record, 0)
    assert paipu.evaluate is evaluate


# ---------------------------------------------------------------------------- the exact solver


def tiny_positions(head_record: dict, at: int, n: int, seed: int, most: int = 3):
    """Positions from the table at action *at*: every seat dealt 1..*most* random cards,
    a random seat to act, mostly with a random single of another seat's on the table."""
    rng = random.Random(seed)
    base, _ = decision_state(head_record, at)
    for _ in range(n):
        t = clone(base)
        deck = list(t.rules.deck)
        rng.shuffle(deck)
        k = 0
        for s in range(t.n):
            size = rng.randint(1, most)
            t.left[s] = size
            set_hand(t, s, deck[k:k + size])
            k += size
        t.turn = rng.randrange(t.n)
        t.last = None
        if rng.random() < 0.7:  # someone else's play on the table
            t.last_seat = rng.choice([s for s in range(t.n) if s != t.turn])
            play = deck[k:k + 1]
            t.last = t.combos.readings[sum(1 << (5 * RANK[c]) for c in play)]
            t.passes = (t.turn - t.last_seat - 1) % t.n
        yield t


@pytest.mark.parametrize("make, at", [
    (lambda: ddz(OUT_NOW), 4),  # Dou Dizhu: the landlord (seat 0) to lead
    (lambda: text_record(PASS_HEAD, PASS_ACTIONS + "0 play Ah\n"), 3),  # Paodekuai, 有出必出
])
def test_the_solver_agrees_with_brute_force(make, at):
    decided = Counter()
    record = make()
    for t in [*tiny_positions(record, at, 40, seed=at, most=2), *tiny_positions(record, at, 6, seed=at, most=3)]:
        for side in (frozenset({t.turn}), frozenset(s for s in range(t.n) if s != t.turn)):
            got = Solver(side).wins(t)  # on packed counts
            assert got == brute_force(t, side), [[CARD_NAMES[c] for c in range(54) if h[c]] for h in t.hands]
            assert Solver(side).search(t) == got  # on copies of the table
            decided[got] += 1
    assert decided[True] > 5 and decided[False] > 5  # both results are tested


def test_the_solver_finds_the_winning_lines():
    """The landlord leads from BJ 3♠ 4♠ against single 2s: a low single first wins (BJ
    takes the lead back, the other low single goes out); BJ first loses (a farmer tops
    the low single and goes out)."""
    t, _ = decision_state(ddz(OUT_NOW), 3)
    assert t.turn == 0 and t.last is None
    for s, cards in ((0, "BJ 3s 4s"), (1, "2s 4d"), (2, "2h 5d")):
        t.left[s] = len(cards.split())
        set_hand(t, s, ids(cards))
    solver = Solver(frozenset({0}))
    assert solver.wins(t) is True
    firsts = {" ".join(CARD_NAMES[c] for c in cards or []): solver.wins(child) for cards, child in solver.children(t)}
    assert firsts == {"3s": True, "4s": True, "BJ": False}
    kept = solver.keeping(t, ids("BJ"))  # the bot's BJ would lose: the solver keeps the win
    assert kept in (ids("3s"), ids("4s"))
    assert solver.keeping(t, ids("4s")) == ids("4s")  # a winning choice stays


def test_the_solver_gives_up_past_its_node_limit():
    t, _ = decision_state(ddz(OUT_NOW), 3)
    assert Solver(frozenset({0}), limit=3).wins(t) is None


def late_decision(game: str, seed: int, most: int) -> tuple[dict, int]:
    """A simulated hand of *game* and its first play or pass with at most *most* cards left."""
    record = next(paipu.simulate(game, hands=1, seed=seed))
    for i, a in enumerate(record["actions"]):
        if a["act"] in ("play", "pass"):
            try:
                table, _ = decision_state(record, i)
            except ValueError:
                continue
            if sum(table.left) <= most:
                return record, i
    raise AssertionError("no late decision")


@pytest.mark.parametrize("game, seed", [("ddz", 0), ("pdk", 1)])
def test_few_cards_left_are_solved_exactly(game, seed):
    record, index = late_decision(game, seed, 14)
    table, passes = decision_state(record, index)
    seat = table.turn
    side = frozenset({seat}) | table.partners(seat)
    ev = evaluate(record, index, samples=4, budget_ms=None, exact_cards=14)
    assert ev.solved == ev.samples == 4
    # each deal's result is the solver's for that deal (the line played out keeps it)
    know = knowledge(table, record, index, passes)
    for k in range(4):
        hands, _ = know.deal(random.Random(f"0:{k}"), table)
        world = clone(table)
        for s, cards in hands.items():
            set_hand(world, s, cards)
        for option, (cards, _kind) in zip(ev.options, options_of(world)):
            child = clone(world)
            child.step(index, {"seat": seat, "act": "pass"} if cards is None else
                       {"seat": seat, "act": "play", "cards": [CARD_NAMES[c] for c in cards]})
            assert option.wins[k] == float(Solver(side).wins(child))
    bots = evaluate(record, index, samples=4, budget_ms=None, exact_cards=0)
    assert bots.solved == 0


def test_the_table_search_agrees_with_brute_force_in_guandan():
    """Guandan (wild hearts, four seats, teams) is searched on copies of the table."""
    record = list(paipu.read_records("sample_logs/guandan_standard_simulated.jsonl"))[2]
    decided = Counter()
    for t in tiny_positions(record, 5, 25, seed=2, most=2):
        assert not Solver.packed_search(t)
        side = frozenset({t.turn, (t.turn + 2) % 4})
        got = Solver(side).wins(t)
        assert got == brute_force(t, side)
        decided[got] += 1
    assert decided[True] > 3 and decided[False] > 3


@pytest.mark.parametrize("must_play, wins", [(True, True), (False, False)])
def test_the_solver_follows_must_play(must_play, wins):
    """Seat 1 holds 7♣ against seat 0's 9: under 有出必出 the others must spend their high
    cards on each other's plays until 7♣ gets a lead it can go out on; without the rule
    they pass where that suits them, and seat 1 never does."""
    record = text_record(PASS_HEAD, PASS_ACTIONS + "0 play Ah\n", params={"must_play": must_play})
    t, _ = decision_state(record, 3)
    for s, cards in ((0, "3s 6s Ah"), (1, "7c"), (2, "9d Ks Ad")):
        t.left[s] = len(cards.split())
        set_hand(t, s, ids(cards))
    t.turn, t.last_seat, t.passes = 1, 0, 0
    t.last = t.combos.readings[1 << (5 * RANK[CARD_OF["9h"]])]
    assert Solver(frozenset({1})).wins(t) is wins
    assert brute_force(t, frozenset({1})) is wins


# ---------------------------------------------------------------------------- the four-seat games


def first_decision(record: dict, seat: int, after: int = 0) -> int:
    return next(i for i, a in enumerate(record["actions"])
                if i > after and a["seat"] == seat and a["act"] in ("play", "pass"))


def played_before(record: dict, seat: int, card: str, viewer: int) -> bool:
    """Whether *seat* played *card* before *viewer*'s first decision after action 3."""
    stop = first_decision(record, viewer, after=3)
    return any(a["seat"] == seat and card in a.get("cards", ()) for a in record["actions"][2:stop])


def single_tribute_hand() -> tuple[dict, int, int, str, str]:
    """A simulated Guandan hand that opens with one tribute and its return, neither card
    played before the two seats' first decisions after them: (record, giver, receiver,
    tribute, returned card)."""
    for record in paipu.read_records("sample_logs/guandan_standard_simulated.jsonl"):
        acts = record["actions"]
        if [a["act"] for a in acts[:3]] != ["tribute", "return", "play"]:
            continue
        giver, receiver, tribute, back = acts[0]["seat"], acts[0]["to"], acts[0]["card"], acts[1]["card"]
        if not played_before(record, receiver, tribute, giver) and not played_before(record, giver, back, receiver):
            return record, giver, receiver, tribute, back
    raise AssertionError("no such hand")


def test_a_guandan_tribute_and_its_return_are_known_to_the_two_seats():
    record, giver, receiver, tribute, back = single_tribute_hand()
    seen = {}
    for seat in range(4):
        index = first_decision(record, seat, after=3)
        table, passes = decision_state(record, index)
        know = knowledge(table, record, index, passes)
        seen[seat] = {s: [CARD_NAMES[c] for c in cards] for s, cards in know.known.items()}
        if seat == giver:
            for k in range(5):
                hands, _ = know.deal(random.Random(k), table)
                assert CARD_OF[tribute] in hands[receiver] and sum(map(len, hands.values())) == len(know.unseen) + 1
    others = [s for s in range(4) if s not in (giver, receiver)]
    assert seen == {giver: {receiver: [tribute]}, receiver: {giver: [back]}, others[0]: {}, others[1]: {}}


def test_the_shuangkou_drawn_card_is_known_in_the_leaders_hand():
    record = list(paipu.read_records("sample_logs/shuangkou_simulated.jsonl"))[0]
    assert (record["lead_card"], record["actions"][0]["seat"]) == ("5c", 2)
    seen = {}
    for seat in range(4):
        index = first_decision(record, seat)
        table, passes = decision_state(record, index)
        seen[seat] = {s: [CARD_NAMES[c] for c in cards]
                      for s, cards in knowledge(table, record, index, passes).known.items()}
    assert seen == {0: {2: ["5c"]}, 1: {2: ["5c"]}, 2: {}, 3: {2: ["5c"]}}


@pytest.mark.parametrize("path", ["sample_logs/guandan_standard_simulated.jsonl", "sample_logs/shuangkou_simulated.jsonl"])
def test_a_team_game_is_valued_for_the_team(path):
    record = list(paipu.read_records(path))[2]
    index = first_decision(record, 1, after=3)
    ev = evaluate(record, index, samples=3, budget_ms=None)
    assert ev.seat == 1 and ev.side == (1, 3) and ev.samples == 3 and sum(o.chosen for o in ev.options) == 1
    assert all(len(o.wins) == len(o.points) == 3 for o in ev.options)


def test_docs_review_examples(monkeypatch):
    """Every example of docs/review.md runs as written (from the repository's root)."""
    import doctest
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    monkeypatch.chdir(root)
    result = doctest.testfile(os.path.join(root, "docs", "review.md"), module_relative=False)
    assert result.attempted >= 4 and result.failed == 0


def test_a_clone_is_played_out_without_touching_the_table():
    """The evaluator plays copies out: the table they were made from replays the rest of
    the hand to the recorded result."""
    from paipu.replay.evaluate import hints_of, play_out
    from paipu.replay.sim.bots import BOTS

    for game in ("ddz", "pdk"):
        record = next(paipu.simulate(game, hands=1, seed=0))
        index = first_decision(record, 1, after=3)
        table, _ = decision_state(record, index)
        before = (table.turn, table.last, [bytes(h) for h in table.hands], list(table.packed), list(table.left),
                  len(table.events))
        copy = clone(table)
        play_out(copy, random.Random(0), BOTS["fast"], hints_of(copy), record["actions"][:index])
        assert copy.over and not table.over
        assert (table.turn, table.last, [bytes(h) for h in table.hands], list(table.packed), list(table.left),
                len(table.events)) == before
        for i in range(index, len(record["actions"])):
            assert table.step(i, record["actions"][i]) is None
        assert table.outcome()["scores"] == record["result"]["scores"]


def test_an_evaluation_as_plain_data():
    record = text_record(PASS_HEAD, PASS_ACTIONS + "0 play Ah\n")
    data = evaluate(record, 3, samples=2, budget_ms=None).to_json()
    assert (data["hand_id"], data["index"], data["seat"], data["side"], data["samples"]) == ("e-1", 3, 0, [0], 2)
    assert [(o["cards"], o["kind"], o["chosen"]) for o in data["options"]] == [(["Ah"], "single", True),
                                                                             (["2s"], "single", False)]
    assert set(data["options"][0]["win"]) == {"mean", "se"}


def swapped(record: dict, a: tuple[int, str], b: tuple[int, str]) -> dict:
    """*record* with card a[1] of seat a[0] and card b[1] of seat b[0] dealt the other way."""
    deal = [list(h) for h in record["deal"]]
    deal[a[0]][deal[a[0]].index(a[1])] = b[1]
    deal[b[0]][deal[b[0]].index(b[1])] = a[1]
    return dict(record, deal=deal, result=None)


@pytest.mark.parametrize("record, index, a, b", [
    (text_record(PASS_HEAD, PASS_ACTIONS + "0 play Ah\n"), 3, (1, "4h"), (2, "Qc")),
    (ddz(OUT_NOW), 4, (0, "4s"), (2, "Kc")),
])
def test_the_hidden_hands_do_not_change_the_values(record, index, a, b):
    """Only what the seat knows counts: the other seats' hands dealt otherwise (the record
    as legal) give the same values."""
    other = swapped(record, a, b)
    decision_state(other, index)  # as legal up to the decision
    one = evaluate(record, index, samples=5, budget_ms=None)
    two = evaluate(other, index, samples=5, budget_ms=None)
    assert [(o.cards, o.wins, o.points) for o in one.options] == [(o.cards, o.wins, o.points) for o in two.options]


def test_guandans_first_lead_is_a_decision():
    """Guandan's first play of a hand ends the tribute phase: the lead is evaluated as any."""
    record, giver, receiver, _, _ = single_tribute_hand()
    index = 2  # after the tribute and the return
    table, _ = decision_state(record, index)
    assert (table.phase, table.turn, table.last) == ("play", giver, None)  # the giver leads
    ev = evaluate(record, index, samples=2, budget_ms=None)
    assert ev.seat == giver and ev.side == (giver % 2, giver % 2 + 2)
    assert ev.chosen.cards == record["actions"][index]["cards"]
    assert len(ev.options) > 20 and all(o.cards is not None for o in ev.options)  # a lead: no pass


def test_a_recorded_play_the_generator_gives_otherwise_is_an_option(monkeypatch):
    """(Wild cards: the engine accepts a play in a form its move list does not hold.)"""
    from paipu.replay import evaluate as module

    record = text_record(PASS_HEAD, PASS_ACTIONS + "0 play Ah\n")
    real = module.options_of
    monkeypatch.setattr(module, "options_of", lambda t: [o for o in real(t) if o[0] != ids("Ah")])
    ev = evaluate(record, 3, samples=2, budget_ms=None)
    assert [(o.label(), o.kind, o.chosen) for o in ev.options] == [("2s", "single", False), ("Ah", "single", True)]
    assert len(ev.chosen.wins) == 2


AIRPLANE_HEAD = """\
hand e-2
game paodekuai huopin
seat 0 张三: 3d 3s 3h 4d 4s 4h 5d 5s 5h 6c 7d 8d 9d Td Jd Qd
seat 1 李四: 3c 4c 5c 6d 6s 6h 7s 7h 7c 8s 8h 8c 9s 9h 9c Ts
seat 2 王五: Th Tc Js Jh Jc Qs Qh Qc Kd Ks Kh Kc Ah Ad Ac 2s
"""


#: seat 0's cards after that airplane
REST = sum(1 << (5 * RANK[c]) for c in ids("7d 8d 9d Td Jd Qd"))


class TableWatcher:
    """The fast bot, noting the key of the play on the table whenever seat 0 has just played
    its airplane of threes, fours and fives."""

    def __init__(self):
        from paipu.replay.sim.bots import BOTS

        self.bot, self.seen = BOTS["fast"], set()

    def play(self, table, rng, moves, hints):
        if table.last is not None and table.last_seat == 0 and table.packed[0] == REST:
            self.seen.add(table.last[0].key)
        return self.bot.play(table, rng, moves, hints)


@pytest.mark.parametrize("declared, key", [(None, 2), (["airplane", "4"], 1)])
def test_the_recorded_play_is_played_as_the_seat_declared_it(declared, key):
    """333444555+6 reads as 333444 + 5556 (key 4) or 444555 + 3336 (key 5, the strongest):
    the option played stands as the seat declared it."""
    play = {"seat": 0, "act": "play", "cards": "3d 3s 3h 4d 4s 4h 5d 5s 5h 6c".split()}
    if declared:
        play["declared"] = declared
    record = dict(text_record(AIRPLANE_HEAD, ""), actions=[play])
    watcher = TableWatcher()
    ev = evaluate(record, 0, samples=2, budget_ms=None, bot=watcher)
    assert ev.chosen.cards == play["cards"]
    assert watcher.seen == {key}


def test_reveal_gives_the_partners_hand_and_deals_only_the_rest():
    from paipu.replay.evaluate import decision_state, knowledge

    hand = next(paipu.read_records("sample_logs/doudizhu_handmade.paipu"))
    table, passes = decision_state(hand, 9)
    viewer = hand["actions"][9]["seat"]
    others = [s for s in range(table.n) if s != viewer]
    own = knowledge(table, hand, 9, passes)
    one = knowledge(table, hand, 9, passes, reveal=others[:1])
    every = knowledge(table, hand, 9, passes, reveal=others)
    assert sorted(one.known[others[0]]) == sorted(c for c in range(54) for _ in range(table.hands[others[0]][c]))
    assert len(one.unseen) == len(own.unseen) - table.left[others[0]] + len(own.known.get(others[0], []))
    assert every.unseen == [] and sum(every.need.values()) == 0
    # every deal holds the revealed hand as it is; without it, that seat's cards vary
    held = [sorted(c for c in range(54) for _ in range(table.hands[s][c])) for s in others]
    assert one.need == {others[0]: 0, others[1]: table.left[others[1]]}
    for k in range(4):
        hands, _ = one.deal(random.Random(k), table)
        # (the other hidden hand of three, after the bidding, gets the rest)
        assert sorted(hands[others[0]]) == held[0] and sorted(hands[others[1]]) == held[1]
    assert len({tuple(sorted(own.deal(random.Random(k), table)[0][others[0]])) for k in range(4)}) > 1
    ev = evaluate(hand, 9, samples=3, budget_ms=None, reveal=others[:1])
    assert ev.samples == 3 and [o.label() for o in ev.options] == ["3h", "SJ", "BJ", "3h 3d", "SJ BJ"]


def test_a_redeal_counts_as_a_seats_chance_in_the_hand_dealt_again():
    """Seats 0 and 1 declined: seat 2 declining too redeals the hand on every deal, which is
    worth REDEAL_WIN (not a loss) and no points; calling is valued by the play."""
    from paipu.replay.games.doudizhu.sim import REDEAL_WIN

    record = ddz("0 bid no\n1 bid no\n2 bid yes\n")
    ev = evaluate(record, 2, samples=4, budget_ms=None)
    call, decline = ev.options
    assert (call.label(), call.chosen, decline.label()) == ("bid yes", True, "bid no")
    assert decline.wins == [REDEAL_WIN] * 4 and decline.points == [0.0] * 4
    assert 0.4 < decline.win.mean < 0.5  # (a new hand's chance for a seat, not a lost hand)
    assert set(call.wins) <= {0.0, 1.0} and 0.0 not in call.points
    # seat 1's decline redeals only on the deals where seat 2 declines after it
    first = evaluate(record, 1, samples=4, budget_ms=None)
    declined = next(o for o in first.options if o.label() == "bid no")
    assert all(w in (0.0, 1.0) or (w == REDEAL_WIN and p == 0.0) for w, p in zip(declined.wins, declined.points))
    assert REDEAL_WIN in declined.wins

