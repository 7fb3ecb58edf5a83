"""A game declares itself once: the toy game of tests/toygame (nothing outside the test
folder names it) goes through ingest → audit → stats → sql → report → replay → combo, with a
statistic (tests/toygame/sql/toy_margin.sql) and a report section (report.py, words.py) of
its own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEAL = [["3s", "3h", "3d", "4s", "5s", "5h", "6s", "7s", "7h", "7d"],
        ["3c", "4h", "4d", "4c", "5d", "5c", "6h", "6d", "6c", "7c"]]
#: seat 1 goes out first while seat 0 still holds 3d 4s: margin 2
WON = "0 3s,3h|1 4h,4d|0 7s,7h|1 -|0 5s,5h|1 6h,6d|0 -|1 3c|0 7d|1 -|0 6s|1 7c|0 -|1 5d,5c|0 -|1 4c|0 -|1 6c"


def hand(hand_id: str, acts: str) -> dict:
    actions = []
    for i, a in enumerate(acts.split("|")):
        seat, cards = a.split(" ")
        actions.append({"seat": int(seat), "act": "pass", "t": 1000 * i} if cards == "-" else
                       {"seat": int(seat), "act": "play", "cards": cards.split(","), "t": 1000 * i})
    return {"paipu": 1, "id": hand_id, "game": "bdx", "variant": "plain", "players": ["甲", "<b>乙</b>"],
            "deal": DEAL, "actions": actions}


def paipu(*args: str, cwd: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PAIPU_GAMES="toygame", PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", "from paipu.cli import app; app(prog_name='paipu')", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_toy_game_end_to_end(tmp_path):
    src = tmp_path / "toy.jsonl"
    src.write_text("\n".join(json.dumps(h, ensure_ascii=False) for h in (
        hand("toy-a", WON), hand("toy-b", "0 3s,3h|1 3c"), hand("toy-c", "0 3s,3h|1 4h,4d|0 4s,5s"))) + "\n",
        encoding="utf-8")
    cwd = str(tmp_path)
    r = paipu("games", cwd=cwd)
    assert "toy (比大小 Toy): variants plain; aliases bdx, 比大小" in r.stdout
    r = paipu("ingest", "toy.jsonl", "--out", "ds", cwd=cwd)
    assert r.returncode == 0, r.stderr
    assert os.path.isdir(tmp_path / "ds" / "hands" / "game=toy")
    r = paipu("audit", "ds", "--workers", "1", cwd=cwd)
    assert r.returncode == 1, r.stderr
    r = paipu("audit", "ds", "--jsonl", cwd=cwd)
    verdicts = {v["id"]: v for v in map(json.loads, r.stdout.splitlines())}
    assert verdicts["toy-a"]["ok"] is True
    assert [(x["code"], x["action"]) for x in verdicts["toy-b"]["violations"]] == [("does_not_beat", 1)]
    assert [(x["code"], x["action"]) for x in verdicts["toy-c"]["violations"]] == [("invalid_combo", 2)]
    r = paipu("sql", "ds", "select hand_id, winner, winning_side, margin, scores::varchar as scores, first_leader from outcomes "
                           "where ok order by hand_id", "--csv", cwd=cwd)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1:] == ['toy-a,1,seat 1,2,"[-2.0, 2.0]",0']
    r = paipu("sql", "ds", "select seat, player, role, place, cards_left from seats order by seat", "--csv",
              cwd=cwd)
    assert r.stdout.splitlines()[1:] == ["0,甲,,2,2", "1,<b>乙</b>,,1,0"]
    r = paipu("stats", "ds", "--game", "toy", "--json", cwd=cwd)
    assert r.returncode == 0, r.stderr
    overview = json.loads(r.stdout)["overview"]
    assert [(row["game"], row["hands"]) for row in overview] == [("toy", 3)]
    # its own statistic, from its folder: the one legal hand won by 2 cards
    margin = json.loads(r.stdout)["toy_margin"]
    assert [(x["measure"], x["margin"], x["k"], x["hands"], x["rate"]) for x in margin] == [
        ("big", None, 0, 1, 0.0), ("margin", 2, 1, 1, 1.0)]
    r = paipu("stats", "ds", "--stat", "toy_margin", cwd=cwd)
    assert r.returncode == 0 and "toy_margin" in r.stdout, r.stderr
    r = paipu("report", "ds", "--out", "report.html", cwd=cwd)
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "比大小 Toy" in page and "<b>乙</b>" not in page
    # its own report section: the chart of its statistic (in the contents too) and its rate in the summary
    assert "<a href='#toy-margin'>Winning margin</a>" in page and "<figure id='toy-margin'><h3>Winning margin</h3>" in page
    assert "+2: 100% (95% CI" in page
    assert "<td class='t'>won by 5 cards or more</td><td><span class='figure-val'>0%</span>" in page
    r = paipu("report", "ds", "--out", "zh.html", "--lang", "zh", cwd=cwd)
    assert "<h3>胜负差距</h3>" in (tmp_path / "zh.html").read_text(encoding="utf-8")
    r = paipu("replay", "ds", "--hand", "toy-a", "--lang", "zh", cwd=cwd)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("toy-a · 比大小 toy/plain") and "对子" in r.stdout
    r = paipu("combo", "--game", "bdx", "5s 5h", "--json", cwd=cwd)
    assert json.loads(r.stdout)["type"] == "pair" and json.loads(r.stdout)["name_zh"] == "对子"


def test_readme_main_job_on_the_sample_logs(tmp_path):
    """The README's first command: ingest, audit and report every sample log (all games)."""
    samples = os.path.join(os.path.dirname(HERE), "sample_logs")
    cwd = str(tmp_path)
    r = paipu("ingest", samples, "--out", "ds", cwd=cwd)
    assert r.returncode == 0, r.stderr
    r = paipu("audit", "ds", cwd=cwd)
    assert r.returncode == 0, r.stderr + r.stdout
    games = {line.split("=")[1] for line in os.listdir(tmp_path / "ds" / "outcomes")}
    assert games == {"doudizhu", "paodekuai", "guandan", "shuangkou"}
    r = paipu("report", "ds", "--out", "report.html", cwd=cwd)
    assert r.returncode == 0, r.stderr


def test_the_report_and_the_shared_statistics_name_no_game():
    """analysis/report.py, the statistics' runner and the shared SQL name no game, its
    statistics, rates or roles: each game's are in its own package (compare.sql, the
    setting comparisons, still names Dou Dizhu's and Guandan's rates: not yet moved)."""
    from importlib.resources import files

    from paipu.replay.games import games

    words = set()
    for g in games():
        report = g.part("report")
        words |= {g.name, g.title, g.title_zh, *g.roles, *g.roles.values(), *g.stats, *getattr(report, "METRICS", {})}
        words |= {a for a in g.aliases if len(a) > 3 or not a.isascii()}
    assert {"doudizhu", "landlord", "guandan", "kou_double", "paodekuai_events", "multiplier_drivers"} <= words
    analysis = files("paipu.analysis")
    shared = [analysis / "report.py", analysis / "queries.py", analysis / "__init__.py"]
    shared += [f for f in (analysis / "sql").iterdir() if f.name.endswith(".sql") and f.name != "compare.sql"]
    for f in shared:
        text = f.read_text(encoding="utf-8")
        named = sorted(w for w in words if re.search(rf"(?<![A-Za-z_]){re.escape(w)}(?![A-Za-z_])", text))
        assert not named, f"{f.name} names {named}"


def test_the_display_modules_name_no_game():
    """The terminal view, the page and the review for people (replay/view.py, html.py,
    review_view.py and the page's templates) name no built-in game and no game's role: each
    game's words and display particulars are its package's ``words.Shown``.

    The words: each built-in game's registry name, English and Chinese titles and aliases
    (those of three letters or more, or not ASCII: ``ddz``, ``斗地主``, ``鬥地主``; the two-letter
    ``gd``, ``sk`` stand in ordinary words and ids), and its roles in both languages
    (``Game.roles``: landlord, farmer, 地主, 农民, also inside 叫地主); an English word whole
    (its plural too), a Chinese one anywhere. The games' other words (spring, tribute, kou ...)
    are not in the list: they are no game's name, and the shared views may say them."""
    from importlib.resources import files

    from paipu.replay.games import BUILTIN, find_game

    words = set()
    for name in BUILTIN:
        g = find_game(name)
        words |= {g.name, g.title, g.title_zh, *g.roles, *g.roles.values()}
        words |= {a for a in g.aliases if len(a) >= 3 or not a.isascii()}
    assert {"doudizhu", "Dou Dizhu", "斗地主", "ddz", "dou_dizhu", "paodekuai", "跑得快", "guandan", "掼蛋", "shuangkou",
            "双扣", "landlord", "farmer", "地主", "农民"} <= words
    replay = files("paipu.replay")
    shown = [replay / "view.py", replay / "html.py", replay / "review_view.py"]
    shown += sorted((f for f in (replay / "templates").iterdir() if f.is_file()), key=lambda f: f.name)
    assert len(shown) >= 5
    for f in shown:
        text = f.read_text(encoding="utf-8")
        named = sorted(w for w in words if re.search(
            rf"(?<![A-Za-z_]){re.escape(w)}s?(?![A-Za-z_])" if w.isascii() else re.escape(w), text, re.IGNORECASE))
        assert not named, f"{f.name} names {named}"


def test_the_toy_game_replays_with_the_shared_words(tmp_path):
    """A game that declares no words of its own (no ``Shown``) replays in the terminal and on
    the page with the defaults: no role, no bottom, the settlement's shared fields."""
    src = tmp_path / "toy.jsonl"
    src.write_text(json.dumps(hand("toy-a", WON), ensure_ascii=False) + "\n", encoding="utf-8")
    cwd = str(tmp_path)
    r = paipu("replay", "toy.jsonl", "--hand", "toy-a", cwd=cwd)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "toy-a · 比大小 toy/plain"
    assert lines[1].split() == ["seat", "0", "甲", "7♠", "7♥", "7♦", "6♠", "5♠", "5♥", "4♠", "3♠", "3♥", "3♦"]  # no role
    assert lines[3] == "  0  0 甲          plays pair 对子  3♠ 3♥   (left 8)"
    assert lines[-3:] == ["result:", "  winner: 1 <b>乙</b>", "  scores: 0 甲 -2  1 <b>乙</b> +2"]
    r = paipu("replay", "toy.jsonl", "--hand", "toy-a", "--lang", "zh", "--html", "toy.html", cwd=cwd)
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "toy.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r"<script type='application/json' id='hand-data'>(.*?)</script>", page, re.S)[1])
    assert data["game"] == "toy" and data["game_zh"] == "比大小" and data["bottom"] is None and data["teams"] is None
    assert "role" in data["ui"]["en"] and "landlord" not in data["ui"]["en"]
    assert all("landlord" not in f for f in data["frames"]) and len(data["frames"]) == 19
    assert data["result"]["fields"] == [] and [s["score"] for s in data["result"]["seats"]] == [-2, 2]
    assert data["frames"][-1]["act"]["zh"] == "座位 1 <b>乙</b> 出 单张 6"
