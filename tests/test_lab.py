"""The designers' lab: rule changes from the command line, duplicate deals and their
comparison, interrupted and parallel runs, and how the default bot plays."""

from __future__ import annotations

import gzip
import json
import os
import signal

import polars as pl
import pytest
from typer.testing import CliRunner

from paipu.analysis.compare import paired, sentences
from paipu.cli import app
from paipu.replay.cards import CARD_OF, RANK, pack
from paipu.replay.games import find_rules
from paipu.replay.replayer import Matches, replay
from paipu.replay.sim import BLOCK, simulate
from paipu.replay.sim.run import simulate_settings
from paipu.replay.sim.run import Job, jobs, write
from paipu.replay.sim.settings import SettingError, changes, load_toml, setting, settings_of
from helpers import BID_0, code_at, ddz, stepping

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


# ----------------------------------------------------------------- rule changes

def test_a_removed_kind_is_illegal_in_records_of_that_setting():
    rules = find_rules("ddz")
    params = changes(rules, ["kinds-=four_two_single"])
    assert set(rules.kinds) - set(params["kinds"]) == {"four_two_single"}
    assert rules.with_params(params).kinds == rules.kinds - {"four_two_single"}
    four_two = BID_0 + "0 play 2s 2h 2d 2c 3h 3d\n"
    assert code_at(ddz(four_two)) is None or code_at(ddz(four_two))[0] == "incomplete"
    assert code_at(ddz(four_two, params=params)) == ("invalid_combo", 3)


def test_rule_values_of_every_type():
    pdk = find_rules("pdk", "classic")
    p = changes(pdk, ["must-play=yes", "deck=52", "opening_card=3d", "scoring=huopin", "kinds+=triple_two"])
    r = pdk.with_params(p)
    assert (r.must_play, len(r.deck), r.opening_card, r.scoring) == (True, 52, CARD_OF["3d"], "huopin")
    assert "triple_two" in r.kinds
    ddz_rules = find_rules("ddz")
    assert ddz_rules.with_params(changes(ddz_rules, ["escape_landlord=30,5"])).escape_landlord == (30, 5)


@pytest.mark.parametrize("change,message", [
    ("colour=red", "--rule colour=red: no rule 'colour' in doudizhu/huopin (known: players, deck, bottom, kinds, "
                   "max_play, straight_min, pair_chain_min, triple_chain_min, peek_limit, escape_threshold, "
                   "escape_landlord, escape_farmer, kicker_rocket, wing_next_to_chain, wing_four, "
                   "airplane_highest_triple, bomb_on_rocket)"),
    ("straight_min=six", "--rule straight_min=six: straight_min expects an integer (now 5)"),
    ("kinds-=bogus", "--rule kinds-=bogus: 'bogus' is not in kinds (has: airplane_pair, airplane_single, bomb, "
                     "four_two_pair, four_two_single, pair, pair_chain, rocket, single, straight, triple, "
                     "triple_chain, triple_pair, triple_single)"),
    ("kinds+=plate", "--rule kinds+=plate: kinds: 'plate' is not one of single, pair, triple, triple_single, "
                     "triple_pair, straight, pair_chain, triple_chain, airplane_single, airplane_pair, "
                     "four_two_single, four_two_pair, bomb, rocket"),
    ("escape_landlord=1", "--rule escape_landlord=1: escape_landlord: expected a list like [20, 4], got [1]"),
    ("straight_min 6", "--rule straight_min 6: expected NAME=VALUE, NAME+=A,B or NAME-=A,B (rules: players, deck, "
                       "bottom, kinds, max_play, straight_min, pair_chain_min, triple_chain_min, peek_limit, "
                       "escape_threshold, escape_landlord, escape_farmer, kicker_rocket, wing_next_to_chain, "
                       "wing_four, airplane_highest_triple, bomb_on_rocket)"),
])
def test_bad_rule_changes_are_one_line_errors(change, message):
    with pytest.raises(SettingError) as e:
        changes(find_rules("ddz"), [change])
    assert str(e.value) == message
    r = invoke("simulate", "--game", "ddz", "-n", "2", "--rule", change)
    assert r.exit_code == 2 and r.stderr.strip() == "error: " + message


def test_rules_file(tmp_path):
    good = tmp_path / "no42.toml"
    good.write_text('# what if four-with-two were not allowed?\nkinds- = ["four_two_single", "four_two_pair"]\n'
                    "straight_min = 6\n", encoding="utf-8")
    params = load_toml(find_rules("ddz"), str(good))
    assert params["straight_min"] == 6 and "four_two_pair" not in params["kinds"]
    bad = tmp_path / "bad.toml"
    bad.write_text("straight_min = 6\npeek_limit = \"two\"\n", encoding="utf-8")
    with pytest.raises(SettingError) as e:
        load_toml(find_rules("ddz"), str(bad))
    assert str(e.value) == f"{bad}:2: peek_limit expects an integer (now 2)"
    r = invoke("simulate", "--game", "ddz", "-n", "3", "--rules", str(good), "--out", str(tmp_path / "o.jsonl"))
    assert r.exit_code == 0
    records = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert all(x["params"] == params for x in records)


def test_settings_of_compare():
    assert setting(find_rules("ddz"), "base") == {}
    both = setting(find_rules("ddz"), "kinds-=bomb straight_min=6")
    assert both["straight_min"] == 6 and "bomb" not in both["kinds"]
    assert settings_of("ddz", None, ["peek_limit=0"], None, ["base", "straight_min=6"]) == [
        {"peek_limit": 0}, {"peek_limit": 0, "straight_min": 6}]
    with pytest.raises(SettingError, match="the same setting as 'base'"):
        settings_of("ddz", None, [], None, ["base", "default"])


# ----------------------------------------------------------------- every setting audits clean

SETTINGS = [
    ("doudizhu", None, 40, ["kinds-=bomb,rocket", "straight_min=6", "kinds-=four_two_single,four_two_pair"]),
    ("paodekuai", "huopin", 40, ["must_play=false", "let_go=false xiqian=false", "kinds-=four_three"]),
    ("paodekuai", "classic", 40, ["deck=52", "must_play=true let_go=true", "ace_low=false"]),
    ("guandan", "standard", 14, ["tribute=false", "kinds-=plate,pair_chain", "double_bomb_size=6"]),
    ("shuangkou", "huopin", 14, ["straight_min=6", "max_bomb=8", "kinds-=bomb_chain"]),
]


@pytest.mark.parametrize("game,variant,hands,specs", SETTINGS)
def test_every_hand_of_every_setting_audits_clean(game, variant, hands, specs):
    params = settings_of(game, variant, [], None, ["base"] + specs)
    matches = Matches()
    records = list(simulate_settings(game, variant, hands, 3, params))
    assert len(records) == hands * len(params)
    for r in records:
        result = matches.replay(r)
        assert result.ok, (r["id"], result.violation)
    # duplicate deals: deal k is the same cards under every setting (unless the deck changed)
    by_deal: dict[str, set] = {}
    for r in records:
        if "deck" not in r.get("params", {}):
            by_deal.setdefault(r["id"].rsplit("-", 1)[1], set()).add(json.dumps(r["deal"]))
    assert all(len(v) == 1 for v in by_deal.values())
    assert len({r["id"] for r in records}) == len(records)


# ----------------------------------------------------------------- comparison statistics

def frame(base: list[int], other: list[int], figure: str = "bombs") -> pl.DataFrame:
    rows = []
    for k, (a, b) in enumerate(zip(base, other)):
        for setting_, x in (("", a), ('{"straight_min": 6}', b)):
            rows.append({"game": "doudizhu", "variant": "huopin", "setting": setting_, "deal_key": f"d{k}",
                         "hand_id": f"{setting_}{k}", figure: float(x)})
    return pl.DataFrame(rows)


def test_paired_difference_exact_and_too_few_pairs_never_significant():
    out = paired(frame([1, 0, 1, 1], [0, 0, 1, 0]))
    row = out.row(0, named=True)
    assert (row["setting"], row["pairs"], row["base_mean"], row["setting_mean"], row["diff"]) == \
        ("straight_min=6", 4, 0.75, 0.25, -0.5)
    se = (1 / 3) ** 0.5 / 2
    assert row["lo"] == pytest.approx(-0.5 - 1.959964 * se) and row["hi"] == pytest.approx(-0.5 + 1.959964 * se)
    assert row["testable"] is False and row["significant"] is False
    # said so, not "no significant difference (... over 0 tests)"
    assert sentences(out) == ["doudizhu/huopin: straight_min=6 against base on 4 shared deals: too few shared deals "
                              "to test (a difference is tested from 30)."]


def test_a_clear_difference_is_named_and_no_difference_is_not():
    base = [k % 3 for k in range(60)]
    out = paired(frame(base, [x + 1 for x in base[:30]] + [x + 2 for x in base[30:]]))
    assert out["significant"].to_list() == [True]
    said = sentences(out)
    assert said == ["doudizhu/huopin: straight_min=6 against base on 60 shared deals: bombs a hand 1.000 → 2.500, "
                    "+1.500 (95% interval +1.372 to +1.628; Holm p < 0.0001) — significant."]
    same = paired(frame(base, base))
    assert same.height == 0 or not same["significant"].any()


def test_same_setting_compared_with_itself_gives_no_difference(tmp_path):
    out = tmp_path / "same.jsonl"
    r = invoke("simulate", "--game", "ddz", "-n", "60", "--seed", "2", "--out", str(out),
               "--compare", "base", "straight_min=5")
    assert r.exit_code == 0, r.stderr
    ds = tmp_path / "ds"
    assert invoke("ingest", str(out), "--out", str(ds)).exit_code == 0
    assert invoke("audit", str(ds)).exit_code == 0
    r = invoke("compare", str(ds), "--json")
    data = json.loads(r.stdout)
    # the same rules: the same hands, every difference exactly nothing
    assert data["differences"] and all(d["diff"] == 0 and not d["significant"] for d in data["differences"])
    # (60 deals, 2 of them redealt: no play figures)
    assert data["summary"] == [f"doudizhu/huopin: straight_min=5 against base on 58 shared deals: no significant "
                               f"difference (Holm-corrected 5% over {len(data['differences'])} tests)."]
    r = invoke("compare", str(ds), "--variant", "bogus")  # (was: "no deal was played under two settings")
    assert r.exit_code == 2 and r.stderr.startswith("error: unknown variant 'bogus' (known: doudizhu: huopin,")
    r = invoke("compare", str(ds), "-g", "ddz", "--variant", "classic")
    assert r.exit_code == 2 and r.stderr.strip() == "error: unknown variant 'classic' of doudizhu (known: huopin, openspiel, douzero)"


def test_a_what_if_names_its_significant_differences(tmp_path):
    out = tmp_path / "what-if.jsonl"
    r = invoke("simulate", "--game", "ddz", "-n", "150", "--seed", "4", "--out", str(out),
               "--compare", "base", "kinds-=bomb,rocket")
    assert r.exit_code == 0, r.stderr
    ds = tmp_path / "ds"
    invoke("ingest", str(out), "--out", str(ds))
    assert invoke("audit", str(ds)).exit_code == 0
    data = json.loads(invoke("compare", str(ds), "--json").stdout)
    bombs = next(d for d in data["differences"] if d["figure"] == "bombs")
    assert bombs["setting"] == "kinds-=bomb,rocket" and bombs["setting_mean"] == 0.0 and bombs["significant"]
    assert any(s.startswith("doudizhu/huopin: kinds-=bomb,rocket against base on 136 shared deals: bombs a hand")
               for s in data["summary"])
    report = tmp_path / "r.html"
    assert invoke("report", str(ds), "--out", str(report)).exit_code == 0
    assert "Rule settings compared on the same deals" in report.read_text(encoding="utf-8")


# ----------------------------------------------------------------- runs: workers, interrupts, crashes

def test_any_number_of_workers_gives_the_same_file(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    job_list = list(jobs("gd", None, BLOCK + 30, 5, [{}], escape_rate=0.05))  # made as consumed: listed to be played twice
    assert write(str(a), job_list, workers=1) == (BLOCK + 30, False)
    assert write(str(b), job_list, workers=2) == (BLOCK + 30, False)
    assert a.read_bytes() == b.read_bytes()
    # a block starts a new match: hands from BLOCK on are the same played alone
    tail = list(simulate("gd", None, 30, 5, escape_rate=0.05, start=BLOCK))
    assert [json.loads(x) for x in a.read_text().splitlines()[BLOCK:]] == json.loads(json.dumps(tail))


def test_a_run_with_workers_and_no_work_ends_at_once(tmp_path):
    """A pool terminated before its workers had set their own signal handlers waited for
    ever: the SIGTERM only set the inherited Stop flag (5 runs of 6 hung here)."""
    import subprocess
    import sys

    code = ("from paipu.replay.sim.run import write\n"
            "for k in range(5):\n"
            f"    assert write({str(tmp_path / 'x.jsonl')!r}, iter([]), workers=2) == (0, False)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_an_interrupted_run_leaves_a_valid_gzip_of_complete_hands(tmp_path):
    out = tmp_path / "cut.jsonl.gz"
    seen = []

    def interrupt(k):
        seen.append(k)
        if len(seen) == 5:
            os.kill(os.getpid(), signal.SIGINT)

    n, interrupted = write(str(out), jobs("ddz", None, 1000, 1, [{}]), workers=1, on_hands=interrupt)
    assert (n, interrupted) == (5, True)
    lines = gzip.decompress(out.read_bytes()).decode().splitlines()
    assert len(lines) == 5 and all(replay(json.loads(x)).ok for x in lines)
    assert os.listdir(tmp_path) == ["cut.jsonl.gz"]  # no temporary file left behind


def test_a_crash_leaves_the_old_file(tmp_path):
    out = tmp_path / "keep.jsonl"
    out.write_text("old\n")
    with pytest.raises(ValueError):
        write(str(out), [Job("doudizhu", "huopin", 1, 0, 3, params={"colour": 1})])
    assert out.read_text() == "old\n" and os.listdir(tmp_path) == ["keep.jsonl"]


# ----------------------------------------------------------------- how the default bot plays

def positions(game: str, hands: int, variant: str | None = None):
    """(table before the action, action) of every play or pass of simulated hands."""
    for record in simulate(game, variant, hands, 11):
        for _, action, table in stepping(record):
            if action["act"] in ("play", "pass") and table.phase == "play":
                yield table, action


def partners_of(table, seat: int) -> set[int]:
    landlord = getattr(table, "landlord", None)
    if landlord is not None and table.n == 3:
        return set() if seat == landlord else {s for s in range(3) if s not in (seat, landlord)}
    return {(seat + 2) % 4} if table.n == 4 else set()


@pytest.mark.parametrize("game,hands", [("doudizhu", 120), ("guandan", 12), ("shuangkou", 12)])
def test_partners_never_beat_each_other_unless_going_out(game, hands):
    checked = 0
    for table, action in positions(game, hands):
        seat = action["seat"]
        if table.last is not None and table.last_seat in partners_of(table, seat):
            checked += 1
            if action["act"] == "play":
                assert len(action["cards"]) == table.left[seat], action
    assert checked > 20


def test_a_partner_about_to_go_out_is_fed_the_lowest_single():
    fed = 0
    for table, action in positions("doudizhu", 300):
        seat = action["seat"]
        mates = partners_of(table, seat)
        opponents = set(range(3)) - mates - {seat}
        if table.last is None and any(table.left[m] == 1 for m in mates) and \
                all(table.left[o] > 1 for o in opponents) and table.combos.readings.get(table.packed[seat]) is None:
            fed += 1
            lowest = min(RANK[c] for c in range(54) if table.hands[seat][c])
            assert [RANK[CARD_OF[t]] for t in action["cards"]] == [lowest], action
    assert fed > 5


def test_bao_dan_a_single_against_one_card_is_the_highest():
    checked = 0
    for table, action in positions("doudizhu", 300):
        seat = action["seat"]
        opponents = set(range(3)) - partners_of(table, seat) - {seat}
        nxt = table.next_active(seat)
        threat = any(table.left[o] == 1 for o in opponents) if table.last is None else \
            nxt in opponents and table.left[nxt] == 1  # leading: any opponent; following: the next seat
        if action["act"] == "play" and len(action["cards"]) == 1 and threat and table.left[seat] > 1:
            held = [RANK[c] for c in range(54) if table.hands[seat][c]]
            rocket = 13 in held and 14 in held
            top = max(r for r in held if held.count(r) < 4 and not (rocket and r >= 13))  # bombs kept whole
            if table.last is not None and top <= table.last[0].key:
                continue  # following, the highest loose card does not beat the play
            checked += 1
            assert RANK[CARD_OF[action["cards"][0]]] == top, action
    assert checked > 3


def test_bombs_are_led_only_to_finish():
    led = 0
    for table, action in positions("doudizhu", 300):
        if table.last is None and action["act"] == "play":
            played = pack(CARD_OF[t] for t in action["cards"])
            if table.combos.readings[played][0].tier:
                led += 1
                rest = table.packed[action["seat"]] - played
                assert rest == 0 or table.combos.readings.get(rest) or all(
                    (rest >> (5 * r)) & 31 in (0, 4) for r in range(13)) and rest >> 65 in (0, 1 + (1 << 5)), action
    assert led > 0


def test_bad_params_in_a_record_are_bad_record_naming_the_field():
    assert replay(ddz("", params={"kinds": ["plate"]})).violation.message.startswith(
        "params.kinds: 'plate' is not one of single, pair,")
    assert code_at(ddz("", params={"kinds": "single"})) == ("bad_record", None)
    assert code_at(ddz("", params={"scoring": "huopin"})) == ("bad_record", None)


@pytest.mark.parametrize("game, variant", [("doudizhu", "huopin"), ("paodekuai", "huopin"), ("shuangkou", "huopin")])
@pytest.mark.parametrize("key, value, least", [("straight_min", 0, 2), ("pair_chain_min", -1, 2),
                                               ("triple_chain_min", 1, 2), ("max_play", 0, 1)])
def test_a_chain_of_one_rank_or_a_play_of_no_cards_is_bad_record_not_a_crash(game, variant, key, value, least):
    """Building the combination tables with such a rule failed with an IndexError, a traceback in
    audit, replay and simulate."""
    record = dict(next(iter(simulate(game, variant, 1, 1))), params={key: value})
    v = replay(record).violation
    assert (v.code, v.action, v.message) == ("bad_record", None, f"params.{key}: expected {least} or more, got {value}")
    at_least = replay(dict(record, params={key: least})).violation  # the least value is a rule like any
    assert at_least is None if key != "max_play" else at_least.code != "bad_record"


def test_counts_below_zero_and_a_bottom_that_leaves_a_seat_no_card_are_bad_params(tmp_path):
    """bottom=-3 was "seat -1 leads this trick and may not pass"; bottom=40 of 54 cards and
    negative counts (a_fail_limit=-1, peek_limit=-2) were taken."""
    record = dict(next(iter(simulate("doudizhu", "huopin", 1, 1))))
    for params, message in (({"bottom": -3}, "params.bottom: expected 0 or more, got -3"),
                            ({"bottom": 52}, "params.bottom: expected at most 51 (54 cards, 3 seats), got 52"),
                            ({"peek_limit": -2}, "params.peek_limit: expected 0 or more, got -2")):
        v = replay(dict(record, params=params)).violation
        assert (v.code, v.action, v.message) == ("bad_record", None, message)
    assert replay(dict(record, params={"bottom": 3, "peek_limit": 0})).violation is None  # the bounds themselves are rules
    gd = dict(next(iter(simulate("guandan", None, 1, 1))), params={"a_fail_limit": -1})
    assert replay(gd).violation.message == "params.a_fail_limit: expected 0 or more, got -1"
    out = tmp_path / "x.jsonl"
    r = invoke("simulate", "-g", "ddz", "-n", "2", "-r", "bottom=51", "--out", str(out))  # one card a seat: played
    assert r.exit_code == 0 and len(out.read_text().splitlines()) == 2
    r = invoke("simulate", "-g", "ddz", "-n", "2", "-r", "bottom=52", "--out", str(tmp_path / "y.jsonl"))
    assert r.exit_code == 2 and r.stderr.strip() == "error: --rule bottom=52: bottom: expected at most 51 (54 cards, 3 seats), got 52"


def test_a_setting_that_cannot_be_played_is_a_one_line_error_before_any_file(tmp_path):
    out = tmp_path / "x.jsonl"
    r = invoke("simulate", "--game", "gd", "-n", "2", "--compare", "base", "players=2", "--out", str(out))
    assert r.exit_code == 2
    assert r.stderr.strip() == "error: players=2: this setting cannot be played: 4 seats dealt; guandan/standard has 2"
    r = invoke("simulate", "--game", "pdk", "-n", "2", "--rule", "kinds-=single", "--out", str(out))
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith("error: --rule kinds-=single: this setting cannot be played: ")
    assert not out.exists()


def test_rlcard_rule_agent_plays_legal_hands_inside_paipu():
    pytest.importorskip("rlcard")
    from paipu.replay.sim import Seat
    from paipu.replay.sim.planner import FAST
    from paipu.replay.sim.rlcard_agent import ByRole, RLCardRule, rank_string, trace_of

    assert rank_string(pack(CARD_OF[t] for t in ["4h", "3s", "3h", "3d"])) == "3334"
    assert rank_string(pack([CARD_OF["BJ"], CARD_OF["SJ"]])) == "BR"  # RLCard: B small, R big
    record = ddz(BID_0 + "0 play 3h\n1 play 4h\n2 pass\n")
    assert trace_of(record["actions"]) == [(0, "3"), (1, "4"), (2, "pass")]
    rl = RLCardRule()
    for policy in (ByRole(rl, FAST), ByRole(FAST, rl)):
        records = list(simulate("ddz", None, 15, 4, seats_for=lambda k, p=policy: [Seat(None, p) for _ in range(3)]))
        assert all(replay(r).ok for r in records)
    # the same deals and bidding: the same landlord whoever plays the cards
    a = [r["result"].get("landlord") for r in simulate("ddz", None, 15, 4)]
    b = [r["result"].get("landlord") for r in simulate("ddz", None, 15, 4,
                                                        seats_for=lambda k: [Seat(None, ByRole(rl, rl))] * 3)]
    assert a == b


@pytest.mark.parametrize("bot", ["fast", "strong", "simple"])
def test_every_bot_level_plays_legal_hands_of_every_game(bot, tmp_path):
    from paipu.replay.sim.run import records

    matches = Matches()
    for game, variant, hands in (("doudizhu", "huopin", 6), ("paodekuai", "huopin", 6), ("paodekuai", "classic", 6),
                                 ("guandan", "standard", 3), ("shuangkou", "huopin", 3)):
        for r in records(Job(game, variant, 2, 0, hands, bot=bot, escape_rate=0.1)):
            assert matches.replay(r).ok, (bot, r["id"])


def test_a_redealt_deal_gives_no_play_figures_to_compare(tmp_path):
    """A redeal (nobody called) counted as 0 bombs, 0 tricks and a few actions in the paired
    means, where stats and the report leave it out (played hands only)."""
    out = tmp_path / "r.jsonl"
    assert invoke("simulate", "-g", "ddz", "-n", "60", "-s", "3", "--out", str(out),
                  "--compare", "base", "kinds-=bomb").exit_code == 0
    ds = str(tmp_path / "ds")
    assert invoke("ingest", str(out), "--out", ds).exit_code == 0
    assert invoke("audit", ds).exit_code == 0
    query = ("select count(*) filter (where redeal) as redeals, count(distinct md5(h.deal::varchar)) filter "
             "(where not redeal) as played from outcomes o join hands h on h.id = o.hand_id")
    counts = json.loads(invoke("sql", ds, query, "--csv").stdout.splitlines()[1].join(["[", "]"]))
    assert counts[0] > 0  # (the seed deals some hands nobody calls)
    both = ("select count(*) from (select md5(h.deal::varchar) from outcomes o join hands h on h.id = o.hand_id "
            "group by 1 having count(*) filter (where not redeal) = 2)")
    paired = int(invoke("sql", ds, both, "--csv").stdout.splitlines()[1])
    data = json.loads(invoke("compare", ds, "--json").stdout)
    pairs = {d["figure"]: d["pairs"] for d in data["differences"]}
    assert pairs["bombs"] == pairs["actions"] == pairs["tricks"] == pairs["landlord_wins"] == paired < 60
    base = json.loads(invoke("stats", ds, "--json", "--stat", "hand_length").stdout)["hand_length"]
    mean = next(r["mean_actions"] for r in base if r["setting"] == "")
    actions = next(d for d in data["differences"] if d["figure"] == "actions")
    # (seed 3: no deal redealt under one setting and played under the other, so the same hands: the same mean)
    assert paired == next(r["hands"] for r in base if r["setting"] == "")
    assert actions["base_mean"] == pytest.approx(mean)
