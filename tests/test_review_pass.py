"""``paipu review DS``: the dataset pass (replay/review_pass.py) and the players' rating
(analysis/rating.py): row counts, resumability after a kill, the sample, workers, the
rating's counts and intervals on known rows."""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import time
from collections import Counter

import duckdb
import polars as pl
import pyarrow as pa
import pytest
from crashkit import forked, keys
from typer.testing import CliRunner

import paipu

from paipu.analysis.inference import wilson
from paipu.analysis.rating import COLUMNS, dataset_rating, loss_interval, rating, update_players, with_rating
from paipu.cli import app
from paipu.replay.io.commit import read_table
from paipu.replay.review_pass import Settings, review_dataset, sample_key
from paipu.replay.sim import simulate

SETTINGS = Settings(samples=2, budget_ms=None, seed=0)
HANDS = 4


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> str:
    """A dataset of 3 Dou Dizhu hands and a Paodekuai hand, not reviewed."""
    from paipu.replay.ingest import ingest_files

    folder = tmp_path_factory.mktemp("review_pass")
    src = folder / "in.jsonl"
    records = list(simulate("doudizhu", None, 3, 5)) + list(simulate("paodekuai", None, 1, 5))
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    root = str(folder / "ds")
    ingest_files([str(src)], root, batch_size=3, workers=1)
    return root


@pytest.fixture(scope="module")
def reviewed(ingested, tmp_path_factory) -> str:
    """The dataset reviewed whole, in one process, one hand per chunk."""
    root = str(tmp_path_factory.mktemp("reviewed") / "ds")
    shutil.copytree(ingested, root)
    review_dataset(root, SETTINGS, workers=1, chunk=1)
    return root


def _copy(ingested: str, tmp_path, name: str = "ds") -> str:
    root = str(tmp_path / name)
    shutil.copytree(ingested, root)
    return root


def _reviews(root: str) -> pl.DataFrame:
    return pl.DataFrame(pl.from_arrow(read_table(root, "reviews"))).sort("hand_id", "index")


def test_a_row_per_decision_of_every_hand(reviewed):
    from paipu.replay.io.dataset import read_records
    from paipu.replay.review import review_hand

    records = list(read_records(reviewed))
    assert len(records) == HANDS
    # every bid, grab, play and pass of these legal hands is a decision: a row when it had
    # a choice, else counted as skipped
    decisions = sum(a["act"] in ("bid", "grab", "play", "pass") for r in records for a in r["actions"])
    rows = _reviews(reviewed)
    ledger = pl.DataFrame(pl.from_arrow(read_table(reviewed, "reviewed")))
    assert rows.height + ledger["skipped"].sum() == decisions
    assert rows.height == ledger["decisions"].sum() > 0
    assert min(rows["options"].to_list()) == 2
    assert dict(Counter(rows["hand_id"].to_list())) == dict(zip(ledger["hand_id"].to_list(), ledger["decisions"].to_list()))
    assert sorted(ledger["hand_id"].to_list()) == sorted(r["id"] for r in records)
    assert ledger["status"].to_list() == ["ok"] * HANDS
    assert set(ledger["samples"].to_list()) == {2}
    # the rows are the per-hand review's, with the player and variant of the seat
    one = records[0]
    mine = rows.filter(pl.col("hand_id") == one["id"])
    direct = review_hand(one, samples=2, budget_ms=None, seed=0).decisions
    assert mine["index"].to_list() == [d.index for d in direct]
    assert mine["loss"].to_list() == [d.loss for d in direct]
    assert mine["player"].to_list() == [one["players"][d.seat] for d in direct]
    assert set(mine["variant"].to_list()) == {one["variant"]}
    assert sorted(set(rows["game"].to_list())) == ["doudizhu", "paodekuai"]


def test_a_rerun_reviews_nothing_again(reviewed, tmp_path):
    root = _copy(reviewed, tmp_path)
    before = keys(root, ["reviews", "reviewed"])
    again = review_dataset(root, SETTINGS, workers=1)
    assert (again.hands, again.decisions) == (0, 0)
    assert keys(root, ["reviews", "reviewed"]) == before


@pytest.mark.parametrize("crash_at", [3, 16])
def test_killed_part_way_then_rerun_reviews_each_decision_once(ingested, reviewed, tmp_path, crash_at):
    reference = keys(reviewed, ["reviews", "reviewed"])
    root = _copy(ingested, tmp_path)
    code = forked(review_dataset, root, SETTINGS, None, 1, None, None, None, 1, crash_at=crash_at)
    assert code == 137  # killed at that write step (each chunk of one hand takes several)
    partial = keys(root, ["reviewed"])["reviewed"]
    assert sum(partial.values()) < HANDS
    review_dataset(root, SETTINGS, workers=1, chunk=1)
    got = keys(root, ["reviews", "reviewed"])
    assert got == reference  # nothing lost, nothing twice
    staging = os.path.join(root, "_staging")
    assert not os.path.isdir(staging) or not os.listdir(staging)  # what the killed run staged is gone


def test_two_workers_write_what_one_does(ingested, reviewed, tmp_path):
    root = _copy(ingested, tmp_path)
    review_dataset(root, SETTINGS, workers=2, chunk=2)
    assert _reviews(root).equals(_reviews(reviewed))


def test_the_sample_is_fixed_by_the_seed_and_grows_inside_itself(ingested, tmp_path):
    root = _copy(ingested, tmp_path, "a")
    ids = sorted(pl.DataFrame(pl.from_arrow(read_table(root, "hands", ["id"])))["id"].to_list())
    by_key = sorted(ids, key=lambda x: sample_key(7, x))
    settings = Settings(samples=2, budget_ms=None, seed=7)
    first = review_dataset(root, settings, sample=2, workers=1)
    ledger = lambda r: sorted(pl.DataFrame(pl.from_arrow(read_table(r, "reviewed")))["hand_id"].to_list())  # noqa: E731
    assert first.hands == 2 and ledger(root) == sorted(by_key[:2])
    more = review_dataset(root, settings, sample=3, workers=1)
    assert more.hands == 1 and ledger(root) == sorted(by_key[:3])
    other = _copy(ingested, tmp_path, "b")
    review_dataset(other, settings, sample=3, workers=1)
    assert ledger(other) == ledger(root)
    assert _reviews(other).equals(_reviews(root))


def test_the_players_rating_counts_the_reviews(reviewed, tmp_path):
    root = _copy(reviewed, tmp_path)
    players = update_players(root)
    con = duckdb.connect()
    rows = _reviews(root).filter(pl.col("options") > 1)
    con.register("r", rows.to_arrow())
    expected = {(g, p): (n, m, f) for g, p, n, m, f in con.execute(
        "select game, player, count(*), count(*) filter (where chosen = best), "
        "count(*) filter (where flag is not null) from r group by all").fetchall()}
    got = {(g, p): (n, m, a + b) for g, p, n, m, a, b in players.select(
        "game", "player", "review_decisions", "review_matches", "review_mistakes", "review_blunders").iter_rows()
        if n}
    assert got == expected
    stored = pl.DataFrame(pl.from_arrow(read_table(root, "players")))
    assert stored.height == players.height and set(COLUMNS) <= set(stored.columns)
    # the tables are views of paipu sql
    out = CliRunner().invoke(app, ["sql", root, "select count(*) as n from reviews", "--csv"])
    assert out.exit_code == 0 and out.stdout.splitlines()[1] == str(_reviews(root).height)


def _known_con() -> duckdb.DuckDBPyConnection:
    """Two hands of players A, B, C: A decides 3 times with a choice in each (losses 0, 10,
    20: a match, a mistake, a blunder) and once without one; B twice, no loss in either but
    a match only in the first (in the second an option as good in win probability, and
    better in points, was not played); C never has a choice."""
    con = duckdb.connect()
    con.execute("create table hands as select * from (values ('h1', 'doudizhu', ['A', 'B', 'C']), "
                "('h2', 'doudizhu', ['A', 'B', 'C'])) t(id, game, players)")
    con.execute("create table reviewed as select * from (values ('h1', 'doudizhu', 'huopin', 'ok'), "
                "('h2', 'doudizhu', 'huopin', 'ok')) t(hand_id, game, variant, status)")
    con.execute("""create table reviews as select * from (values
        ('h1', 'doudizhu', 'huopin', 'A', '3s', '3s', 4, 0.0, null),
        ('h1', 'doudizhu', 'huopin', 'A', '4s', '5s', 3, 10.0, 'mistake'),
        ('h2', 'doudizhu', 'huopin', 'A', 'pass', '7s', 2, 20.0, 'blunder'),
        ('h2', 'doudizhu', 'huopin', 'A', 'pass', 'pass', 1, 0.0, null),
        ('h1', 'doudizhu', 'huopin', 'B', '8s', '8s', 2, 0.0, null),
        ('h2', 'doudizhu', 'huopin', 'B', '9s', 'Ts', 5, 0.0, null),
        ('h1', 'doudizhu', 'huopin', 'C', 'pass', 'pass', 1, 0.0, null)
        ) t(hand_id, game, variant, player, chosen, best, options, loss, flag)""")
    return con


def test_the_rating_on_known_rows():
    df = rating(_known_con())
    a, b, c = (df.filter(pl.col("player") == p).to_dicts()[0] for p in "ABC")
    assert (a["review_hands"], a["review_decisions"], a["review_matches"], a["review_mistakes"],
            a["review_blunders"]) == (2, 3, 1, 1, 1)
    assert a["review_match_rate"] == pytest.approx(1 / 3)
    assert (a["review_match_lo"], a["review_match_hi"]) == pytest.approx(wilson(1, 3))
    assert (a["review_blunder_lo"], a["review_blunder_hi"]) == pytest.approx(wilson(1, 3))
    assert a["review_mean_loss"] == pytest.approx(10.0)
    # clustered by hand: h1 has 2 decisions, loss 10; h2 one, loss 20; mean 10;
    # residuals 10 - 20 = -10 and 20 - 10 = 10; se = sqrt(2 * 200) / 3; t(1) = 12.706
    half = 12.706204736174707 * math.sqrt(2 / 1 * 200) / 3
    assert (a["review_loss_lo"], a["review_loss_hi"]) == pytest.approx((10 - half, 10 + half))
    assert (b["review_decisions"], b["review_matches"], b["review_mean_loss"], b["review_match_rate"]) == (2, 1, 0.0, 0.5)
    assert (b["review_match_lo"], b["review_match_hi"]) == pytest.approx(wilson(1, 2))
    assert (b["review_loss_lo"], b["review_loss_hi"]) == (0.0, 0.0)
    # C was reviewed (two hands) with no decision that had a choice: counts 0, rates null
    assert (c["review_hands"], c["review_decisions"], c["review_matches"]) == (2, 0, 0)
    assert c["review_match_rate"] is None and c["review_mean_loss"] is None and c["review_match_lo"] is None


def test_loss_interval_needs_two_hands():
    assert loss_interval([3], [6.0])[0] == 2.0 and math.isnan(loss_interval([3], [6.0])[1])
    assert all(math.isnan(x) for x in loss_interval([], []))


def test_players_without_a_review_get_null_columns_and_the_profile_keeps_its_own():
    profile = pl.DataFrame({"game": ["doudizhu", "doudizhu"], "variant": ["huopin"] * 2, "player": ["A", "Z"],
                            "hands": [2, 5], "review_decisions": [99, 99]})
    none = with_rating(profile, None)
    assert none["hands"].to_list() == [2, 5]
    assert none["review_decisions"].to_list() == [None, None]  # a stale column is replaced, null
    assert all(none[c].null_count() == 2 for c in COLUMNS)
    merged = with_rating(profile, rating(_known_con())).sort("player")
    assert merged["player"].to_list() == ["A", "B", "C", "Z"]
    assert merged["hands"].to_list() == [2, None, None, 5]
    # Z, of a reviewed game but in no hand reviewed: 0 counts, null rates
    assert merged["review_decisions"].to_list() == [3, 2, 0, 0]
    assert merged["review_match_rate"].to_list()[3] is None


def test_no_review_no_rating(ingested):
    assert dataset_rating(ingested) is None


def test_the_command(ingested, tmp_path):
    root = _copy(ingested, tmp_path)
    runner = CliRunner()
    out = runner.invoke(app, ["review", root, "--sample", "2", "--samples", "2", "--budget", "0", "--workers", "1"])
    assert out.exit_code == 0, out.output
    assert "reviewed 2 hands" in out.stderr and "of the 2 sampled; 0 were reviewed already" in out.stderr
    assert "rating" in out.stdout
    again = runner.invoke(app, ["review", root, "--sample", "2", "--samples", "2", "--budget", "0"])
    assert "reviewed 0 hands (0 decisions) of the 2 sampled; 2 were reviewed already" in again.stderr
    bad = runner.invoke(app, ["review", str(tmp_path / "nothing"), "--samples", "2"])  # (no such path: said so)
    assert bad.exit_code == 2 and f"{tmp_path / 'nothing'}: no such file or folder" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    (tmp_path / "file.jsonl").write_text("")
    bad = runner.invoke(app, ["review", str(tmp_path / "file.jsonl"), "--samples", "2"])
    assert bad.exit_code == 2 and "give the hand to review with --hand ID (or a dataset" in bad.stderr
    (tmp_path / "null.jsonl").write_text("null\n")  # a dataset of one reject, no hands
    assert runner.invoke(app, ["ingest", str(tmp_path / "null.jsonl"), "--out", str(tmp_path / "dsr")]).exit_code == 0
    bad = runner.invoke(app, ["review", str(tmp_path / "dsr")])
    assert bad.exit_code == 2 and "dsr: a dataset with no hands to review: every hand ingested into it was rejected" in bad.stderr
    negative = runner.invoke(app, ["review", root, "--sample", "2", "--workers", "-2"])
    assert negative.exit_code == 2 and "--workers must be 0 or more (0: every core), got -2" in negative.stderr
    both = runner.invoke(app, ["review", root, "--hand", "x", "--sample", "2"])
    assert both.exit_code == 2 and "leave out --hand" in both.stderr


#: the child: ``paipu review DS`` on two spawned workers
REVIEW = """
import sys
from paipu.cli import app
if __name__ == "__main__":
    app(["review", sys.argv[1], "--samples", "2", "--budget", "0", "--workers", "2"])
"""


@contextlib.contextmanager
def busy_review(tmp_path, script: str, root: str, settle: float):
    """The child *script* reviewing *root*, once its two workers are up and *settle* seconds
    busy: (the child, its workers); no process of it outlives the test."""
    from test_kill_safety import children, end, start, wait_for

    child = start(tmp_path, script, root)
    workers: list[int] = []
    try:
        wait_for(lambda: len(children(child.pid)) == 2, timeout=60)
        workers = children(child.pid)
        time.sleep(settle)
        yield child, workers
    finally:
        end(child, workers)


def test_a_killed_review_takes_its_workers_with_it_and_a_rerun_completes(ingested, reviewed, tmp_path):
    import signal

    from test_kill_safety import gone, wait_for

    reference = keys(reviewed, ["reviews", "reviewed"])
    root = _copy(ingested, tmp_path)
    with busy_review(tmp_path, REVIEW, root, 0.5) as (child, workers):
        child.send_signal(signal.SIGKILL)  # kill -9 of the command, its workers busy
        child.wait()
        before = keys(root, ["reviews", "reviewed"])
        # every worker ends: at once when busy (PR_SET_PDEATHSIG), else as its start-up ends
        wait_for(lambda: all(gone(p) for p in workers), timeout=60)
        time.sleep(0.5)
        assert keys(root, ["reviews", "reviewed"]) == before  # none of them committed anything
    review_dataset(root, SETTINGS, workers=1)  # repairs what the kill left, reviews the rest
    assert keys(root, ["reviews", "reviewed"]) == reference


def test_a_hand_that_breaks_a_rule_is_in_the_ledger_with_its_code_and_no_rows(tmp_path):
    from helpers import BID_0, SPRING, ddz

    from paipu.replay.ingest import ingest_files
    from paipu.replay.io.jsonl import record_to_json

    bad = dict(ddz(BID_0 + "0 play 3h\n1 play 3s\n"), id="t-bad")  # 3s: not in seat 1's hand
    good = ddz(SPRING)
    src = tmp_path / "in.jsonl"
    src.write_bytes(record_to_json(bad) + b"\n" + record_to_json(good) + b"\n")
    root = str(tmp_path / "ds")
    ingest_files([str(src)], root, workers=1)
    done = review_dataset(root, SETTINGS, workers=1)
    assert done.hands == 2
    ledger = {r["hand_id"]: r for r in pl.DataFrame(pl.from_arrow(read_table(root, "reviewed"))).to_dicts()}
    assert ledger["t-bad"]["status"] == "not_in_hand" and ledger["t-bad"]["decisions"] == 0
    assert ledger["t-1"]["status"] == "ok"
    rows = _reviews(root)
    assert set(rows["hand_id"].to_list()) <= {"t-1"}
    players = update_players(root)
    # each player has the legal hand only (a hand reviewed: counted even when no decision had a choice)
    assert players["review_hands"].to_list() == [1, 1, 1]


def test_a_hand_the_evaluator_fails_on_is_noted_and_the_run_goes_on(ingested, tmp_path, monkeypatch):
    import paipu.replay.review as review

    real = review.review_hand
    failing = sorted(pl.DataFrame(pl.from_arrow(read_table(ingested, "hands", ["id"])))["id"].to_list())[0]

    def flaky(record, **kw):
        if record["id"] == failing:
            raise RuntimeError("a playout broke a rule:\n  not_in_hand")
        return real(record, **kw)

    monkeypatch.setattr(review, "review_hand", flaky)
    root = _copy(ingested, tmp_path)
    assert review_dataset(root, SETTINGS, workers=1).hands == HANDS
    ledger = {r["hand_id"]: r for r in pl.DataFrame(pl.from_arrow(read_table(root, "reviewed"))).to_dicts()}
    assert ledger[failing]["status"] == "review_error: a playout broke a rule: not_in_hand"
    assert [r["status"] for k, r in sorted(ledger.items()) if k != failing] == ["ok"] * (HANDS - 1)
    assert failing not in set(_reviews(root)["hand_id"].to_list())


# ---------------------------------------------------------------------------- paipu stats: review_rating


@pytest.fixture(scope="module")
def rated(tmp_path_factory) -> str:
    """An audited dataset of two Dou Dizhu hands (t-1, t-2; 张三 李四 王五 as A, B, C of
    _known_con) with the known reviews rows written as the pass writes them, the players
    table then rated."""
    from helpers import ANTI_SPRING, SPRING, ddz

    from paipu.replay.io.commit import StagedBatch
    from paipu.replay.review_pass import REVIEWED, _reviews_table

    folder = tmp_path_factory.mktemp("rated")
    src = folder / "in.jsonl"
    records = [ddz(SPRING), dict(ddz(ANTI_SPRING), id="t-2")]
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    root = str(folder / "ds")
    paipu.ingest([str(src)], root)
    paipu.audit(root, workers=1)
    name = {"A": "张三", "B": "李四", "C": "王五"}
    hand = {"h1": "t-1", "h2": "t-2"}
    known = _known_con().execute("select hand_id, player, chosen, best, options, loss, flag from reviews").fetchall()
    seat = {"A": 0, "B": 1, "C": 2}
    rows = [{"hand_id": hand[h], "index": k, "seat": seat[p], "kind": "play", "chosen": c, "best": b, "options": n,
             "loss": float(x), "loss_se": 0.0, "flag": f, "samples": 8, "exact": False, "relaxed": False,
             "variant": "huopin", "player": name[p]} for k, (h, p, c, b, n, x, f) in enumerate(known)]
    ledger = [{"hand_id": h, "variant": "huopin", "status": "ok", "decisions": 0, "skipped": 0, "samples": 8,
               "budget_ms": None, "seed": 0} for h in ("t-1", "t-2")]
    staged = StagedBatch(root)
    staged.write(os.path.join("reviews", "game=doudizhu", "part-known.parquet"), _reviews_table(rows))
    staged.write(os.path.join("reviewed", "game=doudizhu", "part-known.parquet"), pa.Table.from_pylist(ledger, schema=REVIEWED))
    staged.commit()
    update_players(root)
    return root


def test_stats_shows_the_review_rating_with_exact_figures(rated):
    out = CliRunner().invoke(app, ["stats", rated, "--stat", "review_rating", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)["review_rating"]
    # 王五 (C) had no decision with a choice: not shown; the most decisions first
    assert [(r["player"], r["hands"], r["decisions"], r["matches"], r["mistakes"], r["blunders"]) for r in rows] == [
        ("张三", 2, 3, 1, 1, 1), ("李四", 2, 2, 1, 0, 0)]
    a, b = rows
    assert (a["match_rate"], a["mistake_rate"], a["blunder_rate"]) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert (a["match_lo"], a["match_hi"]) == pytest.approx(wilson(1, 3))
    assert (a["mistake_lo"], a["mistake_hi"]) == pytest.approx(wilson(1, 3))
    assert (a["match_lo"], a["match_hi"]) == pytest.approx((0.0614919, 0.7923403), abs=1e-7)
    half = 12.706204736174707 * math.sqrt(2 / 1 * 200) / 3  # the clustered t interval (test_the_rating_on_known_rows)
    assert (a["mean_loss"], a["loss_lo"], a["loss_hi"]) == pytest.approx((10.0, 10 - half, 10 + half))
    # 李四's second decision had no loss but was not the best played: no match
    assert (b["match_rate"], b["match_lo"], b["mean_loss"], b["loss_lo"], b["loss_hi"]) == (0.5, pytest.approx(wilson(1, 2)[0]), 0.0, 0.0, 0.0)
    assert (b["mistake_rate"], b["mistake_lo"], b["blunder_rate"]) == (0.0, 0.0, 0.0)
    assert (a["game"], a["variant"]) == ("doudizhu", "huopin")
    # the table for people: the three rates and their bounds in per cent, the loss in points
    table = CliRunner().invoke(app, ["stats", rated, "--stat", "review_rating"])
    assert table.exit_code == 0
    line = next(x for x in table.stdout.splitlines() if "张三" in x)
    cells = [c.strip() for c in line.replace("│", "|").split("|") if c.strip()]
    assert cells[3:9] == ["2", "3", "1", "33.3%", "6.1%", "79.2%"]
    assert [float(c) for c in cells[9:12]] == pytest.approx([10.0, 10 - half, 10 + half], abs=0.05)  # (its decimals: fmt)
    # the loss and its bounds with the same decimals (they had 2, 3 and 1)
    assert len({len(c.partition(".")[2]) for c in cells[9:12]}) == 1, cells[9:12]
    # filtered to another game: none
    other = CliRunner().invoke(app, ["stats", rated, "--stat", "review_rating", "--game", "paodekuai", "--json"])
    assert json.loads(other.stdout)["review_rating"] == []


def test_without_a_review_the_rating_statistic_is_empty(tmp_path):
    from helpers import SPRING, ddz

    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(ddz(SPRING), ensure_ascii=False) + "\n", encoding="utf-8")
    root = str(tmp_path / "ds")
    paipu.ingest([str(src)], root)
    paipu.audit(root, workers=1)
    out = CliRunner().invoke(app, ["stats", root, "--stat", "review_rating", "--json"])
    assert out.exit_code == 0 and json.loads(out.stdout) == {"review_rating": []}
    plain = CliRunner().invoke(app, ["stats", root])
    assert plain.exit_code == 0 and "review_rating" not in plain.stdout


#: the child: ``paipu review DS`` on two workers whose jobs take a while (64 deals a decision),
#: Ctrl-C raising KeyboardInterrupt as at a terminal (a process started by pytest-xdist's
#: workers inherits SIGINT ignored, and Python then installs no handler of its own)
SLOW_REVIEW = REVIEW.replace('"--samples", "2"', '"--samples", "64"').replace(
    "import sys\n", "import signal\nimport sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n", 1)


def test_ctrl_c_stops_the_review_at_once_says_so_and_a_rerun_completes(ingested, tmp_path):
    """Ctrl-C waited for the workers' running jobs (a review's take minutes), then exited
    130 without a word."""
    import signal

    from test_kill_safety import gone, wait_for

    root = _copy(ingested, tmp_path)
    with busy_review(tmp_path, SLOW_REVIEW, root, 1.0) as (child, workers):
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=30) == 130
        assert time.monotonic() - sent < 10  # not after the jobs (each a hand at 64 deals a decision)
        wait_for(lambda: all(gone(p) for p in workers), timeout=30)
    said = (tmp_path / "stderr.txt").read_text()
    assert said.startswith(f"{root}: interrupted; the ") and said.endswith(
        " reviewed are kept, and the same command goes on from there\n") and said.count("\n") == 1, said
    done = review_dataset(root, SETTINGS, workers=1)  # the rest, each hand once
    ledger = pl.DataFrame(pl.from_arrow(read_table(root, "reviewed")))
    assert sorted(ledger["hand_id"].to_list()) == sorted(set(ledger["hand_id"].to_list())) and ledger.height == HANDS
    assert done.hands <= HANDS
