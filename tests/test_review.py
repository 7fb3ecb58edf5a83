"""paipu.review_hand and ``paipu review INPUT --hand``: every decision of a hand reviewed
against the evaluator's best option (replay/review.py, docs/review.md)."""

from __future__ import annotations

import math

import pytest
from helpers import ANTI_SPRING, ddz

import paipu
from paipu.replay.review import BLUNDER, MISTAKE, Z, HandReview, decision_at, flag_of, review_hand

HANDMADE = "sample_logs/doudizhu_handmade.paipu"

#: Dou Dizhu (tests/helpers.py's deal): farmer seat 1 holds 4d..9d, a six-card straight
#: that goes out at once, and plays five of them instead
SHORT_STRAIGHT = ANTI_SPRING[:ANTI_SPRING.rindex("1 play")] + "1 play 4d 5d 6d 7d 8d\n"


def handmade() -> dict:
    return next(paipu.read_records(HANDMADE))


# ---------------------------------------------------------------------------- the library


def test_flags_need_the_loss_beyond_its_standard_error():
    assert (MISTAKE, BLUNDER, Z) == (5.0, 15.0, 2.0)
    assert flag_of(0.0, 0.0) is None
    assert flag_of(4.9, 0.0) is None  # under the mistake threshold, however sure
    assert flag_of(5.0, 0.0) == "mistake" and flag_of(5.0, 2.4) == "mistake"
    assert flag_of(5.0, 2.5) is None  # loss − 2 SE = 0: not beyond its noise
    assert flag_of(15.0, 5.0) == "blunder"  # 15 − 10 = 5, at least a mistake at its low bound
    assert flag_of(15.0, 5.1) == "mistake"
    assert flag_of(40.0, 19.9) == "mistake" and flag_of(40.0, 20.0) is None
    assert flag_of(60.0, math.nan) is None  # one deal: no standard error, no flag
    assert flag_of(100.0, 0.0, deals=7) is None and flag_of(100.0, 0.0, deals=8) == "blunder"  # MIN_DEALS


def test_the_rocket_hand_the_landlord_matches_and_the_farmers_pass_a_winning_pair():
    """The doctest hand of replay/evaluate.py: every option of the landlord's last-but-one
    lead wins, the rocket first only doubles the stake, so the loss in win probability is 0
    and the best by points (SJ BJ) is not a mistake; the farmers each pass a pair that,
    from what they could see (the landlord's second card hidden), wins every deal."""
    review = review_hand(handmade(), samples=8, budget_ms=None)
    got = [(d.index, d.seat, d.kind, d.chosen, d.best, d.options, d.loss, d.flag) for d in review.decisions]
    assert got == [
        (0, 0, "bid", "bid yes", "bid yes", 2, 0.0, None),
        (1, 1, "grab", "grab no", "grab no", 2, 0.0, None),
        (2, 2, "grab", "grab no", "grab yes", 2, 12.5, None),  # SE 29.5: not beyond its noise
        (3, 0, "play", "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As", "2s 2h 2d 2c", 24, 0.0, None),  # 178 legal: the shortlist of 24 (evaluate.MAX_OPTIONS)
        (6, 0, "play", "2s 2h 2d 2c", "2s 2h 2d 2c", 16, 0.0, None),
        (9, 0, "play", "3h 3d", "SJ BJ", 5, 0.0, None),
        (10, 1, "pass", "pass", "4h 4d", 7, 100.0, "blunder"),
        (11, 2, "pass", "pass", "Td Tc", 6, 100.0, "blunder"),
        (12, 0, "play", "SJ BJ", "SJ BJ", 3, 0.0, None),
    ]
    # the farmers' passes on the straight and the bomb had no other option: skipped, counted
    assert review.skipped == 4
    d = review.decisions[5]
    assert d.evaluation.chosen.label() == "3h 3d" and d.loss_se == 0.0
    assert d.samples == 8 and not d.exact and not d.relaxed and d.matched is False
    assert [(s.seat, s.player, s.decisions, s.matches, s.match_rate, s.mean_loss, s.mistakes, s.blunders)
            for s in review.seats()] == [(0, "张三", 5, 3, 0.6, 0.0, 0, 0), (1, "李四", 2, 1, 0.5, 50.0, 0, 1),
                                         (2, "王 五", 2, 0, 0.0, 56.25, 0, 1)]


def test_a_short_straight_instead_of_going_out_is_a_blunder():
    record = ddz(SHORT_STRAIGHT)
    calls = []
    review = review_hand(record, seats=[1], samples=8, budget_ms=None, on_decision=lambda k, n: calls.append((k, n)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]  # grab, 4h, the ten-card straight, the five
    last = review.decisions[-1]
    assert (last.index, last.chosen, last.best, last.options) == (10, "4d 5d 6d 7d 8d", "4d 5d 6d 7d 8d 9d", 9)
    best = next(o for o in last.evaluation.options if o.label() == last.best)
    chosen = last.evaluation.chosen
    assert best.wins == [1.0] * 8  # it goes out: the farmers win every deal
    assert last.loss == pytest.approx(100 * (1 - sum(chosen.wins) / 8))
    assert last.loss == 50.0 and last.loss_se == pytest.approx(100 * math.sqrt(0.25 / 7))
    assert last.flag == "blunder"  # 50 − 2·18.9 ≥ 5
    assert review.reviewed == (1,) and {d.seat for d in review.decisions} == {1}


def test_rows_are_flat_and_json_is_plain():
    review = review_hand(handmade(), seats=[0], samples=2, budget_ms=None)
    row = review.decisions[0].row()
    assert list(row) == ["hand_id", "index", "seat", "kind", "chosen", "best", "options", "loss", "loss_se", "flag",
                         "samples", "exact", "relaxed"]
    assert row == {"hand_id": "ddz-handmade-1", "index": 0, "seat": 0, "kind": "bid", "chosen": "bid yes",
                   "best": "bid yes", "options": 2, "loss": 0.0, "loss_se": 0.0, "flag": None, "samples": 2,
                   "exact": False, "relaxed": False}
    j = review.to_json()
    assert j["thresholds"] == {"mistake": 5.0, "blunder": 15.0, "z": 2.0}
    assert (j["hand_id"], j["game"], j["variant"], j["seats_reviewed"], j["skipped"]) == \
        ("ddz-handmade-1", "doudizhu", "huopin", [0], 0)
    first = j["decisions"][0]
    assert [(o["label"], o["chosen"]) for o in first["options_valued"]] == [("bid yes", True), ("bid no", False)]
    assert j["seats"] == [{"seat": 0, "player": "张三", "decisions": 5, "matches": 3, "match_rate": 0.6,
                           "mean_loss": 0.0, "mistakes": 0, "blunders": 0}]


def test_one_deal_gives_no_standard_error_and_json_has_no_nan():
    import json

    review = review_hand(ddz(SHORT_STRAIGHT), seats=[1], samples=1, budget_ms=None)
    last = review.decisions[-1]
    assert math.isnan(last.loss_se) and last.flag is None
    text = json.dumps(review.to_json(), allow_nan=False)  # NaN as null
    assert '"loss_se": null' in text


def test_what_is_no_decision_and_bad_seats():
    record = handmade()
    assert [decision_at(record, i) for i in range(len(record["actions"]))] == [2, 2, 2, 178, 1, 1, 16, 1, 1, 5, 7, 6, 3]
    with pytest.raises(ValueError, match="seat 3: the hand has seats 0..2"):
        review_hand(record, seats=[3])
    empty = review_hand(record, seats=[], samples=2, budget_ms=None)
    assert empty == HandReview("ddz-handmade-1", "doudizhu", (), "huopin", ("张三", "李四", "王 五"), (), 0)
    assert empty.seats() == []


def test_the_public_names():
    from paipu.replay import review

    assert paipu.review_hand is review.review_hand and paipu.HandReview is review.HandReview
    assert paipu.DecisionReview is review.DecisionReview and paipu.SeatSummary is review.SeatSummary


# ---------------------------------------------------------------------------- the command

FAST = ["--samples", "8", "--budget", "0"]


def invoke(*args):
    from typer.testing import CliRunner

    from paipu.cli import app

    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_review_json_is_the_hand_review():
    import json

    r = invoke("review", HANDMADE, "--hand", "ddz-handmade-1", "--seat", "1", "--json", *FAST)
    assert r.exit_code == 0, r.output
    j = json.loads(r.stdout)
    assert j == review_hand(handmade(), seats=[1], samples=8, budget_ms=None).to_json() | {
        "decisions": j["decisions"]}  # (elapsed_ms differs run to run)
    assert list(j) == ["hand_id", "game", "variant", "players", "seats_reviewed", "skipped", "thresholds", "decisions",
                       "seats"]
    assert [(d["index"], d["kind"], d["chosen"], d["best"], d["loss"], d["loss_se"], d["flag"]) for d in j["decisions"]] \
        == [(1, "grab", "grab no", "grab no", 0.0, 0.0, None), (10, "pass", "pass", "4h 4d", 100.0, 0.0, "blunder")]
    options = j["decisions"][1]["options_valued"]
    assert [(o["label"], o["chosen"], o["win"]) for o in options][-1] == ("pass", True, {"mean": 0.0, "se": 0.0})
    assert options[0] == {"label": "4h 4d", "cards": ["4h", "4d"], "kind": "pair", "chosen": False,
                          "win": {"mean": 1.0, "se": 0.0}, "points": {"mean": 2.0, "se": 0.0},
                          "coins": {"mean": 190.0, "se": 0.0}}  # (base 1, coef 100, fee 10)
    assert j["seats"] == [{"seat": 1, "player": "李四", "decisions": 2, "matches": 1, "match_rate": 0.5,
                           "mean_loss": 50.0, "mistakes": 0, "blunders": 1}]


def test_review_in_the_terminal_shows_options_loss_flags_and_the_summary():
    r = invoke("review", HANDMADE, "--hand", "ddz-handmade-1", "--seat", "1", *FAST)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    at = lines.index("#10 seat 1 李四 · pass")
    assert lines[at + 1] == "  loss 100.0 ±0.0  BLUNDER · 8 deals"
    assert lines[at + 2].split() == ["4♥", "4♦", "100.0±0.0", "+2.00"]
    assert lines[at + 5].split() == [">", "pass", "0.0±0.0", "-2.00"]  # the chosen option, marked
    assert lines[at + 6] == "    … and 3 more"
    assert lines[-5:] == ["  seat 1 李四", "    decisions 2 · best 1 (50.0%)", "    mean loss 50.0",
                          "    mistakes 0 · blunders 1", "one-option decisions skipped: 2"]
    assert lines[0] == "ddz-handmade-1 · 斗地主 doudizhu/huopin"


def test_review_lines_fit_40_columns():
    from rich.text import Text

    from paipu.replay.review_view import review_lines

    review = review_hand(handmade(), samples=2, budget_ms=None)
    for lang in ("en", "zh"):
        lines = review_lines(review, lang, 40, samples=2, budget_ms=None)
        assert max(Text.cell_len.fget(line) for line in lines) <= 40, [t.plain for t in lines if t.cell_len > 40]
    plain = [t.plain for t in review_lines(review, "en", 40, samples=2, budget_ms=None)]
    # the twelve-card straight gets a line of its own, its values under it, right-aligned
    at = plain.index("  > 3♠ 4♠ 5♠ 6♠ 7♠ 8♠ 9♠ 10♠ J♠ Q♠ K♠ A♠")
    assert plain[at + 1].endswith("+8.00") and len(plain[at + 1]) == 40


def test_review_in_chinese():
    r = invoke("review", HANDMADE, "--hand", "ddz-handmade-1", "--seat", "1", "--lang", "zh", *FAST)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    at = lines.index("#10 座位 1 李四 · 不出")
    assert lines[at + 1] == "  损失 100.0 ±0.0  恶手 · 8 次发牌"
    assert lines[at + 5].split() == [">", "不出", "0.0±0.0", "-2.00"]
    assert "#1 座位 1 李四 · 抢地主" in lines and "    失误 0 · 恶手 1" in lines


def test_review_errors_are_one_line():
    r = invoke("review", HANDMADE, "--hand", "nope", *FAST)
    assert r.exit_code == 2 and "no hand 'nope' in sample_logs/doudizhu_handmade.paipu" in r.stderr
    r = invoke("review", HANDMADE, "--hand", "ddz-handmade-1", "--seat", "5")
    assert r.exit_code == 2 and "--seat must be 0..2" in r.stderr
    r = invoke("review", HANDMADE)
    assert r.exit_code == 2 and "give the hand to review with --hand ID" in r.stderr
    r = invoke("review", HANDMADE, "--hand", "ddz-handmade-1", "--lang", "fr")
    assert r.exit_code == 2 and "--lang must be en or zh" in r.stderr


def test_review_html_draws_bars_flags_and_escapes_names(tmp_path):
    import json
    import re

    from paipu.replay.io.jsonl import record_to_json

    evil = "<img src=x onerror=alert(1)>"
    record = handmade()
    record["players"][1] = evil
    src = tmp_path / "h.jsonl"
    src.write_bytes(record_to_json(record) + b"\n")
    page = tmp_path / "h.html"
    r = invoke("review", str(src), "--hand", "ddz-handmade-1", "--seat", "1", "--html", str(page), *FAST)
    assert r.exit_code == 0, r.output
    text = page.read_text(encoding="utf-8")
    assert evil not in text and "\\u003cimg src=x onerror=alert(1)\\u003e" in text
    data = json.loads(re.search(r"<script type='application/json' id='hand-data'>(.*?)</script>", text, re.S)
                      .group(1))
    step = data["review"]["steps"]["10"]
    assert (step["flag"], step["loss"], step["best"]) == ("blunder", 100.0, {"en": "4♥ 4♦", "zh": "4♥ 4♦"})
    assert step["shown"][-1] == {"label": {"en": "pass", "zh": "不出"}, "chosen": True, "win": 0.0, "win_se": 0.0,
                                 "points": -2.0}
    assert data["review"]["seats"][0]["player"] == evil  # (as JSON data, drawn with textContent)
    assert list(data["review"]["steps"]) == ["1", "10"]
    assert 'el("span", "bar")' in text and "flag-" in text  # the script draws bars and flags


def test_replay_review_marks_the_flagged_moves(monkeypatch):
    import functools

    # (the replay reviews at the defaults, whose deals hang on the machine's speed: fixed here)
    monkeypatch.setattr(paipu, "review_hand", functools.partial(review_hand, seats=[1, 2], samples=8, budget_ms=None))
    r = invoke("replay", HANDMADE, "--review")
    lines = r.stdout.splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith(" 10  1 李四"))
    assert lines[at + 1] == "       ✖ BLUNDER (loss 100.0, best 4♥ 4♦)"
    assert lines[at + 3] == "       ✖ BLUNDER (loss 100.0, best 10♦ 10♣)"
    assert not any("⚠" in line or "✖" in line for line in lines[:at])


def test_replay_pages_of_several_hands_carry_their_reviews(monkeypatch, tmp_path):
    import functools
    import json
    import re

    monkeypatch.setattr(paipu, "review_hand", functools.partial(review_hand, seats=[1], samples=2, budget_ms=None))
    source = "sample_logs/doudizhu_simulated.jsonl"
    ids = [r["id"] for r in list(paipu.read_records(source))[:2]]
    r = invoke("replay", source, "--hands", ",".join(ids), "--html", str(tmp_path), "--review")
    assert r.exit_code == 0, r.output
    for hand_id in ids:
        text = (tmp_path / f"{hand_id}.html").read_text(encoding="utf-8")
        data = json.loads(re.search(r"id='hand-data'>(.*?)</script>", text, re.S).group(1))
        assert [s["seat"] for s in data["review"]["seats"]] == [1] and data["review"]["steps"]


def test_a_hand_that_breaks_a_rule_is_reviewed_up_to_it_and_exits_1(tmp_path):
    import json

    from paipu.replay.io.jsonl import record_to_json

    record = handmade()
    record["actions"][10] = {"seat": 1, "act": "play", "cards": ["2s"]}  # seat 1 does not hold 2♠
    src = tmp_path / "bad.jsonl"
    src.write_bytes(record_to_json(record) + b"\n")
    r = invoke("review", str(src), "--hand", "ddz-handmade-1", "--seat", "1", "--json", *FAST)
    assert r.exit_code == 1
    assert [d["index"] for d in json.loads(r.stdout)["decisions"]] == [1]  # the grab; not the bad play
    assert r.stderr.strip() == (f"{src}: hand 'ddz-handmade-1' breaks a rule at action 10 (not_in_hand): "
                                "the decisions after it are not reviewed")
