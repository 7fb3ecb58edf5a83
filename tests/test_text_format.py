"""The paipu text format: lossless with the JSON record, clear errors with line and column."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paipu.replay.io.jsonl import iter_jsonl
from paipu.replay.io.text import parse_text, record_to_text, strip_comment
from paipu.replay.sim import simulate

FULL = {
    "paipu": 1, "id": "full 1", "game": "doudizhu", "variant": "huopin",
    "players": ["张三", "a: b", "#hash", ], "deal": [["3s", "10h"], ["4s"], ["5s"]], "bottom": ["6s", "7s", "8s"],
    "actions": [
        {"seat": 0, "act": "show", "factor": 5, "t": 0},
        {"seat": 0, "act": "bid", "call": True, "t": 12.5},
        {"seat": 1, "act": "grab", "grab": False},
        {"seat": 0, "act": "peek"},
        {"seat": 0, "act": "play", "cards": ["3s"], "as": ["3s"], "note": "x # y", "n": [1, 2]},
        {"seat": 1, "act": "pass"}, {"seat": 2, "act": "escape"},
        {"seat": 1, "act": "tribute", "card": "BJ", "to": 0}, {"seat": 0, "act": "return", "card": "3s", "to": 1},
        {"seat": 2, "act": "resist"},
    ],
    "result": {"landlord": 0, "scores": [2, -1, -1]}, "time": "2026-01-01T00:00:00Z",
    "room": {"name": "初级场", "coef": 1200}, "stacks": [1, 2.5, 3], "match": {"id": "m1", "hand": 2},
    "levels": ["2", "5"], "level": "5", "leader": 0, "lead_card": "3s", "params": {"x": 1},
    "custom": "true", "custom2": "12", "custom3": "", "custom4": "plain words",
}


def roundtrip(record: dict) -> dict:
    items = parse_text(record_to_text(record))
    assert len(items) == 1 and items[0].message is None, items[0].message
    return items[0].record


def test_every_field_round_trips():
    assert roundtrip(json.loads(json.dumps(FULL))) == FULL


def test_sample_records_round_trip(tmp_path):
    records = list(simulate("doudizhu", None, 20, 5, escape_rate=0.2))
    for record in records:
        assert roundtrip(json.loads(json.dumps(record))) == record


names = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)


@settings(max_examples=100, deadline=None)
@given(names, st.lists(names, min_size=3, max_size=3), st.dictionaries(st.from_regex(r"[a-z_]{1,6}", fullmatch=True), st.one_of(names, st.integers(-2 ** 63, 2 ** 64 - 1), st.booleans()), max_size=3))
def test_any_names_and_extra_fields_round_trip(hand_id, players, extra):
    assume_ok = hand_id != ""
    record = {"paipu": 1, "id": hand_id or "x", "game": "doudizhu", "variant": "huopin", "players": players,
              "deal": [["3s"], [], []], "bottom": [], "actions": [{"seat": 0, "act": "pass", **{f"x{k}": v for k, v in extra.items()}}]}
    record.update({f"f_{k}": v for k, v in extra.items()})
    assert assume_ok or record["id"] == "x"
    assert roundtrip(record) == record


def test_comments_and_blank_lines():
    text = "# header\n\nhand a   # the id\ngame ddz huopin\nseat 0 x: 3s # dealt\nseat 1 y:\nseat 2 z:\nbottom:\n0 pass # p\n"
    (item,) = parse_text(text)
    assert item.record["actions"] == [{"seat": 0, "act": "pass"}]
    assert item.record["deal"] == [["3s"], [], []] and item.line == 3
    assert strip_comment('room: {"name": "a #1"} # c') == 'room: {"name": "a #1"} '


@pytest.mark.parametrize("text,where,expected", [
    ("hand a\ngame doudizhu\n", "line 2, column 14", "expected the variant"),
    ("hand a\ngame ddz huopin\nseat x\n", "line 3", "expected"),
    ("hand a\ngame ddz huopin\nseat 0 bob 3s\n", "line 3, column 12", "expected ':'"),
    ("hand a\ngame ddz huopin\n0 bid maybe\n", "line 3, column 7", "expected yes or no"),
    ("hand a\ngame ddz huopin\n0 show x\n", "line 3, column 8", "factor as a whole number"),
    ("hand a\ngame ddz huopin\n0 fold\n", "line 3, column 3", "expected an act"),
    ("hand a\ngame ddz huopin\n0 play\n", "line 3", "expected the cards played"),
    ("hand a\ngame ddz huopin\nroom: {bad\n", "line 3", "expected a JSON value"),
    ("game ddz huopin\n", "line 1, column 1", "expected 'hand ID' before anything else"),
    ("hand a\nwhat is this\n", "line 2, column 1", "expected 'hand ID'"),
])
def test_parse_errors_name_line_column_and_expectation(text, where, expected):
    items = parse_text(text, "bug.paipu")
    assert items[0].record is None and items[0].code == "bad_record"
    assert where in items[0].message and expected in items[0].message


def test_record_errors_point_at_the_action_line():
    text = "hand a\ngame ddz huopin\nseat 0 x:\nseat 1 y:\nseat 2 z:\nbottom:\n0 pass\n7 pass\n"
    (item,) = parse_text(text)
    assert item.code == "bad_record" and item.line == 8 and "actions[1].seat" in item.message


def test_a_bad_hand_does_not_hide_the_next():
    text = "hand a\ngame ddz\nhand b\ngame ddz huopin\nseat 0 x:\nseat 1 y:\nseat 2 z:\nbottom:\n"
    a, b = parse_text(text)
    assert a.record is None and b.record["id"] == "b"


def test_jsonl_and_text_files_agree(tmp_path):
    records = list(simulate("doudizhu", None, 5, 9))
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    from_jsonl = [i.record for i in iter_jsonl(str(tmp_path / "a.jsonl"))]
    assert from_jsonl == records
    assert [i.record for i in parse_text("\n".join(record_to_text(r) for r in records))] == records
