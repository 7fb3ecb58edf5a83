"""Statistics, ad-hoc SQL and the report, on a small hand-built dataset worked out by hand."""

from __future__ import annotations

import json
import math
import os

import polars as pl
import pytest
from helpers import ANTI_SPRING, BID_0, CLASSIC_HEAD, PDK_HEAD, SPRING, ddz, text_record
from test_paodekuai import CLASSIC_GAME, LET_GO
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.io.jsonl import record_to_json
from paipu.replay.sim import simulate

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


def wilson(k: int, n: int) -> tuple[float, float]:
    """The textbook Wilson interval (Wilson 1927), with the 97.5% normal quantile."""
    z = 1.959963984540054
    p = k / n
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, center - half), min(1.0, center + half)


def make(tmp, records) -> str:
    src = tmp / "hands.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in records))
    ds = str(tmp / "ds")
    assert invoke("ingest", str(src), "--out", ds).exit_code == 0
    invoke("audit", ds, "--workers", "1")
    return ds


@pytest.fixture(scope="module")
def stats(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stats")
    records = []
    for hand_id, moves in (("spring", SPRING), ("anti", ANTI_SPRING), ("redeal", "0 bid no\n1 bid no\n2 bid no\n"),
                           ("broken", BID_0 + "0 play 3h\n1 play 4h\n2 play 3c\n")):
        r = ddz(moves)
        r["id"] = hand_id
        records.append(r)
    letgo = text_record(PDK_HEAD, LET_GO, params={"must_play": False})
    classic = text_record(CLASSIC_HEAD, CLASSIC_GAME)
    records += [letgo, classic]
    ds = make(tmp, records)
    r = invoke("stats", ds, "--json")
    assert r.exit_code == 0
    return json.loads(r.stdout)


def rows(stats, name, **where):
    return [r for r in stats[name] if all(r[k] == v for k, v in where.items())]


def test_overview_and_violations(stats):
    assert [(r["game"], r["variant"], r["setting"], r["hands"], r["legal"], r["violating"]) for r in stats["overview"]] == [
        ("doudizhu", "huopin", "", 4, 3, 1), ("paodekuai", "classic", "", 1, 1, 0),
        ("paodekuai", "huopin", '{"must_play": false}', 1, 1, 0)]
    assert [(r["game"], r["code"], r["hands"]) for r in stats["violations"]] == [("doudizhu", "does_not_beat", 1)]


def test_bombs(stats):
    (ddz_row,) = rows(stats, "bombs", game="doudizhu")
    lo, hi = wilson(1, 2)
    assert (ddz_row["hands"], ddz_row["bombs_per_hand"], ddz_row["hands_with_bomb"], ddz_row["rate"]) == (2, 1.0, 1, 0.5)
    assert ddz_row["lo"] == pytest.approx(lo) and ddz_row["hi"] == pytest.approx(hi)
    (classic,) = rows(stats, "bombs", variant="classic")
    assert (classic["hands"], classic["bombs_per_hand"], classic["rate"], classic["lo"]) == (1, 0.0, 0.0, 0.0)
    assert sorted((r["game"], r["kind"], r["size"], r["bombs"], r["per_hand"]) for r in stats["bombs_by_size"]) == [
        ("doudizhu", "bomb", 4, 1, 0.5), ("doudizhu", "rocket", 2, 1, 0.5), ("paodekuai", "bomb", 4, 1, 1.0)]
    landlord = rows(stats, "bombs_by_seat", game="doudizhu", role="landlord")
    assert [(r["seat"], r["hands"], r["bombs_per_hand"], r["hands_with_bomb"]) for r in landlord] == [(0, 2, 1.0, 1)]
    letgo_seats = rows(stats, "bombs_by_seat", variant="huopin", game="paodekuai")
    assert [(r["seat"], r["bombs_per_hand"]) for r in letgo_seats] == [(0, 1.0), (1, 0.0), (2, 0.0)]


def test_multiplier_and_its_drivers(stats):
    assert [(r["multiplier"], r["hands"], r["share"]) for r in stats["multiplier"]] == [(2, 1, 0.5), (8, 1, 0.5)]
    drivers = {(r["driver"], r["level"]): (r["hands"], r["mean_multiplier"]) for r in stats["multiplier_drivers"]}
    assert drivers == {("bombs", "0"): (1, 2.0), ("bombs", "2"): (1, 8.0), ("grabs", "0"): (2, 5.0),
                       ("show", "1"): (2, 5.0), ("spring", "anti_spring"): (1, 2.0), ("spring", "spring"): (1, 8.0)}


def test_landlord_wins_spring_seats_first_lead(stats):
    assert [(r["breakdown"], r["level"], r["hands"], r["wins"], r["rate"]) for r in stats["landlord_wins"]] == [
        ("all", "all", 2, 1, 0.5), ("grabs", "0", 2, 1, 0.5), ("show", "1", 2, 1, 0.5)]
    assert [(r["kind"], r["hands"], r["k"]) for r in stats["spring"]] == [("anti_spring", 2, 1), ("spring", 2, 1)]
    assert [(r["seat"], r["hands"], r["wins"]) for r in rows(stats, "seat_advantage", game="doudizhu")] == [
        (0, 2, 1), (1, 2, 1), (2, 2, 0)]
    first = {r["variant"]: (r["hands"], r["wins"]) for r in stats["first_lead"]}
    assert first == {"huopin": (1, 0), "classic": (1, 1)} or \
        [(r["game"], r["variant"], r["hands"], r["wins"]) for r in stats["first_lead"]] == [
            ("doudizhu", "huopin", 2, 1), ("paodekuai", "classic", 1, 1), ("paodekuai", "huopin", 1, 0)]


def test_paodekuai_events(stats):
    got = {(r["variant"], r["event"]): (r["hands"], r["k"]) for r in stats["paodekuai_events"]}
    assert got == {("classic", "let_go"): (1, 0), ("classic", "let_go_paid"): (1, 0), ("classic", "xiqian"): (1, 0),
                   ("huopin", "let_go"): (1, 1), ("huopin", "let_go_paid"): (1, 1), ("huopin", "xiqian"): (1, 1)}


def test_hand_length_scores_players(stats):
    (length,) = rows(stats, "hand_length", game="doudizhu")
    assert (length["hands"], length["mean_actions"], length["median_actions"], length["mean_tricks"],
            length["max_tricks"]) == (2, 12.0, 12.0, 3.5, 4)
    # the 90th percentile and the maximum of both, as documented (max_actions and p90_tricks were missing)
    # (two hands of 11 and 13 actions, 3 and 4 tricks: interpolated 90th percentiles)
    assert (length["p90_actions"], length["max_actions"], length["p90_tricks"]) == (
        pytest.approx(12.8), 13, pytest.approx(3.9))
    (score,) = rows(stats, "scores", game="doudizhu")
    assert (score["hands"], score["mean_top_score"], score["median_top_score"], score["max_top_score"]) == (2, 9.0, 9.0, 16.0)
    players = {r["player"]: (r["hands"], r["wins"], r["points"]) for r in rows(stats, "players", game="doudizhu")}
    assert players == {"张三": (2, 1, 12.0), "李四": (2, 1, -6.0), "王五": (2, 0, -6.0)}


def test_stats_filters_and_errors(tmp_path):
    r = invoke("stats", str(tmp_path), "--json")
    assert r.exit_code == 2 and "not a paipu dataset" in r.stderr
    r = invoke("stats", str(tmp_path), "--stat", "nope")
    assert r.exit_code == 2 and "unknown statistic 'nope'" in r.stderr


def test_stats_match_an_independent_count_from_the_raw_records(tmp_path):
    records = list(simulate("doudizhu", None, 150, 77, escape_rate=0.05))
    ds = make(tmp_path, records)
    got = json.loads(invoke("stats", ds, "--json", "-g", "ddz", "--stat", "bombs", "--stat", "overview").stdout)
    raw = pl.read_ndjson(str(tmp_path / "hands.jsonl"))
    played = raw.filter(~pl.col("result").struct.field("redeal"))
    plays = (played.select("id", "actions").explode("actions").unnest("actions")
             .filter(pl.col("act") == "play")
             .with_columns(pl.col("cards").list.eval(pl.element().str.slice(0, 1)).alias("ranks")))
    bombs = plays.filter(((pl.col("ranks").list.len() == 4) & (pl.col("ranks").list.n_unique() == 1))
                         | (pl.col("cards").list.sort() == ["BJ", "SJ"]))
    per_hand = bombs.group_by("id").len()
    (row,) = got["bombs"]
    assert row["hands"] == played.height
    assert row["hands_with_bomb"] == per_hand.height
    assert row["bombs_per_hand"] == pytest.approx(bombs.height / played.height)
    assert got["overview"][0]["hands"] == 150 and got["overview"][0]["legal"] == 150


def test_sql_views_csv_and_parquet(tmp_path):
    ds = make(tmp_path, [ddz(SPRING)])
    r = invoke("sql", ds, "select count(*) as n from actions", "--csv")
    assert r.stdout.splitlines() == ["n", "13"]
    out = tmp_path / "x.parquet"
    invoke("sql", ds, "select hand_id, seat, score from seats order by seat", "--parquet", str(out))
    assert pl.read_parquet(out).to_dicts() == [{"hand_id": "t-1", "seat": 0, "score": 16.0},
                                               {"hand_id": "t-1", "seat": 1, "score": -8.0},
                                               {"hand_id": "t-1", "seat": 2, "score": -8.0}]
    r = invoke("sql", ds, "select * from nowhere")
    assert r.exit_code == 2 and "query failed" in r.stderr


def test_report_renders_embeds_charts_and_escapes(tmp_path):
    records = list(simulate("paodekuai", "huopin", 30, 5)) + list(simulate("paodekuai", "classic", 30, 5))
    records += list(simulate("doudizhu", None, 30, 5))
    records += list(simulate("paodekuai", "huopin", 10, 6, params={"must_play": False}))
    for record in records[:30]:  # an active player, so that the players table names it
        record["players"][1] = "<script>alert(1)</script>"
    ds = make(tmp_path, records)
    out = tmp_path / "report.html"
    r = invoke("report", ds, "--out", str(out))
    assert r.exit_code == 0 and "2 sections" in r.stderr
    page = out.read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<svg ") >= 12 and "data:image/png" not in page
    assert page.count("<figcaption>") == page.count("<svg ")
    assert "landlord wins: " in page and "classic" in page and "huopin" in page
    assert "must play: off" in page and "must_play" not in page  # settings in words, not JSON
    assert "<h2>斗地主 Dou Dizhu</h2>" in page and "<h2>跑得快 Paodekuai</h2>" in page


def test_guandan_tribute_counts_double_single_and_resisted_apart(tmp_path):
    """tests/data/guandan_tribute.jsonl: five two-hand matches; the second hands pay two
    double tributes (after 双下), one single, and two resist (one after 双下)."""
    import shutil

    src = tmp_path / "guandan_tribute.jsonl"
    shutil.copy(os.path.join(os.path.dirname(__file__), "data", "guandan_tribute.jsonl"), src)
    ds = str(tmp_path / "ds")
    assert invoke("ingest", str(src), "--out", ds).exit_code == 0
    assert invoke("audit", ds, "--workers", "1").exit_code == 0
    got = json.loads(invoke("stats", ds, "--json", "--stat", "guandan").stdout)["guandan"]
    assert [(r["level"], r["hands"], r["k"]) for r in got if r["measure"] == "tribute"] == [
        ("double", 10, 2), ("none", 10, 5), ("resisted", 10, 2), ("single", 10, 1)]
    out = tmp_path / "report.html"
    assert invoke("report", ds, "--out", str(out)).exit_code == 0
    page = out.read_text(encoding="utf-8")
    assert "double tribute (after 双下): 20.0% (95% CI 5.7% – 51.0%, n = 10); no tribute: 50.0% " in page
    assert "single tribute: 10.0% (95% CI 1.8% – 40.4%, n = 10)" in page


def test_one_wilson_interval_in_sql_and_python():
    """The SQL macros wilson_lo/wilson_hi and analysis.inference.wilson (scipy's
    binomtest(...).proportion_ci(method="wilson")) give the same bounds to the last digit,
    from no trials' edge (k = 0, k = n) to a billion trials, and on a sum (DuckDB's hugeint);
    the fraud screens use the same function."""
    import duckdb

    from paipu.analysis import fraud, inference
    from paipu.analysis.queries import sql_text

    assert inference.Z == 1.959963984540054 and f"{inference.Z!r}" in sql_text("_setup")
    assert f"{inference.Z * inference.Z!r}" in sql_text("_setup")
    cases = [(k, n) for n in [*range(1, 40), 99, 1000, 12345, 10**6, 987654321]
             for k in sorted({0, 1, 2, n // 3, n // 2, n - 1, n}) if 0 <= k <= n]
    con = duckdb.connect()
    con.execute(sql_text("_setup"))
    rows = con.execute("select k, n, wilson_lo(k, n), wilson_hi(k, n) from (select unnest($ks) as k, unnest($ns) as n)",
                       {"ks": [k for k, _ in cases], "ns": [n for _, n in cases]}).fetchall()
    assert len(rows) == len(cases) == 289
    assert [(k, n, lo, hi) for k, n, lo, hi in rows if (lo, hi) != inference.wilson(k, n)] == []
    [summed] = con.execute("select wilson_lo(sum(x), count(*)), wilson_hi(sum(x), count(*)) "
                           "from (select unnest([1, 0, 1, 1, 0, 1, 0]) as x)").fetchall()
    assert summed == inference.wilson(4, 7) == fraud.wilson(4, 7) == (0.2504583645276572, 0.8417801447485302)
    assert con.execute("select wilson_lo(0, 0), wilson_hi(3, 3), wilson_lo(0, 5)").fetchall() == [(None, 1.0, 0.0)]


def test_query_results_reach_polars_through_arrow_with_the_values_types():
    """analysis.queries.frame reads a DuckDB result through Arrow (no row copied in
    Python) and gives each column the type its values have in Python: a sum of integers
    (a hugeint: decimal(38,0) through Arrow) and a decimal of scale 0 Int64, other decimals
    decimals (Python's Decimal), every integer Int64 and float Float64, inside lists and
    structs as well; no statement is an empty frame; a limit reads no more rows."""
    from decimal import Decimal

    import duckdb
    import polars as pl

    from paipu.analysis import queries

    con = duckdb.connect()
    df = queries.frame(con.sql(
        "select sum(x) as s, sum(x::hugeint) as h, 12::decimal(18, 0) as w, 1.25::decimal(10, 2) as d, "
        "1::tinyint as t, 3::uinteger as u, 0.5::float as f, [1, 2] as l, {'a': 1, 'b': 2.5::float} as st, "
        "'x' as v, null as n from (select unnest([1, 2, 3]) as x) where x > $at", params={"at": 0}))
    assert df.schema == pl.Schema({
        "s": pl.Int64, "h": pl.Int64, "w": pl.Int64, "d": pl.Decimal(10, 2), "t": pl.Int64, "u": pl.Int64, "f": pl.Float64,
        "l": pl.List(pl.Int64), "st": pl.Struct({"a": pl.Int64, "b": pl.Float64}), "v": pl.String, "n": pl.Null})
    assert df.rows() == [(6, 6, 12, Decimal("1.25"), 1, 3, 0.5, [1, 2], {"a": 1, "b": 2.5}, "x", None)]
    empty = queries.frame(con.sql("select x as a, sum(x) as b from (select 1 as x) where false group by x"))
    assert (empty.height, empty.schema) == (0, pl.Schema({"a": pl.Int64, "b": pl.Int64}))
    assert queries.frame(con.sql(";")).shape == (0, 0)
    cursor = con.execute("select range as r from range(5000)")
    assert queries.frame(cursor, 3).rows() == [(0,), (1,), (2,)]
    assert queries.frame(con.execute("select sum(range) as s from range(5000)"))["s"].dtype == pl.Int64


def test_sql_names_a_column_given_twice_in_one_line(tmp_path):
    """paipu sql with two result columns of one name: a one-line error naming it (polars
    keeps one column a name), not a traceback."""
    ds = make(tmp_path, [ddz(SPRING)])
    r = invoke("sql", ds, "select 1 as a, 2 as a")
    assert r.exit_code == 2 and r.stderr.strip().splitlines() == [
        "error: the result has more than one column named 'a': give each its own name (... as NAME)"]


def test_guandan_levels_and_shuangkou_stars_come_in_their_order_not_as_text(tmp_path):
    """The stats sorted levels as text (2 .. 9, A, J, T) and stars too (0, 12, 4, 8, 9)."""
    ds = str(tmp_path / "ds")
    logs = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sample_logs")
    files = [os.path.join(logs, f) for f in ("guandan_standard_simulated.jsonl", "shuangkou_simulated.jsonl")]
    assert invoke("ingest", *files, "--out", ds).exit_code == 0
    assert invoke("audit", ds, "--workers", "1").exit_code == 0
    got = json.loads(invoke("stats", ds, "--json", "--stat", "guandan", "--stat", "shuangkou").stdout)
    levels = [(r["level"], r["k"]) for r in got["guandan"] if r["measure"] == "level_played"]
    assert levels == [("2", 1), ("3", 1), ("4", 2), ("7", 2), ("T", 2), ("J", 2), ("A", 2)]
    stars = [(r["level"], r["k"]) for r in got["shuangkou"] if r["measure"] == "stars_per_hand"]
    assert stars == [("0", 11), ("4", 11), ("8", 3), ("9", 1), ("12", 3)]


def test_report_tables_show_a_differences_interval_in_points_and_p_values_as_everywhere():
    """A difference of rates had its interval in per cent (−5.6 pp, then -42.6% … 32.6%),
    and a small p (Holm) was printed as 0.0000000011."""
    from paipu.analysis.report import Page

    page = Page("en", None, "r.html")
    table = pl.DataFrame([{"metric": "escaped", "hands": 40, "rate": 0.075, "difference": 0.075, "lo": -0.024,
                           "hi": 0.199, "p_holm": 1.1e-9}, {"metric": "bombs", "hands": 40, "rate": 0.125,
                                                            "difference": -0.168, "lo": -0.335, "hi": 0.012,
                                                            "p_holm": 0.4512}])
    html = str(page.table(table))
    assert "<td>7.5%</td><td>+7.5 pp</td><td>−2.4 pp</td><td>+19.9 pp</td><td>&lt; 0.0001</td>" in html
    assert "<td>12.5%</td><td>−16.8 pp</td><td>−33.5 pp</td><td>+1.2 pp</td><td>0.45</td>" in html
    rates = str(page.table(pl.DataFrame([{"hands": 10, "k": 2, "rate": 0.2, "lo": 0.057, "hi": 0.51, "p": 0.0321}])))
    assert "<td>20.0%</td><td>5.7%</td><td>51.0%</td><td>0.032</td>" in rates  # a rate's interval stays in per cent


def test_the_chinese_report_says_the_statistics_codes_in_chinese():
    """The zh report's tables showed let_go, double_down, landlord, team 0 as they are."""
    from paipu.analysis.report import HIDDEN_COLUMNS, Page

    df = pl.DataFrame([{"game": "guandan", "measure": "tribute", "level": "double", "hands": 10},
                       {"game": "shuangkou", "measure": "kou", "level": "double", "hands": 4},
                       {"game": "paodekuai", "measure": "let_go_paid", "level": "A", "hands": 2},
                       {"game": "doudizhu", "measure": "bombs", "level": "team 1", "hands": 1}])
    assert "game" in HIDDEN_COLUMNS  # (inside its own section: the game still chooses the words)
    zh = str(Page("zh", None, "r.html").table(df))
    for said, code in (("进贡", "tribute"), ("双贡", "double"), ("扣", "kou"), ("双扣", "double"), ("包赔", "let_go_paid"),
                       ("炸弹", "bombs"), ("队伍 1", "team 1")):
        assert f"title=\"{code}\">{said}<" in zh or f"title='{code}'>{said}<" in zh, (said, zh)
    assert ">A<" in zh  # a level's rank is no code
    en = str(Page("en", None, "r.html").table(df))
    assert ">let_go_paid<" in en and ">double<" in en and "包赔" not in en
