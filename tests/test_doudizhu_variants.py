"""The rules of the AI libraries' engines as Dou Dizhu variants (docs/rules.md §2.10):
``doudizhu/openspiel`` and ``doudizhu/douzero``, each difference from huopin on its legal
and its illegal side, the combination space against OpenSpiel's action table, and the
importers that set the variant."""

from __future__ import annotations

import importlib.util
import os
import random

import pytest
from test_doudizhu_combos import cards

from paipu.replay.cards import pack, pack_counts, parse_cards
from paipu.replay.combos import any_beats
from paipu.replay.games.doudizhu import DOUZERO, HUOPIN, OPENSPIEL, Doudizhu
from paipu.replay.io.openspiel import play_table
from paipu.replay.io.readers import iter_file
from paipu.replay.replayer import replay

RULES = {"huopin": HUOPIN, "openspiel": OPENSPIEL, "douzero": DOUZERO}
DATA = os.path.join(os.path.dirname(__file__), "data", "foreign")


def kinds(variant: str, ranks: str) -> set[str]:
    return {c.kind for c in Doudizhu.combo_table(RULES[variant]).classify(pack(parse_cards(cards(ranks))))}


def beats(variant: str, a: str, b: str) -> bool:
    table = Doudizhu.combo_table(RULES[variant])
    return any_beats(table.classify(pack(parse_cards(cards(a)))), table.classify(pack(parse_cards(cards(b)))))


@pytest.mark.parametrize("ranks,huopin,openspiel,douzero", [
    # both jokers as single kickers: DouZero only (move_generator: kickers are any other cards)
    ("999TTTBR", set(), set(), {"airplane_single"}),
    ("3333BR", set(), set(), {"four_two_single"}),
    # a kicker triple that continues the chain: OpenSpiel and DouZero
    ("333444555" "666", {"triple_chain"}, {"triple_chain", "airplane_single"}, {"triple_chain", "airplane_single"}),
    ("333444555666" "7779", set(), {"airplane_single"}, {"airplane_single"}),
    # four of a rank among an airplane's kickers: DouZero only
    ("333444555666" "7777", set(), set(), {"airplane_single"}),
    # 四带二 and 四带两对: not in OpenSpiel's game
    ("333345", {"four_two_single"}, set(), {"four_two_single"}),
    ("33334455", {"four_two_pair"}, set(), {"four_two_pair"}),
    # what no variant allows: kickers sharing the triple's rank, two fours, a 2 in a chain
    ("33334", set(), set(), set()),
    ("33334444", set(), set(), set()),
    ("JQKA2", set(), set(), set()),
    # the same in all three
    ("33344455", {"airplane_single"}, {"airplane_single"}, {"airplane_single"}),
    ("333444555AAA", {"airplane_single"}, {"airplane_single"}, {"airplane_single"}),
])
def test_each_variant_reads_the_cards_as_its_engine_does(ranks, huopin, openspiel, douzero):
    assert (kinds("huopin", ranks), kinds("openspiel", ranks), kinds("douzero", ranks)) == (huopin, openspiel, douzero)


@pytest.mark.parametrize("a,b,huopin,openspiel,douzero", [
    # a bomb on the rocket: OpenSpiel (SearchForLegalActions adds the bombs after any play but a bomb)
    ("3333", "BR", False, True, False),
    ("BR", "2222", True, True, True),  # the rocket still beats every bomb
    ("4444", "3333", True, True, True), ("3333", "4444", False, False, False),
    ("33", "BR", False, False, False),  # nothing else follows the rocket
    # DouZero compares airplanes with singles by their highest triple (move_selector.filter_type_11)
    ("444555666" "KKK", "555666777" "333", False, False, True),
    ("666777888" "345", "555666777" "KKK", True, True, False),
    # a chain that a kicker triple continues follows an airplane of its length
    ("444555666" "777", "333444555" "9TJ", False, True, True),
])
def test_each_variant_compares_as_its_engine_does(a, b, huopin, openspiel, douzero):
    assert (beats("huopin", a, b), beats("openspiel", a, b), beats("douzero", a, b)) == (huopin, openspiel, douzero)


def test_the_openspiel_variant_is_openspiels_action_table_kind_for_kind():
    """Every play of doudizhu/openspiel is an action of OpenSpiel's game with the same kinds,
    and every action a play (play_table is checked against pyspiel where it is installed);
    the rocket alone has a second reading, the lowest bomb (so that bombs follow it)."""
    theirs: dict[int, set[str]] = {}
    for kind, ranks in play_table():
        c = [0] * 15
        for r in ranks:
            c[r] += 1
        theirs.setdefault(pack_counts(c), set()).add(kind)
    table = Doudizhu.combo_table(OPENSPIEL)
    ours = {p: {c.kind for c in readings} for p, readings in table.readings.items()}
    rocket = pack_counts([0] * 13 + [1, 1])
    assert ours.pop(rocket) == {"rocket", "bomb"} and theirs.pop(rocket) == {"rocket"}
    assert ours == theirs
    assert len(table) == len(theirs) + 1 == 25_661


def test_the_importers_set_the_variant_and_the_libraries_games_replay_clean():
    for name, variant in (("openspiel.txt", "openspiel"), ("douzero.json", "douzero"),
                          ("douzero-kickers.json", "douzero"), ("rlcard.json", "huopin")):
        records = [i.record for i in iter_file(os.path.join(DATA, name))]
        assert records and all(r is not None and r["variant"] == variant for r in records), name
        assert [replay(r).violation for r in records] == [None] * len(records), name


def test_douzeros_kickers_are_refused_by_huopin_at_their_action():
    got = {}
    for item in iter_file(os.path.join(DATA, "douzero-kickers.json")):
        record = item.record
        v = replay(dict(record, variant="huopin")).violation
        assert v is not None
        got[record["id"]] = (str(v.code), v.action, record["actions"][v.action]["cards"])
    assert got == {"douzero-374": ("invalid_combo", 3, ["9s", "9h", "9d", "Th", "Td", "Tc", "SJ", "BJ"]),
                   "douzero-2526": ("invalid_combo", 3, ["Qs", "Qh", "Qd", "Qc", "SJ", "BJ"])}


def test_a_bomb_on_the_rocket_counts_as_a_bomb_and_the_rocket_as_a_rocket():
    record = next(i.record for i in iter_file(os.path.join(DATA, "openspiel.txt")) if i.record["id"] == "openspiel-793")
    assert [a.get("cards") for a in record["actions"][5:7]] == [["SJ", "BJ"], ["Ts", "Th", "Td", "Tc"]]
    r = replay(record, detail=True)
    assert r.violation is None
    assert {k: r.outcome[k] for k in ("bombs", "rockets", "multiplier")} == {"bombs": 1, "rockets": 1, "multiplier": 4}


@pytest.mark.parametrize("variant,hand,last,expected", [
    # a kicker triple next to the chain (huopin's direct test would say no)
    ("openspiel", "444555666777", "333444555" "9TJ", True), ("douzero", "444555666777", "333444555" "9TJ", True),
    ("huopin", "444555666777", "333444555" "9TJ", False),
    # DouZero's airplanes by their highest triple, both ways
    ("douzero", "444555666KKK", "555666777" "333", True), ("huopin", "444555666KKK", "555666777" "333", False),
    ("douzero", "666777888345", "555666777" "KKK", False), ("huopin", "666777888345", "555666777" "KKK", True),
    # the rocket: a bomb follows it in OpenSpiel only
    ("openspiel", "3333", "BR", True), ("huopin", "3333", "BR", False), ("douzero", "3333", "BR", False),
    ("openspiel", "3334", "BR", False),
])
def test_can_beat_follows_the_variant(variant, hand, last, expected):
    """Table.can_beat (the must-play check's question) answers by the variant's rules, as a
    scan of its combination table does."""
    rules = RULES[variant]
    table = Doudizhu.combo_table(rules)
    engine = Doudizhu(rules, {"paipu": 1, "id": "x", "game": "doudizhu", "variant": variant, "players": ["a", "b", "c"],
                              "deal": [[], [], []], "bottom": [], "actions": []})
    engine.packed[0] = pack(parse_cards(cards(hand)))
    engine.last = table.classify(pack(parse_cards(cards(last))))
    assert engine.can_beat(0) is expected
    assert table.has_beating(engine.packed[0], engine.last) is expected


@pytest.mark.skipif(not importlib.util.find_spec("douzero"), reason="DouZero not installed")
def test_the_douzero_variant_is_douzeros_move_generator_on_random_hands():
    """DouZero's own moves of random 20-card hands (MovesGener.gen_moves, and the moves that
    follow a random play: GameEnv.get_legal_card_play_actions) are the variant's, both ways."""
    from douzero.env.game import GameEnv
    from douzero.env.move_generator import MovesGener

    index = {**{3 + k: k for k in range(12)}, 17: 12, 20: 13, 30: 14}
    deck = [r for r in range(3, 15) for _ in range(4)] + [17] * 4 + [20, 30]
    table = Doudizhu.combo_table(DOUZERO)

    def packed(move: list[int]) -> int:
        c = [0] * 15
        for x in move:
            c[index[x]] += 1
        return pack_counts(c)

    rng = random.Random(5)
    env = GameEnv({})
    for _ in range(60):
        dealt = rng.sample(deck, 40)
        hand, rival_hand = dealt[:20], dealt[20:]
        assert {packed(m) for m in MovesGener(hand).gen_moves()} == set(table.all_plays(packed(hand)))
        rival = sorted(rng.choice(MovesGener(rival_hand).gen_moves()))
        env.card_play_action_seq = [rival]
        env.acting_player_position = "landlord"
        env.info_sets["landlord"].player_hand_cards = sorted(hand)
        theirs = {packed(m) for m in env.get_legal_card_play_actions() if m}
        assert theirs == set(table.iter_beating(packed(hand), table.classify(packed(rival)))), rival
