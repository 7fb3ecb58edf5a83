"""The report and the hand replayer in a real browser: Playwright driving the system's
Chromium, headless (``.ci/run`` installs it; elsewhere these skip when no browser can be had)."""

from __future__ import annotations

import copy
import os
import shutil
import tempfile

import pytest
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.io.jsonl import record_to_json
from paipu.replay.io.text import parse_text
from paipu.replay.sim import simulate

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install '.[test]')")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("no chromium on PATH (apt-get install -y chromium)", allow_module_level=True)

EVIL = "<img src=x onerror=alert(1)>"
runner = CliRunner()
HANDMADE = "sample_logs/doudizhu_handmade.paipu"


def invoke(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def browser():
    # Chromium puts a Unix socket in TMPDIR and dies at launch when that path passes 107
    # bytes ("Socket path too long"): a long TMPDIR gets a short folder under /tmp instead
    env = dict(os.environ)
    short = tempfile.mkdtemp(prefix="pw-", dir="/tmp") if len(tempfile.gettempdir()) > 40 else None
    if short:
        env["TMPDIR"] = short
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"], env=env)
        yield b
        b.close()
    if short:
        shutil.rmtree(short, ignore_errors=True)


class Watched:
    """A page that records console errors, page errors and dialogs (an alert would be a script that ran)."""

    def __init__(self, browser, url: str):
        self.page = browser.new_page(viewport={"width": 1000, "height": 800})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(url)

    def close(self):
        self.page.close()


def handmade() -> dict:
    return parse_text(open(HANDMADE, encoding="utf-8").read())[0].record


# ------------------------------------------------------------------------------------------ report


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    records = list(simulate("doudizhu", None, 40, 3)) + list(simulate("paodekuai", "huopin", 25, 3))
    records += list(simulate("paodekuai", "huopin", 15, 4, params={"must_play": False}))
    for record in records[:40]:  # the most active player of Dou Dizhu
        record["players"][1] = EVIL
    src = tmp / "hands.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in records))
    ds = str(tmp / "ds")
    assert invoke("ingest", str(src), "--out", ds).exit_code == 0
    invoke("audit", ds, "--workers", "1")
    pages = {}
    for lang, only in (("en", ()), ("zh", ("--game", "ddz"))):  # Chinese: one game is enough
        out = tmp / f"report-{lang}.html"
        assert invoke("report", ds, "--out", str(out), "--lang", lang, *only).exit_code == 0
        pages[lang] = out
    return pages


def test_report_loads_clean_with_every_chart_table_and_contents_link(browser, report):
    w = Watched(browser, report["en"].as_uri())
    page = w.page
    figures = page.locator("figure")
    n = figures.count()
    # Dou Dizhu's 10 charts (no comparison: one setting) and Paodekuai's 9 (two settings: a comparison)
    assert n == 19
    assert page.locator("figure svg").count() == n
    assert page.locator("figure figcaption").count() == n
    assert page.locator("figure details table").count() == n
    # every chart keeps its text as text (SVG <text>), with at least its axis label and values
    for k in range(n):
        assert figures.nth(k).locator("svg text").count() >= 3
    links = page.locator("nav.toc a")
    hrefs = [links.nth(k).get_attribute("href") for k in range(links.count())]
    assert len(hrefs) == 1 + 2 + n + 1  # summary, two games, their charts, players
    for href in hrefs:
        assert href.startswith("#") and page.locator(href).count() == 1, href
    page.locator("nav.toc a[href='#paodekuai-compare']").click()
    assert page.evaluate("location.hash") == "#paodekuai-compare"
    top = page.evaluate("document.getElementById('paodekuai-compare').getBoundingClientRect().top")
    assert abs(top) < 5  # scrolled to it
    assert "must play: off" in page.locator("#game-paodekuai").inner_text()
    assert w.errors == [] and w.dialogs == []
    w.close()


def test_report_shows_a_hostile_player_name_as_text(browser, report):
    for lang in ("en", "zh"):
        w = Watched(browser, report[lang].as_uri())
        page = w.page
        page.wait_for_timeout(100)
        assert EVIL in page.locator("#players").inner_text()
        assert page.locator("img").count() == 0
        assert w.dialogs == [] and w.errors == []
        w.close()


def test_report_in_chinese(browser, report):
    w = Watched(browser, report["zh"].as_uri())
    page = w.page
    assert page.evaluate("document.documentElement.lang") == "zh"
    assert page.locator("#summary h2").inner_text() == "摘要"
    assert page.locator("nav.toc a[href='#doudizhu-landlord-wins']").inner_text() == "地主胜率"
    assert "胜率" in page.locator("#doudizhu-landlord-wins svg").text_content()  # chart text in Chinese, as text
    assert w.errors == []
    w.close()


# ------------------------------------------------------------------------------------------ replayer

# seat 0's cards (high to low) as the file deals them, after it takes the bottom, and after each of its plays
SEAT0_DEAL = "SJ 2s 2h 2d As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 3h".split()
SEAT0_WITH_BOTTOM = "BJ SJ 2s 2h 2d 2c As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 3h 3d".split()
SEAT0_AFTER_STRAIGHT = "BJ SJ 2s 2h 2d 2c 3h 3d".split()
SEAT0_AFTER_BOMB = "BJ SJ 3h 3d".split()
SEAT1 = "Ah Kh Qh Jh Th 9h 9d 8h 8d 7h 7d 6h 6d 5h 5d 4h 4d".split()


def hand_of(page, seat: int) -> list[str]:
    return page.locator(f"[data-seat='{seat}'] .hand .card").evaluate_all("els => els.map(e => e.dataset.card)")


def press(page, key: str, times: int = 1) -> None:
    for _ in range(times):
        page.keyboard.press(key)


@pytest.fixture(scope="module")
def replays(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("replays")
    out = {}
    for lang in ("en", "zh"):
        out[lang] = tmp / f"hand-{lang}.html"
        r = invoke("replay", HANDMADE, "--hand", "ddz-handmade-1", "--html", str(out[lang]), "--lang", lang)
        assert r.exit_code == 0, r.output
    return out


def test_replayer_steps_by_keyboard_and_shows_each_hand(browser, replays):
    w = Watched(browser, replays["en"].as_uri())
    page = w.page
    assert page.locator("#where").inner_text() == "step 0 of 13"
    assert hand_of(page, 0) == SEAT0_DEAL and hand_of(page, 1) == SEAT1
    assert page.locator("[data-seat='2'] .who").inner_text().startswith("seat 2 · 王 五")
    press(page, "ArrowRight", 3)  # bid, two declines: seat 0 takes the bottom
    assert hand_of(page, 0) == SEAT0_WITH_BOTTOM
    assert "landlord" in page.locator("[data-seat='0'] .who").inner_text()
    assert "0 张三 becomes landlord" in page.locator("#now").inner_text()
    press(page, "ArrowRight")
    assert hand_of(page, 0) == SEAT0_AFTER_STRAIGHT
    assert page.locator("#now .act").inner_text().startswith("seat 0 张三 plays straight to A")
    assert page.locator("[data-seat='0'] .played .card").count() == 12
    press(page, "ArrowRight", 3)
    assert hand_of(page, 0) == SEAT0_AFTER_BOMB
    assert page.locator("#now.bomb").count() == 1  # the bomb is highlighted, with the multiplier change
    assert "multiplier 1 → 2" in page.locator("#now").inner_text()
    press(page, "ArrowLeft")
    assert hand_of(page, 0) == SEAT0_AFTER_STRAIGHT and page.locator("#where").inner_text() == "step 6 of 13"
    press(page, "End")
    assert hand_of(page, 0) == [] and hand_of(page, 1) == SEAT1
    assert "out #1" in page.locator("[data-seat='0'] .who").inner_text()
    cells = page.locator("#result tr").evaluate_all("rows => rows.slice(1).map(r => [...r.cells].map(c => c.textContent))")
    assert cells == [["0", "张三", "landlord", "1", "+16", "+790"], ["1", "李四", "farmer", "–", "-8", "-500"],
                     ["2", "王 五", "farmer", "–", "-8", "-300"]]
    press(page, "Home")
    assert hand_of(page, 0) == SEAT0_DEAL
    assert w.errors == [] and w.dialogs == []
    w.close()


def test_replayer_jumps_to_a_trick_and_shows_a_seat_view(browser, replays):
    w = Watched(browser, replays["en"].as_uri())
    page = w.page
    page.select_option("#trick", label="trick 3")
    assert page.locator("#where").inner_text() == "step 10 of 13" and hand_of(page, 0) == ["BJ", "SJ"]
    page.select_option("#view", value="1")
    assert hand_of(page, 1) == SEAT1 and hand_of(page, 0) == [] and hand_of(page, 2) == []
    assert page.locator("[data-seat='0'] [data-hidden]").inner_text() == "[2 hidden]"
    page.locator("body").click()
    press(page, "PageUp")  # back to the start of the previous trick
    assert page.locator("#where").inner_text() == "step 7 of 13"
    assert w.errors == []
    w.close()


def test_replayer_in_chinese(browser, replays):
    w = Watched(browser, replays["zh"].as_uri())
    page = w.page
    assert page.locator("#where").inner_text() == "第 0 步 / 共 13 步"
    press(page, "ArrowRight", 4)
    assert page.locator("#now .act").inner_text().startswith("座位 0 张三 出 顺子 A")
    assert hand_of(page, 0) == SEAT0_AFTER_STRAIGHT
    assert "地主" in page.locator("[data-seat='0'] .who").inner_text()
    page.click("#lang")  # and back to English on the same page
    assert page.locator("#now .act").inner_text().startswith("seat 0 张三 plays straight to A")
    page.click("#lang")
    assert page.locator(".meta").inner_text() == "2026-11-29T20:00:00+08:00 · 初级场 底分 1 系数 100 台费 10"
    press(page, "End")
    notes = page.locator("#now .note").all_inner_texts()
    assert notes[-2:] == ["倍数 2 → 4", "倍数 4 → 8 (春天)"]  # the spring's ×2, as the settlement counts it
    assert "倍数: 8" in page.locator("#result").inner_text() and "春天: 春天" in page.locator("#result").inner_text()
    log = page.locator("#log li").all_inner_texts()
    assert log[3] == "座位 0 张三 出 顺子 A A♠ K♠ Q♠ J♠ 10♠ 9♠ 8♠ 7♠ 6♠ 5♠ 4♠ 3♠"
    assert log[-1] == "座位 0 张三 出 火箭 大王 小王"
    # the jokers are cards as big as the others
    sizes = page.locator("#bottom .card").evaluate_all("els => els.map(e => [e.offsetWidth, e.offsetHeight])")
    assert len(sizes) == 3 and len(set(map(tuple, sizes))) == 1, sizes
    page.click("#lang")
    assert page.locator(".meta").inner_text() == "2026-11-29T20:00:00+08:00 · 初级场 base 1 coef 100 fee 10"
    assert page.locator("#log li").all_inner_texts()[-1] == "seat 0 张三 plays rocket BJ SJ"
    sizes = page.locator("#bottom .card").evaluate_all("els => els.map(e => [e.offsetWidth, e.offsetHeight])")
    assert len(set(map(tuple, sizes))) == 1, sizes
    assert w.errors == []
    w.close()


def test_replayer_escapes_log_text_and_shows_a_violation_where_it_happens(browser, tmp_path):
    record = copy.deepcopy(handmade())
    record["players"][1] = EVIL
    record["id"] = "x</script><script>alert(2)</script>"
    record["actions"][4] = {"seat": 1, "act": "play", "cards": ["2s"]}  # seat 1 does not hold the 2 of spades
    del record["result"]
    src = tmp_path / "bad.jsonl"
    src.write_bytes(record_to_json(record) + b"\n")
    out = tmp_path / "bad.html"
    r = invoke("replay", str(src), "--html", str(out))
    assert r.exit_code == 1
    w = Watched(browser, out.as_uri())
    page = w.page
    assert EVIL in page.locator("[data-seat='1'] .who").inner_text()
    assert page.locator("img").count() == 0
    assert page.locator("h1").inner_text().startswith("x</script><script>alert(2)</script>")
    press(page, "End")
    assert page.locator("#where").inner_text() == "step 5 of 5"
    assert page.locator("#violation code").inner_text() == "not_in_hand"
    # the step of the action, as the step counter counts it; its cards as they are drawn
    assert page.locator("#violation").inner_text() == "violation not_in_hand at step 5: seat 1 does not hold 2♠"
    assert page.locator("#log li.bad").count() == 1
    assert w.dialogs == [] and w.errors == []
    w.close()


LONG = "长" * 2999 + "!"


def replayer_of(browser, tmp_path, record: dict, *options: str, exit_code: int = 0) -> Watched:
    """The page 'paipu replay --html' writes for *record*, open in the browser."""
    src = tmp_path / "hand.jsonl"
    src.write_bytes(record_to_json(record) + b"\n")
    out = tmp_path / "hand.html"
    assert invoke("replay", str(src), "--html", str(out), *options).exit_code == exit_code
    return Watched(browser, out.as_uri())


def test_a_long_player_name_is_cut_and_the_layout_holds(browser, tmp_path):
    """A 3,000-character name: the report's players table and the replayer stay in the window
    (1,000 px), the name cut to 32 characters with the whole name on hover."""
    record = copy.deepcopy(handmade())
    record["players"][1] = LONG
    w = replayer_of(browser, tmp_path, record)
    page = w.page
    for key in ("Home", "End"):
        press(page, key)
        assert page.evaluate("document.documentElement.scrollWidth") <= 1000
    who = page.locator("[data-seat='1'] .who")
    assert who.inner_text().startswith("seat 1 · " + "长" * 31 + "…") and who.get_attribute("title") == LONG
    assert page.locator("#result td[title]").inner_text() == "长" * 31 + "…"
    assert w.errors == []
    w.close()
    ds = str(tmp_path / "ds")
    assert invoke("ingest", str(tmp_path / "hand.jsonl"), "--out", ds).exit_code == 0
    invoke("audit", ds, "--workers", "1")
    report = tmp_path / "r.html"
    assert invoke("report", ds, "--out", str(report)).exit_code == 0
    w = Watched(browser, report.as_uri())
    page = w.page
    assert page.evaluate("document.documentElement.scrollWidth") <= 1000
    cell = page.locator(f"#players td[title='{LONG}']")
    assert cell.inner_text() == "长" * 31 + "…"
    assert w.errors == []
    w.close()


def test_a_lead_that_breaks_a_rule_is_in_its_trick_and_at_its_step(browser, tmp_path):
    record = copy.deepcopy(handmade())
    record["actions"][9] = {"seat": 0, "act": "play", "cards": ["3h", "BJ"]}  # leads trick 3 with no combination
    del record["actions"][10:]
    del record["result"]
    w = replayer_of(browser, tmp_path, record, exit_code=1)
    page = w.page
    press(page, "End")
    assert page.locator("#where").inner_text() == "step 10 of 10"
    assert page.locator("#trick option:checked").inner_text() == "trick 3"
    assert page.locator("#violation").inner_text().startswith("violation invalid_combo at step 10: 3♥ BJ ")
    page.click("#lang")
    assert page.locator("#where").inner_text() == "第 10 步 / 共 10 步"
    assert page.locator("#violation").inner_text().startswith("违规 invalid_combo（不是合法牌型） 第 10 步: 3♥ 大王 不是")
    assert w.errors == []
    w.close()


def test_guandan_last_seat_is_placed_not_out(browser, tmp_path):
    from paipu.replay.io.readers import iter_items

    from paipu.replay.replayer import replay

    # a hand that ends with three seats out: the fourth is placed last with its cards in hand
    record = next(item.record for item in iter_items(["sample_logs/guandan_standard_simulated.jsonl"], strict=False)
                  if len(replay(item.record).outcome.get("order") or []) == 4)
    w = replayer_of(browser, tmp_path, record, "--lang", "zh")
    page = w.page
    press(page, "End")
    badges = [page.locator(f"[data-seat='{s}'] .badge.out").inner_text() for s in range(4)]
    left = [page.locator(f"[data-seat='{s}'] .hand .card").count() for s in range(4)]
    assert sorted(b.split("#")[1] for b in badges) == ["1", "2", "3", "4"]
    for badge, n in zip(badges, left):
        assert badge.startswith("出完 #" if n == 0 else "名次 #"), (badge, n)
    assert sum(n > 0 for n in left) >= 1
    assert w.errors == []
    w.close()


def test_the_review_page_draws_each_steps_options_as_bars_and_flags_the_moves(browser, tmp_path):
    """``paipu review --html``: at the farmer's pass (step 11) the options as bars of their win
    probability, the chosen pass marked, the blunder flagged in the move list; a hostile name
    stays text; the summary table; everything in Chinese at a click."""
    record = copy.deepcopy(handmade())
    record["players"][1] = EVIL
    src = tmp_path / "hand.jsonl"
    src.write_bytes(record_to_json(record) + b"\n")
    out = tmp_path / "review.html"
    r = invoke("review", str(src), "--hand", "ddz-handmade-1", "--seat", "1", "--html", str(out), "--samples", "8",
               "--budget", "0")
    assert r.exit_code == 0, r.output
    w = Watched(browser, out.as_uri())
    page = w.page
    assert page.locator("#review").count() == 0  # the deal: no decision
    press(page, "ArrowRight", 11)
    assert page.locator("#review .loss").inner_text().startswith("loss 100.0 ±0.0 · 8 deals")
    assert page.locator("#review .loss .flag.blunder").inner_text() == "BLUNDER"
    rows = page.locator("#review .opt").evaluate_all(
        "rows => rows.map(r => [r.querySelector('.label').textContent, r.querySelector('.fill').style.width])")
    assert rows[0] == ["4♥ 4♦", "100%"] and rows[-1] == ["▸ pass", "0%"] and len(rows) == 7
    assert page.locator("#review .opt.chosen").count() == 1
    assert page.locator("#log li.flag-blunder").count() == 1 and page.locator("#log li.flag-mistake").count() == 0
    assert page.locator("#log li.flag-blunder .flag").first.inner_text() == "BLUNDER"
    summary = page.locator("#review-summary tr").evaluate_all(
        "rows => rows.slice(1).map(r => [...r.cells].map(c => c.textContent))")
    assert summary == [["1", EVIL, "2", "1 (50.0%)", "50.0", "0", "1"]]
    assert page.locator("img").count() == 0
    page.locator("#lang").click()
    assert page.locator("#review .loss").inner_text().startswith("损失 100.0 ±0.0 · 8 次发牌")
    assert page.locator("#review .loss .flag").inner_text() == "恶手"
    assert page.locator("#review .opt.chosen .label").inner_text() == "▸ 不出"
    assert w.errors == [] and w.dialogs == []
    w.close()
