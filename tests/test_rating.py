"""The rating's intervals (analysis/rating.py) and the separation benchmark's figures
(benchmarks/review.py --separation) on small known data."""

import importlib.util
import os

from paipu.analysis.rating import loss_interval, ratio_interval

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bench():
    spec = importlib.util.spec_from_file_location("review_bench", os.path.join(ROOT, "benchmarks", "review.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_match_rate_clustered_by_hand():
    # 3 matches in 5 decisions over hands of 2, 2, 1: residuals -0.2, 0.8, -0.6, se sqrt(1.5 * 1.04) / 5
    m, lo, hi = ratio_interval([2, 2, 1], [1, 2, 0])
    assert (m, round(lo, 4), round(hi, 4)) == (0.6, -0.4748, 1.6748)
    assert loss_interval([2, 2, 1], [4.0, 0.0, 2.0])[0] == 1.2


def test_separation_figures_of_known_hands():
    b = bench()
    row = b.level_row([(2, 1, 4.0, 0, 1, 0.5), (2, 2, 0.0, 0, 0, 0.5), (1, 0, 2.0, 1, 0, 0.5), (0, 0, 0.0, 0, 0, 0.1)])
    assert (row["hands"], row["decisions"], row["match"], row["mistakes"], row["blunders"]) == (4, 5, 0.6, 0.2, 0.2)
    assert [round(x, 3) for x in row["loss"]] == [1.2, -1.955, 4.355]
    weak, strong = {"loss": (10.0, 9.0, 11.0)}, {"loss": (8.0, 7.0, 9.5)}
    assert b.separated([weak, strong]) == (True, False)
    assert b.separated([weak, {"loss": (8.0, 7.0, 8.5)}]) == (True, True)
    # the lead loss: over the hands with a lead, their leads' losses (6 and 2 over 2 and 1 leads)
    row = b.level_row([(3, 1, 7.0, 0, 0, 0.1, 2, 6.0), (2, 2, 2.0, 0, 0, 0.1, 1, 2.0), (1, 1, 0.0, 0, 0, 0.1, 0, 0.0)])
    assert row["leads"] == 3 and round(row["lead_loss"][0], 4) == round(8.0 / 3, 4)


def test_leads_are_the_plays_that_open_a_trick():
    b = bench()
    record = {"players": ["a", "b", "c"], "actions": [
        {"seat": 0, "act": "bid", "call": True}, {"seat": 0, "act": "play"}, {"seat": 1, "act": "pass"},
        {"seat": 2, "act": "play"}, {"seat": 0, "act": "pass"}, {"seat": 1, "act": "pass"}, {"seat": 2, "act": "play"},
        {"seat": 0, "act": "play"}]}
    assert b.leads(record) == {1, 6}


def test_side_won_and_paired_strength():
    b = bench()
    lord = {"players": ["a", "b", "c"], "result": {"order": [1], "landlord": 1, "scores": [-2, 4, -2]}}
    farmers = {"players": ["a", "b", "c"], "result": {"order": [2], "landlord": 1, "scores": [2, -4, 2]}}
    redeal = {"players": ["a", "b", "c"], "result": {"order": [], "redeal": True, "scores": [0, 0, 0]}}
    assert [b.side_won(lord, s) for s in range(3)] == [0, 1, 0]
    assert [b.side_won(farmers, s) for s in range(3)] == [1, 0, 1]
    assert b.side_won(redeal, 0) is None
    # deal 0: seat 0, deal 1: seat 1, deal 2: a redeal, left out
    ((pair, deals, wins, points),) = b.strength_gaps(["x", "y"], [[lord, lord, redeal], [farmers, farmers, lord]], 3)
    assert (pair, deals, wins[0], points[0]) == ("y - x", 2, 0.0, -2.0)  # +1, -1 wins; +4, -8 points
    mean, lo, hi = b.paired([1, 0, 1, 1])
    assert mean == 0.75 and (round(lo, 3), round(hi, 3)) == (-0.046, 1.546)
