"""Importers of other tools' logs (RLCard, RLCard-Showdown, DouZero, OpenSpiel): the samples
in tests/data/foreign were made by the libraries themselves (tests/data/foreign/README.md),
so these tests need none of them installed; the numbering check against pyspiel runs
where OpenSpiel is installed."""

from __future__ import annotations

import json
import os

import orjson
import pytest
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.io.botzone import items_of_botzone_lines, record_to_log
from paipu.replay.io.douzero import items_of_douzero_lines
from paipu.replay.io.foreign import CannotHold, Holdings, suited_deal
from paipu.replay.io.openspiel import (
    items_of_openspiel_lines, play_actions, record_to_state, split_states,
)
from paipu.replay.io.readers import iter_file, sniff_format
from paipu.replay.io.rlcard import items_of_rlcard_lines, items_of_showdown_lines, record_to_showdown
from paipu.replay.replayer import replay

DATA = os.path.join(os.path.dirname(__file__), "data", "foreign")
runner = CliRunner()


def sample(name: str) -> str:
    return os.path.join(DATA, name)


def read(name: str) -> str:
    with open(sample(name), encoding="utf-8") as f:
        return f.read()


def source_games(name: str) -> list[dict]:
    return [json.loads(line) for line in read(name).splitlines()]


def records(name: str) -> list[dict]:
    items = list(iter_file(sample(name)))
    assert all(i.record is not None for i in items), [i.message for i in items if i.record is None]
    return [i.record for i in items]  # type: ignore[misc]


def lines(text: str) -> list[tuple[int, bytes]]:
    return [(n + 1, line.encode()) for n, line in enumerate(text.split("\n"))]


def test_each_sample_is_sniffed_as_its_format():
    assert [sniff_format(sample(n)) for n in ("rlcard.json", "douzero.json", "openspiel.txt", "showdown.json")] == [
        "rlcard", "douzero", "openspiel", "rlcard-showdown"]


def test_rlcard_games_replay_clean_and_agree_with_the_payoffs():
    games = source_games("rlcard.json")
    for game, record in zip(games, records("rlcard.json"), strict=True):
        r = replay(record)
        assert r.violation is None, (record["id"], r.violation)
        landlord = game["landlord"]
        assert r.outcome["landlord"] == landlord
        assert r.outcome["winner"] == ("landlord" if game["payoffs"][landlord] == 1 else "farmers")
        assert r.outcome["order"] == [game["winner_id"]]
        # the deal is RLCard's own suited cards, the bottom its seen cards
        assert sorted(record["bottom"]) == sorted(
            {"BJ": "SJ", "RJ": "BJ"}.get(c, c[1] + c[0].lower()) for c in game["seen_cards"])
        assert len(record["actions"]) == 3 + len(game["trace"])


def test_douzero_games_replay_clean_and_agree_with_the_winner():
    games = source_games("douzero.json")
    for game, record in zip(games, records("douzero.json"), strict=True):
        r = replay(record)
        assert r.violation is None, (record["id"], r.violation)
        assert r.outcome["landlord"] == 0
        assert r.outcome["winner"] == ("landlord" if game["winner"] == "landlord" else "farmers")
        assert record["douzero"] == {"bomb_num": game["bomb_num"]}
        assert record["variant"] == "douzero"  # judged by DouZero's engine's rules (rules.md §2.10)


def test_openspiel_games_are_judged_by_openspiels_rules_and_agree_with_the_returns():
    returns = json.loads(read("openspiel.returns"))
    got = records("openspiel.txt")
    assert len(got) == len(returns) == 8
    verdicts = []
    for record, ret in zip(got, returns, strict=True):
        r = replay(record)
        if r.violation is not None:
            verdicts.append((record["id"], str(r.violation.code), r.violation.action))
            continue
        if not any(ret):
            assert r.outcome["redeal"] is True
            assert [a["act"] for a in record["actions"]] == ["bid", "bid", "bid"]
            continue
        assert r.outcome["winner"] == ("landlord" if sum(x > 0 for x in ret) == 1 else "farmers")
    assert verdicts == []
    assert {r["variant"] for r in got} == {"openspiel"}
    # OpenSpiel lets a bomb follow the rocket (rules.md §2.10); huopin's rules (§2.3) do not
    bomb_on_rocket = next(r for r in got if r["id"] == "openspiel-793")
    assert [a.get("cards") for a in bomb_on_rocket["actions"][5:7]] == [["SJ", "BJ"], ["Ts", "Th", "Td", "Tc"]]
    v = replay(dict(bomb_on_rocket, variant="huopin")).violation
    assert v is not None and (str(v.code), v.action) == ("does_not_beat", 6)


def test_openspiel_auction_is_kept_and_the_landlord_bidding_is_marked_given():
    record = records("openspiel.txt")[0]
    text = read("openspiel.txt").split("\n")
    face_up = int(text[text.index("[State]") + 1])
    assert record["openspiel"]["face_up"] == face_up == 20
    bids = record["openspiel"]["bids"]
    assert bids[0][0] == 20 % 3  # the face-up card's holder bids first
    assert record["actions"][:3] == [
        {"seat": record["result"]["landlord"], "act": "bid", "call": True, "given": "auction"},
        {"seat": (record["result"]["landlord"] + 1) % 3, "act": "grab", "grab": False, "given": "auction"},
        {"seat": (record["result"]["landlord"] + 2) % 3, "act": "grab", "grab": False, "given": "auction"},
    ]


def test_showdown_replay_keeps_the_move_info_and_says_the_bottom_is_assumed():
    (record,) = records("showdown.json")
    r = replay(record)
    assert r.violation is None
    assert record["showdown"] == {"bottom": "assumed: the landlord's last three initHands"}
    infos = [a.get("info") for a in record["actions"][3:]]
    game = json.loads(read("showdown.json"))
    assert infos == [m.get("info") for m in game["moveHistory"]]
    assert infos[0] == game["moveHistory"][0]["info"] and infos[0] is not None


def test_suits_follow_the_documented_rule():
    assert suited_deal([["3", "3"], ["3"], ["SJ"]], ["3", "BJ"]) == ([["3s", "3h"], ["3d"], ["SJ"]], ["3c", "BJ"])
    held = Holdings([["3c", "3h", "4d"]])
    assert held.take(0, ["3"]) == ["3h"]  # the lowest suit in s h d c order first
    assert held.take(0, ["3", "4"]) == ["3c", "4d"]
    assert held.take(0, ["4"]) == ["4s"]  # not held: a card the replay reports


def test_a_play_of_a_rank_not_held_is_left_to_the_replay():
    game = source_games("douzero.json")[0]
    game["card_play_action_seq"][0] = [30, 30]  # two big jokers
    (item,) = items_of_douzero_lines([(1, orjson.dumps(game))], "d.json")
    r = replay(item.record)
    assert (str(r.violation.code), r.violation.action) == ("not_in_hand", 3)


def test_rejects_name_the_file_line_and_field():
    game = source_games("douzero.json")[0]
    game["card_play_action_seq"][2] = [3, 16]
    (item,) = items_of_douzero_lines([(1, b""), (2, orjson.dumps(game))], "logs/d.json")
    assert (item.where, str(item.code), item.message) == (
        "logs/d.json:2", "bad_record",
        'field "card_play_action_seq[2][1]": expected a card code 3..14, 17 (the 2), 20 or 30 (the jokers), got 16')
    game = source_games("rlcard.json")[0]
    game["trace"][1] = [1, "33X"]
    (item,) = items_of_rlcard_lines([(1, orjson.dumps(game))], "r.json")
    assert item.message == "field \"trace[1][1]\": expected ranks 3..9 T J Q K A 2 B R, got 'X' at 2 in '33X'"
    text = read("openspiel.txt").split("\n")
    last = max(k for k in range(text.index("[State]", 10)) if text[k].isdigit() and k < text.index("[Meta]", 10))
    text[last] = "30000"  # the first game's last play: an id past the last action
    items = list(items_of_openspiel_lines(lines("\n".join(text)), "o.txt"))
    assert (items[0].where, items[0].message) == (
        f"o.txt:{last + 1}", f'field "[State] line {last + 1}": expected a play, 0 (pass) or 4..26056, got 30000')
    assert all(i.record is not None for i in items[1:])  # one bad game never costs its neighbours
    showdown = json.loads(read("showdown.json"))
    showdown["playerInfo"][0]["role"] = "peasant"
    (item,) = items_of_showdown_lines(lines(json.dumps(showdown, indent=1)), "s.json")
    assert (item.where, item.message) == ("s.json:1", 'field "playerInfo": expected one player with "role": "landlord"')


def test_a_card_of_the_wrong_kind_is_a_reject_not_a_crash():
    game = source_games("douzero.json")[0]
    game["card_play_action_seq"][1] = [[17]]
    (item,) = items_of_douzero_lines([(1, orjson.dumps(game))], "d.json")
    assert item.message == ('field "card_play_action_seq[1][0]": expected a card code 3..14, 17 (the 2), 20 or 30 '
                            "(the jokers), got [17]")


def test_a_json_list_of_games_names_the_entry():
    games = source_games("douzero.json")[:2]
    games[1]["winner"] = "nobody"
    items = list(items_of_douzero_lines(lines(json.dumps(games, indent=1)), "d.json"))
    assert items[0].record["id"] == "douzero-0"
    assert items[1].message == "field \"entry[1].winner\": expected 'landlord' or 'farmer', got 'nobody'"


def test_openspiel_round_trip_is_identity():
    originals = list(split_states(lines(read("openspiel.txt"))))
    for record, original in zip(records("openspiel.txt"), originals, strict=True):
        text = record_to_state(record)
        (back,) = list(items_of_openspiel_lines(lines(text), "x.txt"))
        assert back.record == record
        assert next(split_states(lines(text))).ids == original.ids  # the same action ids, too


def test_showdown_round_trip_is_identity():
    for record in records("rlcard.json") + records("douzero.json"):
        out = json.dumps(record_to_showdown(record))
        (back,) = list(items_of_showdown_lines([(1, out.encode())], "x.json"))
        expected = dict(record, actions=[dict(a, given="showdown") if "given" in a else a for a in record["actions"]],
                        variant="huopin")  # (Showdown plays RLCard's engine: huopin's rules)
        for key in ("rlcard", "douzero"):
            expected.pop(key, None)
        expected["result"] = {"landlord": record["result"]["landlord"]}
        assert back.record == expected


def test_a_paipu_record_goes_to_openspiel_with_its_deal_and_plays():
    from helpers import DDZ_HEAD, SPRING  # a paipu hand with 叫/抢 bidding

    from paipu.replay.io.text import parse_text

    record = parse_text(DDZ_HEAD + SPRING)[0].record
    (back,) = list(items_of_openspiel_lines(lines(record_to_state(record)), "x.txt"))
    got = back.record
    assert got["deal"] == record["deal"] and sorted(got["bottom"]) == sorted(record["bottom"])
    assert [a.get("cards") for a in got["actions"][3:]] == [a.get("cards") for a in record["actions"][3:]]
    assert got["openspiel"]["bids"] == [[0, 3]]  # the landlord bids 3 (叫/抢 is lost)
    assert replay(got).outcome["winner"] == replay(record).outcome["winner"]
    with pytest.raises(CannotHold, match="Dou Dizhu hands only"):
        record_to_state(dict(record, game="guandan"))
    shown = dict(record, actions=[{"seat": 1, "act": "peek"}, *record["actions"][:3], {"seat": 0, "act": "show", "factor": 2},
                                  *record["actions"][3:]])
    with pytest.raises(CannotHold, match="OpenSpiel has no 'peek'"):
        record_to_state(shown)


@pytest.mark.skipif(not __import__("importlib.util").util.find_spec("pyspiel"), reason="OpenSpiel not installed")
def test_openspiel_action_numbering_is_pyspiels():
    import pyspiel

    game = pyspiel.load_game("dou_dizhu")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    names = "3456789TJQKA2"
    for k, ranks in enumerate(play_actions()):
        text = state.action_to_string(state.current_player(), 4 + k).replace("-", "")
        text = text.replace("(BWJ)", "B").replace("(CJ)", "R")
        assert sorted(text) == sorted((names + "BR")[r] for r in ranks), k
    assert 4 + len(play_actions()) == game.num_distinct_actions()


def test_cli_audit_ingest_and_convert_read_the_formats(tmp_path):
    result = runner.invoke(app, ["audit", sample("douzero.json"), sample("rlcard.json"), "--jsonl"])
    assert result.exit_code == 0, result.output
    assert len(result.output.strip().split("\n")) == 16
    result = runner.invoke(app, ["audit", sample("openspiel.txt"), "--jsonl"])
    assert result.exit_code == 0, result.output  # (its bomb on the rocket: OpenSpiel's rules, rules.md §2.10)
    verdicts = [json.loads(x) for x in result.output.strip().split("\n") if x.startswith("{")]
    assert len(verdicts) == 8 and all(v["ok"] for v in verdicts)
    result = runner.invoke(app, ["ingest", sample("rlcard.json"), "--from", "rlcard", "--out", str(tmp_path / "ds")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["convert", sample("showdown.json"), "--from", "rlcard-showdown", "--to", "openspiel"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("# Automatically generated by OpenSpiel SerializeGameAndState\n# id: showdown-1\n")
    result = runner.invoke(app, ["convert", sample("douzero.json"), "--from", "openspiel", "--to", "jsonl"])
    assert result.exit_code == 1


def test_botzone_logs_of_both_games_replay_clean_and_keep_each_answer():
    for name, game, bids in (("botzone-ftl.json", "FightTheLandlord", None),
                             ("botzone-ftl2.json", "FightTheLandlord2", [1, 0, 2])):
        log = json.loads(read(name))
        (record,) = records(name)
        r = replay(record)
        assert r.violation is None
        assert record["botzone"].get("bids") == bids and record["botzone"]["game"] == game
        finish = log["log"][-1]["output"]["content"]
        landlord = r.outcome["landlord"]
        assert landlord == (0 if bids is None else 2)
        assert r.outcome["winner"] == ("landlord" if finish[str(landlord)] > finish[str((landlord + 1) % 3)] else "farmers")
        answers = [e[k] for e in log["log"][1::2] for k in e][len(bids or ()):]
        kept = [a["botzone"] for a in record["actions"][3:]]
        assert kept == [{k: a[k] for k in ("time", "memory", "verdict")} for a in answers]


def test_botzone_round_trip_is_identity_and_a_failed_bot_is_a_reject():
    for name in ("botzone-ftl.json", "botzone-ftl2.json"):
        (record,) = records(name)
        (back,) = list(items_of_botzone_lines([(1, orjson.dumps(record_to_log(record)))], "b.json"))
        assert back.record == record
    log = json.loads(read("botzone-ftl2.json"))
    log["log"][9]["0"] = {"verdict": "TLE", "time": 1000}
    (item,) = list(items_of_botzone_lines(lines(json.dumps(log, indent=1)), "b.json"))
    assert (item.where, item.message) == (
        "b.json:1", "field \"log[9].0.verdict\": expected OK (a bot that failed made no move), got 'TLE'")
    assert sniff_format(sample("botzone-ftl.json")) == "botzone"


def test_a_folder_of_every_format_ingests_to_the_same_records(tmp_path):
    from paipu.replay.api import ingest, read_records
    from paipu.replay.io.readers import iter_items

    counts = ingest([DATA], str(tmp_path / "ds"))
    assert (counts.read, counts.written, counts.rejected) == (31, 31, 0)
    read = {i.record["id"]: i.record for i in iter_items([DATA]) if i.record is not None}
    assert {r["id"]: r for r in read_records(str(tmp_path / "ds"))} == read


def test_a_pretty_printed_file_without_a_last_line_end_is_not_held_back(tmp_path):
    from paipu.replay.api import ingest

    path = tmp_path / "replay.json"
    path.write_text(read("showdown.json").rstrip("\n"), encoding="utf-8")  # its last line: "}"
    counts = ingest([str(path)], str(tmp_path / "ds"))
    assert (counts.written, counts.rejected, counts.held) == (1, 0, [])


def _guandan_source(hand: str) -> dict:
    """A hand of tests/data/guandan_tribute.jsonl alone (without its match): what
    botzone-guandan.json was written from (tests/data/make_botzone_guandan.py)."""
    path = os.path.join(os.path.dirname(DATA), "guandan_tribute.jsonl")
    with open(path, encoding="utf-8") as f:
        record = next(r for r in map(json.loads, f) if r["id"] == hand)
    return {k: v for k, v in record.items() if k not in ("match", "levels", "result")}


def test_botzone_guandan_logs_import_and_audit_with_their_tributes_and_claims():
    from paipu.replay.io.botzone_guandan import card_name

    # the numbering (docs/formats.md §6.1): card % 54; // 4 the rank A 2 .. K, % 4 the suit ♥ ♦ ♠ ♣
    assert [card_name(c, "x") for c in (0, 1, 6, 51, 52, 53, 54 + 36, 107)] == [
        "Ah", "Ad", "2s", "Kc", "SJ", "BJ", "Th", "BJ"]
    double, resisted = records("botzone-guandan.json")
    for record in (double, resisted):
        source = _guandan_source(record["id"])
        r = replay(record)
        assert r.violation is None, (record["id"], r.violation)
        assert record["deal"] == source["deal"] and record["level"] == source["level"]
        assert r.outcome["order"] == replay(source).outcome["order"]
        assert record["result"] == {"winning_team": r.outcome["winning_team"]}
        assert all(a["botzone"] == {"verdict": "OK"} for a in record["actions"] if a["act"] != "resist")
    assert [(a["seat"], a["act"], a["card"], a["to"]) for a in double["actions"][:4]] == [
        (s["seat"], s["act"], s["card"], s["to"]) for s in _guandan_source("double-2")["actions"][:4]]
    assert double["botzone"] == {"game": "GuanDan", "tribute": 2, "first": 1, "last": 0}
    assert resisted["actions"][0] == {"seat": 1, "act": "resist"}
    assert _guandan_source("resist1-2")["actions"][0]["act"] == "resist"
    # the wild heart (level 3: 3♥) of a straight stands for the 8 the replay read it as (its claim)
    straight = next(a for a in resisted["actions"] if a.get("cards") == ["3h", "4d", "5c", "6s", "7h"])
    assert straight["as"] == ["8s", "4d", "5c", "6s", "7h"]


def test_botzone_guandan_round_trip_is_identity_and_bad_answers_are_rejects():
    for record in records("botzone-guandan.json"):
        (back,) = list(items_of_botzone_lines([(1, orjson.dumps(record_to_log(record)))], "x.json"))
        assert back.record == record
    log = json.loads(read("botzone-guandan.json").split("\n")[0])
    log["log"][1]["2"]["response"] = [5]
    (item,) = list(items_of_botzone_lines([(1, orjson.dumps(log))], "g.json"))
    assert (item.where, item.message) == ("g.json:1", 'field "log[1].2.response": expected the deal\'s answer, [], got [5]')
    log = json.loads(read("botzone-guandan.json").split("\n")[0])
    log["log"][3]["0"]["response"] = [108]
    (item,) = list(items_of_botzone_lines([(1, orjson.dumps(log))], "g.json"))
    assert item.message == 'field "log[3].0.response[0]": expected a card 0..107, got 108'
    log["log"][3]["0"]["verdict"] = "TLE"
    (item,) = list(items_of_botzone_lines([(1, orjson.dumps(log))], "g.json"))
    assert item.message == "field \"log[3].0.verdict\": expected OK (a bot that failed made no move), got 'TLE'"


def test_a_simulated_guandan_hand_goes_to_botzone_and_back_with_the_same_play(tmp_path):
    from paipu.replay.sim import simulate

    for record in simulate("guandan", "standard", 3, 11):
        (back,) = list(items_of_botzone_lines([(1, orjson.dumps(record_to_log(record)))], "x.json"))
        got = back.record
        assert got["deal"] == record["deal"] and got["level"] == record.get("level", "2")
        assert [(a["seat"], a["act"], a.get("cards"), a.get("card")) for a in got["actions"]] == [
            (a["seat"], a["act"], a.get("cards"), a.get("card")) for a in record["actions"]]
        assert replay(got).outcome["order"] == replay(record).outcome["order"]
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(_guandan_source("double-2")) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["convert", str(path), "--to", "botzone"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["log"][0]["output"]["content"]["0"]["stage"] == "deal"
