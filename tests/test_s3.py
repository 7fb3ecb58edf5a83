"""A dataset on object storage: ingest -> audit -> stats -> report against a local S3
server (moto's server mode on 127.0.0.1, a free port), compared with the same commands
on a local folder."""

from __future__ import annotations

import json
import os

import pyarrow as pa
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.io import store
from paipu.replay.io.commit import read_table

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "sample_logs")


def paipu(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def by_hand(root: str, table: str) -> pa.Table:
    t = read_table(root, table)
    keys = [k for k in ("hand_id", "seat", "idx", "id") if k in t.column_names]
    return t.sort_by([(k, "ascending") for k in keys])


def test_ingest_audit_stats_report_on_s3_match_a_local_folder(s3, tmp_path):
    remote, local = "s3://paipu/ds", str(tmp_path / "ds")
    for ds in (remote, local):
        r = paipu("--s3-endpoint", s3, "ingest", SAMPLES, "--out", ds, "--batch", "500", "-q")
        assert r.exit_code == 0, r.output
        assert "ingested 205 hands from 10 files" in r.stdout
    files = store.files_under("s3://paipu/ds")
    assert len([f for f in files if f.startswith("s3://paipu/ds/hands/game=")]) == 10
    assert not [f for f in files if "/_staging/" in f or f.endswith(".tmp")]
    # the same input again: every hand is already there
    r = paipu("ingest", SAMPLES, "--out", remote, "-q")
    assert "ingested 0 hands from 10 files into s3://paipu/ds; 205 already there" in r.stdout

    for ds, workers in ((remote, "2"), (local, "1")):  # two processes: the endpoint reaches them
        r = paipu("audit", ds, "--workers", workers)
        assert r.exit_code == 0, r.output
        assert "205 hands: 205 ok, 0 with violations" in r.stdout
        assert "audited 205 of 205 hands (0 were audited already)" in r.stderr
    for table in ("hands", "actions", "verdicts", "plays", "outcomes", "seats"):
        mine, theirs = by_hand(remote, table), by_hand(local, table)
        if table == "hands":
            mine, theirs = mine.drop_columns(["source"]), theirs.drop_columns(["source"])
        assert mine.equals(theirs), table
    r = paipu("audit", remote)
    assert "audited 0 of 205 hands (205 were audited already)" in r.stderr

    stats = []
    for ds in (remote, local):
        r = paipu("stats", ds, "--json")
        assert r.exit_code == 0, r.output
        stats.append(json.loads(r.stdout))
    assert stats[0] == stats[1]
    assert stats[0]["overview"] and sum(row["hands"] for row in stats[0]["overview"]) == 205

    out = tmp_path / "report.html"
    r = paipu("report", remote, "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "Dataset: s3://paipu/ds." in out.read_text(encoding="utf-8")

    r = paipu("sql", remote, "select count(*) as n from hands where game = 'guandan'", "--csv")
    assert r.stdout == "n\n24\n"
    r = paipu("replay", remote, "--hand", "ddz-handmade-1")
    assert r.exit_code == 0 and r.stdout == paipu("replay", local, "--hand", "ddz-handmade-1").stdout


def test_a_missing_s3_dataset_is_one_line_error(s3):
    r = paipu("stats", "s3://paipu/nothing-here")
    assert r.exit_code == 2
    assert "s3://paipu/nothing-here: not a paipu dataset (no hands/ folder)" in r.stderr
    assert r.stderr.count("\n") == 1


def test_ingest_into_a_bucket_that_does_not_exist_is_one_line_error(s3):
    r = paipu("ingest", os.path.join(SAMPLES, "doudizhu_handmade.paipu"), "--out", "s3://no-such-bucket/ds", "-q")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: s3://no-such-bucket/ds: cannot write the dataset (")
    assert "NO_SUCH_BUCKET" in r.stderr and r.stderr.endswith("it is as it was before this batch\n")
    assert r.stderr.count("\n") == 1
