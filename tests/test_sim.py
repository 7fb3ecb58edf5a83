"""Simulation apart from the rules: seats with their own names, policies and clocks."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from paipu.replay.replayer import Matches
from paipu.replay.sim import Seat, simulate
from paipu.replay.sim.bots import HEURISTIC


@dataclass
class FixedClock:
    ms: int
    seen: list

    def think(self, rng, options, forced):
        self.seen.append((options, forced))
        return self.ms


class Timid:
    """Passes whenever passing is allowed; otherwise plays the first legal move."""

    def __init__(self):
        self.calls = 0

    def play(self, table, rng, moves, hints):
        self.calls += 1
        return None if table.last is not None else moves[0][0]

    def bid(self, table, rng, seat, power, stage):
        return False


@pytest.mark.parametrize("game,variant", [("doudizhu", None), ("paodekuai", "classic"), ("guandan", None),
                                          ("shuangkou", None)])
def test_seats_set_names_policies_and_clocks(game, variant):
    timid, seen = Timid(), []
    n = 3 if game in ("doudizhu", "paodekuai") else 4
    names = [f"p{i}" for i in range(n)]
    seats = [Seat(names[0], timid, FixedClock(1000, seen))] + [Seat(x, HEURISTIC) for x in names[1:]]
    records = list(simulate(game, variant, hands=3, seed=7, seats_for=lambda k: seats))
    matches = Matches()
    for r in records:
        assert r["players"] == names
        assert matches.replay(r).ok
        times = [a["t"] for a in r["actions"]]
        assert times == sorted(times)
        # seat 0's think time is its clock's: 1000 ms after the action before it
        for k, a in enumerate(r["actions"]):
            if a["seat"] == 0 and k:
                assert a["t"] - r["actions"][k - 1]["t"] == 1000
    assert timid.calls > 0 and len(seen) >= timid.calls
    # a forced decision (one option) is told as forced
    assert all(forced == (options <= 1) for options, forced in seen)


def test_timid_policy_never_beats_a_play():
    from paipu.replay.replayer import replay

    timid = Timid()
    seats = [Seat("a", timid), Seat("b", HEURISTIC), Seat("c", HEURISTIC)]
    led = []
    for r in simulate("paodekuai", "classic", hands=5, seed=2, seats_for=lambda k: seats):
        result = replay(r, detail=True)
        assert result.ok
        led += [is_lead for _, seat, _, is_lead, _ in result.table.plays if seat == 0]
    assert led and all(led)  # seat 0 played, and only ever to lead a trick


def test_default_seating_is_unchanged_by_the_hook():
    a = list(simulate("ddz", hands=4, seed=11))
    b = list(simulate("ddz", hands=4, seed=11, seats_for=lambda k: None))
    assert a == b
