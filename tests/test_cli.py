"""The command line, end to end, with typer's CliRunner."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
from helpers import BID_0, SPRING, ddz
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.io.jsonl import record_to_json

runner = CliRunner()
HERE = os.path.dirname(__file__)
SAMPLES = os.path.join(HERE, "..", "sample_logs")


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_combo_json_and_text():
    r = invoke("combo", "--game", "doudizhu", "3h 3s 3d 4c", "--json")
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert data["valid"] is True and data["type"] == "triple_single" and data["rank"] == "3" and data["bomb"] is False
    r = invoke("combo", "-g", "ddz", "3h 3s 3d 3c 4c 4s 4d 4h", "--json")
    assert json.loads(r.stdout) == {"valid": False}
    r = invoke("combo", "-g", "斗地主", "SJ BJ")
    assert r.stdout.startswith("rocket 火箭")
    # OpenSpiel lets any bomb follow the rocket: its second reading is a bomb below every rank
    r = invoke("combo", "-g", "doudizhu", "--variant", "openspiel", "SJ BJ")
    assert r.stdout.splitlines() == ["rocket 火箭: 2 cards, rank BJ, bomb tier 2",
                                     "bomb 炸弹: 2 cards, below every rank, bomb tier 1"]


def test_beats():
    assert invoke("beats", "--game", "doudizhu", "SJ BJ", "2s 2h 2d 2c").stdout.strip() == "yes"
    assert invoke("beats", "--game", "doudizhu", "2s 2h 2d 2c", "SJ BJ").stdout.strip() == "no"
    assert invoke("beats", "--game", "doudizhu", "4s 4h", "3s").stdout.strip() == "no"
    assert invoke("beats", "--game", "doudizhu", "4s", "3s").stdout.strip() == "yes"


def test_bad_input_exits_2_with_a_message():
    r = invoke("beats", "--game", "doudizhu", "4x", "3s")
    assert r.exit_code == 2 and "not a card: '4x'" in r.stderr
    r = invoke("combo", "--game", "chess", "3s")
    assert r.exit_code == 2 and "unknown game 'chess'" in r.stderr


def test_audit_jsonl_exit_codes(tmp_path):
    good = ddz(SPRING)
    bad = ddz(BID_0 + "0 play 4h\n")
    bad["id"] = "bad-1"
    path = tmp_path / "h.jsonl"
    path.write_bytes(record_to_json(good) + b"\n" + record_to_json(bad) + b"\nnot json\n")
    r = invoke("audit", str(path), "--jsonl")
    assert r.exit_code == 1
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[0] == {"id": "t-1", "ok": True, "violations": [], "source": f"{path}:1"}
    assert lines[1]["ok"] is False and lines[1]["violations"][0]["code"] == "not_in_hand"
    assert lines[1]["violations"][0]["action"] == 3
    assert lines[2]["violations"][0]["code"] == "bad_record" and lines[2]["violations"][0]["action"] is None
    ok_only = tmp_path / "ok.jsonl"
    ok_only.write_bytes(record_to_json(good) + b"\n")
    assert invoke("audit", str(ok_only)).exit_code == 0
    assert invoke("audit", str(tmp_path / "missing.jsonl")).exit_code == 2


def test_audit_reports_misspelt_card_at_its_action(tmp_path):
    rec = ddz(BID_0)
    rec["actions"].append({"seat": 0, "act": "play", "cards": ["3x"]})
    path = tmp_path / "h.jsonl"
    path.write_bytes(record_to_json(rec) + b"\n")
    r = invoke("audit", str(path), "--jsonl")
    assert json.loads(r.stdout)["violations"] == [{"code": "bad_card", "action": 3, "message": "not a card: '3x'"}]


def test_simulate_then_audit_clean_and_ingest(tmp_path):
    out = tmp_path / "sim.jsonl"
    r = invoke("simulate", "--game", "doudizhu", "--hands", "30", "--seed", "3", "--out", str(out), "--escape-rate", "0.1")
    assert r.exit_code == 0 and len(out.read_text().splitlines()) == 30
    r = invoke("audit", str(out))
    assert r.exit_code == 0 and "30 hands: 30 ok" in r.stdout
    ds = tmp_path / "ds"
    r = invoke("ingest", str(out), "--out", str(ds))
    assert r.exit_code == 0 and "ingested 30 hands" in r.stdout
    count = duckdb.sql(f"select count(*) from '{ds}/hands/**/*.parquet'").fetchall()[0][0]
    assert count == 30
    r = invoke("audit", str(ds), "--jsonl")
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 30


def test_convert_round_trip(tmp_path):
    text = tmp_path / "a.paipu"
    back = tmp_path / "b.jsonl"
    src = os.path.join(SAMPLES, "doudizhu_simulated.jsonl")
    assert invoke("convert", src, "--to", "text", "--out", str(text)).exit_code == 0
    assert invoke("convert", str(text), "--to", "jsonl", "--out", str(back)).exit_code == 0
    original = [json.loads(x) for x in Path(src).read_text(encoding="utf-8").splitlines()]
    assert [json.loads(x) for x in back.read_text(encoding="utf-8").splitlines()] == original


def test_sample_logs_ingest_and_audit_clean(tmp_path):
    ds = tmp_path / "ds"
    r = invoke("ingest", os.path.join(SAMPLES), "--out", str(ds))
    assert r.exit_code == 0
    hands = duckdb.sql(f"select count(*) from '{ds}/hands/**/*.parquet'").fetchall()[0][0]
    assert hands >= 50
    r = invoke("audit", os.path.join(SAMPLES))
    assert r.exit_code == 0, r.stdout
