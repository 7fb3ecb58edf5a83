"""``paipu replay``: Chinese throughout with --lang zh, who holds a card played from nowhere,
the whole multiplier trace, Guandan's level and wild card, and --step's keys."""

from __future__ import annotations

import io
import os

from helpers import BID_0, SPRING, ddz
from rich.console import Console
from rich.text import Text
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.io.jsonl import record_to_json
from paipu.replay.verdicts import Code
from paipu.replay.view import CODE_ZH, render, step_through

runner = CliRunner()
SAMPLES = os.path.join(os.path.dirname(__file__), "..", "sample_logs")


def shown(record: dict, **kw) -> tuple[str, object]:
    buf = io.StringIO()
    v = render(record, Console(file=buf, width=200, highlight=False), **kw)
    return buf.getvalue(), v


def test_zh_names_kinds_cards_and_the_spring_in_chinese():
    text, v = shown(ddz(SPRING), lang="zh")
    assert v is None
    lines = text.splitlines()
    assert "  3  0 张三         出 顺子  A♠ K♠ Q♠ J♠ 10♠ 9♠ 8♠ 7♠ 6♠ 5♠ 4♠ 3♠   (剩 8)" in lines
    assert " 12  0 张三         出 火箭  大王 小王   (剩 0)" in lines
    assert "       💣 炸弹" in lines and "       💣 火箭" in lines
    assert "  春天/反春: 春天" in lines
    for english in ("straight", "rocket", "bomb", "spring", "SJ", "BJ", "T♠", "seat", "plays", "pass"):
        assert english not in text, english


def test_english_keeps_both_names():
    text, _ = shown(ddz(SPRING))
    assert "  3  0 张三         plays straight 顺子  A♠ K♠ Q♠ J♠ 10♠ 9♠ 8♠ 7♠ 6♠ 5♠ 4♠ 3♠   (left 8)" in text.splitlines()


def test_every_verdict_code_is_explained_in_chinese():
    assert set(CODE_ZH) == {c.value for c in Code}
    text, v = shown(ddz(BID_0 + "0 play 3h\n1 play 4h\n2 play 3c\n"), lang="zh")
    assert v.code == "does_not_beat"
    assert text.splitlines()[-1].startswith("  !! 违规 does_not_beat（没有大过上一手） 第 5 步: ")


def test_not_in_hand_says_who_holds_the_card():
    text, v = shown(ddz(BID_0 + "0 play 4h 3h\n"))
    assert v.code == "not_in_hand" and v.action == 3
    assert text.splitlines()[-2:] == ["  !! VIOLATION not_in_hand at action 3: seat 0 does not hold 4♥",
                                      "       4♥ is held by 1 李四"]
    text, _ = shown(ddz(BID_0 + "0 play 4h 3h\n"), lang="zh")
    assert text.splitlines()[-1] == "       4♥ 在 1 李四 手中"
    text, v = shown(ddz(BID_0 + "0 play 3h\n1 pass\n2 pass\n0 play 3h\n"))
    assert v.action == 6 and text.splitlines()[-1] == "       3♥ was played already"


def test_multiplier_trace_shows_every_step_of_the_result():
    text, _ = shown(ddz(SPRING))
    trace = [line.strip() for line in text.splitlines() if line.strip().startswith("multiplier")]
    assert trace == ["multiplier 1", "multiplier 1 → 2 (bomb)", "multiplier 2 → 4 (rocket)",
                     "multiplier 4 → 8 (spring)", "multiplier: 8"]
    grab = BID_0.replace("1 grab no", "1 grab yes") + "0 grab no\n"
    text, _ = shown(ddz(grab + "1 play 4h\n"))
    trace = [line.strip() for line in text.splitlines() if line.strip().startswith("multiplier")]
    assert trace == ["multiplier 1 → 2 (grabs)", "multiplier 2"]


def test_guandan_header_shows_the_level_and_marks_wild_cards():
    import json

    path = os.path.join(SAMPLES, "guandan_standard_simulated.jsonl")
    with open(path, encoding="utf-8") as f:
        record = next(r for r in map(json.loads, f) if r.get("level") not in (None, "2"))
    level = "10" if record["level"] == "T" else record["level"]
    r = runner.invoke(app, ["replay", path, "--hand", record["id"]])
    lines = r.stdout.splitlines()
    wild = level + "♥"  # the level's heart (ten as 10 in every language)
    assert lines[0].endswith(f" · level {level} (wild {wild}*)")
    assert any(f"{wild}*" in line for line in lines[1:5])
    assert all((wild not in line) or (f"{wild}*" in line) for line in lines[1:5])
    r = runner.invoke(app, ["replay", path, "--hand", record["id"], "--lang", "zh"])
    assert r.stdout.splitlines()[0].endswith(f" · 级牌 {level} (逢人配 {level}♥*)")


def keys(*pressed: str):
    it = iter(pressed)
    return lambda: next(it)


def frames(text: str) -> list[str]:
    return [line.split(" · ")[0].strip("─ ") for line in text.splitlines() if line.startswith("── action")]


def test_step_keys_next_back_quit():
    record = ddz(SPRING)
    buf = io.StringIO()
    v = step_through(record, Console(file=buf, width=200, highlight=False), keys(" ", "\r", "b", "x", "q"))
    assert v is None
    assert frames(buf.getvalue()) == ["action 0 of 13", "action 1 of 13", "action 2 of 13", "action 1 of 13",
                                      "action 2 of 13"]
    assert "keys: space or enter next · b back · q quit" in buf.getvalue()
    shots = buf.getvalue().split("── action")[:-1]  # what each key was pressed on
    assert "0  0 张三         calls the landlord" in shots[3] and "1  1 李四" not in shots[3]  # back to 1 action
    assert "1  1 李四         does not grab" in shots[2]


def test_step_to_the_end_then_any_key_returns_the_verdict():
    record = ddz(BID_0 + "0 play 3h\n1 play 4h\n2 play 3c\n")
    buf = io.StringIO()
    v = step_through(record, Console(file=buf, width=200, highlight=False), keys(*" " * 6, "b", " ", " "))
    assert v.code == "does_not_beat" and v.action == 5
    assert frames(buf.getvalue())[-3:] == ["action 6 of 6", "action 5 of 6", "action 6 of 6"]
    buf = io.StringIO()
    v = step_through(record, Console(file=buf, width=200, highlight=False), keys("q"))
    assert v.code == "does_not_beat"  # quitting early still gives the hand's verdict (exit code)


def test_cli_step_uses_getchar_on_a_terminal(monkeypatch, tmp_path):
    import typer

    import paipu.cli as cli

    src = tmp_path / "h.jsonl"
    src.write_bytes(record_to_json(ddz(SPRING)) + b"\n")
    monkeypatch.setattr(cli, "interactive", lambda: True)
    monkeypatch.setattr(typer, "getchar", keys(" ", "q"))
    r = runner.invoke(app, ["replay", str(src), "--step"], catch_exceptions=False)
    assert r.exit_code == 0 and frames(r.stdout) == ["action 0 of 13", "action 1 of 13"]


def test_a_hand_judged_at_the_deal_is_shown_up_to_its_verdict():
    """A bad deal, params the rules do not know, a game nobody knows: the deal as recorded and
    the audit's verdict, no traceback."""
    from helpers import DDZ_HEAD

    text, v = shown(ddz(SPRING, head=DDZ_HEAD.replace("SJ 3h\n", "SJ 3h 3h\n")))
    assert (v.code, v.action) == ("bad_deal", None)
    assert text.splitlines() == [
        "t-1 · 斗地主 doudizhu/huopin",
        "  seat 0 张三: SJ 2♠ 2♥ 2♦ A♠ K♠ Q♠ J♠ 10♠ 9♠ 8♠ 7♠ 6♠ 5♠ 4♠ 3♠ 3♥ 3♥",
        "  seat 1 李四: A♥ K♥ Q♥ J♥ 10♥ 9♥ 9♦ 8♥ 8♦ 7♥ 7♦ 6♥ 6♦ 5♥ 5♦ 4♥ 4♦",
        "  seat 2 王五: A♦ A♣ K♦ K♣ Q♦ Q♣ J♦ J♣ 10♦ 10♣ 9♣ 8♣ 7♣ 6♣ 5♣ 4♣ 3♣",
        "  bottom: BJ 2♣ 3♦",
        "  !! VIOLATION bad_deal: seat 0 was dealt 18 cards, expected 17"]
    text, v = shown(ddz(SPRING, params={"must_play": True}))
    assert (v.code, v.action) == ("bad_record", None)
    assert text.splitlines()[-1].startswith("  !! VIOLATION bad_record: params.must_play: not a parameter of "
                                            "doudizhu/huopin")
    record = ddz(SPRING)
    record["game"] = "mahjong"
    text, v = shown(record)
    assert v.code == "unknown_game" and text.splitlines()[0] == "t-1 · mahjong/huopin"


def guandan_at_level_10() -> dict:
    import json

    with open(os.path.join(SAMPLES, "guandan_standard_simulated.jsonl"), encoding="utf-8") as f:
        return next(r for r in map(json.loads, f) if r["id"] == "guandan-standard-s2026-000007")


def test_guandan_level_cards_sort_high_as_on_the_page():
    """At level 10 the tens rank just under the jokers (the HTML page's order, tests/test_replay_html.py)."""
    text, _ = shown(guandan_at_level_10())
    assert text.splitlines()[1] == ("  seat 0 Alice      team 0   BJ SJ 10♥* 10♣ A♠ A♠ A♦ A♣ Q♦ J♦ J♣ 9♥ 9♦ 9♦ 8♥ 8♣ 7♥ "
                                    "7♦ 7♣ 5♥ 4♠ 4♥ 4♦ 3♣ 2♠ 2♥ 2♦")


def test_a_narrow_terminal_folds_between_cards_never_inside_one():
    record = guandan_at_level_10()
    for width in (40, 100):
        buf = io.StringIO()
        render(record, Console(file=buf, width=width, force_terminal=True, color_system=None, highlight=False))
        lines = buf.getvalue().splitlines()
        assert max(Text(line).cell_len for line in lines) <= width
        assert not any(line.lstrip()[:1] in "♠♥♦♣*" for line in lines)  # no line starts inside a card
        if width == 100:
            assert lines[2:4] == ["  seat 0 Alice      team 0   BJ SJ 10♥* 10♣ A♠ A♠ A♦ A♣ Q♦ J♦ J♣ 9♥ 9♦ 9♦ 8♥ 8♣ 7♥ 7♦ 7♣ 5♥",
                                  "        4♠ 4♥ 4♦ 3♣ 2♠ 2♥ 2♦"]
    text, _ = shown(record)  # not a terminal (a file, a pipe): a line per row, whatever the width
    assert all(not line.startswith("        4♠") for line in text.splitlines())


def test_zh_names_cards_acts_and_violations_in_chinese():
    from paipu.replay.io.readers import iter_items

    record = next(item.record for item in iter_items([os.path.join(SAMPLES, "guandan_standard_simulated.jsonl")],
                                                     strict=False) if item.record["actions"][0]["act"] == "tribute")
    text, _ = shown(record, lang="zh")
    assert text.splitlines()[5:7] == ["  0  1 Bob        进贡 大王 → 座位 0", "  1  0 Alice      还贡 2♠ → 座位 1"]
    text, v = shown(ddz(BID_0 + "0 play 4h 3h\n"), lang="zh")
    assert (v.code, v.action) == ("not_in_hand", 3)
    assert text.splitlines()[-3:-1] == ["  3  0 张三         出 4♥ 3♥",
                                        "  !! 违规 not_in_hand（出了手里没有的牌） 第 3 步: 座位 0 手里没有 4♥"]
    text, v = shown(ddz(BID_0 + "0 play 3h\n1 play 4h 4d\n"), lang="zh")
    assert text.splitlines()[-1] == ("  !! 违规 does_not_beat（没有大过上一手） 第 4 步: 4♥ 4♦（对子，2 张，到 4）"
                                     "没有大过上一手（单张，1 张，到 3）")
    text, v = shown(ddz(BID_0 + "0 pass\n"), lang="zh")
    assert text.splitlines()[-1] == "  !! 违规 cannot_pass（此时不能不出） 第 3 步: 座位 0 首出本轮，不能不出"
    text, v = shown(ddz(BID_0 + "1 bid yes\n"), lang="zh")
    assert text.splitlines()[-1] == "  !! 违规 out_of_turn（没轮到该座位） 第 3 步: 座位 1 在出牌阶段叫地主，叫地主已经结束"
    text, v = shown(ddz("1 bid yes\n"), lang="zh")
    assert text.splitlines()[-1] == "  !! 违规 out_of_turn（没轮到该座位） 第 0 步: 座位 1 叫地主，但轮到座位 0 叫"
    text, v = shown(ddz(BID_0 + "0 pass\n"))  # English keeps the engine's words
    assert text.splitlines()[-1] == "  !! VIOLATION cannot_pass at action 3: seat 0 leads this trick and may not pass"


def test_a_long_player_name_is_cut_in_the_terminal_too():
    record = ddz(SPRING)
    record["players"][1] = "长" * 3000
    text, _ = shown(record)
    assert "  4  1 " + "长" * 31 + "… pass" in text.splitlines()
    assert max(len(line) for line in text.splitlines()) < 120


def test_every_kind_of_bomb_is_marked_as_on_the_replayer_page():
    """A straight flush (Guandan) and a three-joker bomb (Shuangkou) get the terminal's 💣 line,
    bold, as a plain bomb does; the page highlights the engine's every bomb event (BOMB_EVENTS)."""
    from paipu.replay.sim import simulate

    [gd] = [r for r in simulate("guandan", hands=11, seed=5) if r["id"] == "guandan-standard-s5-000010"]
    text, _ = shown(gd)
    assert "       💣 straight_flush" in text.splitlines()
    sk = list(simulate("shuangkou", hands=136, seed=5))[135]
    assert sk["id"] == "shuangkou-huopin-s5-000135"
    text, _ = shown(sk, lang="zh")
    assert "       💣 三王炸弹" in text.splitlines()
