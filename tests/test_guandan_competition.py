"""The Guandan AI competition log format: import, ingest, audit against its own episodeOver."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.cards import CARD_NAMES, DECK_108, parse_cards
from paipu.replay.io.guandan_competition import (
    card, declaration, items_of_competition_lines, platform_card, platform_declaration, record_to_deal,
)
from paipu.replay.io.readers import iter_file
from paipu.replay.replayer import Matches, replay
from paipu.replay.sim import simulate

runner = CliRunner()


def competition_file(tmp_path, tamper=None) -> tuple[str, list[dict]]:
    records = list(simulate("guandan", "standard", 5, 11))
    lines = []
    for k, r in enumerate(records):
        deal = record_to_deal(r)  # every play declared, episodeOver last
        if tamper:
            tamper(k, deal)
        lines.append(json.dumps(deal))
    path = tmp_path / "match.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path), records


def test_cards_of_the_platform():
    assert [card(t, "x") for t in ("H2", "SA", "CT", "D9", "SB", "HR")] == ["2h", "As", "Tc", "9d", "SJ", "BJ"]


def test_import_gives_the_same_hands(tmp_path):
    path, records = competition_file(tmp_path)
    items = list(iter_file(path))  # the format is sniffed
    assert all(i.record is not None for i in items)
    for item, record in zip(items, records):
        got = item.record
        assert got["deal"] == record["deal"] and got["level"] == record["level"] and got["levels"] == record["levels"]
        assert [a["act"] for a in got["actions"]] == [a["act"] for a in record["actions"]]
        assert got["result"]["order"] == record["result"]["order"]
        assert got["result"]["levels"] == record["result"]["levels"]


def test_ingest_and_audit_round_trip(tmp_path):
    path, _ = competition_file(tmp_path)
    ds = str(tmp_path / "ds")
    r = runner.invoke(app, ["ingest", path, "--from", "guandan-competition", "--out", ds], catch_exceptions=False)
    assert "ingested 5 hands" in r.stdout
    r = runner.invoke(app, ["audit", ds, "--workers", "1"], catch_exceptions=False)
    assert r.exit_code == 0 and "5 hands: 5 ok" in r.stdout


def test_a_wrong_finishing_order_in_the_file_is_a_result_mismatch(tmp_path):
    def swap(k, deal):
        if k == 2:
            order = deal["messages"][-1]["order"]
            order[0], order[1] = order[1], order[0]
            if order[1] == (order[0] + 2) % 4:  # keep it a non-double-down, so that the length matches
                order[2], order[1] = order[1], order[2]
    path, _ = competition_file(tmp_path, swap)
    r = runner.invoke(app, ["audit", path, "--jsonl"], catch_exceptions=False)
    verdicts = [json.loads(x) for x in r.stdout.splitlines()]
    assert verdicts[2]["violations"][0]["code"] in ("result_mismatch", "bad_match")
    assert r.exit_code == 1


def test_a_rank_that_does_not_follow_is_bad_match(tmp_path):
    def rank(k, deal):
        if k == 1:
            deal["messages"][-1]["curRank"] = "A"
    path, _ = competition_file(tmp_path, rank)
    verdicts = [json.loads(x) for x in runner.invoke(app, ["audit", path, "--jsonl"]).stdout.splitlines()]
    assert verdicts[1]["violations"][0] == {"code": "bad_match", "action": None,
                                            "message": verdicts[1]["violations"][0]["message"]}
    assert "is played at level A" in verdicts[1]["violations"][0]["message"]


def test_bad_input_names_the_field(tmp_path):
    def bad(k, deal):
        if k == 0:
            deal["messages"][0]["curAction"][2][0] = "X9"
    path, _ = competition_file(tmp_path, bad)
    items = list(iter_file(path, "guandan-competition"))
    assert items[0].record is None and items[0].code == "bad_record"
    assert 'field "messages[0].curAction[2][0]": expected a card like' in items[0].message
    assert items[0].line == 1


# ---------------------------------------------------------------- ids by the deal's place in the file


def six_deals(tmp_path, broken: str | None = None, k: int = 1) -> tuple[str, str]:
    """A match of six deals in match.jsonl, deal *k* replaced by *broken*; and its id prefix."""
    records = list(simulate("guandan", "standard", 6, 11))
    lines = [json.dumps(record_to_deal(r)) for r in records]
    if broken is not None:
        lines[k] = broken
    (tmp_path / "match.jsonl").write_text("\n".join(lines) + "\n")
    return str(tmp_path / "match.jsonl"), records[0]["match"]["id"]


def stored(ds) -> tuple[list, list]:
    from paipu.replay.io.commit import read_table

    hands = read_table(ds, "hands", ["id", "line"])
    rejects = read_table(ds, "rejects", ["line", "code", "hand_id"])
    return (sorted(zip(*(hands.column(c).to_pylist() for c in ("line", "id")))),
            sorted(zip(*(rejects.column(c).to_pylist() for c in ("line", "code", "hand_id")))) if rejects else [])


def test_a_deal_that_cannot_be_read_keeps_its_place_in_the_ids(tmp_path):
    """Deal 2 cut short, then the corrected file: every deal is stored once, under the id of
    its place in the file (before: the deals after the broken one took the ids one place
    earlier, so the corrected file stored deal 6 twice, as -005 and -006, and rejected deals
    2 to 5 as duplicate_id). Deal 2's outcome was unknown in the first run, so the levels
    carried into deals 3 to 6 then are not those that follow from it: the corrected deals 3
    to 6 differ from the stored ones and are duplicate_id, each at its own line and id."""
    from paipu.replay.ingest import ingest_files

    path, match = six_deals(tmp_path)
    good = (tmp_path / "match.jsonl").read_text()
    (tmp_path / "match.jsonl").write_text(good.replace(good.splitlines()[1], good.splitlines()[1][:40]))
    ds = str(tmp_path / "ds")
    first = ingest_files([path], ds, fmt="guandan-competition")
    assert (first.written, first.rejected) == (5, 1)
    assert stored(ds) == ([(n, f"{match}-{n:03d}") for n in (1, 3, 4, 5, 6)], [(2, "bad_record", None)])
    (tmp_path / "match.jsonl").write_text(good)
    second = ingest_files([path], ds, fmt="guandan-competition")
    assert (second.written, second.duplicates, second.rejected) == (1, 1, 4)
    assert stored(ds) == ([(n, f"{match}-{n:03d}") for n in range(1, 7)],
                          [(2, "bad_record", None)] + [(n, "duplicate_id", f"{match}-{n:03d}") for n in range(3, 7)])


def test_a_deal_rejected_after_it_was_read_changes_nothing_after_it(tmp_path):
    """Deal 2 read but refused by the record checks (three players for four seats): its
    outcome still carries, so the corrected file adds deal 2 and finds the rest there."""
    from paipu.replay.ingest import ingest_files

    path, match = six_deals(tmp_path)
    good = (tmp_path / "match.jsonl").read_text()
    deal = json.loads(good.splitlines()[1])
    (tmp_path / "match.jsonl").write_text(good.replace(good.splitlines()[1], json.dumps(dict(deal, players=["a", "b", "c"]))))
    ds = str(tmp_path / "ds")
    first = ingest_files([path], ds, fmt="guandan-competition")
    assert (first.written, first.rejected) == (5, 1)
    (tmp_path / "match.jsonl").write_text(good)
    second = ingest_files([path], ds, fmt="guandan-competition")
    assert (second.written, second.duplicates, second.rejected) == (1, 5, 0)
    assert stored(ds)[0] == [(n, f"{match}-{n:03d}") for n in range(1, 7)]


@pytest.mark.parametrize("field, value, message", [
    ("match", {"a": 1}, "field \"match\": expected the match id, a string or an integer, got {'a': 1}"),
    ("match", [1], "field \"match\": expected the match id, a string or an integer, got [1]"),
    ("id", {"a": 1}, "field \"id\": expected the deal's id, a string or an integer, got {'a': 1}"),
    ("match", True, "field \"match\": expected the match id, a string or an integer, got True"),
])
def test_a_match_or_id_that_is_not_a_name_is_refused_naming_the_field(tmp_path, field, value, message):
    """A competition ``match`` object became ids like ``{'a': 1}-001``: now the deal is a
    bad_record naming the field; it keeps its place, so the next deal is still -003."""
    records = list(simulate("guandan", "standard", 3, 11))
    deals = [record_to_deal(r) for r in records]
    deals[1][field] = value
    items = list(items_of_competition_lines([(k + 1, json.dumps(d).encode()) for k, d in enumerate(deals)], "m.jsonl"))
    assert [(i.line, i.code, i.message) for i in items if i.record is None] == [(2, "bad_record", message)]
    assert [i.record["id"] for i in items if i.record] == [records[0]["match"]["id"] + "-001",
                                                           records[0]["match"]["id"] + "-003"]


def test_a_number_as_match_id_names_the_match(tmp_path):
    deal = record_to_deal(next(iter(simulate("guandan", "standard", 1, 11))))
    (item,) = items_of_competition_lines([(1, json.dumps(dict(deal, match=7)).encode())], "m.jsonl")
    assert (item.record["id"], item.record["match"]) == ("7-001", {"id": "7", "hand": 1})


# ---------------------------------------------------------------- a match won at A (过A)

WON_AT_A = os.path.join(os.path.dirname(__file__), "data", "guandan_won_at_a.jsonl")


def match_replays(path):
    matches = Matches()
    return [(item, matches.replay(item.record) if item.record else None) for item in iter_file(path)]


def test_a_match_won_at_a_imports_and_audits_clean_and_is_over():
    replays = match_replays(WON_AT_A)
    assert [r.ok for _, r in replays] == [True] * 5
    assert [item.record["level"] for item, _ in replays] == ["2", "5", "8", "J", "A"]
    assert [r.outcome["levels"] for _, r in replays] == [["5", "2"], ["8", "2"], ["J", "2"], ["A", "2"], ["A", "2"]]
    assert [r.outcome["match_over"] for _, r in replays] == [False] * 4 + [True]
    last = replays[-1][1]
    assert last.outcome["match_winner"] == 0
    won = [e for e in last.events if e.kind == "match_won"]
    assert len(won) == 1 and won[0].data == {"team": 0} and won[0].action == len(replays[-1][0].record["actions"]) - 1
    assert not any(e.kind == "match_won" for _, r in replays[:-1] for e in r.events)


def test_the_won_match_audits_clean_from_the_command_line(tmp_path):
    r = runner.invoke(app, ["audit", WON_AT_A], catch_exceptions=False)
    assert r.exit_code == 0 and "5 hands: 5 ok" in r.stdout
    ds = str(tmp_path / "ds")
    runner.invoke(app, ["ingest", WON_AT_A, "--out", ds], catch_exceptions=False)
    r = runner.invoke(app, ["audit", ds, "--workers", "1"], catch_exceptions=False)
    assert r.exit_code == 0 and "5 hands: 5 ok" in r.stdout
    import duckdb

    rows = duckdb.sql(f"select hand_id, match_over from '{ds}/outcomes/**/*.parquet' order by hand_id").fetchall()
    assert [over for _, over in rows] == [False] * 4 + [True]


def test_a_further_hand_after_the_match_was_won_is_bad_match(tmp_path):
    with open(WON_AT_A, encoding="utf-8") as f:
        lines = f.read().splitlines()
    path = tmp_path / "more.jsonl"
    path.write_text("\n".join(lines + [lines[0]]) + "\n", encoding="utf-8")  # a sixth hand, same match id
    replays = match_replays(str(path))
    assert [r.ok for _, r in replays[:5]] == [True] * 5
    v = replays[5][1].violation
    assert (str(v.code), v.action) == ("bad_match", None)
    assert "already over" in v.message and "team 0" in v.message


def test_no_hand_of_the_match_follows_the_win_whatever_its_number():
    items = [item for item, _ in match_replays(WON_AT_A)]
    again = json.loads(json.dumps(items[0].record))
    again["id"] = "won-at-a-again"
    for number in (1, 6, 9):
        again["match"]["hand"] = number
        matches = Matches()
        assert all(matches.replay(i.record).ok for i in items)
        v = matches.replay(again).violation
        assert (str(v.code), v.action) == ("bad_match", None)


def test_the_match_stays_open_below_a():
    """The fourth hand brings team 0 to A: the match is not over, and a fifth hand follows."""
    with open(WON_AT_A, encoding="utf-8") as f:
        lines = f.read().splitlines()
    items = list(items_of_competition_lines(enumerate(x.encode() for x in lines[:4]), "x"))
    matches = Matches()
    assert [matches.replay(i.record).outcome["match_over"] for i in items] == [False] * 4


# ---------------------------------------------------------------- declared readings [type, rank, cards]


def deal_line(seat0: str, seat1: str, plays: list[tuple[int, list]]) -> bytes:
    """A competition deal at level 2 (2♥ wild): seats 0 and 1 hold the given cards, the
    rest of the two decks go round the other seats; *plays* are (seat, curAction)."""
    hands = [parse_cards(seat0), parse_cards(seat1)]
    rest = list(DECK_108)
    for c in hands[0] + hands[1]:
        rest.remove(c)
    for s in range(2):
        while len(hands[s]) < 27:
            hands[s].append(rest.pop())
    hands += [rest[:27], rest[27:]]
    messages = [{"stage": "play", "curPos": s, "curAction": a} for s, a in plays]
    messages.append({"stage": "episodeOver", "order": [0, 1, 2, 3], "curRank": "2", "restCards": []})
    deal = {"match": "m", "leader": 0, "messages": messages,
            "beginning": [[platform_card(CARD_NAMES[c]) for c in h] for h in hands]}
    return json.dumps(deal).encode()


LEAD = ["5s", "5d", "3s", "2h", "2h"]  # 555+33 or 333+55: the strongest reading is the fives
FOLLOW = ["4s", "4d", "4c", "6s", "6d"]  # 444+66 beats the threes, not the fives


def first_verdict(line: bytes):
    item = next(items_of_competition_lines([(1, line)], "x"))
    assert item.record is not None, item.message
    r = replay(item.record)
    return item.record, (None if r.ok else (str(r.violation.code), r.violation.action, r.violation.message))


def comp(tokens):
    return [platform_card(t) for t in tokens]


def test_a_declared_reading_of_wild_hearts_is_the_one_that_counts():
    line = deal_line("5s 5d 3s 2h 2h", "4s 4d 4c 6s 6d",
                     [(0, ["ThreeWithTwo", "3", comp(LEAD)]), (1, ["ThreeWithTwo", "4", comp(FOLLOW)])])
    record, verdict = first_verdict(line)
    assert record["actions"][0]["declared"] == ["full_house", "3"]
    assert sorted(record["actions"][0]["as"]) == sorted(["5s", "5d", "3s", "3s", "3s"])
    assert record["actions"][1]["declared"] == ["full_house", "4"] and "as" not in record["actions"][1]
    assert verdict[:2] == ("incomplete", None)  # both plays legal; the hand goes on


def test_without_the_declaration_the_strongest_reading_counts():
    line = deal_line("5s 5d 3s 2h 2h", "4s 4d 4c 6s 6d", [(0, ["?", "?", comp(LEAD)]), (1, ["?", "?", comp(FOLLOW)])])
    assert first_verdict(line)[1][:2] == ("does_not_beat", 1)
    line = deal_line("5s 5d 3s 2h 2h", "4s 4d 4c 6s 6d",
                     [(0, ["ThreeWithTwo", "5", comp(LEAD)]), (1, ["ThreeWithTwo", "4", comp(FOLLOW)])])
    assert first_verdict(line)[1][:2] == ("does_not_beat", 1)


@pytest.mark.parametrize("action,named", [
    (["Straight", "3", comp(LEAD)], "straight 7"),        # wilds cannot make 5 5 3 a straight
    (["ThreeWithTwo", "7", comp(LEAD)], "full_house 7"),  # nor a full house of sevens
    (["Pair", "5", comp(["6s", "6d"])], "pair 5"),        # natural cards read as themselves
    (["Bomb", "JOKER", comp(["5s", "5d", "3s", "2h"])], "joker_bomb jokers"),
])
def test_a_declaration_the_cards_cannot_form_is_invalid_combo_naming_it(action, named):
    line = deal_line("5s 5d 3s 2h 2h 6s 6d", "4s 4d 4c 6s 6d", [(0, action)])
    code, index, message = first_verdict(line)[1]
    assert (code, index) == ("invalid_combo", 0)
    assert f"cannot be the declared {named}" in message


@pytest.mark.parametrize("action,field", [
    (["Flush", "3", ["S5"]], "messages[0].curAction[0]"),
    (["Single", "Z", ["S5"]], "messages[0].curAction[1]"),
    (["Straight", "J", ["S5"]], "messages[0].curAction[1]"),
])
def test_an_unknown_type_or_rank_names_the_field(action, field):
    item = next(items_of_competition_lines([(1, deal_line("5s", "4s", [(0, action)]))], "x"))
    assert item.record is None and item.code == "bad_record"
    assert item.message.startswith(f'field "{field}": expected')


@pytest.mark.parametrize("kind_rank", [("Straight", "A"), ("Straight", "T"), ("ThreePair", "Q"), ("TwoTrips", "K"),
                                       ("StraightFlush", "9"), ("Single", "B"), ("Pair", "R"), ("Bomb", "JOKER"),
                                       ("ThreeWithTwo", "T"), ("Trips", "2"), ("Bomb", "7")])
def test_declarations_round_trip(kind_rank):
    kind, key = declaration(*kind_rank, "x")
    assert platform_declaration(kind, key) == list(kind_rank)


def test_a_competition_log_being_written_holds_its_half_written_last_deal_back(tmp_path):
    """A match log read while deal 6 is half written: deal 6 is held back, not rejected; once
    whole it lands as -006 and nothing is left in rejects."""
    from paipu.replay.ingest import ingest_files

    path, match = six_deals(tmp_path)
    good = (tmp_path / "match.jsonl").read_text()
    (tmp_path / "match.jsonl").write_text(good[:len(good) - 200])
    ds = str(tmp_path / "ds")
    first = ingest_files([path], ds, fmt="guandan-competition")
    assert (first.written, first.rejected, first.held) == (5, 0, [(path, 6)])
    (tmp_path / "match.jsonl").write_text(good)
    second = ingest_files([path], ds, fmt="guandan-competition")
    assert (second.written, second.duplicates, second.rejected, second.held) == (1, 5, 0, [])
    assert stored(ds) == ([(n, f"{match}-{n:03d}") for n in range(1, 7)], [])
