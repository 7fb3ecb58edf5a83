"""Shuangkou's words for people, in English and Chinese: a hand's (:class:`Words`: a play
and its stars in messages, the rank a key stands for) and the balance report's
(:data:`REPORT`, what its charts and rates are called; ``paipu report`` adds them to its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...cards import RANK_2, RANK_A, RANK_NAMES
from ...words import HandWords, ShownWords
from . import KINDS, stars_of

if TYPE_CHECKING:
    from ...combos import Combo
    from ...rules import Rules
    from ...table import Table


class Words(HandWords):
    @staticmethod
    def describe(table: Table, readings: tuple[Combo, ...]) -> str:
        c = readings[0]
        return f"{c.kind} {KINDS.get(c.kind, '')} of {c.size}" + (f" ({stars_of(c)} stars)" if c.tier else "")

    @staticmethod
    def name_key(c: Combo, rules: Rules, level: int | None = None) -> str | None:
        if not c.tier:
            return RANK_NAMES[c.key] if c.key <= RANK_2 else "jokers"
        top = (c.key >> 25) & 31  # the first rank code: the biggest bomb's rank
        return RANK_NAMES[{1: RANK_A, 2: RANK_2}.get(top, top - 3)] if top else None


#: the report's words of this game's charts, rates and categories, by language
REPORT: dict[str, dict[str, str]] = {
    "en": {
        "kou": "扣: winning margin", "m_kou_double": "双扣 (double kou)", "double": "双扣 double (×3)",
        "single": "单扣 single (×2)", "flat": "平扣 flat (×1)",
    },
    "zh": {
        "kou": "扣：胜负差距", "m_kou_double": "双扣", "double": "双扣 (×3)", "single": "单扣 (×2)", "flat": "平扣 (×1)",
    },
}


# ---- the views' words (replay/view.py, html.py, review_view.py ask replay.words.shown_of) ----

class Shown(ShownWords):
    """Shuangkou in the views: the kou (扣) of the result, the drawn card that names the leader."""

    result_fields = {"winning_team": ("winning team", "获胜队"), "kou": ("kou (扣)", "扣"),
                     "kou_multiplier": ("kou multiplier", "扣倍数"), "escape": ("escaped seat", "逃跑座位")}
    zh_rules = {"the holder of the drawn card leads": "翻出的牌在谁手里谁先出"}
    zh_result = {"kou": "扣数", "stars": "星数", "winning_team": "赢的队"}
    zh_values = {"'double'": "双扣", "'single'": "单扣", "'flat'": "平扣"}
    zh_messages = (
        (r"both copies of (?P<cards1>\S+) were dealt to seats \[(?P<seats>[\d, ]*)\]: the record must name the leader",
         "两张 {cards1} 分别发给了座位 {seats}：记录必须写明首出座位"),
        (r"the leader, seat (\d+), was not dealt the drawn card (?P<cards1>\S+)", "首出的座位 {0} 没有发到翻出的牌 {cards1}"),
    )


# --- rule settings in words (how the report names variants and --rule settings) -----------
#: the game's variants in words, English and Chinese (analysis/report_fmt.py collects them
#: through the registry)
VARIANT_WORDS: dict[str, tuple[str, str]] = {"huopin": ("huopin", "火拼")}
#: the game's own rule parameters (fields of its Rules, ``--rule NAME=...``) in words,
#: English and Chinese; those several games share are analysis/report_fmt.py's
PARAM_WORDS: dict[str, tuple[str, str]] = {
    "max_bomb": ("largest bomb", "最大炸弹张数"), "chain_min_bombs": ("bombs in a chain", "连炸最少炸弹数"),
    "escape_base_multiple": ("escape penalty", "逃跑罚分"),
}

#: the codes of this game's statistics in words (English, Chinese): analysis.report_fmt.value_words
VALUE_WORDS: dict[str, tuple[str, str]] = {
    "kou": ("kou", "扣"), "stars_per_hand": ("stars a hand", "每局星数"), "double": ("双扣", "双扣"),
    "single": ("单扣", "单扣"), "flat": ("平扣", "平扣"),
}
