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
    assert "@4" in page.locator("#violation").inner_text()
    assert page.locator("#log li.bad").count() == 1
    assert w.dialogs == [] and w.errors == []
    w.close()


LONG = "长" * 2999 + "!"


def test_a_long_player_name_is_cut_and_the_layout_holds(browser, tmp_path):
    """A 3,000-character name: the report's players table and the replayer stay in the window
    (1,000 px), the name cut to 32 characters with the whole name on hover."""
    record = copy.deepcopy(handmade())
    record["players"][1] = LONG
    src = tmp_path / "h.jsonl"
    src.write_bytes(record_to_json(record) + b"\n")
    out = tmp_path / "hand.html"
    assert invoke("replay", str(src), "--html", str(out)).exit_code == 0
    w = Watched(browser, out.as_uri())
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
    assert invoke("ingest", str(src), "--out", ds).exit_code == 0
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
