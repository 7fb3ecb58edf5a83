"""The card-sharing screen (issue #27 item 1): the decisions' ``beaters`` and ``seats_left``,
its chances counted in SQL on hand-made hands, and its statistic value for value."""

from __future__ import annotations

import math

import polars as pl
import pytest
from typer.testing import CliRunner

from paipu.analysis.fraud import SQL_DIR, sql_text
from paipu.analysis.fraud.share import CHI2_1_MEDIAN, Shared, card_sharing, pair_counts, population_phi, shared_p
from paipu.analysis.queries import connect
from paipu.cli import app
from paipu.replay.decisions import hand_decisions
from paipu.replay.io.jsonl import record_to_json
from helpers import ANTI_SPRING, SPRING, ddz

runner = CliRunner()


def test_beaters_and_seats_left_of_the_anti_spring_hand():
    rows = hand_decisions(ddz(ANTI_SPRING))
    got = [(r["idx"], r["seat"], r["lead"], r["target_seat"], r["beaters"], r["seats_left"]) for r in rows]
    assert got == [
        (3, 0, True, None, None, [20, 17, 17]),   # a lead: nothing on the table to beat
        (4, 1, False, 0, 0b110, [19, 17, 17]),     # both farmers can beat the landlord's 3h
        (5, 2, False, 1, 0b101, [19, 16, 17]),     # on B's 4h: C itself and the landlord
        (6, 0, False, 1, 0b101, [19, 16, 17]),
        (7, 1, True, None, None, [19, 16, 17]),
        (8, 2, False, 1, 0b001, [19, 6, 17]),      # 5h..Ah: only the landlord's bomb and rocket
        (9, 0, False, 1, 0b001, [19, 6, 17]),
        (10, 1, True, None, None, [19, 6, 17]),
    ]


@pytest.fixture(scope="module")
def two_hands(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("share")
    hands = []
    for record, players, hand_id in ((ddz(ANTI_SPRING), ["A", "B", "C"], "h1"), (ddz(SPRING), ["B", "C", "A"], "h2")):
        record["players"], record["id"] = players, hand_id
        hands.append(record)
    src = tmp / "hands.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in hands))
    ds = str(tmp / "ds")
    assert runner.invoke(app, ["ingest", str(src), "--out", ds]).exit_code == 0
    assert runner.invoke(app, ["audit", ds, "--decisions", "--workers", "1"]).exit_code == 0
    return ds


def test_share_chances_of_two_hands(two_hands):
    con = connect(two_hands)
    con.execute(sql_text("_hands", SQL_DIR), {"game": None, "variant": None})
    con.execute("create temp table spared_pairs (game varchar, a varchar, t varchar)")  # no one found sparing
    con.execute(sql_text("share_chances", SQL_DIR))
    rows = sorted(con.execute("select hand_id, idx, a, b, sig, hit, stratum from share_chances").fetchall())
    con.close()
    assert rows == [
        # h1, farmers B (seat 1) and C (seat 2): B could beat the landlord's 3h, and C, after
        # B, could too: B played (no hit)
        ("h1", 4, "B", "C", "leave", False, "leave 1/2 b99"),
        ("h1", 5, "C", "B", "block", True, "block 2 b99"),      # C let B's 4h stand
        # B's lead 5h..Ah: only the landlord could beat it, not C (no hit); B's last lead
        # went out with the hand, no chance
        ("h1", 7, "B", "C", "lead", False, "lead 1 b99 o99"),
        # h2, farmers C (seat 1) and A (seat 2): C passed on the landlord's pair 3h 3d,
        # which A could beat after it; A, after C, leaves nothing to anyone
        ("h2", 10, "C", "A", "leave", True, "leave 1/2 b99"),
    ]


def test_share_counts_take_leads_by_hand_and_passes_by_decision():
    """An endgame run of leads only the partner could beat is one fact, counted once: a
    lead chance is a hand (of that stratum) and its hit a hand with such a lead (two
    honest Shuangkou pairs were flagged on four consecutive leads of one hand); a pass
    stays a chance per decision."""
    import duckdb

    con = duckdb.connect()
    con.execute("create temp table share_chances (game varchar, variant varchar, hand_id varchar, a varchar, "
                "b varchar, sig varchar, stratum varchar, hit boolean)")
    rows = ([("h1", "lead", "lead 2 b5 o5", hit) for hit in (True, True, True, True, False)]  # h1: 5 leads, 4 hits
            + [("h2", "lead", "lead 2 b5 o5", False)] * 2  # h2: 2 leads, no hit
            + [("h1", "leave", "leave 1/2 b99", hit) for hit in (True, True, False)])
    con.executemany("insert into share_chances values ('shuangkou', 'huopin', ?, 'A', 'B', ?, ?, ?)", rows)
    got = con.execute(sql_text("share_counts", SQL_DIR)).fetchall()
    con.close()
    assert got == [("shuangkou", "huopin", "A", "B", "lead", "lead 2 b5 o5", 2, 1),
                   ("shuangkou", "huopin", "A", "B", "leave", "leave 1/2 b99", 3, 2)]


def rows_of(data: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(data, schema=["game", "variant", "a", "b", "sig", "stratum", "n", "k"], orient="row")


def test_pair_counts_leave_the_pair_out_of_the_null():
    rows = rows_of([
        ("g", "v", "A", "B", "leave", "s1", 10, 6), ("g", "v", "B", "A", "lead", "s2", 10, 2),
        ("g", "v", "C", "D", "leave", "s1", 30, 3), ("g", "v", "D", "C", "lead", "s2", 20, 2),
        ("g", "v", "E", "F", "leave", "s1", 20, 2),
    ])
    counts = pair_counts(rows)
    # A-B: s1 without them 5 of 50, s2 2 of 20: both 10%
    assert counts[("g", "v", "A", "B")] == {"leave": Shared(6, 10, 1.0, 0.9), "lead": Shared(2, 10, 1.0, 0.9)}
    # C-D: s1 without them 8 of 30, s2 2 of 10
    cd = counts[("g", "v", "C", "D")]
    assert cd["leave"].expected == pytest.approx(30 * 8 / 30) and cd["lead"].expected == pytest.approx(20 * 0.2)
    assert cd["leave"].var == pytest.approx(30 * (8 / 30) * (22 / 30))


def test_population_phi_is_the_median_z2_over_the_chi2_median():
    pairs = [Shared(k, 25, 5.0, 4.0) for k in (5, 6, 8, 9, 11)]  # z0 = 0, 0.5, 1.5, 2, 3
    assert population_phi(pairs) == pytest.approx(1.5 ** 2 / CHI2_1_MEDIAN)
    assert population_phi(pairs[:4]) == 1.0  # fewer than five pairs: no estimate
    assert population_phi([Shared(5, 25, 5.0, 4.0)] * 5) == 1.0  # at least 1


def _binom_tail(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1))


def test_shared_p_binomial_on_the_effective_sample():
    c = Shared(8, 20, 2.0, 1.8)  # 20 chances at 10%: the Poisson-binomial is the binomial
    assert shared_p(c, 1.0) == pytest.approx(_binom_tail(8, 20, 0.1), rel=1e-9)
    assert _binom_tail(8, 20, 0.1) == pytest.approx(4.1564e-4, rel=1e-4)
    # φ = 2: 4 hits of 10 chances
    assert shared_p(c, 2.0) == pytest.approx(_binom_tail(4, 10, 0.1), rel=1e-9)
    assert _binom_tail(4, 10, 0.1) == pytest.approx(0.012795, rel=1e-4)
    # rates that differ between the kinds: the binomial at the mean rate is wider than the
    # Poisson-binomial; φ 1.5 on a variance of 1.0 against the binomial's 1.8 leaves it as it is
    assert shared_p(Shared(8, 20, 2.0, 1.0), 1.5) == pytest.approx(_binom_tail(8, 20, 0.1), rel=1e-9)
    # φ 3.6 on 1.0: f = 2, as above
    assert shared_p(Shared(8, 20, 2.0, 1.0), 3.6) == pytest.approx(_binom_tail(4, 10, 0.1), rel=1e-9)
    assert shared_p(Shared(0, 20, 2.0, 1.8), 1.0) == 1.0
    # far in the tail, computed as such (the incomplete beta, not 1 - cdf)
    far = Shared(150, 400, 34.0, 400 * 0.085 * 0.915)
    assert shared_p(far, 1.0) == pytest.approx(_binom_tail(150, 400, 0.085), rel=1e-6)
    assert 1e-70 < _binom_tail(150, 400, 0.085) < 1e-50


def test_card_sharing_per_pair_both_ways_fisher_over_the_signatures():
    base = [("g", "v", x, y, sig, f"{sig} s", 40, k) for x, y, sig, k in
            (("C", "D", "leave", 4), ("E", "F", "leave", 3), ("G", "H", "leave", 5), ("I", "J", "leave", 4),
             ("K", "L", "leave", 4), ("C", "D", "lead", 4), ("E", "F", "lead", 4), ("G", "H", "lead", 4),
             ("I", "J", "lead", 4), ("K", "L", "lead", 4))]
    rows = rows_of(base + [("g", "v", "A", "B", "leave", "leave s", 20, 9), ("g", "v", "B", "A", "leave", "leave s", 20, 7),
                           ("g", "v", "B", "A", "lead", "lead s", 30, 3)])
    eligible = {("g", "v", p) for p in "ABCDEFGHIJKL"}
    tests = {(t.player, t.other): t for t in card_sharing(rows, eligible)}
    t = tests[("A", "B")]
    # leave: 16 of 40 against the others' 20 of 200 (10%); lead: 3 of 30 against 20 of 200
    assert (t.n, t.evidence["hits"], t.evidence["expected"]) == (70, 19, 7.0)
    ev = t.evidence
    assert (ev["leave_hits"], ev["leave_chances"], ev["leave_expected"]) == (16, 40, 4.0)
    assert (ev["lead_hits"], ev["lead_chances"], ev["lead_expected"]) == (3, 30, 3.0)
    # leave: the other pairs' null takes in A-B's 16 of 40: C-D 4 hits against 32 of 200
    # (16%, z0² = 2.4² / 5.376), as I-J and K-L; E-F 2.35, G-H 0.27, A-B 40: the median
    # over the six is C-D's; lead: every other pair at its null (z0 = 0): φ = 1
    phi = (2.4 ** 2 / (40 * 0.16 * 0.84)) / CHI2_1_MEDIAN
    assert ev["leave_dispersion"] == pytest.approx(phi, abs=1e-3) and ev["lead_dispersion"] == 1.0
    from scipy.special import betainc

    p_leave = float(betainc(16 / phi, 24 / phi + 1, 0.1))  # 16/φ hits of 40/φ chances
    p_lead = _binom_tail(3, 30, 0.1)
    stat = -2 * (math.log(p_leave) + math.log(p_lead))
    assert t.p == pytest.approx(math.exp(-stat / 2) * (1 + stat / 2), rel=1e-6)  # chi-square, 4 df
    assert t.effect == pytest.approx(12 / 70)
    assert len(tests) == 6
    assert t.evidence["combined"] == "leave, lead"
    # a signature that every pair hits (rate above 95%) shows in the evidence, not in the p
    block = [("g", "v", x, y, "block", "block s", 10, 10) for x, y in (("A", "B"), ("C", "D"), ("E", "F"))]
    again = {(x.player, x.other): x for x in card_sharing(pl.concat([rows, rows_of(block)]), eligible)}[("A", "B")]
    assert (again.evidence["block_hits"], again.evidence["combined"], again.p) == (10, "leave, lead", t.p)
    # a pair with fewer than 20 chances, or a player not eligible, is not tested
    assert ("A", "B") not in {(x.player, x.other) for x in card_sharing(rows, eligible - {("g", "v", "A")})}
    assert ("A", "B") not in {(x.player, x.other) for x in card_sharing(rows, eligible, min_chances=71)}


def test_card_sharing_in_words():
    from paipu.analysis.fraud import Test
    from paipu.analysis.fraud.words import evidence_words, suspect_lines

    evidence = {"hits": 19, "chances": 70, "rate": 0.2714, "ci95": [0.1805, 0.3868], "baseline_rate": 0.1,
                "expected": 7.0, "leave_hits": 16, "leave_chances": 40, "leave_expected": 4.0, "z_leave": 6.3246,
                "leave_dispersion": 1.0, "p_leave": 1.2e-7, "lead_hits": 3, "lead_chances": 30, "lead_expected": 3.0,
                "z_lead": 0.0, "lead_dispersion": 1.0, "p_lead": 0.353,
                "telling": [["h1", 4, "leave", "A"], ["h2", 10, "lead", "B"]]}
    assert evidence_words("card_sharing", evidence) == (
        "acted as a partner who sees the cards would on 19 of 70 chances (27.1%, 95% interval 18.1% to 38.7%) "
        "where the population's rates at the same kinds of decision give 7 (10.0%); passes left to a partner who "
        "could beat 16 of 40 (expected 4, over-dispersion 1, z 6.3, p < 0.0001); leads only the partner could beat "
        "3 of 30 (expected 3, over-dispersion 1, z 0.0, p 0.35); telling decisions h1 #4 (leave, A), h2 #10 (lead, B)")
    t = Test("card_sharing", "doudizhu", "huopin", "A", "B", 1e-9, 0.1714, 70, evidence, q=1e-6, hands=["h1", "h2"])
    assert suspect_lines(1, t, 0.01)[0].startswith("  1 FLAG card_sharing doudizhu/huopin A & B  q < 0.0001")


def test_passes_where_the_partner_cannot_beat_do_not_move_the_null_of_a_pairs_passes():
    # (until 2026-12-04 a player's passes at its control chances scaled the null of its
    # leave chances, its "habit"; thrown hands and passes on a spared opponent are left out
    # in the SQL instead, and the scale only cost the sharers power: docs/fraud.md)
    control = [("g", "v", "A", "B", "control", "control s", 10, 5), ("g", "v", "C", "D", "control", "control s", 30, 3)]
    leave = [("g", "v", "A", "B", "leave", "leave s", 20, 9), ("g", "v", "B", "A", "leave", "leave s", 20, 7),
             ("g", "v", "C", "D", "leave", "leave s", 100, 10), ("g", "v", "A", "B", "lead", "lead s", 10, 1),
             ("g", "v", "C", "D", "lead", "lead s", 10, 1)]
    rows = rows_of(control + leave + [("g", "v", "A", "B", "block", "block s", 10, 10),
                                      ("g", "v", "C", "D", "block", "block s", 10, 9)])
    counts = pair_counts(rows)
    ab = counts[("g", "v", "A", "B")]
    # leave without A-B: 10 of 100, for both directions, whatever A did at its 10 control
    # chances (5 passes where the population's 20% gives 2)
    assert ab["leave"] == Shared(16, 40, pytest.approx(40 * 0.1), pytest.approx(40 * 0.1 * 0.9))
    assert ab["lead"].expected == pytest.approx(1.0) and "control" not in ab
    assert ab["block"].expected == pytest.approx(9.0)
    assert counts[("g", "v", "C", "D")]["leave"].expected == pytest.approx(100 * 16 / 40)


def _chances(decisions: list[tuple], spared: tuple[tuple[str, str], ...] = ()) -> list[tuple]:
    """share_chances.sql on hand-made decisions of Dou Dizhu hands: the landlord L at seat
    0, the farmers A (seat 1) and B (seat 2); each decision (hand, idx, seat, act, target
    seat, beaters), every seat with 10 cards; A's rows (hand, idx, sig, hit). *spared*:
    (sparer, spared) pairs found by soft play."""
    import duckdb

    con = duckdb.connect()
    hands = sorted({d[0] for d in decisions})
    con.execute("create temp table fraud_seats as select * from (values " + ", ".join(
        f"('doudizhu', '{h}', {s}, '{p}', '{side}')" for h in hands
        for s, p, side in ((0, "L", "landlord"), (1, "A", "farmers"), (2, "B", "farmers"))
    ) + ") t(game, hand_id, seat, player, side)")
    con.execute("create temp table hands as select * from (values " + ", ".join(
        f"('{h}', 'doudizhu', null)" for h in hands) + ") t(id, game, match_id)")
    con.execute("create temp table decisions (game varchar, variant varchar, hand_id varchar, idx int, seat tinyint, "
                "act varchar, lead boolean, can_beat boolean, target_seat tinyint, target_player varchar, "
                "beaters smallint, seats_left smallint[])")
    con.execute("create temp table decisions_in (hand_id varchar, idx int, seat tinyint, act varchar, "
                "target_seat tinyint, beaters smallint)")
    con.executemany("insert into decisions_in values (?, ?, ?, ?, ?, ?)", decisions)
    con.execute("insert into decisions select 'doudizhu', 'classic', hand_id, idx, seat, act, false, true, target_seat, "
                "['L', 'A', 'B'][target_seat + 1], beaters, [10, 10, 10] from decisions_in")
    con.execute("create temp table spared_pairs (game varchar, a varchar, t varchar)")
    for a, t in spared:
        con.execute("insert into spared_pairs values ('doudizhu', ?, ?)", [a, t])
    con.execute(sql_text("share_chances", SQL_DIR))
    rows = con.execute("select hand_id, idx, sig, hit from share_chances where a = 'A' order by all").fetchall()
    con.close()
    return rows


def test_a_thrown_hands_passes_on_opponents_are_no_chances():
    """A hand in which a player passed at every one of its (three or more) chances to beat
    an opponent's play, its partner able to take the trick or not, is thrown (a dumper
    passes on every play of it): none of its leave or control chances count; a hand with
    a play among them, or fewer than three, counts."""
    leave, control = 0b110, 0b010  # beaters: A and B, A alone (bit s: seat s)
    rows = _chances([
        ("h1", 1, 1, "pass", 0, leave), ("h1", 4, 1, "pass", 0, control), ("h1", 7, 1, "pass", 0, leave),
        ("h2", 1, 1, "pass", 0, leave), ("h2", 4, 1, "play", 0, control), ("h2", 7, 1, "pass", 0, leave),
        ("h3", 1, 1, "pass", 0, leave), ("h3", 4, 1, "pass", 0, leave),
    ])
    assert rows == [("h2", 1, "leave", True), ("h2", 4, "control", False), ("h2", 7, "leave", True),
                    ("h3", 1, "leave", True), ("h3", 4, "leave", True)]


def test_passes_on_an_opponent_the_player_is_found_sparing_are_no_chances():
    """A colluder spares its friend whoever its partner is: where soft play found A sparing
    L (``spared_pairs``), A's passes on L's plays are no card-sharing chances; without it
    they are (ten honest Guandan team mates of colluders were flagged on them)."""
    leave, control = 0b110, 0b010
    hand = [("h1", 1, 1, "pass", 0, leave), ("h1", 4, 1, "play", 0, control), ("h1", 7, 1, "pass", 0, leave)]
    assert _chances(hand) == [("h1", 1, "leave", True), ("h1", 4, "control", False), ("h1", 7, "leave", True)]
    assert _chances(hand, spared=(("A", "L"),)) == []
    assert _chances(hand, spared=(("B", "L"),)) == _chances(hand)  # another sparer: A's chances stay
