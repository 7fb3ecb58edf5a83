"""Dou Dizhu combinations: the whole space against RLCard's table, and the rules.md examples."""

from __future__ import annotations

import importlib.util
import json
import os
import zipfile
from dataclasses import replace

import pytest

from paipu.replay.cards import pack, pack_counts, parse_cards
from paipu.replay.combos import any_beats
from paipu.replay.games.doudizhu import HUOPIN, Doudizhu

ORDER = "3456789TJQKA2BR"  # RLCard's rank letters (B small joker, R big joker)
RLCARD_KIND = {
    "solo": "single", "pair": "pair", "trio": "triple", "trio_solo": "triple_single", "trio_pair": "triple_pair",
    "solo_chain": "straight", "pair_chain": "pair_chain", "trio_chain": "triple_chain",
    "trio_solo_chain": "airplane_single", "trio_pair_chain": "airplane_pair",
    "four_two_solo": "four_two_single", "four_two_pair": "four_two_pair", "bomb": "bomb", "rocket": "rocket",
}
TABLE = Doudizhu.combo_table(HUOPIN)


def rlcard_table() -> dict[int, tuple[str, int]]:
    spec = importlib.util.find_spec("rlcard")
    if spec is None:
        pytest.skip("rlcard is not installed (pip install -e '.[test]')")
    path = os.path.join(spec.submodule_search_locations[0], "games", "doudizhu", "jsondata.zip")
    with zipfile.ZipFile(path) as z:
        data = json.loads(z.read("jsondata/card_type.json"))
    out = {}
    for cards, readings in data.items():
        assert len(readings) == 1
        kind, rank = readings[0]
        kind = kind.rsplit("_", 1)[0] if kind[-1].isdigit() else kind
        packed = sum(1 << (5 * ORDER.index(ch)) for ch in cards)
        out[packed] = (RLCARD_KIND[kind], int(rank))
    return out


def test_whole_combination_space_matches_rlcard():
    theirs = rlcard_table()
    assert len(theirs) == 27471
    assert set(TABLE.readings) == set(theirs)
    for packed, (kind, _rank) in theirs.items():
        (mine,) = TABLE.classify(packed)
        assert mine.kind == kind, packed
        # RLCard ranks chains by their lowest card, we by the highest: same order within a class
    by_class: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for packed, (_kind, rank) in theirs.items():
        c = TABLE.classify(packed)[0]
        by_class.setdefault((c.kind, c.size), []).append((rank, c.key))
    for pairs in by_class.values():
        pairs.sort()
        keys = [k for _, k in pairs]
        assert keys == sorted(keys)


def kinds(text: str) -> list[str]:
    return [c.kind for c in TABLE.classify(pack(parse_cards(" ".join(text))))]


def cards(ranks: str) -> str:
    """Spell ranks like '33344455' as cards of distinct suits."""
    seen: dict[str, int] = {}
    out = []
    for ch in ranks:
        if ch in "BR":
            out.append({"B": "SJ", "R": "BJ"}[ch])
            continue
        k = seen.get(ch, 0)
        seen[ch] = k + 1
        out.append(ch + "shdc"[k])
    return " ".join(out)


@pytest.mark.parametrize("ranks,kind", [
    ("3", "single"), ("R", "single"), ("33", "pair"), ("333", "triple"), ("3334", "triple_single"),
    ("333R", "triple_single"), ("33344", "triple_pair"), ("34567", "straight"), ("3456789TJQKA", "straight"),
    ("334455", "pair_chain"), ("333444", "triple_chain"), ("33344455", "airplane_single"),
    ("333444555AAA", "airplane_single"), ("3334445566", "airplane_pair"), ("333344", "four_two_single"),
    ("333345", "four_two_single"), ("33334455", "four_two_pair"), ("3333", "bomb"), ("BR", "rocket"),
    ("QQQKKKAAA222", "airplane_single"),
])
def test_legal_combinations(ranks, kind):
    assert kinds(cards(ranks).split()) == [kind]


@pytest.mark.parametrize("ranks", [
    "33334",          # a kicker never shares a rank with its triple or four: no triple+2
    "33334444",       # two fours are nothing
    "3334445555",     # four of a rank as kickers
    "333444555666" "7779",  # a wing triple may not continue the chain
    "333444BR",       # kickers never hold both jokers
    "3333BR",
    "34",  "3344", "JQKA2", "QKA2B", "2233", "222333", "23456",  # no 2 or joker in sequences
    "3456", "BB",
    "333444555666777888" "99",  # more than 20 cards
])
def test_not_combinations(ranks):
    assert TABLE.classify(pack(parse_cards(cards(ranks)))) == ()


def combo(text: str):
    return TABLE.classify(pack(parse_cards(cards(text))))


@pytest.mark.parametrize("a,b,wins", [
    ("BR", "2222", True), ("2222", "BR", False), ("4444", "3333", True), ("3333", "4444", False),
    ("3333", "2", True), ("3333", "34567", True), ("4", "3", True), ("3", "4", False), ("R", "B", True),
    ("B", "2", True), ("2", "A", True), ("45678", "34567", True), ("456789", "34567", False),
    ("44455", "33366", True), ("4443", "333A", True), ("333A", "4443", False),
    ("444555AK", "333444KQ", True), ("33", "3", False), ("44", "33", True),
    ("555567", "444488", True), ("55556677", "444488QQ", True), ("555566", "44448899", False),
])
def test_compare(a, b, wins):
    assert any_beats(combo(a), combo(b)) is wins


def test_rules_are_data_a_designer_can_change():
    no_four_two = replace(HUOPIN, kinds=HUOPIN.kinds - {"four_two_single", "four_two_pair"})
    table = Doudizhu.combo_table(no_four_two)
    assert table.classify(pack_counts([4, 1, 1])) == ()
    assert TABLE.classify(pack_counts([4, 1, 1]))[0].kind == "four_two_single"
    assert len(table) == len(TABLE) - 1326 - 858
    long_straights = replace(HUOPIN, straight_min=6)
    assert Doudizhu.combo_table(long_straights).classify(pack_counts([1, 1, 1, 1, 1])) == ()
