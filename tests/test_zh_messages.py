"""Violation messages in Chinese (issue 24 item 10): every message the engine writes, taken from
changed simulated hands of every game and variant and from refused records (tests/zh_corpus.py),
reads in Chinese through replay/view.py's ZH_MESSAGES; English stays the engine's."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from zh_corpus import VARIANTS, _guandan_tribute, corpus

from paipu.replay.games import games
from paipu.replay.view import ZH_MESSAGES, message_words, render

#: every combination kind's Chinese name (the view passes the game's own)
KINDS = {k: v for g in games() for k, v in g.kinds.items()}
#: what may stay in Latin letters: game and variant names as records spell them, JSON's words
ALLOWED = {g.name for g in games()} | {v for _, v in VARIANTS} | {"JSON", "Unicode", "true", "false", "null"}
#: what a record spells and a message quotes as it is: a field's path, a params name, quoted
#: values and lists, the lists of known names
VERBATIM = re.compile(r"字段 \S+?：|params(?:\.\w+)?|'[^']*'|\"[^\"]*\"|\[[^\]]*\]|（可用：[^）]*）|（可选：[^）]*）|以下之一：[^，]*")
#: entries no record reaches (the engine's fallbacks), kept for a message that would need them
UNREACHED = {r"params\.(\w+): cannot be changed", r"deck smaller than the number of seats",
             r'(?:field "(?P<field>[^"]*)": )?a value that JSON cannot hold'}


@pytest.fixture(scope="module")
def messages() -> set[str]:
    return corpus()


def latin_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z_]{3,}", VERBATIM.sub(" ", text)) if w not in ALLOWED]


def test_the_corpus_has_every_kind_of_message(messages):
    codes_seen = " ".join(messages)
    for shape in ("does not beat", "is no combination of", "does not hold", "already paid its tribute",
                  "resisting (抗贡)", "after 双下", "黄金眼", "was not dealt the drawn card", "calling is over",
                  "有出必出", "the first play must contain", "result.", "params.", 'field "', "unknown variant",
                  "was already over", "the actions stop before"):
        assert shape in codes_seen, shape
    assert len(messages) > 500


def test_every_message_reads_in_chinese(messages):
    left = {}
    for message in sorted(messages):
        zh = message_words(message, "zh", KINDS)
        words = latin_words(zh)
        if zh == message or words:
            left[message] = (zh, words)
    assert not left, "\n".join(f"{m!r} -> {zh!r} {words}" for m, (zh, words) in list(left.items())[:20])


def test_every_entry_of_the_table_is_reached(messages):
    reached = {p.pattern for m in messages for p, _ in ZH_MESSAGES if p.fullmatch(m)}
    assert {p.pattern for p, _ in ZH_MESSAGES} - reached == UNREACHED


def test_english_keeps_the_engine_words(messages):
    """English is the engine's message; only the entries that drew cards before this table grew
    (a group named ``cards``) draw them (``Td`` as 10♦)."""
    drawn = {p.pattern for p, _ in ZH_MESSAGES if "cards" in p.groupindex}
    assert drawn == {r"seat (\d+) does not hold (?P<cards>\S+)", r"(?P<cards>.+) \((?P<desc>.+)\) does not beat (?P<desc2>.+)",
                     r"(?P<cards>.+) is no combination of (?P<game>\S+)", r"the first play must contain (?P<cards>\S+)"}
    for message in messages:
        if message_words(message, "en", KINDS) != message:
            assert any(p.fullmatch(message) for p, _ in ZH_MESSAGES if p.pattern in drawn), message
    assert message_words("seat 0 does not hold Td", "en") == "seat 0 does not hold 10♦"
    assert message_words("the deal is not the 108-card deck: too many Td; missing BJ", "en") == \
        "the deal is not the 108-card deck: too many Td; missing BJ"
    assert message_words("4h 4d cannot be the declared pair 3 in guandan/standard", "en", KINDS) == \
        "4h 4d cannot be the declared pair 3 in guandan/standard"


@pytest.mark.parametrize("message, zh", [
    ("seat 2 does not pay tribute this hand (the previous hand makes 1 and 3 pay)",
     "座位 2 这局不进贡（按上一局，由座位 1 和 3 进贡）"),
    ("seats 1 and 3 hold both big jokers: no tribute is paid, the tribute is resisted (抗贡)",
     "座位 1 和 3 有两张大王：不进贡，抗贡"),
    ("seat 3 holds both big jokers: the record says resist (抗贡) before the play",
     "座位 3 有两张大王：记录应在出牌前写明抗贡"),
    ("after 双下 the larger tribute goes to the first place, seat 0", "双下时较大的进贡给头游，即座位 0"),
    ("the card returned is of rank 10 or lower and not a level card; Qh is not",
     "还贡的牌必须是 10 或更小、且不是级牌；Q♥ 不是"),
    ("tribute goes to 0 or 2, not seat 3", "进贡应给座位 0 或 2，不是座位 3"),
    ("the deal is not the 108-card deck: too many Td; missing BJ", "发的牌不是一副 108 张的牌：多了 10♦；少了 大王"),
    ("the deal is not the 54-card deck: missing SJ 3h", "发的牌不是一副 54 张的牌：少了 小王 3♥"),
    ("the first play belongs to seat 2 (the holder of 3h leads), not seat 0", "首出应由座位 2（3♥ 在谁手里谁先出），不是座位 0"),
    ("the first play belongs to seat 1 (the landlord leads the first trick), not seat 0", "首出应由座位 1（地主先出），不是座位 0"),
    ("seat 1 showed during bidding; shows are made before bidding (×5, ×4, ×3) or by the landlord before the first "
     "play (×2)", "座位 1 在叫地主时明牌；明牌只能在叫地主前（×5、×4、×3），或由地主在首出前（×2）"),
    ("seat 0 used 黄金眼 (peek) a 3rd time; at most 2 per hand", "座位 0 第 3 次用黄金眼，每局最多 2 次"),
    ("result.kou: the record says 'double', the replay gives 'flat'", "结果的扣数：记录为 双扣，复盘得出 平扣"),
    ("result.spring: the record says True, the replay gives False", "结果的春天：记录为 true，复盘得出 false"),
    ("the actions stop before the hand is over (12 actions, tribute phase)", "记录在牌局结束前中断（12 步，进贡阶段）"),
    ("'bid' is not an act of Guandan", "叫地主（'bid'）不是 掼蛋 的动作"),
    ("4h 4d cannot be the declared pair 3 in guandan/standard", "4♥ 4♦ 不能当作声明的对子（3）（掼蛋/standard）"),
    ("both copies of 7d were dealt to seats [0, 2]: the record must name the leader",
     "两张 7♦ 分别发给了座位 0、2：记录必须写明首出座位"),
    ('field "deal[2][1]": expected a card like \'3h\', \'Ts\' or \'BJ\', got \'1x\'',
     "字段 deal[2][1]：应为一张牌，如 '3h'、'Ts' 或 'BJ'，实际为 '1x'"),
    ('field "deal": expected one list of cards per seat (3), got \'2 lists\'', "字段 deal：应为每个座位一组牌（3 组），实际为 2 组"),
    ("params.let_go: expected true or false, got 5", "params.let_go：应为 true 或 false，实际为 5"),
    ("params: expected an object of rule names and values, got [1]", "params：应为规则名和值组成的对象，实际为 [1]"),
    ("the match m1 was already over: team 1 won it at level A (过A)", "比赛 m1 已经结束：队 1 已过A"),
    ("levels ['T', '2'] do not follow from the previous hand, which ended at ['5', '2']",
     "两队的级牌 10、2 与上一局的结果 5、2 不符"),
    ("the first hand of a match is played at level 2 with both teams at 2, not level 3 with levels ['2', '3']",
     "比赛的第一局打 2，两队都在 2，不是打 3、两队在 2、3"),
    ("this hand is played at level T, but the team that won the previous hand is at 5", "这局打 10，但上一局赢的队在 5"),
])
def test_messages_in_chinese_exactly(message, zh):
    assert message_words(message, "zh", KINDS) == zh


def test_the_zh_view_shows_a_tribute_violation_in_chinese():
    """``paipu replay --lang zh``: the violation's line is Chinese, the code as format.md names it."""
    previous = {"order": [0, 1, 2, 3], "levels": ["2", "2"]}
    record, _ = _guandan_tribute(previous, [3, 3])
    record["actions"] = [{"seat": 3, "act": "tribute", "card": "BJ", "to": 0}]
    buf = io.StringIO()
    v = render(record, Console(file=buf, width=200, highlight=False), lang="zh")
    assert v is not None and str(v.code) == "bad_tribute"
    assert "!! 违规 bad_tribute" in buf.getvalue()
    # render replays without the previous hand: the givers are the tribute's payers so far
    assert "座位 3 有两张大王：不进贡，抗贡" in buf.getvalue()



def test_the_zh_review_has_no_english_left():
    """``paipu review --lang zh`` and the marks of ``paipu replay --review --lang zh``: every
    word of the review in Chinese (a Dou Dizhu hand with bids and grabs, a Guandan hand with
    a tribute and returns); the hand's id and the game's names stay as the record spells them."""
    import paipu
    from paipu.replay.review import review_hand
    from paipu.replay.review_view import marks, review_lines

    ddz = next(paipu.read_records("sample_logs/doudizhu_handmade.paipu"))
    guandan = list(paipu.read_records("sample_logs/guandan_standard_simulated.jsonl"))[7]
    seen, flagged = set(), 0
    for record, seats in ((ddz, None), (guandan, [2, 3])):
        review = review_hand(record, seats=seats, samples=8, budget_ms=None)
        seen |= {d.kind for d in review.decisions}
        flagged += len(marks(review, "zh"))
        lines = [t.plain for t in review_lines(review, "zh", 40, samples=8, budget_ms=None)]
        assert lines[0].startswith(f"{record['id']} · ")
        text = "\n".join(lines[1:] + list(marks(review, "zh").values()))
        assert not latin_words(text), latin_words(text)
    assert seen >= {"bid", "grab", "play", "pass", "tribute", "return"} and flagged
