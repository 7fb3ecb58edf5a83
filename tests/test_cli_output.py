"""What the commands print for people (issue 24 items 5, 6, 8, 9, 13, 14; issue 29 items 10
and 17): tables that never cut an id or a number on a narrow terminal, figures in their own
units, standard output for the report, cards a deck cannot hold, fraud evidence in words,
help without type names, page modes, one-line errors.

The terminal tests run the installed ``paipu`` on a pseudo-terminal from a folder outside
the checkout, as a user would."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
import subprocess
import sys

import pytest
from test_cli_ux import ROOT, invoke, one_line_error, runner

from paipu.cli import app

PAIPU = os.path.join(os.path.dirname(sys.executable), "paipu")
if not os.path.exists(PAIPU):
    PAIPU = shutil.which("paipu") or PAIPU


@pytest.fixture(scope="module")
def sample_ds(tmp_path_factory):
    """sample_logs/ ingested and audited (hand ids up to 28 characters)."""
    ds = str(tmp_path_factory.mktemp("out") / "ds")
    assert invoke("ingest", os.path.join(ROOT, "sample_logs"), "--out", ds, "-q").exit_code == 0
    assert invoke("audit", ds, "--workers", "1").exit_code == 0
    return ds


@pytest.fixture(scope="module")
def small_ds(tmp_path_factory):
    """The one hand-made Dou Dizhu hand, ingested and audited (a quick report)."""
    ds = str(tmp_path_factory.mktemp("small") / "ds")
    assert invoke("ingest", os.path.join(ROOT, "sample_logs", "doudizhu_handmade.paipu"), "--out", ds).exit_code == 0
    assert invoke("audit", ds, "--workers", "1").exit_code == 0
    return ds


@pytest.fixture(scope="module")
def compare_ds(tmp_path_factory):
    """40 Dou Dizhu deals played under two settings, ingested and audited."""
    tmp = tmp_path_factory.mktemp("cmp")
    src, ds = str(tmp / "c.jsonl"), str(tmp / "ds")
    assert invoke("simulate", "-g", "ddz", "-n", "40", "--seed", "3", "--compare", "base", "kinds-=four_two_single",
                  "--out", src).exit_code == 0
    assert invoke("ingest", src, "--out", ds, "-q").exit_code == 0
    invoke("audit", ds, "--workers", "1")
    return ds


def on_terminal(args: list[str], columns: int, cwd) -> tuple[str, str]:
    """(stdout, stderr) of the installed paipu with its standard output a terminal *columns* wide."""
    import pty

    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS=str(columns), LINES="50", TERM="xterm")
    p = subprocess.Popen([PAIPU, *args], stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE, cwd=cwd,
                         env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    stderr = p.stderr.read().decode() if p.stderr else ""
    p.wait()
    os.close(master)
    text = b"".join(chunks).decode().replace("\r\n", "\n")
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text), stderr


def cells(text: str) -> list[list[str]]:
    return [[c.strip() for c in line.split("│")[1:-1]] for line in text.splitlines() if line.startswith("│")]


# ------------------------------------------------------------------ 24.5: never cut an id or a number


@pytest.mark.parametrize("columns", [80, 40])
def test_hands_on_a_narrow_terminal_shows_every_id_whole(sample_ds, tmp_path, columns):
    from rich.cells import cell_len

    everything = invoke("hands", sample_ds, "--limit", "8").stdout  # a pipe: the whole table
    ids = [row[0] for row in cells(everything)]
    assert len(ids) == 8 and "doudizhu-huopin-s2026-000000" in ids
    stdout, stderr = on_terminal(["hands", sample_ds, "--limit", "8"], columns, tmp_path)
    assert "…" not in stdout
    if columns == 80:  # the ids in the table, the least important columns left out (and said so)
        assert max(cell_len(line) for line in stdout.splitlines()) <= columns
        assert [row[0] for row in cells(stdout) if row[0]] == ids
        assert stderr.splitlines()[0] == ("left out for the terminal's width: source, time (a pipe, e.g. | less -S, "
                                          "shows every column)")
    else:  # 40: one hand at a time, every column; a path longer than the terminal runs on whole
        assert [line.split()[1] for line in stdout.splitlines() if line.startswith("id ")] == ids
        sources = [row[6] for row in cells(everything)]
        assert [line.split()[1] for line in stdout.splitlines() if line.startswith("source ")] == sources
        assert all(cell_len(line) <= columns or line.startswith("source ") for line in stdout.splitlines())


@pytest.mark.parametrize("columns", [80, 40])
def test_stats_on_a_narrow_terminal_shows_every_number_whole(sample_ds, tmp_path, columns):
    from rich.cells import cell_len

    numbers = re.compile(r"^-?[\d,.]+%?$")
    whole = {c for row in cells(invoke("stats", sample_ds).stdout) for c in row if numbers.match(c)}
    assert "100.0%" in whole
    stdout, _ = on_terminal(["stats", sample_ds], columns, tmp_path)
    assert "…" not in stdout and max(cell_len(line) for line in stdout.splitlines()) <= columns
    shown = set(re.findall(r"(?<![\w.,%-])-?[\d,.]+%?(?![\w.,%])", stdout))
    assert whole <= shown, sorted(whole - shown)[:10]


def test_interval_of_a_mean_is_in_the_mean_s_unit(sample_ds):
    """bombs_by_size's lo/hi bound bombs a hand (up to 5.66 here), not a rate in per cent."""
    r = invoke("stats", sample_ds, "--stat", "bombs_by_size", "--game", "pdk")
    assert "┃     lo ┃     hi ┃" in r.stdout and "%" not in r.stdout and "┃ per_hand ┃" in r.stdout
    row = next(row for row in cells(r.stdout) if row[2] == 'must_play=false')  # (the params as --rule writes them)
    assert row[-4:] == ["1.0000", "1", "0.1765", "5.6649"]  # (per_hand at its interval's decimals)  # Poisson score interval (was the normal one cut at 0: 0, 2.96)


def test_report_interval_of_a_mean_is_in_the_mean_s_unit(small_ds, tmp_path):
    assert invoke("report", small_ds, "--out", str(tmp_path / "r.html")).exit_code == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    by_kind = page[page.index("<th>per hand</th><th>hands</th><th>95% low</th><th>95% high</th></tr>"):]
    first = re.findall(r"<td(?: class='t')?>(.*?)</td>", by_kind[:by_kind.index("</tr>", by_kind.index("<tr>"))])
    assert first == ["huopin", "default rules", "bomb", "4", "1", "1", "1", "0.18", "5.66"]  # was 0%, 296.0%
    by_bid = page[page.index("<th>rate</th><th>95% low</th><th>95% high</th></tr>"):]
    assert "<td>100%</td><td>20.7%</td><td>100%</td>" in by_bid[:400]  # a rate's interval: per cent


# ------------------------------------------------------------------ 24.6: compare in the figures' units


def test_compare_shows_each_figure_in_its_unit(compare_ds):
    data = json.loads(invoke("compare", compare_ds, "--json").stdout)["differences"]
    r = invoke("compare", compare_ds)
    rows = {row[0]: row for row in cells(r.stdout)}
    head = next(line for line in r.stdout.splitlines() if line.startswith("┃"))
    assert [h.strip() for h in head.split("┃")[1:-1]] == [
        "figure", "pairs", "base_mean", "setting_mean", "diff", "lo", "hi", "p", "p_holm", "significant"]
    assert r.stdout.splitlines()[0].rstrip() == "doudizhu/huopin: kinds-=four_two_single - base, paired differences"
    for d in data:
        row = rows[d["figure"]]
        if d["figure"] in ("landlord_wins", "spring", "first_leader_wins", "double_down"):
            assert row[2] == f"{100 * d['base_mean']:.1f}%" and row[4] == f"{100 * d['diff']:+.1f}pp"
        else:  # the text's figures are the JSON's, in the figure's own unit: no per cent
            assert row[2:7] == [f"{d['base_mean']:,.3f}", f"{d['setting_mean']:,.3f}", f"{d['diff']:+,.3f}",
                                f"{d['lo']:+,.3f}", f"{d['hi']:+,.3f}"], row
        assert row[9] == ("yes" if d["significant"] else "no")
    assert "False" not in r.stdout and "True" not in r.stdout and "e-" not in r.stdout
    assert "actions" in rows and "%" not in "".join(rows["actions"])


def test_report_compares_each_figure_in_its_unit(compare_ds, tmp_path):
    """The report's comparison section: an interval of actions a hand is not per cent either."""
    data = {d["figure"]: d for d in json.loads(invoke("compare", compare_ds, "--json").stdout)["differences"]}
    assert invoke("report", compare_ds, "--out", str(tmp_path / "r.html")).exit_code == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    section = page[page.index("<section id='compare'>"):]
    row = re.search(r"<tr>(?:(?!</tr>).)*<td class='t'>actions</td>(.*?)</tr>", section).group(1)
    a = data["actions"]
    assert re.findall(r"<td(?: class='t')?>(.*?)</td>", row)[:6] == [
        str(a["pairs"]), f"{a['base_mean']:,.3f}", f"{a['setting_mean']:,.3f}", f"{a['diff']:+,.3f}",
        f"{a['lo']:+,.3f}", f"{a['hi']:+,.3f}"]


def test_compare_has_no_short_v():
    r = invoke("compare", ".", "-v", "huopin")
    assert r.exit_code == 2 and "No such option: -v" in r.stderr


# ------------------------------------------------------------------ 24.8: the report on standard output


def test_report_to_standard_output(small_ds, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = invoke("report", small_ds, "--out", "-")
    assert r.exit_code == 0 and r.stdout.startswith("<!doctype html><html lang='en'>") and r.stdout.endswith("</html>")
    assert os.listdir(tmp_path) == [] and r.stderr == ""  # no file named '-', no "wrote" line in the page's way
    if os.path.exists("/dev/null") and stat.S_ISCHR(os.stat("/dev/null").st_mode):
        one_line_error(invoke("report", small_ds, "--out", "/dev/null"),
                       "--out /dev/null is not a regular file (for standard output: --out -)")
        one_line_error(invoke("sql", small_ds, "select 1", "--parquet", "/dev/null"),
                       "--parquet /dev/null is not a regular file\n")  # no standard output hint: it has none


# ------------------------------------------------------------------ 24.9: cards, files, options


def test_a_card_more_often_than_the_decks_hold_is_an_error():
    one_line_error(invoke("combo", "--game", "ddz", "3s 3s 3s 3s"),
                   "3s 4 times in '3s 3s 3s 3s': the deck of doudizhu/huopin holds one")
    one_line_error(invoke("beats", "--game", "ddz", "4s 4s 4s 4s", "3s"),
                   "4s 4 times in '4s 4s 4s 4s': the deck of doudizhu/huopin holds one")
    one_line_error(invoke("beats", "--game", "ddz", "4s", "3h 3h"), "3h 2 times in '3h 3h'")
    one_line_error(invoke("beats", "--game", "ddz", "3s", "3s"),  # each side alone is fine, not both together
                   "3s 2 times in '3s' and '3s' together: the deck of doudizhu/huopin holds one")
    one_line_error(invoke("beats", "--game", "guandan", "3s 3s", "3s"), "3s 3 times in '3s 3s' and '3s' together")
    assert invoke("beats", "--game", "guandan", "3s", "3s").stdout.strip() == "no"  # two decks: one each
    one_line_error(invoke("combo", "--game", "guandan", "3s 3s 3s"),
                   "3s 3 times in '3s 3s 3s': the deck of guandan/standard holds 2")
    one_line_error(invoke("combo", "--game", "pdk", "2h"), "2h in '2h': not in the deck of paodekuai/huopin")
    assert invoke("combo", "--game", "guandan", "3s 3s").stdout.startswith("pair")  # two decks: twice is fine
    assert invoke("combo", "--game", "ddz", "3s 3h 3d 3c").stdout.startswith("bomb")


def test_simulate_refuses_a_file_it_does_not_write(tmp_path):
    one_line_error(invoke("simulate", "-g", "ddz", "-n", "2", "--out", str(tmp_path / "x.csv")),
                   f"--out {tmp_path / 'x.csv'}: simulate writes .jsonl, .ndjson, .paipu, .txt")
    assert not (tmp_path / "x.csv").exists()
    assert invoke("simulate", "-g", "ddz", "-n", "1", "--out", str(tmp_path / "x.txt.gz")).exit_code == 0
    import gzip

    assert gzip.decompress((tmp_path / "x.txt.gz").read_bytes()).startswith(b"hand doudizhu-huopin-s0-000000\ngame ")  # the text format


# ------------------------------------------------------------------ 24.13: fraud evidence for people


def test_fraud_prints_the_watch_list_apart_and_json_carries_it(tmp_path, monkeypatch):
    import json

    import polars as pl

    import paipu
    from paipu.analysis.fraud import FraudResult, Test

    flag = Test("co_seating", "doudizhu", "huopin", "A", "B", 1e-9, 5.0, 40, {
        "sittings_together": 40, "expected": 8.0, "sittings_a": 40, "sittings_b": 45}, q=1e-7)
    watched = Test("co_seating", "doudizhu", "huopin", "C", "D", 1.02e-5, 8.0, 12, {
        "sittings_together": 8, "expected": 1.0, "sittings_a": 12, "sittings_b": 10}, q=0.3, watch=True, more=9)
    quiet = Test("co_seating", "doudizhu", "huopin", "E", "F", 0.4, 1.1, 30, {
        "sittings_together": 3, "expected": 2.7, "sittings_a": 30, "sittings_b": 33}, q=1.0)
    # ranked before the watched one, not watched (too weak a p for its n): the watched is rank 3
    between = Test("co_seating", "doudizhu", "huopin", "G", "H", 0.02, 2.0, 30, {
        "sittings_together": 6, "expected": 3.0, "sittings_a": 30, "sittings_b": 30}, q=0.28)
    result = FraudResult(pl.DataFrame({"player": list("ABCDEF")}), [flag, between, watched, quiet], 0.01)
    monkeypatch.setattr(paipu, "fraud_screen", lambda *a, **k: result)  # (the names the command line calls)
    monkeypatch.setattr(paipu, "write_fraud_tables", lambda *a, **k: None)
    monkeypatch.setattr(paipu, "audit_dataset", lambda *a, **k: 0)
    (tmp_path / "hands").mkdir()
    r = invoke("fraud", str(tmp_path))
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines() == [
        "1 suspects flagged among 4 tests of 6 player profiles (false discovery rate 0.01)",
        "  1 FLAG co_seating doudizhu/huopin A & B  q < 0.0001  p < 0.0001  effect 5  n 40",
        "      sat together 40 times where 8 were expected (of 40 and 45 sittings)",
        "watch list: 1 not flagged, with q at most 0.25 or p at most 1 / the tests run (docs/fraud.md)",
        "  3 WATCH co_seating doudizhu/huopin C & D  q 0.30  p < 0.0001  effect 8  n 12",  # (its rank: --json's)
        "      sat together 8 times where 1 were expected (of 12 and 10 sittings)",
        "      about 9 more sittings like these would flag it"]
    r = invoke("fraud", str(tmp_path), "--json")
    out = json.loads(r.stdout)
    assert [s["player"] for s in out["suspects"]] == ["A"] and [s["player"] for s in out["watch"]] == ["C"]
    assert out["watch"][0]["more"] == 9 and out["watch"][0]["evidence"]["expected"] == 1.0
    assert out["watch"][0]["rank"] == 3  # the terminal's number (it counted on from the flags: 2)
    assert out["suspects"][0]["watch"] is False


def test_fraud_text_is_for_people(tmp_path, monkeypatch):
    import polars as pl

    import paipu
    from paipu.analysis.fraud import FraudResult, Test

    soft = Test("soft_play", "doudizhu", "huopin", "A", "B", 3.4e-35, 0.714, 785, {
        "spared": 661, "chances": 785, "rate": 0.842, "ci95": [0.8149, 0.8659], "baseline_rate": 0.1277,
        "baseline_chances": 799, "baseline_spared": 97, "dispersion": 1.236, "z": 40.991, "hands": 141,
        "z_hands": 16.604}, q=4.9e-33, hands=["h1", "h2"])
    bot = Test("bot_timing", "doudizhu", "huopin", "C", None, 4.2e-5, 4.19, 5584, {
        "regularity": {"value": 0.9296, "population_median": -0.3416, "z": 4.19},
        "features_needed": "3 of 5", "decisions": 5584, "players_compared": 12}, q=0.0025)
    flow = Test("chip_flow", "doudizhu", "huopin", "D", "E", 0.2, 0.84, 25, {
        "hands_as_opponents": 25, "losses_of_giver": 22, "giver_result_with": -1.2, "giver_result_elsewhere": 0.1,
        "receiver_result_with": 1.5, "receiver_result_elsewhere": None, "giver_hands_elsewhere": 300,
        "receiver_hands_elsewhere": 1280, "share_flowed": 9.5, "coins_flowed": 12000.0, "t_giver": -3.575,
        "t_receiver": 5.225, "t_df": 24}, q=0.5)
    result = FraudResult(pl.DataFrame({"player": ["A", "B", "C"]}), [soft, bot, flow], 0.01)
    monkeypatch.setattr(paipu, "fraud_screen", lambda *a, **k: result)  # (the names the command line calls)
    monkeypatch.setattr(paipu, "write_fraud_tables", lambda *a, **k: None)
    monkeypatch.setattr(paipu, "audit_dataset", lambda *a, **k: 0)
    (tmp_path / "hands").mkdir()
    r = invoke("fraud", str(tmp_path), "--top", "1")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines() == [
        "2 suspects flagged among 3 tests of 3 player profiles (false discovery rate 0.01)",
        "  1 FLAG soft_play  doudizhu/huopin A -> B  q < 0.0001  p < 0.0001  effect 0.714  n 785",
        "      spared 661 of 785 chances to beat (84.2%, 95% interval 81.5% to 86.6%) against 97 of 799 (12.8%) "
        "with the other opponents from the same places; z 41.0; over 141 hands, z 16.6; over-dispersion 1.24",
        "      hands: h1 h2",
        "  2 FLAG bot_timing doudizhu/huopin C  q 0.0025  p < 0.0001  effect 4.19  n 5,584",
        "      regularity 0.930 (players' median -0.342, z 4.2); features needed 3 of 5; decisions 5,584; "
        "players compared 12",
        "  3      chip_flow  doudizhu/huopin D -> E  q 0.50  p 0.20  effect 0.840  n 25",
        "      met as opponents in 25 hands, the giver lost 22; giver's result -1.20 a hand with the receiver, "
        "0.100 in 300 other hands; receiver's 1.50, – in 1,280 other hands; 9.50 hands' worth of the giver's "
        "losses (12,000 coins) went to the receiver; t -3.6 (giver), 5.2 (receiver), 24 degrees of freedom"]
    assert invoke("fraud", str(tmp_path), "--fdr", "0.00001").stdout.splitlines()[0] == (
        "2 suspects flagged among 3 tests of 3 player profiles (false discovery rate 0.00001)")  # screen is stubbed
    raw = json.loads(invoke("fraud", str(tmp_path), "--json").stdout)["suspects"]
    assert raw[0]["q"] == 4.9e-33 and raw[0]["evidence"]["ci95"] == [0.8149, 0.8659]  # machines: raw values
    one_line_error(invoke("fraud", str(tmp_path), "--top", "-5"), "--top must be 0 or more, got -5")


# ------------------------------------------------------------------ 24.14: help, page modes


def test_help_names_values_not_types_and_keeps_sentences_whole():
    from paipu.cli import app as typer_app

    names = [c.name or c.callback.__name__ for c in typer_app.registered_commands]
    assert "simulate" in names and "fraud" in names
    for name in ["replay" if n == "replay_cmd" else n for n in names]:
        r = runner.invoke(app, [name, "--help"], env={"COLUMNS": "200"})
        assert r.exit_code == 0 and not re.search(r"<(str|int|float|bool|list\[\w+\])>", r.stdout), (name, r.stdout)
    r = runner.invoke(app, ["simulate", "--help"], env={"COLUMNS": "200"})
    assert re.search(r"--hands +-n +N +how many hands", r.stdout) and re.search(r"--game +-g +GAME ", r.stdout)
    assert re.search(r"--rule +-r +RULE ", r.stdout) and re.search(r"--fdr +FDR ", invoke("fraud", "--help").stdout)
    r = runner.invoke(app, ["stats", "--help"], env={"COLUMNS": "200"})
    assert "Tables show rates as per cent and numbers with thousands separators; --json gives the raw values. " \
           "The statistics are described in docs/analysis.md." in r.stdout


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_replay_pages_are_made_as_files_are(small_ds, tmp_path, mask, mode):
    """As the report (open()) and the index page are: 0666 less the umask."""
    old = os.umask(mask)
    try:
        assert invoke("replay", small_ds, "--hand", "ddz-handmade-1", "--html", str(tmp_path / "p.html")).exit_code == 0
        assert invoke("replay", small_ds, "--hands", "ddz-handmade-1", "--html", str(tmp_path / "pages")).exit_code == 0
    finally:
        os.umask(old)
    for path in (tmp_path / "p.html", tmp_path / "pages" / "ddz-handmade-1.html", tmp_path / "pages" / "index.html"):
        assert stat.S_IMODE(os.stat(path).st_mode) == mode, path


def test_replay_page_outside_the_checkout(small_ds, tmp_path):
    """The page's assets come from the installed package, whatever the current folder."""
    p = subprocess.run([PAIPU, "replay", small_ds, "--hand", "ddz-handmade-1", "--html", "p.html"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert p.returncode == 0 and p.stderr == "wrote p.html\n", p.stderr[-300:]
    assert "<style>" in (tmp_path / "p.html").read_text(encoding="utf-8")


# ------------------------------------------------------------------ 29.10, 29.17


@pytest.mark.parametrize("query", ["", ";", " -- a comment"])
@pytest.mark.parametrize("safe", [False, True])
def test_sql_without_a_statement_is_a_one_line_error(small_ds, query, safe):
    r = invoke("sql", small_ds, query, *(["--safe"] if safe else []))
    one_line_error(r, 'the query has no SQL statement (give one, e.g. "select count(*) from hands")')


def test_labels_errors_name_the_labels_file(tmp_path, monkeypatch):
    out, labels = tmp_path / "pop.jsonl", tmp_path / "labels.csv"
    labels.write_text("old\n")
    import paipu

    def full(path, pop):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(paipu, "write_labels", full)
    one_line_error(invoke("simulate", "-g", "ddz", "-n", "3", "--players", "6", "--labels", str(labels),
                          "--out", str(out)), f"{labels}: No space left on device")
    if os.path.exists("/dev/full") and stat.S_ISCHR(os.stat("/dev/full").st_mode):
        one_line_error(invoke("simulate", "-g", "ddz", "-n", "3", "--players", "6", "--labels", "/dev/full",
                              "--out", str(out)), "--labels /dev/full is not a regular file")
        assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
