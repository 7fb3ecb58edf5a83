"""The replayer page's data and the CLI around it, and the report's captions and people
sections, without a browser (tests/test_browser.py drives the pages themselves)."""

from __future__ import annotations

import json
import os
import re

import polars as pl
from typer.testing import CliRunner

from paipu.analysis.report import Section
from paipu.cli import app
from paipu.replay.html import hand_data, html_name, page
from paipu.replay.io.jsonl import record_to_json
from paipu.replay.io.readers import iter_items
from paipu.replay.io.text import parse_text
from paipu.replay.sim import simulate

runner = CliRunner()
HANDMADE = "sample_logs/doudizhu_handmade.paipu"


def invoke(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


def handmade() -> dict:
    return parse_text(open(HANDMADE, encoding="utf-8").read())[0].record


def first(path: str) -> dict:
    return next(item.record for item in iter_items([path], strict=False) if item.record is not None)


def test_frames_of_the_handmade_hand():
    d = hand_data(handmade())
    frames = d["frames"]
    assert len(frames) == 14 and d["violation"] is None
    assert d["tricks"] == [4, 7, 10, 13]  # frames that open a trick: straight, bomb, pair, rocket
    assert [f["trick"] for f in frames] == [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4]
    # the rocket doubles to 4; the spring's ×2 comes with the end: the last frame shows both steps (multiplier 8)
    assert [f["mult"] for f in frames[3:]] == [1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 8]
    assert [(n["kind"], n["zh"]) for n in frames[-1]["notes"]][-2:] == [("mult", "倍数 2 → 4"), ("mult", "倍数 4 → 8 (春天)")]
    assert frames[-1]["notes"][-1]["en"] == "multiplier 4 → 8 (spring)"
    assert frames[3]["landlord"] == 0 and frames[2]["landlord"] is None
    assert frames[3]["left"] == [20, 17, 17]
    assert frames[4]["act"]["en"] == "seat 0 张三 plays straight to A" and frames[-1]["hands"][0] == []
    bomb = frames[7]
    assert bomb["bomb"] and bomb["cards"] == ["2s", "2h", "2d", "2c"]
    assert [n["kind"] for n in bomb["notes"]] == ["bomb", "mult"]
    assert bomb["notes"][0]["zh"] == "炸弹" and bomb["notes"][1]["zh"] == "倍数 1 → 2"
    assert frames[8]["table"] == [["2s", "2h", "2d", "2c"], "pass", None]
    assert frames[9]["notes"][-1]["kind"] == "trick"  # both farmers passed: seat 0 leads again
    assert frames[-1]["out"] == [0] and frames[-1]["act"]["zh"] == "座位 0 张三 出 火箭"
    seats = d["result"]["seats"]
    assert [(s["place"], s["score"], s["coins"]) for s in seats] == [(1, 16, 790), (None, -8, -500), (None, -8, -300)]
    assert {f["en"]: f["value"] for f in d["result"]["fields"]} == {"multiplier": 8,
                                                                   "spring": {"en": "spring", "zh": "春天"}}
    assert d["room"] == {"en": "初级场 base 1 coef 100 fee 10", "zh": "初级场 底分 1 系数 100 台费 10"}


def test_guandan_and_shuangkou_pages_know_level_wild_cards_and_teams():
    gd = hand_data(first("sample_logs/guandan_standard_simulated.jsonl"))
    assert gd["level"] == "2" and gd["wild"] == ["2h"] and gd["teams"] == [0, 1, 0, 1]
    assert gd["bottom"] is None and len(gd["frames"][0]["hands"][0]) == 27
    # at level 4 the fours rank just under the jokers and the twos lowest: the page shows the hand in that order
    gd4 = next(item.record for item in iter_items(["sample_logs/guandan_standard_simulated.jsonl"], strict=False)
               if item.record["id"] == "guandan-standard-s2026-000002")
    assert gd4["level"] == "4" and hand_data(gd4)["frames"][0]["hands"][0] == (
        "BJ SJ 4s 4d As Ac Ks Kh Kc Qs Qh Qc Jd Ts Tc 8s 8c 8c 7s 7h 6c 5s 5h 5c 3s 3d 2s".split())
    sk = hand_data(first("sample_logs/shuangkou_simulated.jsonl"))
    assert sk["level"] is None and sk["wild"] == ["BJ", "SJ"] and sk["teams"] == [0, 1, 0, 1]
    ddz = hand_data(handmade())
    assert ddz["level"] is None and ddz["wild"] == [] and ddz["teams"] is None
    assert ddz["bottom"] == ["BJ", "2c", "3d"]


def test_log_text_cannot_end_the_data_script():
    record = handmade()
    record["players"][1] = "</script><script>alert(1)</script>"
    record["id"] = "<b>&amp;"
    text = page(hand_data(record))
    assert "alert(1)</script>" not in text and "<b>" not in text
    data = re.search(r"<script type='application/json' id='hand-data'>(.*?)</script>", text, re.S).group(1)
    assert "<" not in data and "&" not in data
    assert json.loads(data)["players"][1] == "</script><script>alert(1)</script>"
    assert "<title>&lt;b&gt;&amp;amp;" in text


def test_replay_hands_into_a_folder(tmp_path):
    records = list(simulate("paodekuai", "huopin", 3, 9))
    src = tmp_path / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in records))
    ids = [r["id"] for r in records]
    (tmp_path / "ids.txt").write_text(f"# from a query\n{ids[2]}\n\n", encoding="utf-8")
    out = tmp_path / "pages"
    r = invoke("replay", str(src), "--hands", f"{ids[0]},{ids[1]}", "--hands", f"@{tmp_path / 'ids.txt'}",
               "--html", str(out))
    assert r.exit_code == 0, r.output
    assert sorted(os.listdir(out)) == sorted([html_name(i) for i in ids] + ["index.html"])
    index = (out / "index.html").read_text(encoding="utf-8")
    assert [m for m in re.findall(r"href='([^']+)'", index)] == [html_name(i) for i in ids]
    r = invoke("replay", str(src), "--hands", f"{ids[0]},nope", "--html", str(out))
    assert r.exit_code == 1 and "no hand 'nope'" in r.stderr
    r = invoke("replay", str(src), "--hands", ids[0])
    assert r.exit_code == 2 and "--html DIR" in r.stderr


def test_replay_html_from_a_dataset(tmp_path):
    src = tmp_path / "h.jsonl"
    src.write_bytes(record_to_json(handmade()) + b"\n")
    ds = str(tmp_path / "ds")
    assert invoke("ingest", str(src), "--out", ds).exit_code == 0
    out = tmp_path / "one.html"
    r = invoke("replay", ds, "--hand", "ddz-handmade-1", "--html", str(out))
    assert r.exit_code == 0 and out.exists()
    assert "张三" in out.read_text(encoding="utf-8")


def section(rows: list[dict]) -> Section:
    """A Paodekuai section over a hand-made seat_advantage table (three seats)."""
    frame = pl.DataFrame(rows)
    empty = pl.DataFrame({"game": [], "variant": [], "setting": []}, schema={"game": pl.Utf8, "variant": pl.Utf8,
                                                                            "setting": pl.Utf8})
    overview = pl.DataFrame([{"game": "paodekuai", "variant": "huopin", "setting": "", "hands": 100, "legal": 100,
                              "violating": 0}])
    stats = {"overview": overview, "seat_advantage": frame}
    return Section("paodekuai", {**{k: empty for k in ("violations",)}, **stats}, "en")


def seat_rows(wins: list[int], hands: int = 90) -> list[dict]:
    return [{"game": "paodekuai", "variant": "huopin", "setting": "", "seat": s, "hands": hands, "wins": w,
             "rate": w / hands, "lo": 0.0, "hi": 1.0} for s, w in enumerate(wins)]


def test_a_seat_is_named_only_when_significant_after_holm():
    s = section(seat_rows([30, 30, 30]))
    s.chart_seat_advantage()
    assert s.charts[0].caption.startswith("Seat advantage: who goes out first: no significant difference from the "
                                          "fair 33.3%")
    # exact binomial against 1/3: 45 of 90 has p = 0.0011 alone, 0.0033 after Holm over three seats;
    # 20 of 90 has p = 0.025 alone but 0.050 after Holm
    s = section(seat_rows([45, 25, 20]))
    s.chart_seat_advantage()
    caption = s.charts[0].caption
    assert caption.startswith("seat 0 wins more often than the fair 33.3%: 50.0% (95% CI 39.9% – 60.1%, n = 90")
    assert "seat 1" not in caption and "seat 2" not in caption
    # 40 of 90: p = 0.033 alone, 0.099 after Holm: no winner named
    s = section(seat_rows([40, 27, 23]))
    s.chart_seat_advantage()
    assert "no significant difference" in s.charts[0].caption


def test_report_sections_for_players_and_suspects_link_hands_to_replays(tmp_path):
    records = list(simulate("doudizhu", None, 20, 11))
    src = tmp_path / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in records))
    ds = tmp_path / "ds"
    assert invoke("ingest", str(src), "--out", str(ds)).exit_code == 0
    invoke("audit", str(ds), "--workers", "1")
    folder = ds / "suspects" / "game=doudizhu"
    folder.mkdir(parents=True)
    pl.DataFrame({"kind": ["dump"], "player": ["<i>x</i>"], "score": [3.25],
                  "hands": [[records[0]["id"], records[1]["id"]]]}).write_parquet(folder / "part-0.parquet")
    pfolder = ds / "players" / "game=doudizhu"
    pfolder.mkdir(parents=True)
    pl.DataFrame({"player": ["A", "B"], "hands": [5, 12], "win_rate": [0.2, 0.5]}).write_parquet(pfolder / "p.parquet")
    out = tmp_path / "report" / "r.html"
    out.parent.mkdir()
    pages = tmp_path / "pages"
    assert invoke("replay", str(ds), "--hands", records[0]["id"], "--html", str(pages)).exit_code == 0
    r = invoke("report", str(ds), "--out", str(out), "--replays", str(pages))
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    suspects = text[text.index("<section id='suspects'>"):]
    assert "&lt;i&gt;x&lt;/i&gt;" in suspects and "<i>x" not in suspects
    # a link only to the page that is there; the other hand is named, unlinked, and the note says so
    assert f"<td class='t'><a href='../pages/{html_name(records[0]['id'])}'>{records[0]['id']}</a>, " \
           f"{records[1]['id']}</td>" in suspects
    assert f"1 of the hands have no page in {pages} and are not linked" in suspects
    players = text[text.index("<section id='players'>"):text.index("<section id='suspects'>")]
    assert players.index(">B<") < players.index(">A<")  # most hands first
    assert "<a href='#suspects'>" in text and "<a href='#players'>" in text


def test_guandan_tribute_moves_the_card_and_is_named():
    record = next(item.record for item in iter_items(["sample_logs/guandan_standard_simulated.jsonl"], strict=False)
                  if [a["act"] for a in item.record["actions"][:2]] == ["tribute", "return"])  # a single tribute
    pay, back = record["actions"][:2]
    assert back["act"] == "return" and (back["seat"], back["to"]) == (pay["to"], pay["seat"])
    frames = hand_data(record)["frames"]
    giver, taker = pay["seat"], pay["to"]
    assert frames[0]["hands"][giver].count(pay["card"]) - frames[1]["hands"][giver].count(pay["card"]) == 1
    assert frames[1]["hands"][taker].count(pay["card"]) - frames[0]["hands"][taker].count(pay["card"]) == 1
    assert frames[2]["hands"][giver].count(back["card"]) - frames[1]["hands"][giver].count(back["card"]) == 1
    assert (pay["card"], back["card"]) == ("BJ", "2s")  # named as the cards are drawn: the joker in words, 2♠
    assert frames[1]["act"]["zh"].endswith(f"进贡 大王 → 座位 {taker}")
    assert frames[1]["act"]["en"].endswith(f"pays tribute BJ → seat {taker}")
    single_joker = next(f for f in frames if f["cards"] == ["BJ"])  # a joker played alone: named, in Chinese too
    assert single_joker["act"]["zh"].endswith("出 单张 大王") and single_joker["act"]["en"].endswith("plays single to BJ")
    assert frames[2]["act"]["en"].endswith(f"returns 2♠ → seat {giver}")
    left = [27] * 4
    left[giver], left[taker] = 26, 28
    assert frames[1]["left"] == left and frames[2]["left"] == [27] * 4


def test_the_installed_command_writes_a_page_from_outside_the_checkout(tmp_path):
    """The page's assets are found through the installed package, not the current folder."""
    import subprocess
    import sys

    src = os.path.abspath(HANDMADE)
    out = tmp_path / "a.html"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-m", "paipu.cli", "replay", src, "--html", str(out)], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == f"wrote {out}"
    assert "function cardEl" in out.read_text(encoding="utf-8")
    mask = os.umask(0)
    os.umask(mask)
    assert os.stat(out).st_mode & 0o777 == 0o666 & ~mask  # readable as any new file is, not private (mkstemp's 0600)


def test_hands_judged_at_the_deal_get_their_page_and_the_others_theirs(tmp_path):
    """Params the rules do not know (stored by ingest, bad_record in audit) and a bad deal are
    pages with the deal and the verdict; --hands goes on to the next hand."""
    from helpers import DDZ_HEAD, SPRING, ddz

    bad_params = ddz(SPRING, params={"must_play": True})
    bad_params["id"] = "p-1"
    bad_deal = ddz(SPRING, head=DDZ_HEAD.replace("SJ 3h\n", "SJ 3h 3h\n"))
    bad_deal["id"] = "d-1"
    d = hand_data(bad_deal)
    assert d["violation"]["code"] == "bad_deal" and len(d["frames"]) == 1
    assert d["frames"][0]["left"] == [18, 17, 17] and d["frames"][0]["violation"] == d["violation"]
    assert d["bottom"] == ["BJ", "2c", "3d"] and d["game_zh"] == "斗地主"
    src = tmp_path / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in (bad_params, bad_deal, handmade())))
    ds = str(tmp_path / "ds")
    assert invoke("ingest", str(src), "--out", ds).exit_code == 0
    out = tmp_path / "pages"
    r = invoke("replay", ds, "--hands", "p-1,d-1,ddz-handmade-1", "--html", str(out))
    assert r.exit_code == 1, r.output
    assert sorted(os.listdir(out)) == ["d-1.html", "ddz-handmade-1.html", "index.html", "p-1.html"]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "p-1</a> — bad_record" in index and "d-1</a> — bad_deal" in index and "ddz-handmade-1</a></li>" in index
    r = invoke("replay", ds, "--hand", "p-1")
    assert r.exit_code == 1 and "VIOLATION bad_record: params.must_play" in r.stdout


def paodekuai_dataset(tmp_path, hands: int = 6, seed: int = 5):
    records = list(simulate("paodekuai", "huopin", hands, seed))
    src = tmp_path / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in records))
    ds = tmp_path / "ds"
    assert invoke("ingest", str(src), "--out", str(ds)).exit_code == 0
    assert invoke("audit", str(ds), "--workers", "1").exit_code == 0
    return ds, records


def test_a_partition_name_is_escaped_for_every_attribute_and_text(tmp_path):
    ds, _ = paodekuai_dataset(tmp_path)
    evil = "game=x'><b>injected<b><marquee>"
    for table in os.listdir(ds):
        if os.path.isdir(ds / table / "game=paodekuai"):
            os.rename(ds / table / "game=paodekuai", ds / table / evil)
    out = tmp_path / "r.html"
    assert invoke("report", str(ds), "--out", str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8")
    assert "<b>" not in text and "<marquee>" not in text and "x'>" not in text
    ids = re.findall(r"\sid='([^']*)'", text)
    assert any(i.startswith("game-x_b_injected_b_marquee_~") for i in ids), ids
    assert all(re.fullmatch(r"[A-Za-z0-9._~-]+", i) for i in ids), ids  # URL-unreserved characters only
    assert set(re.findall(r"href='#([^']*)'", text)) <= set(ids)  # every link of the contents lands
    assert "<h2>x&#39;&gt;&lt;b&gt;injected&lt;b&gt;&lt;marquee&gt;</h2>" in text


def test_rate_charts_end_at_100_with_even_ticks_labels_clear_of_the_bars_and_a_named_line():
    from paipu.analysis.report import hbars

    rows = [{"cat": "a", "group": "g", "value": 1.0, "lo": 0.8, "hi": 1.0, "n": 12},
            {"cat": "b", "group": "g", "value": 0.5, "lo": 0.3, "hi": 0.7, "n": 12}]
    fig = hbars(rows, ["g"], ["a", "b"], ref=0.5, ref_label="50%: even")
    ax = fig.axes[0]
    assert ax.get_xlim() == (0.0, 1.0)
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0%", "20%", "40%", "60%", "80%", "100%"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["50%: even", "g"]
    renderer = fig.canvas.get_renderer()
    bars_right = max(line.get_window_extent(renderer).x1 for line in ax.collections + ax.lines)
    labels = [t for t in ax.texts]
    assert [t.get_text() for t in labels] == ["100%  n=12", "50.0%  n=12"]
    assert labels[0].get_window_extent(renderer).x0 > bars_right  # beside the error bar that ends at 100%


def test_the_players_table_names_the_game_of_each_row(tmp_path):
    records = list(simulate("doudizhu", "huopin", 4, 1)) + list(simulate("paodekuai", "huopin", 4, 1))
    src = tmp_path / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in records))
    ds = str(tmp_path / "ds")
    assert invoke("ingest", str(src), "--out", ds).exit_code == 0
    invoke("audit", ds, "--workers", "1")
    out = tmp_path / "r.html"
    assert invoke("report", ds, "--out", str(out)).exit_code == 0
    players = out.read_text(encoding="utf-8").split("<section id='players'>")[1]
    assert players.split("<tr>")[1].startswith("<th>game</th><th>variant</th><th>player</th>")
    games = re.findall(r"<tr><td class='t'>([^<]*)</td><td class='t'>huopin</td>", players)
    assert set(games) == {"Dou Dizhu", "Paodekuai"}
    assert "50%: landlord and farmers even" in out.read_text(encoding="utf-8")  # the 50% line's legend
