"""A game declares itself once: the toy game of tests/toygame (nothing outside the test
folder names it) goes through ingest → audit → stats → sql → report → compare → replay →
combo, with a statistic (tests/toygame/sql/toy_margin.sql), a report section (report.py,
words.py) and a compared figure (report.FIGURES, sql/compare.sql) of its own; and no shared
module of the analysis side names a built-in game."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

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


#: the deal of WON played under the setting ``kinds-=pair`` (singles only): seat 0 goes out
#: first while seat 1 still holds five cards (margin 5; WON's: seat 1 by 2)
SINGLES = ("0 4s|1 7c|0 -|1 6h|0 7s|1 -|0 3s|1 5d|0 6s|1 -|0 5s|1 -|0 3h|1 6d|0 7h|1 -|0 5h|1 6c|0 7d|1 -|"
           "0 3d")


def test_the_toy_game_compares_a_figure_of_its_own(tmp_path):
    """``paipu compare`` and the report's comparison show the toy game's own figure (the
    winning margin: ``report.FIGURES`` and ``sql/compare.sql`` of tests/toygame) after the
    figures of every game, on the deal both settings played; the report names its variant
    in its own words (``words.VARIANT_WORDS``)."""
    singles = hand("toy-s", SINGLES) | {"params": {"kinds": ["single"]}}
    (tmp_path / "toy.jsonl").write_text("\n".join(json.dumps(h, ensure_ascii=False) for h in (
        hand("toy-a", WON), singles)) + "\n", encoding="utf-8")
    cwd = str(tmp_path)
    for args in (("ingest", "toy.jsonl", "--out", "ds"), ("audit", "ds", "--workers", "1")):
        r = paipu(*args, cwd=cwd)
        assert r.returncode == 0, r.stderr + r.stdout
    r = paipu("compare", "ds", "--json", cwd=cwd)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    rows = rows["differences"] if isinstance(rows, dict) else rows
    # the first leader wins (0 -> 1), actions 18 -> 21, margin 2 -> 5 (bombs, the multiplier and
    # the tricks, 8 in both, do not vary: not shown); one pair of hands: no interval, not tested
    assert [(x["game"], x["variant"], x["base"], x["setting"], x["figure"], x["pairs"], x["base_mean"],
             x["setting_mean"], x["diff"], x["testable"]) for x in rows][-1] == (
        "toy", "plain", "base", "kinds-=pair", "margin", 1, 2.0, 5.0, 3.0, False)
    assert [(x["figure"], x["base_mean"], x["setting_mean"]) for x in rows] == [
        ("first_leader_wins", 0.0, 1.0), ("actions", 18.0, 21.0), ("margin", 2.0, 5.0)]
    r = paipu("compare", "ds", cwd=cwd)
    assert r.returncode == 0, r.stderr
    margin = next(line for line in r.stdout.splitlines() if " margin " in line)
    assert [cell.strip() for cell in margin.split("│")[1:6]] == ["margin", "1", "2.000", "5.000", "+3.000"], margin
    r = paipu("report", "ds", "--out", "report.html", cwd=cwd)
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert ("<td class='t'>margin</td><td>1</td><td class='t'>2.000</td><td class='t'>5.000</td>"
            "<td class='t'>+3.000</td>") in page
    r = paipu("report", "ds", "--out", "zh.html", "--lang", "zh", cwd=cwd)
    assert "普通 · 牌型: single" in (tmp_path / "zh.html").read_text(encoding="utf-8")


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


#: words of one game or another that are not identifiers of its declaration: its terms, roles
#: and events as people say them (Dou Dizhu's spring, 反春, 抢地主 and 黄金眼; Paodekuai's 喜钱,
#: 放走, 包赔 and 有出必出; Guandan's tribute, 抗贡 and 双下; Shuangkou's 扣 levels)
GAME_TERMS = ("spring", "春天", "反春", "抢地主", "黄金眼", "xiqian", "喜钱", "let-go", "放走", "包赔", "有出必出",
              "tribute", "进贡", "抗贡", "双下", "double down", "kou", "扣")
#: names a game declares that are plain English words, or that every game shares and the
#: shared modules use in that sense (not the game's): left out of the names below
SHARED_WORDS = frozenset({
    "standard", "classic",  # variants (Guandan's, Paodekuai's) and ordinary words
    "scoring",  # Paodekuai's rule of how a hand scores, and an ordinary word
    "redeal", "level", "stars",  # record fields of docs/format.md any game may fill (the ends statistic: redeal)
    "grabs",  # the count of the format's `grab` acts (the fraud profile counts them for any game)
})


def game_words() -> set[str]:
    """What names one built-in game: its registry name, titles and aliases (``ddz`` as a
    word), its roles in English and Chinese, its own statistics (``Game.stats``), outcome
    columns, rates (``report.METRICS``), compared figures (``report.FIGURES``), rule
    parameters and variants (``words.PARAM_WORDS``, ``words.VARIANT_WORDS``), and
    :data:`GAME_TERMS`; less :data:`SHARED_WORDS`."""
    from paipu.replay.games import BUILTIN, find_game

    words = set(GAME_TERMS)
    for name in BUILTIN:
        g = find_game(name)
        report, said = g.part("report"), g.part("words")
        words |= {g.name, g.title, g.title_zh, *g.aliases, *g.roles, *g.roles.values(), *g.stats, *g.outcome_columns,
                  *getattr(report, "METRICS", {}), *getattr(report, "FIGURES", {}),
                  *getattr(said, "PARAM_WORDS", {}), *getattr(said, "VARIANT_WORDS", {})}
    return words - SHARED_WORDS


def named_in(text: str, words: set[str]) -> list[str]:
    """The *words* that *text* holds: Chinese ones anywhere, the others as a word of their
    own, in any case and perhaps plural (``_`` parts a word: ``landlord`` is in
    ``escape_landlord``, ``sk`` is not in ``ask``).

    >>> named_in("escape_landlord; two Farmers; 斗地主的; ask", {"landlord", "farmer", "斗地主", "sk"})
    ['farmer', 'landlord', '斗地主']
    """
    found = []
    for w in sorted(words):
        pattern = re.escape(w) if not w.isascii() else rf"(?<![A-Za-z0-9]){re.escape(w)}(?:e?s)?(?![A-Za-z0-9])"
        if re.search(pattern, text, flags=re.IGNORECASE):
            found.append(w)
    return found


def test_the_shared_analysis_modules_name_no_game():
    """Every module of the analysis side (analysis/: Python, SQL, the report's templates and
    style, the fraud screens) names no built-in game nor anything of one (:func:`game_words`):
    a game's statistics, rates, compared figures, rule and variant words are in its own
    package (replay/games/<game>/), and the shared modules combine what the games declare."""
    from importlib.resources import files

    words = game_words()
    assert {"doudizhu", "斗地主", "ddz", "dou dizhu", "landlord", "农民", "spring", "guandan", "kou_double",
            "paodekuai_events", "multiplier_drivers", "escape_landlord", "landlord_wins", "double_down",
            "no_tribute", "xiqian_bombs", "双扣"} <= {w.lower() for w in words}

    def walk(folder):
        for f in folder.iterdir():
            if f.is_dir():
                yield from walk(f) if f.name != "__pycache__" else ()
            elif f.name.endswith((".py", ".sql", ".html", ".css", ".js")):
                yield f

    shared = sorted(walk(files("paipu.analysis")), key=lambda f: str(f))
    names = {f.name for f in shared}
    assert {"report.py", "compare.py", "compare.sql", "report_fmt.py", "words.py", "_hands.sql", "parts.html",
            "report.css"} <= names
    named = {str(f).split("analysis", 1)[-1]: found for f in shared
             if (found := named_in(f.read_text(encoding="utf-8"), words))}
    assert not named, f"shared modules naming a game: {named}"


def test_the_games_spell_a_shared_rule_or_variant_name_alike():
    """The report spells a rule parameter or a variant by the words the games declare
    (``words.PARAM_WORDS``, ``words.VARIANT_WORDS``), collected without asking which game
    a setting is of: games that share a name (``huopin``; the chain lengths, which
    analysis/report_fmt.py spells) must spell it alike."""
    from paipu.analysis import report_fmt
    from paipu.replay.games import games

    for name, shared in (("PARAM_WORDS", report_fmt.PARAM_WORDS), ("VARIANT_WORDS", {})):
        seen: dict[str, tuple[tuple[str, str], str]] = {key: (words, "report_fmt") for key, words in shared.items()}
        for g in games():
            for key, words in getattr(g.part("words"), name, {}).items():
                first = seen.setdefault(key, (words, g.name))
                assert first[0] == words, f"{name}[{key!r}]: {g.name} says {words}, {first[1]} {first[0]}"
    assert report_fmt.variant_words("no_tribute", "zh") == "不进贡" and report_fmt.variant_words("nope") == "nope"
    assert report_fmt.setting_words('{"escape_landlord": [30, 5], "tribute": false}', "zh") == "地主逃跑罚分: 30 5，进贡: 关"


def test_each_game_compares_the_figures_it_declares(monkeypatch):
    """The figures compared on shared deals: the shared ones then the game's own
    (``report.FIGURES``), or the order its declaration gives (Dou Dizhu: its landlord's
    wins and spring first, no first leader's wins); a name the declaration cannot find is
    an error naming it."""
    import dataclasses

    from paipu.analysis import compare
    from paipu.replay.games import find_game

    shared = ["first_leader_wins", "bombs", "multiplier", "tricks", "actions"]
    assert list(compare.figures_of("ddz")) == ["landlord_wins", "spring", "bombs", "multiplier", "tricks", "actions"]
    assert list(compare.figures_of("paodekuai")) == shared + ["let_goes", "xiqian_bombs"]
    assert list(compare.figures_of("guandan")) == shared + ["double_down", "upgrade"]
    assert list(compare.figures_of("shuangkou")) == shared
    assert [f.unit for f in compare.figures_of("guandan").values()] == ["rate"] + ["number"] * 4 + ["rate", "number"]
    odd = dataclasses.replace(find_game("guandan"), report={"figures": ("upgrade", "nope")})
    monkeypatch.setattr(compare, "find_game", lambda name: odd)
    with pytest.raises(ValueError, match=r"^guandan: report\['figures'\] names nope, which neither compare.sql"):
        compare.figures_of("guandan")


def test_the_display_modules_name_no_game():
    """The terminal view, the page and the review for people (replay/view.py, html.py,
    review_view.py and the page's templates) name no built-in game and no game's role: each
    game's words and display particulars are its package's ``words.Shown``.

    The words: each built-in game's registry name, English and Chinese titles and aliases
    (``ddz``, ``斗地主``, ``鬥地主``, ``gd`` ...), and its roles in both languages (``Game.roles``:
    landlord, farmer, 地主, 农民, also inside 叫地主), matched as :func:`named_in` matches (an
    English word whole, its plural too; a Chinese one anywhere). Unlike the analysis side's
    :func:`game_words`, a game's terms (spring, tribute, kou, 喜钱 ...) are not in the list:
    they name no game, and the views say them where any game's outcome or event holds them
    (the page's 喜钱 column, the settlement's spring)."""
    from importlib.resources import files

    from paipu.replay.games import BUILTIN, find_game

    words = set()
    for name in BUILTIN:
        g = find_game(name)
        words |= {g.name, g.title, g.title_zh, *g.aliases, *g.roles, *g.roles.values()}
    assert {"doudizhu", "Dou Dizhu", "斗地主", "ddz", "dou_dizhu", "paodekuai", "跑得快", "guandan", "掼蛋", "shuangkou",
            "双扣", "landlord", "farmer", "地主", "农民"} <= words
    replay = files("paipu.replay")
    shown = [replay / "view.py", replay / "html.py", replay / "review_view.py"]
    shown += sorted((f for f in (replay / "templates").iterdir() if f.is_file()), key=lambda f: f.name)
    assert len(shown) >= 5
    named = {f.name: found for f in shown if (found := named_in(f.read_text(encoding="utf-8"), words))}
    assert not named, f"display modules naming a game: {named}"


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
