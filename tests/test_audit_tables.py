"""``paipu audit DATASET``: the derived tables checked value by value on small known hands,
re-auditing, and ``paipu replay`` against golden outputs."""

from __future__ import annotations

import json
import os

import duckdb
import pytest
from helpers import ANTI_SPRING, BID_0, PDK_HEAD, SPRING, ddz, text_record
from test_paodekuai import LET_GO
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.io.jsonl import record_to_json

runner = CliRunner()
GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
SAMPLES = os.path.join(os.path.dirname(__file__), "..", "sample_logs")


def invoke(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("audit")
    spring = ddz(SPRING, room={"coef": 100, "fee": 10}, stacks=[10000, 500, 300])
    spring["id"] = "spring"
    anti = ddz(ANTI_SPRING)
    anti["id"] = "anti"
    broken = ddz(BID_0 + "0 play 3h\n1 play 4h\n2 play 3c\n")
    broken["id"] = "broken"
    letgo = text_record(PDK_HEAD, LET_GO, params={"must_play": False}, room={"name": "初级场", "coef": 10})
    letgo["id"] = "letgo"
    src = tmp / "hands.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in (spring, anti, broken, letgo)))
    ds = str(tmp / "ds")
    assert invoke("ingest", str(src), "--out", ds).exit_code == 0
    r = invoke("audit", ds, "--workers", "1")
    assert r.exit_code == 1
    assert "4 hands: 3 ok, 1 with violations (does_not_beat 1)" in r.stdout
    return ds


def q(ds: str, sql: str) -> list[tuple]:
    for table in ("verdicts", "plays", "outcomes", "seats"):
        sql = sql.replace(f"{{{table}}}", f"read_parquet('{ds}/{table}/**/*.parquet', hive_partitioning=true)")
    return duckdb.sql(sql).fetchall()


def test_one_verdict_per_hand_with_the_violation(dataset):
    assert q(dataset, "select hand_id, ok, code, action, seat from {verdicts} order by hand_id") == [
        ("anti", True, None, None, None), ("broken", False, "does_not_beat", 5, 2),
        ("letgo", True, None, None, None), ("spring", True, None, None, None)]


def test_plays_rows(dataset):
    rows = q(dataset, "select idx, seat, kind, rank, size, bomb, led, beat, multiplier from {plays} "
                      "where hand_id = 'spring' order by idx")
    assert rows == [
        (3, 0, "straight", "A", 12, False, True, False, 1),
        (6, 0, "bomb", "2", 4, True, True, False, 2),
        (9, 0, "pair", "3", 2, False, True, False, 2),
        (12, 0, "rocket", "BJ", 2, True, True, False, 4),
    ]
    assert q(dataset, "select idx, kind, led, beat from {plays} where hand_id = 'broken' order by idx") == [
        (3, "single", True, False), (4, "single", False, True)]


def test_outcomes_rows(dataset):
    cols = "hand_id, ok, n_actions, n_tricks, finish_order, winner, winning_side, landlord, multiplier, grabs, show_factor, " \
           "bombs, rockets, spring, spring_kind, redeal, let_go, xiqian, scores, coins, mismatched"
    rows = {r[0]: r[1:] for r in q(dataset, f"select {cols} from {{outcomes}}")}
    assert rows["spring"] == (True, 13, 4, [0], 0, "landlord", 0, 8, 0, 1, 1, 1, True, "spring", False, None, None,
                              [16.0, -8.0, -8.0], [790.0, -500.0, -300.0], [])
    assert rows["anti"][:15] == (True, 11, 3, [1], 1, "farmers", 0, 2, 0, 1, 0, 0, True, "anti_spring", False)
    assert rows["broken"][:2] == (False, 6)
    assert rows["letgo"] == (True, 11, 3, [1], 1, "seat 1", None, None, None, None, 1, 0, None, None, None, 0,
                             [3200.0, -1600.0, -1600.0], [-68.0, 68.0, 0.0], [2520.0, -920.0, -1600.0], [])


def test_seats_rows(dataset):
    rows = q(dataset, "select seat, player, role, place, cards_left, cards_played, plays, bombs_played, bombs_held, "
                      "score, coin from {seats} where hand_id = 'spring' order by seat")
    assert rows == [
        (0, "张三", "landlord", 1, 0, 20, 4, 2, 0, 16.0, 790.0),
        (1, "李四", "farmer", None, 17, 0, 0, 0, 0, -8.0, -500.0),
        (2, "王五", "farmer", None, 17, 0, 0, 0, 0, -8.0, -300.0),
    ]
    rows = q(dataset, "select seat, role, place, cards_left, bombs_played, bombs_held, score from {seats} "
                      "where hand_id = 'letgo' order by seat")
    assert rows == [(0, None, None, 10, 1, 0, -68.0), (1, None, 1, 0, 0, 0, 68.0), (2, None, None, 16, 0, 0, 0.0)]


def test_declared_result_disagreements_are_listed(tmp_path):
    rec = ddz(SPRING, result={"multiplier": 4, "landlord": 0, "scores": [1, 2, 3]})
    src = tmp_path / "h.jsonl"
    src.write_bytes(record_to_json(rec) + b"\n")
    ds = str(tmp_path / "ds")
    invoke("ingest", str(src), "--out", ds)
    assert invoke("audit", ds, "--workers", "1").exit_code == 1
    assert q(ds, "select code from {verdicts}") == [("result_mismatch",)]
    assert q(ds, "select ok, mismatched from {outcomes}") == [(False, None)]


def test_reaudit_touches_only_new_hands_and_force_redoes(tmp_path, dataset):
    import shutil

    ds = str(tmp_path / "copy")
    shutil.copytree(dataset, ds)
    r = invoke("audit", ds, "--workers", "1")
    assert "audited 0 of 4 hands (4 were audited already)" in r.stderr.replace("\n", " ")
    extra = ddz(SPRING)
    extra["id"] = "new-hand"
    src = tmp_path / "more.jsonl"
    src.write_bytes(record_to_json(extra) + b"\n")
    invoke("ingest", str(src), "--out", ds)
    r = invoke("audit", ds, "--workers", "1")
    assert "audited 1 of 5 hands (4 were audited already)" in r.stderr.replace("\n", " ")
    assert q(ds, "select count(*), count(distinct hand_id) from {verdicts}") == [(5, 5)]
    r = invoke("audit", ds, "--force", "--workers", "2")
    assert "audited 5 of 5 hands (0 were audited already)" in r.stderr.replace("\n", " ")
    assert q(ds, "select count(*) from {verdicts}") == [(5,)]


def test_engine_crash_becomes_a_verdict(tmp_path, monkeypatch):
    from paipu.replay.games import doudizhu

    def boom(self, i, seat, ids, readings, led):
        raise RuntimeError("engine bug")

    monkeypatch.setattr(doudizhu.Doudizhu, "on_play", boom)
    from paipu.replay.replayer import replay

    r = replay(ddz(SPRING))
    assert r.violation.code == "engine_error" and "RuntimeError: engine bug" in r.violation.message


def test_audit_jsonl_on_a_dataset(dataset):
    r = invoke("audit", dataset, "--jsonl")
    lines = sorted((json.loads(x) for x in r.stdout.splitlines()), key=lambda d: d["id"])
    assert [(d["id"], d["ok"]) for d in lines] == [("anti", True), ("broken", False), ("letgo", True), ("spring", True)]
    assert lines[1]["violations"] == [{"code": "does_not_beat", "action": 5,
                                       "message": "3c (single 单张 of 1 to 3) does not beat single 单张 of 1 to 4"}]


# ---------------------------------------------------------------- paipu replay


@pytest.mark.parametrize("args,golden", [
    (["sample_logs/doudizhu_handmade.paipu"], "replay_ddz_handmade.txt"),
    (["sample_logs/paodekuai_handmade.paipu", "--hand", "pdk-handmade-letgo", "--lang", "zh", "--seat", "2"],
     "replay_pdk_letgo_zh_seat2.txt"),
])
def test_replay_matches_golden(args, golden):
    here = os.path.join(os.path.dirname(__file__), "..")
    r = invoke("replay", os.path.join(here, args[0]), *args[1:])
    assert r.exit_code == 0
    path = os.path.join(GOLDEN, golden)
    if os.environ.get("PAIPU_UPDATE_GOLDEN"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(r.stdout)
    with open(path, encoding="utf-8") as f:
        assert r.stdout == f.read()


def test_replay_shows_the_violation_in_place(tmp_path):
    rec = ddz(BID_0 + "0 play 3h\n1 play 4h\n2 play 3c\n")
    src = tmp_path / "h.jsonl"
    src.write_bytes(record_to_json(rec) + b"\n")
    r = invoke("replay", str(src), "--hand", "t-1")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert lines[-2].strip().startswith("5  2 王五") and "plays 3♣" in lines[-2]
    assert lines[-1].strip() == "!! VIOLATION does_not_beat at action 5: 3♣ (single 单张 of 1 to 3) does not beat single 单张 of 1 to 4"


def test_replay_seat_view_hides_other_hands():
    r = invoke("replay", os.path.join(SAMPLES, "doudizhu_handmade.paipu"), "--seat", "1")
    first = r.stdout.splitlines()[1:4]
    assert "cards hidden" in first[0] and "cards hidden" not in first[1] and "cards hidden" in first[2]
    assert "bottom: [3 cards hidden]" in r.stdout


def test_replay_every_sample_hand(tmp_path):
    ds = str(tmp_path / "ds")
    invoke("ingest", SAMPLES, "--out", ds)
    ids = [row[0] for row in duckdb.sql(f"select id from '{ds}/hands/**/*.parquet'").fetchall()]
    for hand_id in ids:
        r = invoke("replay", ds, "--hand", hand_id)
        assert r.exit_code == 0, (hand_id, r.stdout[-500:])
        assert "result:" in r.stdout


def test_replay_unknown_hand():
    r = invoke("replay", os.path.join(SAMPLES, "doudizhu_handmade.paipu"), "--hand", "nope")
    assert r.exit_code == 2 and "no hand 'nope'" in r.stderr


@pytest.mark.parametrize("game, variant", [("doudizhu", None), ("paodekuai", "classic"), ("guandan", None),
                                           ("shuangkou", None)])
def test_summary_names_every_play_as_key_name_does(game, variant):
    """rows.summary looks a combination's name up once per rules object and level: the
    names are key_name's, play by play (Guandan: hands of matches at several levels)."""
    from paipu.replay.replayer import Matches
    from paipu.replay.rows import of_replay
    from paipu.replay.sim import simulate
    from paipu.replay.words import key_name

    matches, levels, plays = Matches(), set(), 0
    for record in simulate(game, variant, 24, 5):
        r = matches.replay(record, detail=True)
        assert r.ok, r.violation
        names = of_replay(r).plays.rank
        assert names == [key_name(r.table, p[2]) for p in r.table.plays]
        levels.add(getattr(r.table, "level", None))
        plays += len(names)
    assert plays > 24 * 5
    if game == "guandan":
        assert len(levels) > 1
