"""paipu.review_hand and ``paipu review INPUT --hand``: every decision of a hand reviewed
against the evaluator's best option (replay/review.py, docs/review.md)."""

from __future__ import annotations

import math
import os

import pytest
from helpers import ANTI_SPRING, ddz

from paipu.replay.cards import CARD_OF

import paipu
from paipu.replay.review import (
    BLUNDER, MISTAKE, STAKES, Z, DecisionReview, HandReview, decision_at, flag_of, review_hand,
)

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
    from what they could see (the landlord's second card hidden), wins every deal. Seat 2's
    grab declined is the best by points (-0.62 against -1.50), though grabbing wins more
    deals (3 of 8 against 2): a grab is judged by points (review.STAKES)."""
    review = review_hand(handmade(), samples=8, budget_ms=None)
    got = [(d.index, d.seat, d.kind, d.chosen, d.best, d.options, d.loss, d.flag) for d in review.decisions]
    assert got == [
        (0, 0, "bid", "bid yes", "bid yes", 2, 0.0, None),
        (1, 1, "grab", "grab no", "grab no", 2, 0.0, None),
        (2, 2, "grab", "grab no", "grab no", 2, 0.0, None),  # by points (-0.62 against -1.50; grabbing wins 3 deals to 2)
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
                                         (2, "王 五", 2, 1, 0.5, 50.0, 0, 1)]


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


def test_the_review_document_is_its_typed_dicts():
    """``HandReview.to_json`` is typed (``HandReviewJson`` and its parts, checked by mypy):
    the document holds exactly the keys the types declare, in their order."""
    from typing import get_type_hints

    from paipu.replay.review import DecisionJson, HandReviewJson, OptionJson, SeatJson, ThresholdsJson, ValueJson

    j = review_hand(handmade(), seats=[1], samples=8, budget_ms=None).to_json()
    assert list(j) == list(get_type_hints(HandReviewJson))
    assert list(j["thresholds"]) == list(get_type_hints(ThresholdsJson))
    assert [list(s) for s in j["seats"]] == [list(get_type_hints(SeatJson))]
    assert [d["index"] for d in j["decisions"]] == [1, 10]  # the farmer 李四: a grab and a pass
    for d in j["decisions"]:
        assert list(d) == list(get_type_hints(DecisionJson))
        for o in d["options_valued"]:
            assert list(o) == list(get_type_hints(OptionJson))
            assert list(o["win"]) == list(get_type_hints(ValueJson))


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


def test_the_bidding_an_importer_gives_is_not_reviewed():
    """A DouZero log has no bidding: its record's call and two refusals to grab are marked
    ``given`` (docs/formats.md) and are no decision of the seats, neither valued nor
    counted among the skipped; the plays are reviewed as any others."""
    from paipu.replay.io.readers import iter_file

    record = next(i.record for i in iter_file(os.path.join(os.path.dirname(__file__), "data", "foreign", "douzero.json"))
                  if i.record is not None and i.record["id"] == "douzero-2")
    assert [(a["act"], a.get("given")) for a in record["actions"][:4]] == [
        ("bid", "given"), ("grab", "given"), ("grab", "given"), ("play", None)]
    assert [decision_at(record, i) for i in range(6)] == [None, None, None, 65, 1, 1]
    review = review_hand(record, seats=[0], samples=2, budget_ms=None)
    assert [d.index for d in review.decisions][:2] == [3, 6] and all(d.kind in ("play", "pass") for d in review.decisions)
    ours = dict(record, actions=[{k: v for k, v in a.items() if k != "given"} for a in record["actions"]])
    assert decision_at(ours, 0) == 2  # the same call, not marked given: the landlord's decision
    assert [d.index for d in review_hand(ours, seats=[0], samples=2, budget_ms=None).decisions][:3] == [0, 3, 6]


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
    r = invoke("review", HANDMADE, "--hand", "ddz-handmade-1", "--budget", "nan")  # (it ran as no budget)
    assert r.exit_code == 2 and "--budget 0 or more" in r.stderr


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


# ---------------------------------------------------------------------------- 明牌: a shown hand


def _worlds_of_review(monkeypatch, record, seats):
    """Review *seats* of *record* (4 deals each, no budget) and catch every deal the
    evaluator valued: (index of the decision, the table of the deal)."""
    from paipu.replay import evaluate as module

    caught: list[tuple[int, object]] = []
    real = module.dealt

    def spy(table, know, rng, index, firsts, fits=None):
        world, after, loose = real(table, know, rng, index, firsts, fits)
        caught.append((index, world))
        return world, after, loose

    monkeypatch.setattr(module, "dealt", spy)
    review = review_hand(record, seats=seats, samples=4, budget_ms=None)
    return review, caught


def _held(table, seat):
    return sorted(c for c in range(54) for _ in range(table.hands[seat][c]))


def test_a_shown_hand_is_dealt_as_it_is_in_every_deal_of_a_review(monkeypatch):
    """The landlord shows before the bidding (明牌开始, ×5): in every deal of every farmer's
    decision its hand is exactly the true one (during the bidding its 17 cards; after,
    with the bottom); once the landlord's hand is known, the other farmer's is the rest of
    the unseen cards, so the farmers' deals are the true table itself."""
    from collections import Counter

    from paipu.replay.evaluate import decision_state

    record = ddz("0 show 5\n" + ANTI_SPRING)
    review, caught = _worlds_of_review(monkeypatch, record, [1, 2])
    assert [(d.index, d.kind) for d in review.decisions] == [(2, "grab"), (3, "grab"), (5, "play"), (6, "pass"),
                                                                  (8, "play"), (11, "play")]
    assert len(caught) == 6 * 4  # 6 decisions, 4 deals each
    deck = Counter(range(54))
    for index, world in caught:
        truth, _ = decision_state(record, index)
        assert _held(world, 0) == _held(truth, 0)  # the shown hand, exactly
        played = Counter(CARD_OF[t] for a in record["actions"][:index] if a["act"] == "play" for t in a["cards"])
        bottom = Counter(CARD_OF[t] for t in world.spec.bottom) if truth.phase == "bidding" else Counter()
        assert sum((Counter(_held(world, s)) for s in range(3)), Counter()) + played + bottom == deck  # every card once
        assert [world.left[s] for s in range(3)] == [truth.left[s] for s in range(3)]
        if truth.phase == "play":  # nothing hidden from a farmer any more
            assert [_held(world, s) for s in range(3)] == [_held(truth, s) for s in range(3)]
    # the bidding's deals do hide seat 2's cards and the bottom from seat 1: they vary
    assert len({tuple(_held(w, 2)) for i, w in caught if i == 2}) > 1


def test_without_the_show_the_landlords_hand_is_sampled(monkeypatch):
    """(The test above can fail: without 0 show 5 the landlord's hand is dealt at random
    around the bottom's cards, so that no deal of a farmer's lead gives its true hand.)"""
    record = ddz(ANTI_SPRING)
    review, caught = _worlds_of_review(monkeypatch, record, [1])
    from paipu.replay.evaluate import decision_state

    plays = [(i, w) for i, w in caught if i == 4]  # seat 1's 4h on the landlord's 3h (no show: index 4)
    assert len(plays) == 4
    truth, _ = decision_state(record, 4)
    assert all(_held(w, 0) != _held(truth, 0) for _, w in plays)
    assert all(set(_held(truth, 0)) & set(map(CARD_OF.__getitem__, ("2c", "3d", "BJ"))) <= set(_held(w, 0)) for _, w in plays)


# ---------------------------------------------------------------------------- a Guandan match: the hand before


GUANDAN = "sample_logs/guandan_standard_simulated.jsonl"
#: hands 3 and 4 of the sample's match: after hand 3 (order 1, 3, …: 双下) seats 0 and 2 pay
THIRD, FOURTH = "guandan-standard-s2026-000002", "guandan-standard-s2026-000003"


def _match_file(tmp_path, ids):
    import json

    with open(GUANDAN, encoding="utf-8") as f:
        lines = [line for line in f if json.loads(line)["id"] in ids]
    path = tmp_path / "match.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


def _rows(decisions):
    return [(d["index"], d["kind"], d["chosen"], d["best"], d["options"], d["loss"], d["flag"], d["samples"])
            for d in decisions]


def test_previous_hand_is_found_in_the_input_as_the_audit_chains_the_match(tmp_path):
    third, fourth = (next(r for r in paipu.read_records(GUANDAN) if r["id"] == i) for i in (THIRD, FOURTH))
    assert paipu.previous_hand(GUANDAN, fourth) == paipu.replay_hand(third, previous=paipu.previous_hand(GUANDAN, third)).outcome
    assert paipu.previous_hand(GUANDAN, fourth)["order"] == [1, 3]  # 双下: both of the other team pay
    # (hand 3 replayed without hand 2, as the audit of that file would: the same outcome)
    assert paipu.previous_hand(_match_file(tmp_path, {THIRD, FOURTH}), fourth) == paipu.previous_hand(GUANDAN, fourth)
    assert paipu.previous_hand(_match_file(tmp_path, {FOURTH}), fourth) is None  # the hand before is not in it
    first = next(paipu.read_records(GUANDAN))
    assert paipu.previous_hand(GUANDAN, first) is None  # a match's first hand
    assert paipu.previous_hand(HANDMADE, handmade()) is None  # Dou Dizhu plays no matches
    ds = tmp_path / "ds"
    paipu.ingest([GUANDAN], str(ds))
    assert paipu.previous_hand(str(ds), fourth) == paipu.previous_hand(GUANDAN, fourth)


def test_review_of_a_tribute_hand_takes_the_previous_hand_from_the_input(tmp_path):
    """Hand 4 after 双下: seats 0 and 2 pay (seat 2 its BJ to seat 1), seats 1 and 3
    return. From the previous hand a returner knows that the givers together did not
    hold both big jokers (they would have resisted): the deals of its returns are held to
    it, and the review from the command line, with the hand before in the file, is the
    review given that hand; with the hand alone in the file, the review without it."""
    import json

    fourth = next(r for r in paipu.read_records(GUANDAN) if r["id"] == FOURTH)
    previous = paipu.previous_hand(GUANDAN, fourth)
    fast = ("--samples", "4", "--budget", "0")
    with_prev = review_hand(fourth, samples=4, budget_ms=None, previous=previous).to_json()["decisions"]
    alone = review_hand(fourth, samples=4, budget_ms=None).to_json()["decisions"]
    returns = [(d["index"], d["seat"], d["kind"], d["chosen"]) for d in with_prev if d["kind"] in ("tribute", "return")]
    assert returns == [(2, 1, "return", "5h"), (3, 3, "return", "5d")]  # (the tributes had one option each)
    assert _rows(with_prev) != _rows(alone)
    r = invoke("review", _match_file(tmp_path, {THIRD, FOURTH}), "--hand", FOURTH, "--json", *fast)
    assert r.exit_code == 0, r.output
    assert _rows(json.loads(r.stdout)["decisions"]) == _rows(with_prev)
    r = invoke("review", _alone(tmp_path), "--hand", FOURTH, "--json", *fast)
    assert r.exit_code == 0, r.output
    assert _rows(json.loads(r.stdout)["decisions"]) == _rows(alone)


def _alone(tmp_path):
    sub = tmp_path / "alone"
    sub.mkdir()
    return _match_file(sub, {FOURTH})


def _decision(kind: str, chosen: tuple[list[float], list[float]], other: tuple[list[float], list[float]]) -> DecisionReview:
    """A decision of two options valued on the same deals: (wins, points) of each."""
    from paipu.replay.evaluate import Evaluation, Option

    options = [Option(None, f"{kind} yes", True, wins=chosen[0], points=chosen[1]),
               Option(None, f"{kind} no", False, wins=other[0], points=other[1])]
    return DecisionReview.of(Evaluation("h", 0, 0, (), options, 8, 0, 0, 1.0, 0, "fast"), kind)


def test_a_bid_or_grab_is_judged_by_points_and_a_play_by_win_probability():
    from paipu.replay.review_view import shown_options

    # calling wins 4 deals of 8 as the landlord (+-2 a deal); declining 3 as a farmer (+-1)
    call = ([1.0] * 4 + [0.0] * 4, [2.0] * 4 + [-2.0] * 4)
    decline = ([1.0] * 3 + [0.0] * 5, [1.0] * 3 + [-1.0] * 5)
    assert "bid" in STAKES and "grab" in STAKES and "play" not in STAKES
    bid = _decision("bid", call, decline)  # 0 points against -0.25: calling is best by points too
    assert (bid.chosen, bid.best, bid.loss, bid.flag) == ("bid yes", "bid yes", 0.0, None)
    # the landlord's call wins 4 of 8 at +-2 (0 points), a farmer's decline 5 of 8 at +-1 (+0.25)
    decline = ([1.0] * 5 + [0.0] * 3, [1.0] * 5 + [-1.0] * 3)
    bid = _decision("bid", call, decline)
    assert (bid.best, bid.matched, bid.loss, bid.flag) == ("bid no", False, 12.5, None)
    # the decline better by points but winning fewer deals: no loss in win probability
    weak = ([1.0] * 3 + [0.0] * 5, [3.0] * 3 + [-1.0] * 5)  # +0.5 points
    bid = _decision("bid", call, weak)
    assert (bid.best, bid.matched, bid.loss, bid.flag) == ("bid no", False, 0.0, None)
    assert bid.loss_se == pytest.approx(12.5)  # (the difference's: one deal of eight differs)
    # a grab that wins more deals (5 of 8: +4, else -12) but fewer points than declining (1 of 8: +7, else -1)
    grab = _decision("grab", ([1.0] * 5 + [0.0] * 3, [4.0] * 5 + [-12.0] * 3), ([1.0] + [0.0] * 7, [7.0] + [-1.0] * 7))
    assert (grab.best, grab.loss, grab.flag) == ("grab no", 0.0, None)  # -2.0 against 0 points
    assert [o.label() for o in shown_options(grab)] == ["grab no", "grab yes"]  # listed as judged
    # equal points: win probability breaks the tie (call: 4 of 8 at +-2; decline 6 of 8 at +-0 / +-0)
    tie = _decision("bid", call, ([1.0] * 6 + [0.0] * 2, [0.0] * 8))
    assert (tie.best, tie.loss) == ("bid no", 25.0)
    # a grab chosen that loses every deal, against a decline that wins every one: a blunder
    grab = _decision("grab", ([0.0] * 8, [-4.0] * 8), ([1.0] * 8, [1.0] * 8))
    assert (grab.best, grab.loss, grab.loss_se, grab.flag) == ("grab no", 100.0, 0.0, "blunder")
    # the same values as a play: the best by win probability (4 of 8 against 3), however the points
    play = _decision("play", call, weak)
    assert (play.best, play.loss, play.flag) == ("play yes", 0.0, None)
    assert [o.label() for o in shown_options(play)] == ["play yes", "play no"]
