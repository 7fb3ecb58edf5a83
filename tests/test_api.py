"""The public API beyond its doctests (docs/api.md): what it does with records it refuses."""

from __future__ import annotations

import copy

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
    assert r.violation.message == "expected a JSON object per hand, got str"
    unknown = paipu.replay_hand(dict(hand, game="poker")).violation
    assert (unknown.code, unknown.action) == (paipu.Code.UNKNOWN_GAME, None)
    assert paipu.replay_hand(hand).ok
