"""Guandan's words for people, in English and Chinese: a hand's (:class:`Words`: a play in
messages, the rank a key stands for at the hand's level, the level) and the balance
report's (:data:`REPORT`, what its charts and rates are called; ``paipu report`` adds them
to its own).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...cards import RANK_2, RANK_NAMES
from ...words import HandWords, ShownWords
from . import KINDS, POSITION_RANK, level_name

if TYPE_CHECKING:
    from ...combos import Combo
    from ...rules import Rules
    from ...table import Table


class Words(HandWords):
    @staticmethod
    def describe(table: Table, readings: tuple[Combo, ...]) -> str:
        c = readings[0]
        return f"{c.kind} {KINDS.get(c.kind, '')} of {c.size}"

    @staticmethod
    def name_key(c: Combo, rules: Rules, level: int | None = None) -> str | None:
        if c.kind in ("straight", "straight_flush", "pair_chain", "plate"):
            return RANK_NAMES[POSITION_RANK[c.key]]
        if c.kind == "joker_bomb":
            return "jokers"
        return (["2"] + RANK_NAMES[:12] + [level_name(RANK_2 if level is None else level), "SJ", "BJ"])[c.key]

    @staticmethod
    def level_text(table: Table) -> str | None:
        level: int | None = getattr(table, "level", None)  # (every Guandan hand has one)
        return None if level is None else level_name(level)


#: the report's words of this game's charts, rates and categories, by language
REPORT: dict[str, dict[str, str]] = {
    "en": {
        "double_down": "双下 double-down rate", "upgrade": "Levels the winning team goes up",
        "tribute": "Tribute (进贡): single, double after 双下, resisted", "m_tribute_single": "single tribute",
        "m_tribute_double": "double tribute (after 双下)", "m_tribute_resisted": "resisted (抗贡)",
        "m_tribute_none": "no tribute", "m_double_down": "双下 double down",
    },
    "zh": {
        "double_down": "双下比例", "upgrade": "获胜队升级数", "tribute": "进贡：单贡、双下后的双贡、抗贡", "m_tribute_single": "单贡",
        "m_tribute_double": "双贡（双下后）", "m_tribute_resisted": "抗贡", "m_tribute_none": "不进贡", "m_double_down": "双下",
    },
}


# ---- the views' words (replay/view.py, html.py, review_view.py ask replay.words.shown_of) ----

class Shown(ShownWords):
    """Guandan in the views: the tribute (进贡, 还贡, 抗贡), the teams' levels and the match;
    the Chinese of its messages."""

    words = {"en": {"tribute": "pays tribute", "return": "returns", "resist": "resists tribute"},
             "zh": {"tribute": "进贡", "return": "还贡", "resist": "抗贡"}}
    result_fields = {"multiplier": ("multiplier", "倍数"), "winning_team": ("winning team", "获胜队"),
                     "double_down": ("double down (双下)", "双下"), "upgrade": ("levels up", "升级"),
                     "levels_after": ("levels after", "之后级数")}
    zh_codes = {"bad_tribute": "进贡或还贡不合规则"}

    @staticmethod
    def act_text(action: Mapping[str, Any], w: Mapping[str, str], cards: Callable[[object], str]) -> str | None:
        act = action["act"]
        if act in ("tribute", "return"):
            return f"{w[act]} {cards(action.get('card'))} → {w['seat']} {action.get('to')}"
        return None

    zh_acts = {"tribute": "进贡", "return": "还贡", "resist": "抗贡"}
    zh_phases = {"tribute": "进贡"}
    zh_rules = {"the recorded leader, the seat that gave the larger tribute, or the previous first place":
                "记录的首出座位、进贡较大的座位或上一局的头游"}
    zh_result = {"levels": "级牌", "levels_after": "之后的级牌", "level": "级牌", "upgrade": "升级", "winning_team": "赢的队",
                 "double_down": "双下", "match_over": "比赛结束"}
    zh_messages = (
        (r"seat (\d+) already paid its tribute", "座位 {0} 已经进贡过"),
        (r"seat (\d+) already returned a card to seat (\d+)", "座位 {0} 已经还贡给座位 {1}"),
        (r"seat (\d+) gave to seat (\d+), its own team", "座位 {0} 进贡给了本队的座位 {1}"),
        (r"seat (\d+) returns a card to seat (\d+), which paid it no tribute", "座位 {0} 还贡给座位 {1}，但座位 {1} 没有向它进贡"),
        (r"seat (\d+) already received a tribute", "座位 {0} 已经收到进贡"),
        (r"(?P<game>\S+) has no tribute", "{game} 没有进贡"),
        (r"(?P<what>\w+) after the play began", "出牌开始后又有{what}"),
        (r"seat (\d+) does not pay tribute this hand \(the previous hand makes (?P<seats>[\d and]+) pay\)",
         "座位 {0} 这局不进贡（按上一局，由座位 {seats} 进贡）"),
        (r"the tribute was resisted \(抗贡\) already", "已经抗贡了"),
        (r"resisting \(抗贡\) after a tribute was paid", "已经进贡后又抗贡"),
        (r"resisting \(抗贡\) needs both big jokers in the givers' hands", "抗贡需要进贡方手里有两张大王"),
        (r"a tribute after the tribute was resisted \(抗贡\)", "已经抗贡后又进贡"),
        (r"(?P<givers>seats? [\d and]+ holds?) both big jokers: no tribute is paid, the tribute is resisted \(抗贡\)",
         "{givers}两张大王：不进贡，抗贡"),
        (r"(?P<givers>seats? [\d and]+ holds?) both big jokers: the record says resist \(抗贡\) before the play",
         "{givers}两张大王：记录应在出牌前写明抗贡"),
        (r"tribute goes to (?P<seats>[\d or]+), not seat (\d+)", "进贡应给座位 {seats}，不是座位 {1}"),
        (r"a tribute is the giver's highest card \(never a wild heart\); (?P<cards1>\S+) is not",
         "进贡必须是进贡者最大的牌（不能是逢人配）；{cards1} 不是"),
        (r"the card returned is of rank 10 or lower and not a level card; (?P<cards1>\S+) is not",
         "还贡的牌必须是 10 或更小、且不是级牌；{cards1} 不是"),
        (r"the play began before seat\(s\) (?P<seats>[\d and]+) paid tribute", "座位 {seats} 进贡之前就开始出牌了"),
        (r"(\d+) tributes but (\d+) returns", "进贡 {0} 次，但还贡 {1} 次"),
        (r"after 双下 the larger tribute goes to the first place, seat (\d+)", "双下时较大的进贡给头游，即座位 {0}"),
        (r"the match (.+) was already over: team (\d+) won it at level A \(过A\)", "比赛 {0} 已经结束：队 {1} 已过A"),
        (r"the first hand of a match is played at level 2 with both teams at 2, not level (?P<rank>\S+) with levels (?P<levels>.+)",
         "比赛的第一局打 2，两队都在 2，不是打 {rank}、两队在 {levels}"),
        (r"levels (?P<levels>.+) do not follow from the previous hand, which ended at (?P<levels2>.+)",
         "两队的级牌 {levels} 与上一局的结果 {levels2} 不符"),
        (r"this hand is played at level (?P<rank>\S+), but the team that won the previous hand is at (?P<rank2>\S+)",
         "这局打 {rank}，但上一局赢的队在 {rank2}"),
    )


# --- rule settings in words (how the report names variants and --rule settings) -----------
#: the game's variants in words, English and Chinese (analysis/report_fmt.py collects them
#: through the registry)
VARIANT_WORDS: dict[str, tuple[str, str]] = {"standard": ("standard", "标准"), "no_tribute": ("no tribute", "不进贡")}
#: the game's own rule parameters (fields of its Rules, ``--rule NAME=...``) in words,
#: English and Chinese; those several games share are analysis/report_fmt.py's
PARAM_WORDS: dict[str, tuple[str, str]] = {"tribute": ("tribute", "进贡"), "double_bomb_size": ("bomb size that doubles", "翻倍炸弹张数")}

#: the codes of this game's statistics in words (English, Chinese): analysis.report_fmt.value_words
VALUE_WORDS: dict[str, tuple[str, str]] = {
    "double_down": ("double down", "双下"), "level_played": ("level played", "打到的级"),
    "tribute": ("tribute", "进贡"), "upgrade": ("levels gained", "升级"), "double": ("double tribute", "双贡"),
    "single": ("single tribute", "单贡"), "none": ("no tribute", "不进贡"), "resisted": ("resisted", "抗贡"),
}
