"""Properties: simulated hands replay clean; one rule-breaking change is caught exactly;
legal-move generation and validation agree both ways."""

from __future__ import annotations

import copy

from helpers import code_at, stepping, submultisets, table_after
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from paipu.replay.cards import CARD_NAMES, counts
from paipu.replay.replayer import replay
from paipu.replay.sim import simulate

SEEDS = st.integers(min_value=0, max_value=10**9)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def one_hand(seed: int, escape_rate: float = 0.0) -> dict:
    return next(simulate("doudizhu", "huopin", 1, seed, escape_rate=escape_rate))


@FAST
@given(SEEDS)
def test_simulated_hands_replay_clean_and_match_their_result(seed):
    record = one_hand(seed, escape_rate=0.1)
    r = replay(record)
    assert r.ok, r.violation
    for key, value in record["result"].items():
        assert r.outcome[key] == value


def play_indexes(record: dict) -> list[int]:
    return [i for i, a in enumerate(record["actions"]) if a["act"] == "play"]


@FAST
@given(SEEDS, st.data())
def test_play_by_the_wrong_seat_is_caught(seed, data):
    record = one_hand(seed)
    plays = play_indexes(record)
    assume(plays)
    i = data.draw(st.sampled_from(plays))
    bad = copy.deepcopy(record)
    bad["actions"][i]["seat"] = (bad["actions"][i]["seat"] + data.draw(st.sampled_from([1, 2]))) % 3
    expected = "first_play" if i == plays[0] else "out_of_turn"
    assert code_at(bad) == (expected, i)


@FAST
@given(SEEDS, st.data())
def test_card_not_held_is_caught(seed, data):
    record = one_hand(seed)
    plays = play_indexes(record)
    assume(plays)
    i = data.draw(st.sampled_from(plays))
    table = table_after(record, i)
    seat = record["actions"][i]["seat"]
    others = [c for s in range(3) if s != seat for c in range(54) if table.hands[s][c]]
    bad = copy.deepcopy(record)
    bad["actions"][i]["cards"][0] = CARD_NAMES[data.draw(st.sampled_from(others))]
    assert code_at(bad) == ("not_in_hand", i)


@FAST
@given(SEEDS, st.data())
def test_leader_pass_is_caught(seed, data):
    record = one_hand(seed)
    leads = [k for k, action, table in stepping(record)
             if action["act"] == "play" and table.phase == "play" and table.last is None]
    assume(leads)
    i = data.draw(st.sampled_from(leads))
    bad = copy.deepcopy(record)
    bad["actions"][i] = {"seat": record["actions"][i]["seat"], "act": "pass"}
    assert code_at(bad) == ("cannot_pass", i)


@FAST
@given(SEEDS, st.data())
def test_truncated_or_extended_hand_is_caught(seed, data):
    record = one_hand(seed)
    n = len(record["actions"])
    cut = copy.deepcopy(record)
    del cut["actions"][data.draw(st.integers(0, n - 1)):]
    assert code_at(cut) == ("incomplete", None)
    longer = copy.deepcopy(record)
    longer["actions"].append({"seat": 0, "act": "pass"})
    assert code_at(longer) == ("after_end", n)


@FAST
@given(SEEDS, st.data())
def test_changed_result_is_caught(seed, data):
    record = one_hand(seed)
    bad = copy.deepcopy(record)
    key = data.draw(st.sampled_from(sorted(k for k in ("multiplier", "scores", "landlord") if bad["result"].get(k) is not None)))
    if key == "scores":
        bad["result"]["scores"] = [x + 1 for x in bad["result"]["scores"]]
    else:
        bad["result"][key] = (bad["result"][key] or 0) + 1
    assert code_at(bad) == ("result_mismatch", None)


@FAST
@given(SEEDS, st.data())
def test_weaker_follow_is_caught(seed, data):
    """Replace a following single/pair by a lower one of the same size the seat holds."""
    record = one_hand(seed)
    found = []
    for k, action, table in stepping(record):
        if action["act"] == "play" and table.last is not None and table.last[0].kind in ("single", "pair"):
            last = table.last[0]
            seat = action["seat"]
            c = counts(table.packed[seat])
            lower = [r for r in range(last.key + 1) if c[r] >= last.size]
            if lower:
                found.append((k, seat, lower[0], last.size))
    assume(found)
    k, seat, rank, size = data.draw(st.sampled_from(found))
    table = table_after(record, k)
    ids = [c for c in range(54) if table.hands[seat][c] and c >> 2 == rank and c < 52][:size]
    bad = copy.deepcopy(record)
    bad["actions"][k]["cards"] = [CARD_NAMES[c] for c in ids]
    assert code_at(bad) == ("does_not_beat", k)


@settings(max_examples=25, deadline=None)
@given(SEEDS, st.data())
def test_generated_plays_are_exactly_the_validating_plays(seed, data):
    record = one_hand(seed)
    positions = [k for k, a in enumerate(record["actions"]) if a["act"] in ("play", "pass") and k > 0]
    assume(positions)
    stop = data.draw(st.sampled_from(positions))
    table = table_after(record, stop)
    assume(table.phase == "play" and not table.over)
    seat = table.turn
    generated = set(table.legal_plays(seat))
    validating = set()
    for packed in submultisets(table.packed[seat]):
        tokens = [CARD_NAMES[c] for c in table.cards_for(seat, packed)]
        v, *_ = table.verify_play(stop, seat, tokens)
        if v is None:
            validating.add(packed)
    assert generated == validating


def test_simulation_is_reproducible_by_seed():
    a = list(simulate("doudizhu", None, 5, 42))
    b = list(simulate("doudizhu", None, 5, 42))
    c = list(simulate("doudizhu", None, 5, 43))
    assert a == b and a != c


def test_simulated_hands_show_the_variety_of_the_game():
    records = list(simulate("doudizhu", None, 400, 1, escape_rate=0.02))
    results = [r["result"] for r in records]
    assert any(r.get("redeal") for r in results)
    assert any(r.get("spring") for r in results)
    assert any(r["multiplier"] >= 4 for r in results)
    acts = {a["act"] for r in records for a in r["actions"]}
    assert acts == {"bid", "grab", "play", "pass", "show", "peek", "escape"}
    assert sum(1 for r in records if any(a["act"] == "play" and len(a["cards"]) == 4 and len({c[0] for c in a["cards"]}) == 1 for a in r["actions"])) > 0
