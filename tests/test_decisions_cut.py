"""A hand whose ``decisions`` rows an internal error cuts short is said, not hidden: the
audit's summary counts it and names the first (hand, action, error); its neighbours'
rows and every verdict are as without the error."""

from __future__ import annotations

import duckdb
from helpers import SPRING, ddz
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay import decisions
from paipu.replay.io.jsonl import record_to_json

runner = CliRunner()


def _dataset(tmp_path):
    a, b = ddz(SPRING), ddz(SPRING)
    a["id"], b["id"] = "a", "b"
    src = tmp_path / "hands.jsonl"
    src.write_bytes(record_to_json(a) + b"\n" + record_to_json(b) + b"\n")
    ds = str(tmp_path / "ds")
    assert runner.invoke(app, ["ingest", str(src), "--out", ds], catch_exceptions=False).exit_code == 0
    return ds


def _rows(ds):
    return duckdb.sql(f"select hand_id, count(*) from read_parquet('{ds}/decisions/**/*.parquet') "
                      "group by hand_id order by hand_id").fetchall()


def _plant(monkeypatch, hand: str, at: int, error: Exception) -> None:
    """Decisions' row raises *error* at action *at* of *hand*."""
    row = decisions.Decisions.row

    def failing(self, table, i, action):
        if self.hand_id == hand and i == at:
            raise error
        return row(self, table, i, action)

    monkeypatch.setattr(decisions.Decisions, "row", failing)


def test_a_hand_cut_short_by_an_error_is_counted_and_named(tmp_path, monkeypatch):
    ds = _dataset(tmp_path)
    r = runner.invoke(app, ["audit", ds, "--decisions", "--workers", "1"], catch_exceptions=False)
    assert r.exit_code == 0 and "warning" not in r.stderr
    whole = dict(_rows(ds))
    assert whole["a"] == whole["b"] > 5
    _plant(monkeypatch, "b", 5, ZeroDivisionError("planted"))
    r = runner.invoke(app, ["audit", ds, "--decisions", "--workers", "1", "--force"], catch_exceptions=False)
    assert r.exit_code == 0  # the verdicts stand
    line = " ".join(r.stderr.split())
    assert "the decisions of 1 hand stop early on an internal error" in line
    assert "first hand b action 5: ZeroDivisionError: planted" in line
    cut = dict(_rows(ds))
    assert cut["a"] == whole["a"]  # the neighbour keeps every row
    assert 0 < cut["b"] < whole["b"]  # the rows before action 5 are kept


def test_fraud_says_the_hands_its_own_audit_cut_short(tmp_path, monkeypatch):
    ds = _dataset(tmp_path)  # not audited: paipu fraud makes the decisions table itself
    _plant(monkeypatch, "a", 7, KeyError("planted"))
    r = runner.invoke(app, ["fraud", ds], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    line = " ".join(r.stderr.split())
    assert "the decisions of 1 hand stop early on an internal error" in line
    assert "first hand a action 7: KeyError: 'planted'" in line
    assert dict(_rows(ds))["b"] > 7  # the neighbour keeps every row
    r = runner.invoke(app, ["fraud", ds], catch_exceptions=False)  # audited now: nothing cut again
    assert r.exit_code == 0 and "warning" not in r.stderr
