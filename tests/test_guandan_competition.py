"""The Guandan AI competition log format: import, ingest, audit against its own episodeOver."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from cli import app
from replay.io.guandan_competition import card, record_to_deal
from replay.io.readers import iter_file
from replay.sim import simulate

runner = CliRunner()


def competition_file(tmp_path, tamper=None) -> tuple[str, list[dict]]:
    records = list(simulate("guandan", "standard", 5, 11))
    lines = []
    for k, r in enumerate(records):
        deal = record_to_deal(r)
        order = r["result"]["order"]
        full = order + [s for s in range(4) if s not in order]
        rank = "T" if r["level"] == "10" else r["level"]
        deal["messages"].append({"stage": "episodeOver", "order": full, "curRank": rank, "restCards": []})
        if tamper:
            tamper(k, deal)
        lines.append(json.dumps(deal))
    path = tmp_path / "match.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path), records


def test_cards_of_the_platform():
    assert [card(t, "x") for t in ("H2", "SA", "CT", "D9", "SB", "HR")] == ["2h", "As", "Tc", "9d", "SJ", "BJ"]


def test_import_gives_the_same_hands(tmp_path):
    path, records = competition_file(tmp_path)
    items = list(iter_file(path))  # the format is sniffed
    assert all(i.record is not None for i in items)
    for item, record in zip(items, records):
        got = item.record
        assert got["deal"] == record["deal"] and got["level"] == record["level"] and got["levels"] == record["levels"]
        assert [a["act"] for a in got["actions"]] == [a["act"] for a in record["actions"]]
        assert got["result"]["order"] == record["result"]["order"]
        assert got["result"]["levels"] == record["result"]["levels"]


def test_ingest_and_audit_round_trip(tmp_path):
    path, _ = competition_file(tmp_path)
    ds = str(tmp_path / "ds")
    r = runner.invoke(app, ["ingest", path, "--from", "guandan-competition", "--out", ds], catch_exceptions=False)
    assert "ingested 5 hands" in r.stdout
    r = runner.invoke(app, ["audit", ds, "--workers", "1"], catch_exceptions=False)
    assert r.exit_code == 0 and "5 hands: 5 ok" in r.stdout


def test_a_wrong_finishing_order_in_the_file_is_a_result_mismatch(tmp_path):
    def swap(k, deal):
        if k == 2:
            order = deal["messages"][-1]["order"]
            order[0], order[1] = order[1], order[0]
            if order[1] == (order[0] + 2) % 4:  # keep it a non-double-down, so that the length matches
                order[2], order[1] = order[1], order[2]
    path, _ = competition_file(tmp_path, swap)
    r = runner.invoke(app, ["audit", path, "--jsonl"], catch_exceptions=False)
    verdicts = [json.loads(x) for x in r.stdout.splitlines()]
    assert verdicts[2]["violations"][0]["code"] in ("result_mismatch", "bad_match")
    assert r.exit_code == 1


def test_a_rank_that_does_not_follow_is_bad_match(tmp_path):
    def rank(k, deal):
        if k == 1:
            deal["messages"][-1]["curRank"] = "A"
    path, _ = competition_file(tmp_path, rank)
    verdicts = [json.loads(x) for x in runner.invoke(app, ["audit", path, "--jsonl"]).stdout.splitlines()]
    assert verdicts[1]["violations"][0] == {"code": "bad_match", "action": None,
                                            "message": verdicts[1]["violations"][0]["message"]}
    assert "is played at level A" in verdicts[1]["violations"][0]["message"]


def test_bad_input_names_the_field(tmp_path):
    def bad(k, deal):
        if k == 0:
            deal["messages"][0]["curAction"][2][0] = "X9"
    path, _ = competition_file(tmp_path, bad)
    items = list(iter_file(path, "guandan-competition"))
    assert items[0].record is None and items[0].code == "bad_record"
    assert 'field "messages[0].curAction[2][0]": expected a card like' in items[0].message
    assert items[0].line == 1
