"""Fraud screens: the decisions table, the players profile and each screen's statistic,
value for value on small hand-made data; ``paipu fraud`` and the population simulator."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from paipu.analysis.fraud import (bh, bh_by_kind, bot_timing, in_family, co_seating, feeding, fisher_greater, pair_effects, poisson_upper,
                                  presence_z, ratings, robust_z, soft_play, sql_text, wilson, SQL_DIR)
from paipu.analysis.fraud import Test as FraudTest
from paipu.analysis.queries import connect
from paipu.analysis.queries import run_sql
from paipu.cli import app
from paipu.replay.decisions import hand_decisions
from paipu.replay.io.jsonl import record_to_json
from paipu.replay.sim.population import BotClock, HumanClock, Population, parse_cheats
from helpers import ANTI_SPRING, SPRING, ddz

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


def timed(record: dict, players: list[str], hand_id: str, time: str) -> dict:
    """The record under other names, with think times 500, 1000, 1500 ... ms."""
    record["players"], record["id"], record["time"] = players, hand_id, time
    t = 0
    for i, action in enumerate(record["actions"]):
        t += 500 * (i + 1)
        action["t"] = t
    return record


# ----------------------------------------------------------------------------- decisions


def test_decisions_of_the_anti_spring_hand():
    rows = hand_decisions(timed(ddz(ANTI_SPRING), ["A", "B", "C"], "h1", "2026-01-01T10:00:00Z"))
    got = [(r["idx"], r["seat"], r["act"], r["lead"], r["can_beat"], r["spared"], r["target_player"], r["relation"])
           for r in rows]
    assert got == [
        (3, 0, "play", True, False, False, None, None),
        (4, 1, "play", False, True, False, "A", "opponent"),
        (5, 2, "pass", False, True, True, "B", "partner"),      # a farmer passes on his partner
        (6, 0, "pass", False, True, True, "B", "opponent"),     # the landlord spares B's 4h
        (7, 1, "play", True, False, False, None, None),
        (8, 2, "pass", False, False, False, "B", "partner"),    # nothing beats 5h..Ah
        (9, 0, "pass", False, True, True, "B", "opponent"),     # the bomb and the rocket were there
        (10, 1, "play", True, False, False, None, None),
    ]
    by_idx = {r["idx"]: r for r in rows}
    assert by_idx[3]["lead_low"] == 0.0           # 3h: nothing lower in the hand
    assert by_idx[7]["lead_low"] == pytest.approx(1 / 6)  # 5h..Ah leaves 4d..9d: only 4d lower
    assert by_idx[10]["lead_low"] is None         # the last cards: nothing left to compare
    assert by_idx[8]["options"] == 1 and by_idx[5]["options"] > 2
    assert [r["think_ms"] for r in rows] == [500 * (i + 1) for i in (3, 4, 5, 6, 7, 8, 9, 10)]
    assert [r["cards_left"] for r in rows][:2] == [20, 17]


def test_decisions_stop_at_a_violation_and_skip_broken_records():
    record = ddz("0 bid yes\n1 grab no\n2 grab no\n0 play 3h\n1 play 4h\n2 play 3c\n0 pass\n")
    assert [r["idx"] for r in hand_decisions(record)] == [3, 4, 5]
    assert hand_decisions({"id": "x", "game": "nope", "variant": "v", "actions": []}) == []


# ----------------------------------------------------------------------------- the players profile


@pytest.fixture(scope="module")
def handmade(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fraud")
    hands = [timed(ddz(ANTI_SPRING), ["A", "B", "C"], "h1", "2026-01-01T10:00:00Z"),
             timed(ddz(SPRING), ["B", "C", "A"], "h2", "2026-01-01T10:05:00Z"),
             timed(ddz(ANTI_SPRING), ["C", "A", "B"], "h3", "2026-01-01T23:00:00Z")]
    src = tmp / "hands.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in hands))
    ds = str(tmp / "ds")
    assert invoke("ingest", str(src), "--out", ds).exit_code == 0
    r = invoke("fraud", ds, "--min-hands", "1", "--json", "--top", "100")
    assert r.exit_code == 0, r.output
    return ds, json.loads(r.stdout)


def test_profile_of_a_player_value_for_value(handmade):
    ds, _ = handmade
    row = run_sql(ds, "select * from players where player = 'A'").to_dicts()[0]
    assert (row["hands"], row["wins"]) == (3, 1)  # lost as landlord (h1) and as farmer (h2), won h3
    assert row["win_rate"] == pytest.approx(1 / 3)
    assert (row["win_lo"], row["win_hi"]) == pytest.approx(wilson(1, 3))
    assert wilson(1, 3) == pytest.approx((0.0615, 0.7923), abs=1e-4)
    assert row["roles"] == "farmer, landlord"
    assert (row["n_bid"], row["bid_rate"], row["n_grab"], row["grab_rate"]) == (1, 1.0, 2, 0.0)
    # could beat an opponent 4 times (h1 idx 6, 9; h2 idx 11; h3 idx 4) and passed 3 of them
    assert (row["n_able_opp"], row["spare_opp_rate"], row["n_able_partner"]) == (4, 0.75, 0)
    assert row["lead_low"] == pytest.approx((0 + 1 / 6) / 2)
    # think times 2000 2500 3000 3500 4000 4500 5000 5500 6000; forced: 3000 and 4500
    assert (row["n_think"], row["think_median"], row["think_iqr"], row["think_forced"]) == (9, 4000, 2000, 3750)
    assert row["long_pause_rate"] == 0.0
    assert (row["hours_of_day"], row["night_rate"], row["sessions"]) == (2, 0.0, 2)
    assert row["longest_session_h"] == pytest.approx(300 / 3600)
    # h1: the landlord's anti-spring, ×2: -4; h2: a farmer in a spring with a bomb and the
    # rocket, ×8: -8; h3: a farmer against an anti-spring: +2
    assert row["points"] == -4 - 8 + 2 and row["net_result"] == -10
    assert row["rating"] is not None


def test_suspects_table_is_written_beside_the_others(handmade):
    ds, out = handmade
    n = run_sql(ds, "select count(*) as n from suspects").item()
    assert n == out["tests"] and out["players"] == 3
    assert set(run_sql(ds, "select distinct kind from suspects")["kind"]) <= {"soft_play", "feeding", "chip_flow",
                                                                            "co_seating", "bot_timing"}


def test_feed_chances_of_the_handmade_hands(handmade):
    ds, _ = handmade
    con = connect(ds)
    con.execute(sql_text("_hands", SQL_DIR), {"game": None, "variant": None})
    con.execute(sql_text("feed_chances", SQL_DIR))
    rows = sorted(con.execute("select hand_id, a, b, place, taken from feed_chances").fetchall())
    con.close()
    assert rows == sorted([
        # h1 (A landlord at seat 0): A leads 3h, B takes it over with 4h; C, two seats on, had
        # no chance at it (the lead never reached C: no row, where there was one until 2026-12-04)
        ("h1", "A", "B", 1, True),
        # B's two leads (idx 7, 10) are never taken; B's only opponent is the landlord A
        ("h1", "B", "A", 2, False), ("h1", "B", "A", 2, False),
        # h2 (B landlord): four leads, nobody plays on them; C could beat the third (idx 9) and
        # passed (a spare): that lead reached A by C's choice, no chance of A's
        *[("h2", "B", "C", 1, False)] * 4, *[("h2", "B", "A", 2, False)] * 3,
        # h3 (C landlord at seat 0, A at seat 1): A takes C's 3h (B after A: no chance); A's two
        # leads stand (both passed on by C, the only opponent)
        ("h3", "C", "A", 1, True), ("h3", "A", "C", 2, False), ("h3", "A", "C", 2, False),
    ])


# ----------------------------------------------------------------------------- statistics


def test_benjamini_hochberg():
    assert bh([0.01, 0.04, 0.03, 0.2]) == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.2])
    assert bh([]) == []


def test_benjamini_hochberg_within_each_screen():
    """BH within each kind at α/K (K kinds with a test), reported as K·q: a few player tests
    are not drowned by many pair tests, and the false discovery rate over all stays ≤ α."""
    def t(kind, p):
        return FraudTest(kind, "g", "v", "a", None, p, 0.0, 1, {})
    pair = [t("soft_play", p) for p in (0.001, 0.2, 0.5, 0.9)]
    bot = [t("bot_timing", p) for p in (0.0004, 0.3)]
    q = bh_by_kind(pair + bot)
    # soft play: bh = [0.004, 0.2·4/2, 0.5·4/3, 0.9] = [0.004, 0.4, 0.6667, 0.9], ×2
    # bots: bh = [0.0008, 0.3], ×2
    assert q == pytest.approx([0.008, 0.8, 1.0, 1.0, 0.0016, 0.6])
    # pooled, the bot test's q would be 0.0004·6 = 0.0024 ... its own screen gives 0.0016
    assert bh_by_kind([]) == []


def test_independent_filtering_keeps_the_pairs_with_most_data():
    """A pair screen's family is its tests with n at least the kind's median (ties kept);
    player screens (bots) and co-seating keep every test; the filtered-out get q = 1."""
    def t(kind, p, n):
        return FraudTest(kind, "g", "v", "a", "b", p, 0.0, n, {})
    soft = [t("soft_play", p, n) for p, n in ((0.0001, 40), (0.001, 10), (0.03, 25), (0.5, 30), (0.9, 12))]
    flow = [t("chip_flow", p, n) for p, n in ((0.002, 8), (0.2, 20), (0.4, 20))]  # median 20: the tie kept
    bots = [t("bot_timing", p, n) for p, n in ((0.0004, 1), (0.3, 2))]
    seat = [t("co_seating", 0.01, 1)]
    assert in_family(soft + flow + bots + seat) == [True, False, True, True, False,
                                                     False, True, True, True, True, True]
    q = bh_by_kind(soft + flow + bots + seat)
    # 4 kinds; soft play's family (n >= 25): p 0.0001, 0.03, 0.5 -> bh 0.0003, 0.045, 0.5, x4
    # chip flow's (n >= 20): 0.2, 0.4 -> 0.4, 0.4, x4 capped; bots 0.0008, 0.3 x4; co-seating 0.01 x4
    assert q == pytest.approx([0.0012, 1.0, 0.18, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0032, 1.0, 0.04])
    # without the filter soft play's 0.0001 would have q 0.0005 x 4 = 0.002, its 0.001 (n 10) 0.01


def test_poisson_and_fisher_tails():
    assert poisson_upper(3, 1.0) == pytest.approx(1 - 2.5 / math.e)
    assert poisson_upper(0, 5.0) == 1.0
    from scipy.stats import binom

    from paipu.analysis.fraud import poisson_binomial_upper

    # chances 0.5, 0.5, 0.2: P(X >= 2) = 0.25 + 0.5 x 0.2
    assert poisson_binomial_upper(2, np.array([0.5, 0.5, 0.2])) == pytest.approx(0.35)
    assert poisson_binomial_upper(0, np.array([0.5])) == 1.0 and poisson_binomial_upper(2, np.array([0.9])) == 0.0
    # equal chances: the binomial, exact far in the tail; below the Poisson of the same mean
    chances = np.full(300, 0.2)
    assert poisson_binomial_upper(100, chances) == pytest.approx(float(binom.sf(99, 300, 0.2)), rel=1e-9)
    assert poisson_binomial_upper(100, chances) < poisson_upper(100, 60.0) / 30
    assert fisher_greater(3, 3, 0, 3) == pytest.approx(1 / 20)
    assert fisher_greater(0, 3, 3, 3) == 1.0


def test_co_seating_expected_from_who_was_playing_then(monkeypatch):
    import paipu.analysis.fraud as fraud

    monkeypatch.setattr(fraud, "SITTING_GAP", 10)  # every hand its own sitting
    # four sittings in one window: A with B three times, A with C once; C and D elsewhere
    rows = [("h1", 0.0, "A"), ("h1", 0.0, "B"), ("h2", 60.0, "A"), ("h2", 60.0, "B"), ("h3", 120.0, "A"),
            ("h3", 120.0, "B"), ("h4", 180.0, "A"), ("h4", 180.0, "C"), ("h5", 240.0, "C"), ("h5", 240.0, "D")]
    frame = pl.DataFrame([("g", "v", h, t, p) for h, t, p in rows], schema=["game", "variant", "hand_id", "ts", "player"],
                         orient="row")
    eligible = {("g", "v", p) for p in "ABCD"}
    tests = {(t.player, t.other): t for t in co_seating(frame, eligible, 1)}
    t = tests[("A", "B")]
    # each of A's 4 sittings: 1 other seat; the window holds 10 seats, A's 4 among them,
    # B's 3: P(B) = 3 / (10 - 4) per sitting, expected 4 × 0.5 = 2; observed 3
    assert t.evidence["expected"] == 2.0 and t.evidence["sittings_together"] == 3
    # each sitting a Bernoulli of chance 0.5: P(X >= 3) of four = 5/16 (the Poisson's 0.32 before)
    assert t.p == pytest.approx(5 / 16)
    # A and B seated together again and again within SITTING_GAP: one sitting
    monkeypatch.setattr(fraud, "SITTING_GAP", 1800)
    again = frame.with_columns(pl.when((pl.col("hand_id") == "h4") & (pl.col("player") == "C")).then(pl.lit("B")).otherwise(pl.col("player"))
                               .alias("player")).filter(~pl.col("hand_id").is_in(["h5"]))
    assert {(t.player, t.other): t.evidence["sittings_together"] for t in co_seating(again, eligible, 1)} == {("A", "B"): 1}
    # one name on two seats of a hand is one player there: no pair with itself, and B meets it once
    twice = pl.DataFrame([("g", "v", "h1", 0.0, p) for p in "ABB"], schema=["game", "variant", "hand_id", "ts", "player"],
                         orient="row")
    assert fraud.sittings(twice) == {("g", "v"): [(0.0, ("A", "B"))]}


def test_soft_play_one_beta_binomial_test_per_direction():
    from scipy.stats import betabinom, binom

    rows = pl.DataFrame([
        # A spared B 8 of 10 from place 1 (others there: 4 of 39), 1 of 10 from place 3
        # (others there: 9 of 19)
        {"game": "g", "variant": "v", "a": "A", "b": "B", "place": 1, "n_ab": 10, "k_ab": 8, "n_other": 39, "k_other": 4},
        {"game": "g", "variant": "v", "a": "A", "b": "B", "place": 3, "n_ab": 10, "k_ab": 1, "n_other": 19, "k_other": 9},
        {"game": "g", "variant": "v", "a": "B", "b": "A", "place": 1, "n_ab": 10, "k_ab": 1, "n_other": 39, "k_other": 4},
        {"game": "g", "variant": "v", "a": "B", "b": "C", "place": 1, "n_ab": 10, "k_ab": 1, "n_other": 39, "k_other": 4},
    ])
    eligible = {("g", "v", "A"), ("g", "v", "B")}
    # A's chances on B in two hands: h1 6 at place 1, h2 4 at place 1 and 10 at place 3
    hands = pl.DataFrame([{"game": "g", "variant": "v", "a": "A", "b": "B", "c": c, "place": pl_, "n": n, "k": k}
                          for c, pl_, n, k in (("h1", 1, 6, 5), ("h2", 1, 4, 3), ("h2", 3, 10, 1))])
    tests = {(t.player, t.other): t for t in soft_play(rows, eligible, hands, {("g", "v"): (0.1, 0.01)})}
    assert set(tests) == {("A", "B"), ("B", "A")}  # C has too few hands
    t = tests[("A", "B")]
    # baseline rates (k + 1/2) / (n + 1): 0.1125 and 0.475; expected 1.125 + 4.75 = 5.875 of 20
    p1, p3 = 4.5 / 40, 9.5 / 20
    e = 10 * p1 + 10 * p3
    var = 10 * p1 * (1 - p1) * (1 + 10 / 40) + 10 * p3 * (1 - p3) * (1 + 10 / 20)
    pb2 = (4 * p1 + 10 * p3) / 14  # hand h2's mean rate
    var += 0.1 * (30 * p1 * (1 - p1) + 182 * pb2 * (1 - pb2))  # the hands: n(n - 1) p q
    p0 = e / 20
    var += 0.01 * 380 * p0 * (1 - p0)  # the pair: N(N - 1) p q
    rho = (var / (20 * p0 * (1 - p0)) - 1) / 19
    s = 1 / rho - 1
    p_ab = float(betabinom.sf(8, 20, p0 * s, (1 - p0) * s))  # P(K >= 9)
    assert t.evidence["rho"] == float(f"{rho:.3g}") and t.evidence["hands"] == 2
    assert t.evidence["design_effect"] == round(var / (20 * p0 * (1 - p0)), 3)
    assert t.evidence["z"] == round((9 - e) / math.sqrt(var), 3)
    assert (t.n, t.evidence["spared"], t.evidence["baseline_rate"]) == (20, 9, round(p0, 4))
    assert t.effect == pytest.approx(9 / 20 - p0)
    assert t.evidence["ci95"] == [round(x, 4) for x in wilson(9, 20)]
    # B's way (no hands given: no hand term): 1 of 10 where 1.125 expected, the pair term only
    var_ba = 10 * p1 * (1 - p1) * 1.25 + 0.01 * 90 * p1 * (1 - p1)
    rho_ba = (var_ba / (10 * p1 * (1 - p1)) - 1) / 9
    s_ba = 1 / rho_ba - 1
    p_ba = float(betabinom.sf(0, 10, p1 * s_ba, (1 - p1) * s_ba))
    # both ways: 10 of 30 against 7 expected, the variances summed
    e2, v2 = e + 10 * p1, var + var_ba
    rho2 = (v2 / (30 * (e2 / 30) * (1 - e2 / 30)) - 1) / 29
    s2 = 1 / rho2 - 1
    p_both = float(betabinom.sf(9, 30, e2 / 30 * s2, (1 - e2 / 30) * s2))
    assert t.evidence["p_both_ways"] == float(f"{p_both:.3g}")
    assert t.p == pytest.approx(2 * min(p_ab, p_both))
    assert t.one_way == pytest.approx(p_ab)
    # B spared A less often than its baseline (1 of 10, 1.125 expected): B's way keeps its own
    # p; A's sparing is no evidence that B spares A (until 2026-12-04 it got 2 x p_both too)
    assert tests[("B", "A")].effect < 0
    assert tests[("B", "A")].p == tests[("B", "A")].one_way == pytest.approx(p_ba)
    # without over-dispersion and with a baseline too large to matter: the exact binomial
    from paipu.analysis.fraud import beta_binomial_upper

    assert beta_binomial_upper(9, 20, 0.3, 20 * 0.3 * 0.7) == (pytest.approx(float(binom.sf(8, 20, 0.3))), 0.0)
    assert beta_binomial_upper(0, 20, 0.3, 5.0) == (1.0, 0.0)


def test_soft_play_has_no_test_where_nobody_could_spare():
    """Under 有出必出 (Paodekuai huopin) no chance to beat is ever spared: that variant gets
    no soft-play test (its p's would all be 1), so soft play does not count among the
    screens of the correction there, while a variant with a spare is tested as before."""
    def row(v, a, b, n, k, n_other, k_other):
        return {"game": "g", "variant": v, "a": a, "b": b, "place": 1, "n_ab": n, "k_ab": k, "n_other": n_other,
                "k_other": k_other}
    rows = pl.DataFrame([row("huopin", "A", "B", 40, 0, 300, 0), row("huopin", "B", "A", 35, 0, 280, 0),
                         row("classic", "A", "B", 40, 9, 300, 30)])
    eligible = {("g", v, p) for v in ("huopin", "classic") for p in "AB"}
    tests = soft_play(rows, eligible)
    assert [(t.variant, t.player, t.other, t.evidence["spared"]) for t in tests] == [("classic", "A", "B", 9)]
    # the correction: co-seating's p 0.001 alone with the huopin screen's p = 1 tests was K = 2
    seat = FraudTest("co_seating", "g", "huopin", "A", "B", 0.001, 0.0, 10, {})
    dead = [FraudTest("soft_play", "g", "huopin", "A", "B", 1.0, 0.0, 40, {})]
    assert bh_by_kind([seat] + dead)[0] == pytest.approx(0.002)
    assert bh_by_kind([seat] + [t for t in soft_play(rows.filter(pl.col("variant") == "huopin"), eligible)])[0] == \
        pytest.approx(0.001)


def test_soft_play_runs_within_a_hand_weigh_less_than_a_steady_habit():
    """The same 6 spares of 10 chances against a 1% baseline: in one hand's run they are
    far less telling than spread one a hand, because the hand term inflates the variance."""
    rows = pl.DataFrame([{"game": "g", "variant": "v", "a": "A", "b": "B", "place": 1, "n_ab": 10, "k_ab": 6,
                          "n_other": 199, "k_other": 2}])
    eligible = {("g", "v", "A"), ("g", "v", "B")}
    run = pl.DataFrame([{"game": "g", "variant": "v", "a": "A", "b": "B", "c": c, "place": 1, "n": n, "k": k}
                        for c, n, k in (("h1", 8, 6), ("h2", 2, 0))])
    spread = pl.DataFrame([{"game": "g", "variant": "v", "a": "A", "b": "B", "c": f"h{k}", "place": 1, "n": 1,
                            "k": int(k < 6)} for k in range(10)])
    rho = {("g", "v"): (0.3, 0.0)}
    (in_run,) = soft_play(rows, eligible, run, rho)
    (steady,) = soft_play(rows, eligible, spread, rho)
    from scipy.stats import betabinom

    # one chance a hand: only the baseline's own variance (1 + 10 / 200), rho = 0.05 / 9
    s = 9 / 0.05 - 1
    assert steady.p == pytest.approx(float(betabinom.sf(5, 10, 2.5 / 200 * s, (1 - 2.5 / 200) * s)))
    assert steady.evidence["rho"] == float(f"{0.05 / 9:.3g}")
    assert in_run.p > 1000 * steady.p  # 8 chances in h1, 2 in h2: 0.3 x (56 + 2) pq's added to 10.5
    assert in_run.evidence["design_effect"] == round(1.05 + 0.3 * 58 / 10, 3)


def test_soft_play_clusters_are_sittings_or_matches():
    """The chances of a pair go together within a sitting (the same players at one table,
    hand after hand: two honest Shuangkou players who met in one sitting of 44 hands were
    flagged when each hand was a cluster of its own), and within a match where hands come
    in matches; the hands of another table make another cluster."""
    import duckdb

    from paipu.analysis.fraud import SQL_DIR, sql_text

    con = duckdb.connect()
    tables = {"h1": "ABC", "h2": "ABC", "h3": "ABD", "h4": "ABD", "h5": "ABC"}  # h3, h4: one match
    con.execute("create temp table fraud_seats as select * from (values " + ", ".join(
        f"('g', '{h}', '{p}')" for h, ps in tables.items() for p in ps) + ") t(game, hand_id, player)")
    con.execute("create temp table hands as select * from (values ('h1', 'g', null), ('h2', 'g', null), "
                "('h3', 'g', 'm1'), ('h4', 'g', 'm1'), ('h5', 'g', null)) t(id, game, match_id)")
    con.execute("create temp table decisions as select * from (values " + ", ".join(
        f"('g', 'v', '{h}', 1, 'A', 0, 'B', 3, true, 'opponent', {str(k == 1).lower()})"
        for h, k in (("h1", 1), ("h1", 0), ("h2", 1), ("h3", 0), ("h4", 1), ("h5", 1)))
        + ") t(game, variant, hand_id, seat, player, target_seat, target_player, options, can_beat, relation, spared)")
    rows = con.execute(sql_text("soft_clusters", SQL_DIR)).fetchall()
    con.close()
    # (seat - target seat) x 10 + options: place 13; the sitting of A, B, C (h1, h2, h5: 3 hands),
    # the match m1 (h3, h4)
    assert rows == [("g", "v", "A", "B", "[A, B, C]", 13, 4, 3, 3), ("g", "v", "A", "B", "m1", 13, 2, 1, 2)]


def test_overdispersion_of_the_population_by_the_method_of_moments():
    from paipu.analysis.fraud import overdispersion

    # A at place 1: 20 chances over B (hands h1, h2) and C (h3, h4), 10 spares: rate (10 + 1/2) / 21 = 0.5
    hands = pl.DataFrame([{"game": "g", "variant": "v", "a": "A", "b": b, "c": c, "place": 1, "n": 5, "k": k}
                          for b, c, k in (("B", "h1", 5), ("B", "h2", 0), ("C", "h3", 5), ("C", "h4", 0))])
    (rho_h, rho_p), = overdispersion(hands, min_pair=10).values()
    # each hand: (k - 2.5)^2 - 5 x 0.25 = 5; n(n - 1) p q = 5: rho_hand = 20 / 20 = 1, capped at 0.99
    assert rho_h == 0.99
    # pairs: K = E = 5: z0 = 0, sum (z0^2 - 1) < 0: rho_pair 0
    assert rho_p == 0.0
    # all in one hand each, a pair sparing everything, the other nothing: between pairs
    two = pl.DataFrame([{"game": "g", "variant": "v", "a": "A", "b": b, "c": c, "place": 1, "n": 1, "k": k}
                        for b, k in (("B", 1), ("C", 0)) for c in range(10)])
    (rho_h, rho_p), = overdispersion(two, min_pair=10).values()
    # hands of one chance: no hand term (0/0); each pair: (K - E)^2 = 25, V0 = 10 x 0.25 = 2.5: z0^2 = 10;
    # x = 90 x 0.25 / 2.5 = 9: rho_pair = 2 x (10 - 1) / (2 x 9) = 1, capped at 0.99
    assert (rho_h, rho_p) == (0.0, 0.99)


def test_feeding_beyond_both_baselines_and_the_sittings():
    from scipy.stats import t as student

    rows = pl.DataFrame([
        # B took 12 of A's 20 leads from the next seat; A's leads taken by its others
        # there: 10 of 50; B's take-overs of other leaders there: 15 of 50
        {"game": "g", "variant": "v", "a": "A", "b": "B", "place": 1, "n_ab": 20, "k_ab": 12,
         "n_other": 50, "k_other": 10, "n_rival": 50, "k_rival": 15},
        # a place without any baseline of A's leads: left out of A's comparison, in B's
        {"game": "g", "variant": "v", "a": "A", "b": "B", "place": 2, "n_ab": 5, "k_ab": 5,
         "n_other": 0, "k_other": 0, "n_rival": 10, "k_rival": 1},
    ])
    # the 20 leads in four sittings: 6/8, 3/4, 2/4, 1/4 taken; expected at the higher
    # baseline rate 0.3 per lead
    clusters = pl.DataFrame([{"game": "g", "variant": "v", "a": "A", "b": "B", "c": c, "place": 1, "n": n, "k": k}
                             for c, n, k in (("s1", 8, 6), ("s2", 4, 3), ("s3", 4, 2), ("s4", 4, 1))])
    (t,) = feeding(rows, clusters, {("g", "v", "A"), ("g", "v", "B")})
    assert (t.kind, t.player, t.other, t.n) == ("feeding", "A", "B", 20)
    z_a = (12 - 20 * 0.2) / math.sqrt(20 * 0.2 * 0.8 * (1 + 20 / 50))
    z_b = (17 - 20 * 0.3 - 5 * 0.1) / math.sqrt(20 * 0.3 * 0.7 * (1 + 20 / 50) + 5 * 0.1 * 0.9 * (1 + 5 / 10))
    d = np.array([6 - 8 * 0.3, 3 - 1.2, 2 - 1.2, 1 - 1.2])
    z_c = d.sum() / math.sqrt(d @ d)
    assert (t.evidence["z_leader"], t.evidence["z_taker"], t.evidence["z_sittings"]) == (
        round(z_a, 3), round(z_b, 3), round(z_c, 3))
    p_c = float(student.sf(z_c, 3))
    p_a = max(0.5 * math.erfc(z_a / math.sqrt(2)), fisher_greater(12, 20, 10, 50))
    assert t.p == pytest.approx(p_c) and p_c > p_a  # the sittings are the weakest link here
    assert t.evidence["sittings"] == 4 and t.effect == pytest.approx(12 / 20 - 6.5 / 25)
    # one sitting only: nothing can be said at the sitting level
    (one,) = feeding(rows, clusters.with_columns(pl.lit("s1").alias("c")), {("g", "v", "A"), ("g", "v", "B")})
    assert one.p == 1.0
    # B not eligible (too few hands): no test
    assert feeding(rows, clusters, {("g", "v", "A")}) == []


def test_presence_z_is_the_pooled_t_with_one_opponent():
    # D's results against R (5 hands) and against X (5 hands): a two-sample t
    seats = []
    with_r, without = [-1.0, -0.5, -1.0, -0.5, -1.0], [0.5, -0.5, 1.0, 0.0, 0.5]
    for k, u in enumerate(with_r + without):
        opp = "R" if k < 5 else f"X{k}"  # the others met twice each: below the minimum
        seats += [("g", "v", f"h{k}", "D", "seat 0", None, u), ("g", "v", f"h{k}", opp, "seat 1", None, -u)]
    frame = pl.DataFrame(seats, schema=["game", "variant", "hand_id", "player", "side", "role", "u"], orient="row")
    # too few hands for 10 degrees of freedom: nothing
    assert presence_z(frame, 3) == {}
    frame = pl.concat([frame, frame.with_columns(pl.col("hand_id") + "b")])
    z = presence_z(frame, 3)
    a, b = np.array(with_r * 2), np.array(without * 2)
    pooled = ((a.var(ddof=1) * 9 + b.var(ddof=1) * 9) / 18) * (1 / 10 + 1 / 10)
    assert z[("g", "v", "D", "R")] == pytest.approx((a.mean() - b.mean()) / math.sqrt(pooled))
    # with a role column for half of D's hands against R and half of the others, the
    # role takes its own coefficient: R's is then the within-role difference
    role = frame.with_columns(pl.when((pl.col("player") == "D") & pl.col("hand_id").str.ends_with("b"))
                              .then(pl.lit("landlord")).otherwise(pl.lit("farmer")).alias("role"))
    assert presence_z(role, 3)[("g", "v", "D", "R")] == pytest.approx(z[("g", "v", "D", "R")], rel=0.05)


def test_chip_flow_reads_each_t_through_students_t_with_the_hands_met(monkeypatch):
    """z = (z_receiver - z_giver) / 2, each t first turned into the normal quantile of the
    same tail under Student's t with (hands the two met - 1) degrees of freedom."""
    from scipy.stats import norm
    from scipy.stats import t as student

    import paipu.analysis.fraud as fraud

    monkeypatch.setattr(fraud, "presence_fit", lambda seats, min_pair: None)
    monkeypatch.setattr(fraud, "pair_effects", lambda fits: {("g", "v", "D", "R"): -3.575, ("g", "v", "R", "D"): 5.225})
    row = {"game": "g", "variant": "v", "d": "D", "r": "R", "n_with": 25, "d_losses": 22, "d_mean_with": -0.42,
           "d_mean_other": -0.06, "r_mean_with": 0.34, "r_mean_other": -0.08, "d_n_other": 259, "r_n_other": 255,
           "flow": 5.45, "coins_flow": 5490.0}
    eligible = {("g", "v", "D"), ("g", "v", "R")}
    (test,) = fraud.chip_flow(pl.DataFrame([row]), pl.DataFrame(), eligible, 20)
    z_r, z_d = norm.isf(student.sf(5.225, 24)), -norm.isf(student.sf(3.575, 24))
    assert test.effect == pytest.approx((z_r - z_d) / 2)
    assert test.p == pytest.approx(norm.sf((z_r - z_d) / 2))
    assert test.effect == pytest.approx(3.699, abs=1e-3)  # as normal t's: 4.40 (p 5e-6), now p 1.1e-4
    assert (test.player, test.other, test.n) == ("D", "R", 25)
    assert test.evidence["t_giver"] == -3.575 and test.evidence["t_receiver"] == 5.225 and test.evidence["t_df"] == 24
    assert "p_giver" not in test.evidence  # sides of two (farmers): what the giver loses the receiver's side wins
    # every seat for itself (Paodekuai): the giver's t alone too, 2 x the smaller
    alone = pl.DataFrame({"game": ["g"], "variant": ["v"], "side": ["seat 0"]})
    (each,) = fraud.chip_flow(pl.DataFrame([row]), alone, eligible, 20)
    p_giver = float(norm.sf(norm.isf(student.sf(3.575, 24))))
    assert each.evidence["p_giver"] == float(f"{p_giver:.3g}")
    assert each.p == pytest.approx(2 * min(norm.sf((z_r - z_d) / 2), p_giver))
    # many hands met: Student's t is the normal
    assert fraud._t_as_z(3.0, 10_000) == pytest.approx(3.0, abs=1e-3)
    assert fraud._t_as_z(-2.0, 5) == pytest.approx(-fraud._t_as_z(2.0, 5))


def test_chip_flow_by_stake_nets_the_points_and_counts_raises_lost_to_the_receiver(monkeypatch):
    """pair_net.sql on hand-made seats, then stake_flow's two readings value for value.
    h0-h2: D (landlord) loses 8 to farmers R and E (4 each), having grabbed (h0, h1) or
    bombed (h2); o0-o3 without R: D a farmer against F (loses 1 in o0, o1, wins 1 in o2,
    o3; bid in o0); r0, r1: R the landlord against F and G (wins 2, loses 2)."""
    import duckdb
    from scipy.stats import t as student

    import paipu.analysis.fraud as fraud

    seats = []  # (hand, seat, player, role, points, bombs)
    for h in range(3):
        seats += [(f"h{h}", 0, "D", "landlord", -8, int(h == 2)), (f"h{h}", 1, "R", "farmer", 4, 0),
                  (f"h{h}", 2, "E", "farmer", 4, 0)]
    for h, x in enumerate((-1, -1, 1, 1)):
        seats += [(f"o{h}", 0, "F", "landlord", -2 * x, 0), (f"o{h}", 1, "D", "farmer", x, 0),
                  (f"o{h}", 2, "E", "farmer", x, 0)]
    for h, x in enumerate((2, -2)):
        seats += [(f"r{h}", 0, "R", "landlord", x, 0), (f"r{h}", 1, "F", "farmer", -x / 2, 0),
                  (f"r{h}", 2, "G", "farmer", -x / 2, 0)]
    actions = [("h0", 0, "grab", None, True), ("h1", 0, "grab", None, True), ("h2", 0, "grab", None, False),
               ("o0", 1, "bid", True, None), ("o1", 1, "bid", False, None)]
    con = duckdb.connect()
    con.execute("create temp table fraud_seats as select 'g' as game, 'v' as variant, hand_id, seat, player, "
                "case when role = 'farmer' then 'farmer' else 'seat ' || seat end as side, role, "
                "points::double as points from (values " +
                ", ".join(f"('{h}', {s}, '{p}', '{r}', {x})" for h, s, p, r, x, _ in seats) +
                ") t(hand_id, seat, player, role, points)")
    con.execute("create table seats as select 'g' as game, hand_id, seat, bombs_played from (values " +
                ", ".join(f"('{h}', {s}, {b})" for h, s, _, _, _, b in seats) + ") t(hand_id, seat, bombs_played)")
    con.execute("create table actions as select 'g' as game, * from (values " +
                ", ".join(f"('{h}', {s}, '{a}', {c if c is not None else 'null'}, {g if g is not None else 'null'})"
                          for h, s, a, c, g in actions) + ") t(hand_id, seat, act, call, grab)")
    frame = fraud._frame(con, "pair_net", {"min_pair": 3})
    row = frame.filter((pl.col("d") == "D") & (pl.col("r") == "R")).row(0, named=True)
    # each of h0-h2: D's loss 8 x R's share 4 / 8 = 4 to R; D raised (grab, grab, bomb) and lost each
    assert (row["n_with"], row["net"], row["net2"], row["raised_lost"]) == (3, 12.0, 48.0, 3)
    # R's gains elsewhere: +1, +1 (r0), -1, -1 (r1); D's: -4 x3 from E (h0-h2), -1, -1, +1, +1 from F
    assert (row["r_n_other"], row["r_gain_other"], row["r_gain2_other"]) == (4, 0.0, 4.0)
    assert (row["d_n_other"], row["d_gain_other"], row["d_gain2_other"]) == (7, -12.0, 52.0)
    # D's other opponents, hand by opponent: E in h0-h2 (raised and lost to E too), F in o0-o3
    # (raised and lost in o0, its bid): 7, 4 of them raised and lost
    assert (row["d_hands_other"], row["d_raised_lost_other"]) == (7, 4)
    p, ev = fraud.stake_flow(row)
    var = ((4 - 0) + (52 - 7 * (12 / 7) ** 2)) / (4 + 7 - 2)
    z = (12 - 3 * (0 - (-12 / 7))) / math.sqrt(var * (3 + fraud.SHRINK_HANDS))
    p_net = float(student.sf(z, 2))
    p_raise = fisher_greater(3, 3, 4, 7)
    assert p_raise == pytest.approx(35 / 120)  # 7 raised and lost of 10, 3 with R: C(7,3)/C(10,3)
    assert ev["z_net"] == round(z, 3) and ev["p_net"] == float(f"{p_net:.3g}")
    assert p == pytest.approx(2 * min(p_net, p_raise))
    assert (ev["net_gain"], ev["raised_and_lost"], ev["giver_raised_lost_rate_elsewhere"]) == (12.0, 3, 0.5714)
    # a pair met too few times for the share reading gets the stake readings alone
    eligible = {("g", "v", "D"), ("g", "v", "R")}
    monkeypatch.setattr(fraud, "presence_fit", lambda seats, min_pair: {})
    (t,) = fraud.chip_flow(pl.DataFrame(schema={"game": pl.Utf8}), pl.DataFrame(), eligible, 20, pl.DataFrame([row]))
    assert (t.kind, t.player, t.other, t.n, t.p) == ("chip_flow", "D", "R", 3, p)
    from paipu.analysis.fraud.words import evidence_words

    assert evidence_words("chip_flow", t.evidence).startswith(
        "met as opponents in 3 hands; the receiver's net gain from the giver 12 points (z 1.0, p 0.22); the giver "
        "raised the stake and lost to the receiver 3 times against 57.1% of its other hands (p 0.29)")
    # no raise anywhere: the net gain alone
    quiet = row | {"raised_lost": 0, "d_raised_lost_other": 0}
    assert fraud.stake_flow(quiet)[0] == pytest.approx(p_net)
    # a game whose hands have no multiplier (Paodekuai, Shuangkou): no raise to read, the net
    # gain alone whatever the bombs, and the evidence says only that
    assert {g: fraud.raises_stake(g) for g in ("doudizhu", "paodekuai", "guandan", "shuangkou", "g")} == {
        "doudizhu": True, "paodekuai": False, "guandan": True, "shuangkou": False, "g": True}
    p_alone, ev_alone = fraud.stake_flow(row, raises=False)
    assert p_alone == pytest.approx(p_net) and p_alone < p
    assert ev_alone == {"net_gain": 12.0, "z_net": round(z, 3), "p_net": float(f"{p_net:.3g}")}
    (pdk,) = fraud.chip_flow(pl.DataFrame(schema={"game": pl.Utf8}), pl.DataFrame(), {
        ("paodekuai", "v", "D"), ("paodekuai", "v", "R")}, 20, pl.DataFrame([row | {"game": "paodekuai"}]))
    assert pdk.p == pytest.approx(p_net) and "p_raise" not in pdk.evidence
    assert evidence_words("chip_flow", pdk.evidence) == (
        "met as opponents in 3 hands; the receiver's net gain from the giver 12 points (z 1.0, p 0.22)")


def test_watch_list_marks_strong_unflagged_tests_and_how_many_more_would_flag():
    from scipy.stats import norm

    from paipu.analysis.fraud import watch_list

    def seat(p, obs, exp, q):
        return FraudTest("co_seating", "g", "v", "A", "B", p, obs / exp, 20,
                         {"sittings_together": obs, "expected": exp}, q=q)

    # 8 sittings together against 1 expected: p = P(Poisson(1) >= 8) = 1 - e^-1 (1 + 1 + 1/2 + ... + 1/7!)
    few = seat(poisson_upper(8, 1.0), 8, 1.0, q=0.3)
    assert few.p == pytest.approx(1 - math.exp(-1) * sum(1 / math.factorial(k) for k in range(8)), rel=1e-9)
    assert few.p == pytest.approx(1.0249e-5, rel=1e-4)
    tests = [few] + [seat(0.5, 3, 2.9, 1.0) for _ in range(99)]  # 100 co-seating tests
    soft = FraudTest("soft_play", "g", "v", "A", "B", 0.01, 0.2, 50, {}, q=0.2)
    flagged = FraudTest("soft_play", "g", "v", "C", "D", 1e-9, 0.5, 80, {}, q=0.001)
    tests += [soft, flagged]
    watch_list(tests, 0.01)
    # K = 2 kinds; co-seating: 200 x 1.02e-5 <= 1 (q 0.3 > 0.25): watched; the flagged and the weak ones not
    assert few.watch and soft.watch and not flagged.watch and not any(t.watch for t in tests[1:100])
    # flagged for certain at 0.01 / (2 x 100) = 5e-5: the counts x f until the Poisson tail gets there
    f = 1.0
    while poisson_upper(math.ceil(f * 8), f * 1.0) > 5e-5:
        f *= 1.05
    assert f == 1.0 and few.more == 0  # already beyond it: 1.02e-5 <= 5e-5
    # z scales as the square root of n: (z at 0.01 / (2 x 2) over z at 0.01)^2 = 1.456: 23 more chances
    assert soft.more == math.ceil(((norm.isf(0.01 / (2 * 2)) / norm.isf(0.01)) ** 2 - 1) * 50) == 23
    watch_list(tests + [seat(0.5, 3, 2.9, 1.0) for _ in range(900)], 0.01)  # 1,000 co-seating tests
    assert few.watch and few.more is not None and few.more > 0  # needs 0.01 / 2,000 = 5e-6 now
    f = 1.0
    while poisson_upper(math.ceil(f * 8), f) > 5e-6:
        f *= 1.05
    assert few.more == math.ceil((f - 1) * 20)


def test_pair_effects_take_out_what_everyone_feels():
    fits = {("g", "v", "P1", "X"): (-0.3, 0.1), ("g", "v", "P2", "X"): (-0.1, 0.1), ("g", "v", "P3", "X"): (-0.2, 0.1)}
    t = pair_effects(fits)
    assert t[("g", "v", "P1", "X")] == pytest.approx((-0.3 - (-0.15)) / 0.1)
    assert t[("g", "v", "P2", "X")] == pytest.approx((-0.1 - (-0.25)) / 0.1)


def test_robust_z_and_bot_timing_against_the_population():
    assert list(robust_z(np.array([1.0, 2.0, 3.0, 4.0, 100.0]))) == pytest.approx(
        [(x - 3) / 1.4826 for x in (1, 2, 3, 4, 100)])
    people = []
    for k in range(9):
        people.append({"game": "g", "variant": "v", "player": f"p{k}", "n_think": 500, "regularity": 0.0 + 0.1 * k,
                       "long_pause_rate": 0.04 + 0.001 * k, "think_options_corr": 0.5 - 0.01 * k,
                       "hours_of_day": 4 + k % 3, "longest_session_h": 2.0 + 0.1 * k})
    people.append({"game": "g", "variant": "v", "player": "bot", "n_think": 500, "regularity": 2.0,
                   "long_pause_rate": 0.0, "think_options_corr": 0.0, "hours_of_day": 20, "longest_session_h": 9.0})
    tests = {t.player: t for t in bot_timing(pl.DataFrame(people), 100, True)}
    assert min(tests.values(), key=lambda t: t.p).player == "bot"
    assert tests["bot"].p < 1e-6 and all(t.p > 0.01 for name, t in tests.items() if name != "bot")
    assert tests["bot"].evidence["hours_of_day"]["value"] == 20
    assert tests["bot"].evidence["features_needed"] == "3 of 5"
    assert bot_timing(pl.DataFrame(people[:5]), 100, True) == []  # too few to compare


def _timing_population(odd: dict) -> list[dict]:
    """Ten players whose features are robust-z friendly (median and MAD known), and one
    *odd* player with the given features."""
    people = []
    for k in range(10):
        people.append({"game": "g", "variant": "v", "player": f"p{k}", "n_think": 1000,
                       "regularity": [0.0, 0.1, 0.2, 0.3, 0.4][k % 5], "long_pause_rate": 0.05,
                       "think_options_corr": [0.4, 0.5, 0.6][k % 3], "hours_of_day": 6,
                       "longest_session_h": 2.0})
    people.append(dict({"game": "g", "variant": "v", "player": "odd", "n_think": 1000, "regularity": 0.2,
                        "long_pause_rate": 0.05, "think_options_corr": 0.5, "hours_of_day": 6,
                        "longest_session_h": 2.0}, **odd))
    return people


def _z(values: list[float], sign: int = 1) -> float:
    """The last value's oriented robust z against all of them."""
    return float(sign * robust_z(np.array(values, dtype=float))[-1])


def test_bot_timing_needs_three_signs_value_for_value():
    """Partial conjunction, 3 of 5: p = 3 · the normal upper tail of the third largest z."""
    regular = {"regularity": 3.0, "think_options_corr": -0.5}  # a narrow clock, blind to options: 2 signs
    tests = {t.player: t for t in bot_timing(pl.DataFrame(_timing_population(regular)), 100, True)}
    z_reg = _z([0.0, 0.1, 0.2, 0.3, 0.4] * 2 + [3.0])
    z_opt = _z([0.4, 0.5, 0.6, 0.4, 0.5, 0.6, 0.4, 0.5, 0.6, 0.4, -0.5], -1)
    odd = tests["odd"]
    assert odd.evidence["regularity"]["z"] == pytest.approx(round(z_reg, 2))
    assert odd.evidence["think_options_corr"]["z"] == pytest.approx(round(z_opt, 2))
    assert z_reg > 5 and z_opt > 5
    # the third sign is missing: every other feature is the population's (MAD 0 -> IQR 0 -> scale 1, z 0)
    assert odd.effect == 0.0 and odd.p == 1.0  # 3 · 0.5, capped
    # a third sign: no long pause in 1,000 decisions, on the log scale log((k + 0.5)/(n + 1))
    three = dict(regular, long_pause_rate=0.0)
    odd = {t.player: t for t in bot_timing(pl.DataFrame(_timing_population(three)), 100, True)}["odd"]
    lp = [math.log((0.05 * 1000 + 0.5) / 1001)] * 10 + [math.log(0.5 / 1001)]
    z_lp = _z(lp, -1)  # MAD and IQR 0: scale 1, z = the log difference
    assert z_lp == pytest.approx(math.log(50.5 / 0.5))
    assert odd.effect == pytest.approx(min(z_reg, z_opt, z_lp))
    assert odd.p == pytest.approx(3 * 0.5 * math.erfc(odd.effect / math.sqrt(2)))
    assert odd.evidence["long_pause_rate"]["value"] == 0.0


def test_bot_timing_without_hand_times_needs_all_three():
    three = {"regularity": 3.0, "think_options_corr": -0.5, "long_pause_rate": 0.0}
    rows = [{k: v for k, v in r.items() if k not in ("hours_of_day", "longest_session_h")}
            for r in _timing_population(three)]
    odd = {t.player: t for t in bot_timing(pl.DataFrame(rows), 100, False)}["odd"]
    assert odd.evidence["features_needed"] == "3 of 3" and "hours_of_day" not in odd.evidence
    assert odd.p == pytest.approx(0.5 * math.erfc(odd.effect / math.sqrt(2)))  # (n - u + 1) = 1


def test_ratings_teams_from_sides():
    seats = pl.DataFrame([("g", "v", "h1", 0.0, "L", "seat 0", 2.0), ("g", "v", "h1", 0.0, "F1", "farmer", -1.0),
                          ("g", "v", "h1", 0.0, "F2", "farmer", -1.0)],
                         schema=["game", "variant", "hand_id", "ts", "player", "side", "result"], orient="row")
    r = {row["player"]: row for row in ratings(seats).to_dicts()}
    from openskill.models import PlackettLuce

    m = PlackettLuce()
    [[lw], [f1, _]] = m.rate([[m.rating()], [m.rating(), m.rating()]], ranks=[1, 2])
    assert r["L"]["rating_mu"] == pytest.approx(lw.mu) and r["F1"]["rating_mu"] == pytest.approx(f1.mu)
    assert r["F1"]["rating_jump"] is None


# ----------------------------------------------------------------------------- population and the command


def test_parse_cheats():
    from paipu.replay.sim.population import Cheat, cheat_spec

    assert parse_cheats("collude=2, dump=1,bot=3") == [Cheat("collude", 2), Cheat("dump", 1), Cheat("bot", 3)]
    assert parse_cheats("") == []
    assert parse_cheats("soft=2@0.15@seat=2,dump=1@x4@seat=0,share=1,few=1@hands=90") == [
        Cheat("soft", 2, share=0.15, seat=2.0), Cheat("dump", 1, stake=4, seat=0.0), Cheat("share", 1, share=0.3),
        Cheat("few", 1, seat=10, hands=90)]
    assert cheat_spec(parse_cheats("dump=1@seat=0@x4")) == "dump=1@x4@seat=0"
    with pytest.raises(ValueError, match="unknown kind 'spy'"):
        parse_cheats("spy=1")
    with pytest.raises(ValueError, match="whole number"):
        parse_cheats("bot=x")
    for bad in ("soft=1@1.5", "soft=1@x4", "dump=1@0.3", "dump=1@x0", "collude=1@seat=-1", "few=1@hands=0",
                "bot=1@0.5", "soft=1@fast"):
        with pytest.raises(ValueError, match="bad option|no options"):
            parse_cheats(bad)


def test_planted_kinds_get_their_policies_and_labels():
    from paipu.replay.sim.population import Colluder, Dumper, Sharer

    pop = Population("doudizhu", None, 20, parse_cheats("soft=1@0.2,dump=1@x4,share=1@0.4,few=1"), hands=200, seed=3)
    by_kind: dict[str, list] = {}
    for p in pop.people:
        by_kind.setdefault(p.kind, []).append(p)
    assert {k: len(v) for k, v in by_kind.items()} == {"soft": 2, "dumper": 1, "receiver": 1, "sharer": 2,
                                                        "colluder": 2, "honest": 12}
    soft = by_kind["soft"][0].policy
    assert isinstance(soft, Colluder) and (soft.spare, soft.feed) == (0.2, 0.0)
    assert isinstance(by_kind["dumper"][0].policy, Dumper) and by_kind["dumper"][0].policy.stake == 4
    assert isinstance(by_kind["sharer"][0].policy, Sharer) and by_kind["sharer"][0].policy.share == 0.4
    few = by_kind["colluder"][0]
    assert (few.seat, few.policy.spare) == (10, 0.85)
    labels = {row["player"]: (row["kind"], row["mate"]) for row in pop.labels()}
    a, b = by_kind["sharer"]
    assert labels[a.name] == ("sharer", b.name) and labels[b.name] == ("sharer", a.name)


def _meetings(cheat: str, seed: int = 0, hands: int = 1500) -> tuple[int, int, int]:
    """(hands the planted pair shared, hands of its first member, of its second)."""
    pop = Population("doudizhu", None, 30, parse_cheats(cheat), hands=hands, seed=seed)
    a, b = [p.name for p in pop.people if p.mate]
    together = na = nb = 0
    for k in range(hands):
        names = {s.name for s in pop.seats_for(k)}
        na += a in names
        nb += b in names
        together += a in names and b in names
    return together, na, nb


def test_co_seating_strength_and_few_hands():
    chance, na, nb = _meetings("soft=1@seat=0")
    strong, _, _ = _meetings("soft=1@seat=10")
    # random seating among 30 (about 8-10 online): the pair meets in a few dozen hands; 10x chance far more
    assert strong > 4 * max(chance, 1)
    few, fa, fb = _meetings("soft=1@hands=40")
    assert fa <= 40 and fb <= 40 and fa > 20  # thinned sessions, offline at the cap
    _, fa, fb = _meetings("soft=1@hands=40@seat=10")
    assert fa <= 40 and fb <= 40


def test_planted_soft_play_and_dumping_at_stakes_show_in_the_hands():
    """A small seeded population: the soft player spares its mate on far more of its
    chances than its other opponents; the x4 dumper's losses to its receiver are heavy."""
    from paipu.replay.sim.population import simulate_population

    pop, records = simulate_population("doudizhu", None, 150, 4, 6, parse_cheats("soft=1@0.6@seat=10,dump=1@x4@seat=10"))
    records = list(records)
    kinds = {p.name: (p.kind, p.mate) for p in pop.people}
    soft = next(n for n, (k, _) in kinds.items() if k == "soft")
    mate = kinds[soft][1]
    counts = {True: [0, 0], False: [0, 0]}  # to the mate?: [spared, chances]
    for record in records:
        for r in hand_decisions(record):
            if r["player"] == soft and r["can_beat"] and r["relation"] == "opponent":
                c = counts[r["target_player"] == mate]
                c[0] += r["spared"]
                c[1] += 1
    (k_mate, n_mate), (k_other, n_other) = counts[True], counts[False]
    assert n_mate >= 20 and n_other >= 20
    assert k_mate / n_mate > k_other / n_other + 0.3  # 60% of the chances on top of the usual sparing
    dumper = next(n for n, (k, _) in kinds.items() if k == "dumper")
    receiver = kinds[dumper][1]
    from paipu.replay.replayer import replay

    outcomes = [(r, replay(r).outcome) for r in records if dumper in r["players"] and receiver in r["players"]]
    losses = [(o["multiplier"], o["scores"][r["players"].index(dumper)]) for r, o in outcomes
              if o.get("scores") and not o.get("redeal")]
    heavy = [m for m, score in losses if score < 0 and m >= 4]
    assert len(heavy) >= 5 and len(heavy) > sum(1 for m, score in losses if score < 0 and m < 4)


def test_dumper_at_stakes_raises_them_and_throws_only_then():
    import random

    from helpers import with_hand
    from paipu.replay.cards import cards_name, parse_cards
    from paipu.replay.replayer import make_table
    from paipu.replay.sim import simulate
    from paipu.replay.sim.population import Dumper, Sharer

    record = next(iter(simulate("doudizhu", None, 1, 5)))
    table = make_table(record)
    assert table.setup() is None
    receiver = table.spec.players[1]
    dumper = Dumper(receiver, stake=4)
    assert dumper.bid(table, random.Random(0), 0, 0.0, "grab") is True  # the receiver is at the table
    assert Dumper("nobody", stake=4).bid(table, random.Random(0), 0, 0.0, "grab") is False  # the base's (power 0)
    table.landlord, table.turn, table.last = 0, 0, None
    with_hand(table, 0, parse_cards("3h 4h 7c 7d 7h 7s"))
    with_hand(table, 1, parse_cards("5h 6h"))
    mult = table.multiplier_now()
    assert mult < 4
    assert cards_name(dumper.play(table, random.Random(0), table.legal_moves(0), {})) == "7s 7h 7d 7c"  # a bomb
    table.bombs += 2  # the stake reached: the lowest single is led, as a dump
    assert table.multiplier_now() >= 4
    assert cards_name(dumper.play(table, random.Random(0), table.legal_moves(0), {})) == "3h"
    # a card sharer leads what its partner (the other farmer) can beat and the landlord cannot
    table.landlord, table.turn = 2, 0
    with_hand(table, 2, parse_cards("4d 4s"))
    sharer = Sharer(receiver, share=1.0)
    with_hand(table, 0, parse_cards("3h 5c 9h"))
    assert cards_name(sharer.play(table, random.Random(0), table.legal_moves(0), {})) == "5c"
    # the mate as the landlord is no partner: the sharer plays the base policy
    from paipu.replay.sim.bots import HEURISTIC

    table.landlord = 1
    assert sharer.play(table, random.Random(0), table.legal_moves(0), {}) == \
        HEURISTIC.play(table, random.Random(0), table.legal_moves(0), {})
    # Paodekuai: any two at the table; the sharer passes on the mate's play
    record = next(iter(simulate("paodekuai", None, 1, 5)))
    table = make_table(record)
    assert table.setup() is None
    me = table.turn
    mate = (me + 1) % 3
    with_hand(table, me, parse_cards("3h 5h 9h"))
    with_hand(table, mate, parse_cards("6c Tc"))
    table.last, table.last_seat = table.legal_moves(mate)[0][1], mate
    assert Sharer(table.spec.players[mate], share=1.0).play(table, random.Random(0), table.legal_moves(me), {}) is None


def test_population_never_seats_a_player_twice_at_one_table():
    """Overlapping sessions (a session wrapped past midnight meets the next day's) leave a
    player online once per slot: seed 1 of this population had 12 doubled slots and 8 hands
    with a player on two seats before."""
    pop = Population("paodekuai", None, 60, parse_cheats("bot=2"), 6000, seed=1)
    assert any(len(set(map(id, o))) for o in pop.online)
    assert all(len(o) == len(set(map(id, o))) for o in pop.online)
    assert all(len({s.name for s in pop.seats_for(k)}) == 3 for k in range(6000))


def test_clocks():
    import random

    rng = random.Random(1)
    human = HumanClock(base=1500, slope=0.5, sigma=0.01, forced=500, pause=0.0)
    assert 480 < human.think(rng, 1, True) < 2000
    many, one = human.think(rng, 20, False), human.think(rng, 2, False)
    assert many > one  # longer with more options
    assert all(700 <= BotClock().think(rng, k, False) <= 1300 for k in (1, 5, 50))


def test_population_plants_pairs_on_opposite_teams():
    pop = Population("guandan", None, 12, {"collude": 1, "bot": 1}, hands=200, seed=0)
    kinds = sorted(p.kind for p in pop.people)
    assert kinds.count("colluder") == 2 and kinds.count("bot") == 1 and kinds.count("honest") == 9
    mates = [p for p in pop.people if p.kind == "colluder"]
    met = 0
    for k in range(200):
        names = [s.name for s in pop.seats_for(k)]
        if mates[0].name in names and mates[1].name in names:
            met += 1
            assert (names.index(mates[0].name) - names.index(mates[1].name)) % 2 == 1
    assert met > 0
    with pytest.raises(ValueError, match="plants 4 players"):
        Population("doudizhu", None, 3, {"collude": 2}, hands=1)


def test_simulate_population_writes_labels_and_times(tmp_path):
    out, labels = tmp_path / "pop.jsonl", tmp_path / "labels.csv"
    r = invoke("simulate", "--game", "ddz", "--hands", "30", "--players", "9", "--cheat", "collude=1,bot=1",
               "--labels", str(labels), "--out", str(out))
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(labels.open(encoding="utf-8")))
    assert len(rows) == 9 and sorted(x["kind"] for x in rows).count("colluder") == 2
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 30 and all(r["time"].endswith("Z") and r["actions"][0]["t"] > 0 for r in records)
    assert {p for r in records for p in r["players"]} <= {x["player"] for x in rows}
    r = invoke("simulate", "--game", "ddz", "--cheat", "bot=1")
    assert r.exit_code == 2 and "--players" in r.output


def test_fraud_cli_errors(tmp_path):
    r = invoke("fraud", str(tmp_path))
    assert r.exit_code == 2 and "not a paipu dataset" in r.output


def test_colluder_feeds_what_only_its_mate_can_beat():
    import random

    from helpers import with_hand
    from paipu.replay.cards import cards_name, parse_cards
    from paipu.replay.replayer import make_table
    from paipu.replay.sim import simulate
    from paipu.replay.sim.population import Colluder, _feeding_lead

    record = next(iter(simulate("paodekuai", "huopin", 1, 5)))
    table = make_table(record)
    assert table.setup() is None
    me = table.turn
    mate, other = (me + 1) % 3, (me + 2) % 3
    with_hand(table, me, parse_cards("3h 5h 9h"))
    with_hand(table, mate, parse_cards("6c Tc"))
    with_hand(table, other, parse_cards("4d 4s"))
    table.last = None
    moves = table.legal_moves(me)
    # 3h: the other seat beats it with a 4; 5h: only the mate (6c, Tc) beats it
    assert cards_name(_feeding_lead(table, mate, moves)) == "5h"
    with_hand(table, other, parse_cards("Ks"))  # now the other beats every single of mine
    assert cards_name(_feeding_lead(table, mate, moves)) == "3h"  # the lowest the mate beats
    with_hand(table, mate, parse_cards("4c"))
    with_hand(table, me, parse_cards("5h 9h"))
    assert _feeding_lead(table, mate, table.legal_moves(me)) is None  # the mate beats nothing
    # the policy feeds only a mate at the table as an opponent
    with_hand(table, mate, parse_cards("6c Tc"))
    with_hand(table, me, parse_cards("3h 5h 9h"))
    with_hand(table, other, parse_cards("4d 4s"))
    pick = Colluder(table.spec.players[mate], feed=1.0).play(table, random.Random(1), table.legal_moves(me), {})
    assert cards_name(pick) == "5h"
    # with the mate away the colluder plays as the heuristic does
    from paipu.replay.sim.bots import HEURISTIC

    away = Colluder("nobody", feed=1.0).play(table, random.Random(1), table.legal_moves(me), {})
    assert away == HEURISTIC.play(table, random.Random(1), table.legal_moves(me), {})


def test_population_plays_a_given_base_policy_when_not_cheating():
    from paipu.replay.sim.bots import HEURISTIC
    from paipu.replay.sim.population import Colluder, Dumper

    class Other:
        def play(self, table, rng, moves, hints):
            return HEURISTIC.play(table, rng, moves, hints)

        def bid(self, table, rng, seat, power, stage):
            return False

    other = Other()
    pop = Population("doudizhu", None, 10, {"collude": 1, "dump": 1, "bot": 1}, hands=20, seed=2, base=other)
    policies = {p.kind: p.policy for p in pop.people}
    assert policies["honest"] is other and policies["bot"] is other and policies["receiver"] is other
    assert isinstance(policies["colluder"], Colluder) and policies["colluder"].base is other
    assert isinstance(policies["dumper"], Dumper) and policies["dumper"].base is other
    assert policies["colluder"].bid(None, None, 0, 1.0, "bid") is False  # bids are the base's
    assert Population("doudizhu", None, 10, {"collude": 1}, hands=20, seed=2).people[0].policy.base is HEURISTIC


def test_an_honest_population_stays_clean(tmp_path):
    """Twelve honest players, 900 Dou Dizhu hands through the real pipeline (ingest, audit
    with decisions, every screen): soft play's beta-binomial and chip flow's stake readings
    run on every pair met enough and flag none of them."""
    from paipu.analysis.fraud import screen
    from paipu.replay.audit import audit_dataset
    from paipu.replay.ingest import ingest_files
    from paipu.replay.sim.population import simulate_population

    _, records = simulate_population("doudizhu", None, 900, 3, 12, [])
    path = tmp_path / "hands.jsonl"
    path.write_bytes(b"".join(record_to_json(r) + b"\n" for r in records))
    ds = str(tmp_path / "ds")
    ingest_files([str(path)], ds, workers=1)
    audit_dataset(ds, decisions=True, workers=1)
    result = screen(ds, "doudizhu", min_hands=60)
    kinds = {t.kind for t in result.tests}
    assert {"soft_play", "chip_flow"} <= kinds
    soft = [t for t in result.tests if t.kind == "soft_play"]
    assert all(0 < t.evidence["rho_hand"] < 0.5 and "design_effect" in t.evidence for t in soft)
    assert any("p_net" in t.evidence for t in result.tests if t.kind == "chip_flow")
    assert result.flagged == []
    assert min(t.p for t in soft) > 1e-4  # nothing near a flag among some hundred pair tests


def test_dumping_combines_chip_flow_and_soft_play_of_one_direction():
    """A dumper loses to its receiver and passes on its plays: the two p's of the same
    ordered pair combined by Fisher's method; a pair with one of them, or the two in
    opposite directions, gets no dumping test."""
    from scipy.stats import chi2

    from paipu.analysis.fraud import dumping
    from paipu.analysis.fraud.words import evidence_words

    flow = FraudTest("chip_flow", "g", "v", "D", "R", 2.8e-5, 1.0, 51, {"losses_of_giver": 32})
    soft = FraudTest("soft_play", "g", "v", "D", "R", 1.8e-4, 0.2, 119,
                     {"spared": 48, "chances": 119, "rate": 0.4034, "baseline_rate": 0.1897})
    others = [FraudTest("chip_flow", "g", "v", "A", "B", 0.01, 1.0, 40, {}),  # no soft play A -> B
              FraudTest("soft_play", "g", "v", "B", "A", 0.01, 0.1, 60, {}),  # the other way
              FraudTest("soft_play", "g", "v", "X", "Y", 0.02, 0.1, 60, {})]
    (d,) = dumping([flow, soft] + others)
    x = -2 * (math.log(2.8e-5) + math.log(1.8e-4))
    assert (d.kind, d.player, d.other, d.n) == ("dumping", "D", "R", 51)
    assert d.p == pytest.approx(float(chi2.sf(x, 4))) and d.p == pytest.approx(1.02e-7, rel=0.01)
    assert d.effect == round(x, 3)
    assert evidence_words("dumping", d.evidence) == (
        "threw hands to the receiver both ways: chip flow p < 0.0001 over 51 hands met (the giver lost 32), "
        "soft play p 0.0002 (spared 48 of 119 chances, 40.3%, against 19.0%)")
    # the receiver's way: no chip flow to the dumper, and it spared the dumper less than its
    # baseline; its soft-play p made small by the dumper's way (both ways) is not its own,
    # and dumping combines its own: no dumping R -> D (with the both-ways p it would be 3.7e-7)
    back_flow = FraudTest("chip_flow", "g", "v", "R", "D", 1.0, -1.0, 51, {})
    back_soft = FraudTest("soft_play", "g", "v", "R", "D", 2e-8, -0.06, 95, {"spared": 0, "chances": 95},
                          one_way=1.0)
    (r,) = dumping([back_flow, back_soft])
    assert (r.player, r.other, r.p, r.evidence["p_soft_play"]) == ("R", "D", 1.0, 1.0)


def test_soft_play_evidence_counts_hands_and_sittings():
    rows = pl.DataFrame([{"game": "g", "variant": "v", "a": "A", "b": "B", "place": p, "n_ab": 10, "k_ab": 6,
                          "n_other": 199, "k_other": 2} for p in (1, 2)])
    eligible = {("g", "v", "A"), ("g", "v", "B")}
    # two sittings: s1 with 3 hands (chances at both places), s2 with 2
    clusters = pl.DataFrame([{"game": "g", "variant": "v", "a": "A", "b": "B", "c": c, "place": p, "n": n, "k": k,
                              "hands": h} for c, p, n, k, h in (("s1", 1, 6, 4, 3), ("s1", 2, 8, 5, 3),
                                                               ("s2", 1, 4, 2, 2), ("s2", 2, 2, 1, 2))])
    (t,) = soft_play(rows, eligible, clusters, {("g", "v"): (0.1, 0.0)})
    assert (t.evidence["hands"], t.evidence["sittings"]) == (5, 2)
    (old,) = soft_play(rows, eligible, clusters.drop("hands"), {("g", "v"): (0.1, 0.0)})
    assert (old.evidence["hands"], old.evidence["sittings"]) == (2, 2)  # (no hands column: the clusters)
    assert old.p == t.p


def test_collusion_combines_co_seating_and_the_pairs_stronger_soft_play():
    """Colluders seek each other's tables and spare each other there: co-seating's p and
    the pair's soft-play p (2 x the smaller of its two directions') combined by Fisher's
    method; a pair without both gets no collusion test."""
    from scipy.stats import chi2

    from paipu.analysis.fraud import collusion
    from paipu.analysis.fraud.words import evidence_words

    seat = FraudTest("co_seating", "g", "v", "A", "B", 5.7e-4, 1.5, 60, {"sittings_together": 30, "expected": 17.2})
    ab = FraudTest("soft_play", "g", "v", "A", "B", 3.8e-5, 0.1, 153,
                   {"spared": 40, "chances": 153, "rate": 0.2614, "baseline_rate": 0.1699})
    ba = FraudTest("soft_play", "g", "v", "B", "A", 9e-5, 0.1, 161, {"spared": 47, "chances": 161})
    others = [FraudTest("co_seating", "g", "v", "C", "D", 0.01, 1.2, 20, {}),  # no soft play between C and D
              FraudTest("soft_play", "g", "v", "E", "F", 0.02, 0.1, 60, {})]  # no co-seating test
    (c,) = collusion([seat, ab, ba] + others)
    x = -2 * (math.log(5.7e-4) + math.log(2 * 3.8e-5))
    assert (c.kind, c.player, c.other, c.n) == ("collusion", "A", "B", 60)
    assert c.p == pytest.approx(float(chi2.sf(x, 4))) and c.p == pytest.approx(8.0e-7, rel=0.05)
    assert evidence_words("collusion", c.evidence) == (
        "sought each other's tables and spared each other there: co-seating p 0.0006 (30 sittings together where "
        "17.2 were expected), soft play p < 0.0001 (A spared 40 of 153 chances, 26.1%, against 17.0%)")
