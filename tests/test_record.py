"""Structural checks of the hand record: codes, field paths, what was expected."""

from __future__ import annotations

import copy

import pytest

from paipu.replay.record import check_record
from paipu.replay.verdicts import RecordError

GOOD = {
    "paipu": 1, "id": "h1", "game": "doudizhu", "variant": "huopin", "players": ["a", "b", "c"],
    "deal": [["3s"], ["4s"], ["5s"]], "bottom": ["6s", "7s", "8s"],
    "actions": [{"seat": 0, "act": "bid", "call": True}, {"seat": 0, "act": "play", "cards": ["3s"], "t": 5}],
}


def broken(path: list, value=...) -> dict:
    rec = copy.deepcopy(GOOD)
    target = rec
    for key in path[:-1]:
        target = target[key]
    if value is ...:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return rec


@pytest.mark.parametrize("path,value,code,field,expected", [
    (["id"], ..., "bad_record", "id", "required field missing"),
    (["paipu"], 2, "bad_record", "paipu", "expected format version 1"),
    (["id"], 7, "bad_record", "id", "expected a string"),
    (["game"], "chess", "unknown_game", "game", "unknown game 'chess'"),
    (["variant"], "nope", "unknown_game", "variant", "unknown variant 'nope' of doudizhu"),
    (["players"], ["a"], "bad_record", "players", "expected 2 to 4 player names"),
    (["players", 1], 5, "bad_record", "players[1]", "expected a string"),
    (["deal"], [["3s"], ["4s"]], "bad_record", "deal", "one list of cards per seat"),
    (["deal", 2, 0], "5z", "bad_card", "deal[2][0]", "expected a card like"),
    (["bottom"], ..., "bad_record", "bottom", "required field missing"),
    (["actions", 1, "seat"], 3, "bad_record", "actions[1].seat", "expected a seat 0..2"),
    (["actions", 1, "seat"], "0", "bad_record", "actions[1].seat", "expected an integer"),
    (["actions", 1, "act"], "fold", "bad_record", "actions[1].act", "expected one of play, pass"),
    (["actions", 1, "cards"], [], "bad_record", "actions[1].cards", "at least one card"),
    (["actions", 1, "cards", 0], "3S!", "bad_card", "actions[1].cards[0]", "expected a card like"),
    (["actions", 1, "t"], -1, "bad_record", "actions[1].t", "milliseconds"),
    (["actions", 0, "call"], "yes", "bad_record", "actions[0].call", "expected true or false"),
    (["stacks"], [1, 2], "bad_record", "stacks", "3 numbers"),
    (["leader"], 5, "bad_record", "leader", "a seat 0..2"),
    (["match"], {"id": "m"}, "bad_record", "match.hand", "required field missing"),
])
def test_structural_errors(path, value, code, field, expected):
    with pytest.raises(RecordError) as e:
        check_record(broken(path, value))
    assert e.value.code == code
    assert e.value.field == field
    assert expected in e.value.message


def test_not_an_object():
    with pytest.raises(RecordError) as e:
        check_record([1, 2])
    assert e.value.code == "bad_record" and "expected a JSON object" in str(e.value)


def test_good_record_and_aliases():
    assert check_record(copy.deepcopy(GOOD))["game"] == "doudizhu"
    assert check_record(broken(["game"], "斗地主"))["game"] == "doudizhu"


def test_lenient_action_cards_leave_spelling_to_the_replay():
    rec = broken(["actions", 1, "cards", 0], "3S!")
    assert check_record(rec, action_cards=False) is rec


# ---------------------------------------------------------------- record-level verdicts keep the hand's id


def audit_jsonl(path) -> list[dict]:
    import json

    from typer.testing import CliRunner

    from paipu.cli import app

    r = CliRunner().invoke(app, ["audit", str(path), "--jsonl"], catch_exceptions=False)
    assert r.exit_code == 1
    return [json.loads(x) for x in r.stdout.splitlines()]


def test_a_record_level_verdict_keeps_the_hand_id(tmp_path):
    import json

    bad_card = broken(["deal", 2, 0], "5z")
    no_id = broken(["id"], 7)
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (bad_card, no_id)) + "\n")
    first, second = audit_jsonl(path)
    assert first["id"] == "h1" and first["violations"][0] == {
        "code": "bad_card", "action": None,
        "message": "field \"deal[2][0]\": expected a card like '3h', 'Ts' or 'BJ', got '5z'"}
    assert second["id"] is None and second["violations"][0]["code"] == "bad_record"  # no usable id: none given


def test_a_text_hand_with_an_error_keeps_its_id(tmp_path):
    path = tmp_path / "h.paipu"
    path.write_text("hand t-9\ngame doudizhu huopin\nseat 0 a: 3s\nseat 1 b: 4s\nseat 2 c: 5z\nbottom: 6s 7s 8s\n")
    [verdict] = audit_jsonl(path)
    assert verdict["id"] == "t-9" and verdict["violations"][0]["code"] == "bad_card"


@pytest.mark.parametrize("declared", ["full_house 5", ["full_house"], ["full_house", 5]])
def test_a_declared_combination_is_kind_and_key(declared):
    with pytest.raises(RecordError) as e:
        check_record(broken(["actions", 1, "declared"], declared))
    assert e.value.field == "actions[1].declared" and "[kind, key]" in e.value.message
    assert check_record(broken(["actions", 1, "declared"], ["single", "3"]))["actions"][1]["declared"] == ["single", "3"]


def test_the_content_hash_is_the_one_datasets_hold():
    """Datasets store this hash and deduplicate by it: its value may never change (the
    value below is what paipu d6cceb5 computed for GOOD), whichever key order."""
    from paipu.replay.record import content_hash

    assert content_hash(GOOD) == 4018003544020584622
    assert content_hash(dict(reversed(list(copy.deepcopy(GOOD).items())))) == 4018003544020584622


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def _outcome(f):
    try:
        return f()
    except RecordError as e:
        return (e.code, e.field, e.message)


@pytest.mark.parametrize("record", [
    GOOD, {**GOOD, "game": "ddz"}, broken(["deal", 2, 0], "5z"), broken(["id"]), broken(["actions", 0, "seat"], 9),
    broken(["params"], {"big": 2 ** 64}), broken(["players", 0], "\ud800"), broken(["actions", 1, "x"], "\udc00"),
    broken(["params"], {"x": _nested(300)}), broken(["result"], {"f": float("nan")}), "not a record",
])
@pytest.mark.parametrize("strict", [True, False])
def test_check_and_hash_is_check_record_and_content_hash(record, strict):
    """Ingest's readers check and hash in one serialisation: the same record, hash and
    errors (code, field, message) as check_record followed by content_hash."""
    from paipu.replay.record import check_and_hash, content_hash

    one = _outcome(lambda: check_and_hash(copy.deepcopy(record), strict))
    two = _outcome(lambda: (lambda r: (r, content_hash(r)))(check_record(copy.deepcopy(record), strict)))
    assert one == two
    if record is GOOD:
        assert one[1] == 4018003544020584622
    elif isinstance(record, dict) and ("params" in record or "x" in record["actions"][1]
                                       or record["players"][0] != "a"):
        assert one[0] == "bad_record", one  # the storability probe's own errors, not a pass


@pytest.mark.parametrize("act", [["x"], {"a": 1}, 5, None])
def test_an_act_that_is_not_a_string_is_named_not_a_crash(act):
    """An unhashable act once raised TypeError out of the checks (and so out of ingest's
    batch): it is bad_record at its field."""
    with pytest.raises(RecordError) as e:
        check_record(broken(["actions", 1, "act"], act))
    assert (e.value.code, e.value.field) == ("bad_record", "actions[1].act")
    assert e.value.message.startswith("expected a string, got")


def test_ingest_rejects_an_unhashable_act_and_keeps_its_neighbour(tmp_path):
    import json

    from paipu.replay.ingest import ingest_files

    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(broken(["actions", 1, "act"], ["x"])) + "\n" + json.dumps(dict(GOOD, id="h2")) + "\n")
    stats = ingest_files([str(path)], str(tmp_path / "ds"))
    assert (stats.written, stats.rejected, stats.by_code) == (1, 1, {"bad_record": 1})
