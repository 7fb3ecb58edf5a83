"""The public API beyond its doctests (docs/api.md): what it does with records it refuses."""

from __future__ import annotations

import copy

import orjson
import pytest

import paipu


def test_replay_hand_checks_the_record_first():
    """paipu.replay_hand on a record the structural checks refuse gives their verdict at
    the action named (a string seat in a Guandan match hand gave engine_error before)."""
    hand = list(paipu.simulate("guandan", None, 2, 5))[1]
    broken = copy.deepcopy(hand)
    broken["actions"][0]["seat"] = "2"
    v = paipu.replay_hand(broken).violation
    assert (v.code, v.action, v.message) == (paipu.Code.BAD_RECORD, 0,
                                             'field "actions[0].seat": expected an integer, got \'2\'')
    r = paipu.replay_hand("not a record")
    assert (r.id, r.violation.code, r.violation.action) == (None, paipu.Code.BAD_RECORD, None)
    assert r.violation.message == "expected a JSON object per hand, got a string"
    # in JSON's words: a line 'null' was "got NoneType"
    assert [paipu.replay_hand(x).violation.message[len("expected a JSON object per hand, got "):]
            for x in (None, [1], 5, 2.5, True)] == ["null", "an array", "a number (5)", "a number (2.5)", "true"]
    unknown = paipu.replay_hand(dict(hand, game="poker")).violation
    assert (unknown.code, unknown.action) == (paipu.Code.UNKNOWN_GAME, None)
    assert paipu.replay_hand(hand).ok


def test_one_record_error_carries_the_action_and_where(tmp_path):
    """paipu.RecordError is the checks' own error (replay.verdicts): read_records raises it
    with the file and line, the code and the index of the failing action as attributes, and
    the audit takes the same index from the reader (no message is parsed for it)."""
    from paipu.replay import verdicts
    from paipu.replay.audit import iter_verdicts

    assert paipu.RecordError is verdicts.RecordError
    hand = next(paipu.read_records("sample_logs/doudizhu_handmade.paipu"))
    hand["actions"][4]["seat"] = "2"
    path = tmp_path / "bad.jsonl"
    path.write_text(orjson.dumps(hand).decode() + "\n")
    with pytest.raises(paipu.RecordError) as caught:
        list(paipu.read_records(str(path)))
    e = caught.value
    assert (e.code, e.action, e.where) == (paipu.Code.BAD_RECORD, 4, f"{path}:1")
    assert str(e) == f'{path}:1: bad_record: field "actions[4].seat": expected an integer, got \'2\''
    [v] = iter_verdicts([str(path)])
    assert (v.violation.code, v.violation.action) == (paipu.Code.BAD_RECORD, 4)
