"""What a new user hits: one-line errors, finding hands, numbers for people, help, --safe SQL,
output that never depends on the terminal's width."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
import subprocess
import sys

import pytest
from helpers import ANTI_SPRING, BID_0, SPRING, ddz
from rich.console import Console
from typer.testing import CliRunner

import paipu.cli as cli
from paipu.cli import app
from paipu.replay.io.jsonl import record_to_json

runner = CliRunner()
ROOT = os.path.join(os.path.dirname(__file__), "..")


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def one_line_error(r, text: str) -> None:
    assert r.exit_code == 2, r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and text in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


@pytest.fixture(scope="module")
def hands_file(tmp_path_factory):
    """Three Dou Dizhu hands: a spring with big coins and a time, an anti-spring, a violation."""
    tmp = tmp_path_factory.mktemp("ux")
    spring = ddz(SPRING, room={"coef": 1000}, stacks=[1e6, 1e6, 1e6], time="2024-05-01T20:00:00+08:00")
    spring["id"] = "spring"
    anti = ddz(ANTI_SPRING, time="2024-04-01T10:00:00")
    anti["id"] = "anti"
    broken = ddz(BID_0 + "0 play 3h\n1 play 4h\n2 play 3c\n")
    broken["id"] = "broken"
    src = tmp / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in (spring, anti, broken)))
    return src


@pytest.fixture(scope="module")
def dataset(hands_file):
    """The three hands ingested and audited in a folder whose name is a glob: ds[1]."""
    ds = str(hands_file.parent / "ds[1]")
    assert invoke("ingest", str(hands_file), "--out", ds).exit_code == 0
    r = invoke("audit", ds, "--workers", "1")
    assert r.exit_code == 1 and "3 hands: 2 ok, 1 with violations (does_not_beat 1)" in r.stdout
    assert f"{ds}: audited 3 of 3 hands (0 were audited already)" in r.stderr
    return ds


# ------------------------------------------------------------------ 8: no terminal width


def test_output_for_pipes_never_wraps_at_40_columns(tmp_path, hands_file, dataset):
    deep = tmp_path / ("a-very-long-folder-name-for-the-pipes-" * 3) / "logs"
    deep.mkdir(parents=True)
    src = deep / "hands.jsonl"
    src.write_bytes(hands_file.read_bytes())
    env = dict(os.environ, COLUMNS="40", LINES="10")

    def run(*args: str) -> tuple[str, str]:
        p = subprocess.run([sys.executable, "-m", "paipu.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True)
        return p.stdout, p.stderr

    stdout, _ = run("audit", str(src))
    assert stdout.splitlines() == [
        f"{src}:3 broken: does_not_beat at action 5: 3c (single 单张 of 1 to 3) does not beat single 单张 of 1 to 4",
        "3 hands: 2 ok, 1 with violations (does_not_beat 1)"]
    _, stderr = run("audit", str(deep / "missing.jsonl"))
    assert stderr.count("\n") == 1 and str(deep / "missing.jsonl") in stderr
    stdout, _ = run("stats", dataset, "--stat", "players")
    lines = stdout.splitlines()
    assert lines[0].rstrip() == "players" and len(lines) == 1 + 3 + 3 + 1  # title, head (3), rows, bottom
    assert re.fullmatch(r"┃ game +┃ variant ┃ player ┃ hands ┃ wins ┃ rate % ┃ points ┃ +coins ┃", lines[2])
    stdout, _ = run("hands", dataset)
    assert any(line.endswith(f"│ {hands_file}:1 │") for line in stdout.splitlines())
    stdout, _ = run("replay", str(src), "--hand", "broken")
    assert stdout.splitlines()[-1] == ("  !! VIOLATION does_not_beat at action 5: 3♣ (single 单张 of 1 to 3) "
                                       "does not beat single 单张 of 1 to 4")


# ------------------------------------------------------------------ 9: one-line errors


def test_unwritable_or_missing_output_folders_are_one_line_errors(tmp_path, dataset):
    missing = tmp_path / "no" / "such"
    one_line_error(invoke("report", dataset, "--out", str(missing / "r.html")), f"the folder {missing} does not exist")
    one_line_error(invoke("report", dataset, "--out", str(tmp_path)), "is a folder, not a file")
    one_line_error(invoke("simulate", "-g", "ddz", "--hands", "2", "--out", str(missing / "s.jsonl")), "does not exist")
    one_line_error(invoke("sql", dataset, "select 1", "--parquet", str(missing / "x.parquet")), "does not exist")
    one_line_error(invoke("convert", os.path.join(ROOT, "sample_logs"), "--to", "text", "--out", str(missing / "c")),
                   "does not exist")
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    one_line_error(invoke("ingest", os.path.join(ROOT, "sample_logs"), "--out", str(a_file)), "is a file, not a folder")
    one_line_error(invoke("ingest", os.path.join(ROOT, "sample_logs"), "--out", str(a_file / "ds")),
                   "is a file, not a folder")
    assert not missing.exists() and a_file.read_text() == "x"


def test_a_full_disk_is_a_one_line_error(dataset, tmp_path, monkeypatch):
    """ENOSPC while writing (made up here: a test must not write to /dev/full, whose node a
    replacing write removes when run as root)."""
    import errno

    import polars as pl

    import paipu.analysis.report
    import paipu.replay.io.jsonl

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "x"))

    monkeypatch.setattr(paipu, "write_report", full)
    one_line_error(invoke("report", dataset, "--out", str(tmp_path / "r.html")), "x: No space left on device")
    monkeypatch.setattr(paipu.replay.io.jsonl, "record_to_json", full)
    one_line_error(invoke("simulate", "-g", "ddz", "-n", "5", "--out", str(tmp_path / "s.jsonl")),
                   "x: No space left on device")

    def polars_full(*args, **kwargs):
        raise pl.exceptions.ComputeError("parquet: underlying IO error: No space left on device (os error 28)")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", polars_full)
    one_line_error(invoke("sql", dataset, "select 1", "--parquet", str(tmp_path / "p.parquet")),
                   "p.parquet: cannot write: parquet: underlying IO error: No space left on device")
    import stat

    if os.path.exists("/dev/null") and stat.S_ISCHR(os.stat("/dev/null").st_mode):  # write_report is patched here
        one_line_error(invoke("report", dataset, "--out", "/dev/null"), "/dev/null is not a regular file")
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_unknown_game_in_simulate_makes_no_file(tmp_path):
    out = tmp_path / "s.jsonl"
    one_line_error(invoke("simulate", "-g", "chess", "--out", str(out)), "unknown game 'chess'")
    assert not out.exists()


def test_sql_csv_writes_nested_columns_as_json_text(dataset):
    r = invoke("sql", dataset, "select id, players, [1, 2] as l, {'a': 1} as s, null::int[] as n from hands "
                               "where id = 'spring'", "--csv")
    assert r.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert rows == [{"id": "spring", "players": '["张三", "李四", "王五"]', "l": "[1, 2]", "s": '{"a": 1}', "n": ""}]


def test_dataset_folder_named_like_a_glob(dataset, tmp_path):
    r = invoke("stats", dataset, "--stat", "overview", "--json")
    assert json.loads(r.stdout)["overview"] == [
        {"game": "doudizhu", "variant": "huopin", "setting": "", "hands": 3, "legal": 2, "violating": 1}]
    assert invoke("sql", dataset, "select count(*) from actions", "--csv").stdout == "count_star()\n30\n"  # 13 + 11 + 6 actions
    r = invoke("report", dataset, "--out", str(tmp_path / "r.html"))
    assert r.exit_code == 0 and r.stderr == f"wrote {tmp_path / 'r.html'} (1 section)\n"
    # a folder ds[1] must not read its neighbour ds1
    import shutil

    shutil.copytree(dataset, os.path.join(os.path.dirname(dataset), "ds1"))
    r = invoke("sql", dataset, "select count(*) from hands", "--csv")
    assert r.stdout == "count_star()\n3\n"


@pytest.mark.parametrize("game, most", [("guandan", 10), ("shuangkou", 27), ("doudizhu", 20)])
def test_more_cards_than_a_play_holds_is_an_error_at_once(game, most):
    cards = " ".join(["3s", "4h", "5d", "6c", "7s", "8h", "9d", "Tc", "Js", "Qh"] * 30)
    one_line_error(invoke("combo", "-g", game, cards), f"300 cards: a play of {game}/")
    one_line_error(invoke("beats", "-g", game, cards, "3s"), f"holds at most {most}")


# ------------------------------------------------------------------ 10: no silent empty output


def test_stats_variant_the_game_does_not_have(dataset):
    one_line_error(invoke("stats", dataset, "--game", "ddz", "--variant", "classic"),
                   "unknown variant 'classic' of doudizhu (known: huopin, openspiel, douzero)")
    one_line_error(invoke("stats", dataset, "--variant", "nope"),
                   "unknown variant 'nope' (known: doudizhu: huopin, openspiel, douzero; paodekuai: huopin, classic;")
    r = invoke("stats", dataset, "--game", "pdk", "--variant", "classic")
    assert r.exit_code == 0 and r.stdout == "" and r.stderr == "no legal hands match --game paodekuai --variant classic\n"
    # a statistic that is merely empty is not "no legal hands match": why it is empty, per statistic asked for
    r = invoke("stats", dataset, "--stat", "guandan", "--stat", "review_rating", "--stat", "spring")
    assert r.exit_code == 0 and r.stderr.splitlines() == [
        "guandan: no rows: a statistic of guandan, and the 2 legal hands are of doudizhu",
        "review_rating: no rows: it needs the tables reviewed, players (paipu review DATASET writes them)"]
    assert "spring" in r.stdout
    r = invoke("stats", dataset, "--stat", "spring", "--game", "ddz", "--variant", "douzero")
    assert r.stderr == "spring: no rows: no legal hands match --game doudizhu --variant douzero\n"


def test_replay_unknown_hand_names_the_nearest(dataset, hands_file):
    one_line_error(invoke("replay", dataset, "--hand", "sprin"),
                   f"no hand 'sprin' in {dataset}; nearest: spring (list them with 'paipu hands {dataset}')")
    one_line_error(invoke("replay", str(hands_file), "--hand", "brokn"), "no hand 'brokn' in")
    assert "nearest: broken" in invoke("replay", str(hands_file), "--hand", "brokn").stderr
    r = invoke("replay", str(hands_file), "--hand", "zzzzzz")
    assert r.stderr == f"error: no hand 'zzzzzz' in {hands_file}\n"


def ids_of(stdout: str) -> list[str]:
    return [line.split("│")[1].strip() for line in stdout.splitlines() if line.startswith("│")]


def test_hands_lists_and_filters(dataset, tmp_path, hands_file):
    r = invoke("hands", dataset)
    assert r.exit_code == 0 and ids_of(r.stdout) == ["anti", "spring", "broken"]  # by time, untimed last
    row = next(line for line in r.stdout.splitlines() if "spring" in line)
    assert [c.strip() for c in row.split("│")[1:-1]] == [
        "spring", "doudizhu", "huopin", "张三, 李四, 王五", "2024-05-01T20:00:00+08:00", "ok", f"{hands_file}:1"]
    assert ids_of(invoke("hands", dataset, "--code", "does_not_beat").stdout) == ["broken"]
    assert ids_of(invoke("hands", dataset, "--code", "ok").stdout) == ["anti", "spring"]
    assert ids_of(invoke("hands", dataset, "--since", "2024-04-15").stdout) == ["spring"]
    assert ids_of(invoke("hands", dataset, "--player", "李四", "--game", "斗地主").stdout) == ["anti", "spring", "broken"]
    r = invoke("hands", dataset, "--player", "nobody")
    assert r.exit_code == 0 and r.stdout == "" and r.stderr == "no hands match\n"
    r = invoke("hands", dataset, "--limit", "1")
    assert ids_of(r.stdout) == ["anti"] and r.stderr == "1 hand of 3 shown (--limit to see more)\n"
    one_line_error(invoke("hands", dataset, "--code", "nope"), "unknown verdict code 'nope' (known: ok, bad_record,")
    one_line_error(invoke("hands", dataset, "--since", "last week"), "--since must be an ISO 8601 date")
    # not audited yet: the verdict column is empty
    raw = str(tmp_path / "raw")
    invoke("ingest", str(hands_file), "--out", raw)
    row = next(line for line in invoke("hands", raw).stdout.splitlines() if "broken" in line)
    assert [c.strip() for c in row.split("│")[1:-1]][5] == ""


def test_hands_sql_binds_its_parameters(dataset):
    """A player name that is SQL is only a name."""
    r = invoke("hands", dataset, "--player", "x') or true or ('")
    assert r.stderr == "no hands match\n"


# ------------------------------------------------------------------ 11: progress


def terminal(monkeypatch) -> io.StringIO:
    buf = io.StringIO()
    monkeypatch.setattr(cli, "err", Console(file=buf, force_terminal=True, width=100, soft_wrap=True, highlight=False))
    return buf


def test_simulate_shows_a_bar_by_hands_on_a_terminal(monkeypatch, tmp_path):
    buf = terminal(monkeypatch)
    assert invoke("simulate", "-g", "pdk", "--hands", "12", "--out", str(tmp_path / "s.jsonl")).exit_code == 0
    assert "12/12" in buf.getvalue() and "wrote 12 hands to" in buf.getvalue()


def test_ingest_bar_of_a_gz_input_never_passes_its_total(monkeypatch, tmp_path, hands_file):
    src = tmp_path / "h.jsonl.gz"
    data = b"".join(hands_file.read_bytes().replace(b'"id":"', f'"id":"{k}-'.encode()) for k in range(5))
    src.write_bytes(gzip.compress(data))  # packs far smaller than it reads
    buf = terminal(monkeypatch)
    assert invoke("ingest", str(src), "--out", str(tmp_path / "ds"), "--batch", "4").exit_code == 0
    pairs = [(float(a), float(b)) for a, b in re.findall(r"(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?) kB", buf.getvalue())]
    assert pairs and all(a <= b for a, b in pairs) and pairs[-1][0] == pairs[-1][1]
    assert abs(pairs[-1][1] * 1000 - len(data)) < 100  # the total is what ingest reads, not the packed size


def test_dataset_audit_counts_hands(monkeypatch, tmp_path, hands_file):
    ds = str(tmp_path / "ds")
    invoke("ingest", str(hands_file), "--out", ds, "--batch", "2")  # two part files
    buf = terminal(monkeypatch)
    invoke("audit", ds, "--workers", "1")
    assert "3/3" in buf.getvalue() and "audited 3 of 3 hands" in buf.getvalue()
    buf = terminal(monkeypatch)
    invoke("audit", ds, "--workers", "1")
    assert "audited 0 of 3 hands (3 were audited already)" in buf.getvalue()


# ------------------------------------------------------------------ 12: numbers for people


def test_stats_tables_use_separators_and_per_cent(dataset):
    r = invoke("stats", dataset, "--stat", "players", "--stat", "landlord_wins")
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in r.stdout.splitlines() if line.startswith("│")]
    assert cells[:3] == [["doudizhu", "huopin", "张三", "2", "1", "50.0%", "12", "16,000"],
                         ["doudizhu", "huopin", "李四", "2", "1", "50.0%", "-6", "-8,000"],
                         ["doudizhu", "huopin", "王五", "2", "0", "0.0%", "-6", "-8,000"]]
    assert cells[3] == ["doudizhu", "huopin", "", "all", "all", "2", "1", "50.0%", "9.5%", "90.5%"]
    assert "e+" not in r.stdout
    data = json.loads(invoke("stats", dataset, "--stat", "players", "--json").stdout)
    assert data["players"][0]["coins"] == 16000 and data["players"][0]["rate"] == 0.5  # machines get raw values


def test_replay_settlement_has_separators(dataset):
    r = invoke("replay", dataset, "--hand", "spring")
    assert r.stdout.splitlines()[-1] == "  coins: 0 张三 +16,000  1 李四 -8,000  2 王五 -8,000"


def test_plurals_in_messages(tmp_path, hands_file):
    one = tmp_path / "one.jsonl"
    one.write_bytes(hands_file.read_bytes().splitlines(keepends=True)[0])
    r = invoke("ingest", str(one), "--out", str(tmp_path / "ds"))
    assert r.stdout.startswith("ingested 1 hand from 1 file into ")
    assert invoke("audit", str(one)).stdout == "1 hand: 1 ok, 0 with violations\n"
    r = invoke("simulate", "-g", "ddz", "--hands", "1", "--out", str(tmp_path / "s.jsonl"))
    assert r.stderr == f"wrote 1 hand to {tmp_path / 's.jsonl'}\n"


# ------------------------------------------------------------------ 13: version and help


def test_version():
    from importlib.metadata import version

    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout == f"paipu {version('paipu')}\n"


def test_help_shows_flags_as_flags_and_lists_the_statistics():
    from paipu.analysis import stat_files
    from paipu.analysis.queries import STATS

    assert set(stat_files()) == set(STATS)  # what --help lists without loading the games
    r = runner.invoke(app, ["audit", "--help"], env={"COLUMNS": "200"})
    assert "<bool>" not in r.stdout and re.search(r"--jsonl +one JSON verdict", r.stdout)
    r = runner.invoke(app, ["stats", "--help"], env={"COLUMNS": "400"})
    assert ", ".join(stat_files()) in " ".join(r.stdout.replace("│", " ").split())


def test_v_is_not_variant():
    r = invoke("combo", "-g", "pdk", "-v", "classic", "3s")
    assert r.exit_code == 2 and "No such option: -v" in r.stderr
    assert invoke("combo", "-g", "pdk", "--variant", "classic", "3s").stdout.startswith("single")


# ------------------------------------------------------------------ 15: sql --safe


def test_sql_safe_reads_the_views_only(dataset, tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n42\n")
    query = f"select * from read_csv('{secret}')"
    assert invoke("sql", dataset, query, "--csv").stdout == "a\n42\n"  # without --safe: any file the user can read
    one_line_error(invoke("sql", dataset, query, "--safe"), "file system operations are disabled")
    target = tmp_path / "out.csv"
    one_line_error(invoke("sql", dataset, f"copy (select 1) to '{target}'", "--safe"), "disabled")
    one_line_error(invoke("sql", dataset, "set enable_external_access = true", "--safe"), "locked")
    assert not target.exists()
    r = invoke("sql", dataset, "select v.code, count(*) as n from verdicts v join hands h on h.id = v.hand_id "
                               "group by all order by all", "--safe", "--csv")
    assert r.stdout == "code,n\ndoes_not_beat,1\n,2\n"


def test_a_hand_not_found_names_the_lines_that_could_not_be_read(tmp_path, hands_file):
    """A hand asked for in a record file that has lines it could not read: the line that
    gave the id but no hand (file, line, reason), else the first unreadable one and how
    many more; one line, for replay and review alike."""
    good = hands_file.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "some bad.jsonl"
    path.write_text("\n".join([good[0], '{"id": "x1", "game": "doudizhu", "deal": 3}', "{not json", good[1]]) + "\n",
                    encoding="utf-8")
    for command in ("replay", "review"):
        one_line_error(invoke(command, str(path), "--hand", "x1"),
                       f"no hand 'x1' in {path}; {path} line 2 has hand 'x1' but could not be read: field ")
        r = invoke(command, str(path), "--hand", "zz9")
        one_line_error(r, f"no hand 'zz9' in {path}; {path} line 2 could not be read: ")
        assert r.stderr.endswith(" (and 1 more line)\n"), r.stderr
    r = invoke("replay", str(hands_file), "--hand", "zzzzzz")  # every line read: nothing more to say
    assert r.stderr == f"error: no hand 'zzzzzz' in {hands_file}\n"


def test_a_dataset_of_rejects_only_is_said_so_by_every_command(tmp_path):
    """Every record rejected: the dataset has a rejects table and no hands. audit said
    "0 hands: 0 ok" then "no hands found in the inputs", fraud "not a paipu dataset",
    stats and report "run paipu audit first" (which could not help)."""
    (tmp_path / "bad.jsonl").write_text("null\n5\n")
    ds = str(tmp_path / "ds")
    assert invoke("ingest", str(tmp_path / "bad.jsonl"), "--out", ds).exit_code == 0
    tail = f"every hand ingested into it was rejected (paipu sql {ds} \"select * from rejects\")"
    for command, what in (("audit", " to audit"), ("stats", ""), ("fraud", " to screen"), ("review", " to review")):
        one_line_error(invoke(command, ds), f"{ds}: a dataset with no hands{what}: {tail}")
    one_line_error(invoke("report", ds, "--out", str(tmp_path / "r.html")), f"{ds}: a dataset with no hands: {tail}")
    assert not (tmp_path / "r.html").exists()
    # its hands and actions are views all the same, empty (they were missing: "Table with name hands does not exist")
    r = invoke("sql", ds, "select (select count(*) from hands) as h, (select count(*) from actions) as a", "--csv")
    assert (r.exit_code, r.stdout) == (0, "h,a\n0,0\n")
    good = str(tmp_path / "good")  # and a dataset without a reject has its rejects view, empty
    (tmp_path / "one.jsonl").write_text(json.dumps(ddz(SPRING), ensure_ascii=False) + "\n")
    assert invoke("ingest", str(tmp_path / "one.jsonl"), "--out", good).exit_code == 0
    r = invoke("sql", good, "select count(*) as n from rejects", "--csv", "--safe")
    assert (r.exit_code, r.stdout) == (0, "n\n0\n")
    (tmp_path / "empty").mkdir()  # convert of no hand wrote nothing, said nothing and exited 0
    one_line_error(invoke("convert", str(tmp_path / "empty"), "--to", "jsonl"), "error: no hands found in the inputs")
    one_line_error(invoke("convert", good, "--to", "jsonl"), f"no hands found in the inputs ({good} is a dataset: "
                   f"convert reads record files; 'paipu replay {good} --hand ID' shows a hand of it)")
    logs = tmp_path / "logs"  # a folder of logs whose rejected ones are kept in rejects/: logs, no dataset
    (logs / "rejects").mkdir(parents=True)
    (logs / "rejects" / "old.jsonl").write_text("null\n")
    (logs / "a.jsonl").write_text(json.dumps(ddz(SPRING), ensure_ascii=False) + "\n")
    r = invoke("audit", str(logs))
    assert r.exit_code == 1 and "2 hands: 1 ok" in r.stdout, r.stdout + r.stderr  # (the null in rejects/ is a hand that breaks)
    r = invoke("sql", ds, "select line, message from rejects order by line", "--csv")
    assert r.exit_code == 0 and r.stdout.splitlines() == [
        "line,message", '1,"expected a JSON object per hand, got null"',
        '2,"expected a JSON object per hand, got a number (5)"']


def test_usage_errors_are_one_line_naming_the_command(dataset):
    """click's usage errors were typer's usage text and a box of five lines or more."""
    one_line_error(invoke("stats"), "error: paipu stats: Missing argument 'dataset' (paipu stats --help)")
    one_line_error(invoke("stats", dataset, "--bogus"), "error: paipu stats: No such option: --bogus (paipu stats --help)")
    one_line_error(invoke("review", dataset, "--hand"),
                   "error: paipu review: Option '--hand' requires an argument (paipu review --help)")
    one_line_error(invoke("audit", dataset, "--workers", "x"), "error: paipu audit: Invalid value for '--workers': ")
    one_line_error(invoke("bogus"), "error: paipu: No such command 'bogus' (paipu --help)")
    one_line_error(invoke("--bogus"), "error: paipu: No such option: --bogus (paipu --help)")
    r = invoke()  # nothing at all: the help on standard output, as before (exit 2, as click has it)
    assert r.exit_code == 2 and "Usage: paipu [OPTIONS] COMMAND" in r.stdout and "error" not in r.stderr
