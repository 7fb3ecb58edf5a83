"""Dou Dizhu's words for people, in English and Chinese: a hand's (:class:`Words`: a play
in messages) and the balance report's (:data:`REPORT`, what its charts and rates are
called; ``paipu report`` adds them to its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...cards import RANK_NAMES
from ...words import HandWords
from . import KINDS

if TYPE_CHECKING:
    from ...combos import Combo
    from ...table import Table


class Words(HandWords):
    @staticmethod
    def describe(table: Table, readings: tuple[Combo, ...]) -> str:
        c = readings[0]
        return f"{c.kind} {KINDS[c.kind]} of {c.size} to {RANK_NAMES[c.key]}"


#: the report's words of this game's charts, rates and categories, by language
REPORT: dict[str, dict[str, str]] = {
    "en": {
        "landlord_wins": "Landlord win rate", "landlord_by_bid": "Landlord win rate by grabs and show",
        "multiplier_drivers": "What drives the multiplier", "spring": "Spring and anti-spring",
        "m_landlord_wins": "landlord wins", "m_spring": "spring", "m_anti_spring": "anti-spring",
        "even": "50%: landlord and farmers even", "mean_mult": "mean multiplier", "landlord": "landlord",
        "farmer": "farmer", "grabs": "grabs", "show": "show ×", "spring_kind": "spring",
    },
    "zh": {
        "landlord_wins": "地主胜率", "landlord_by_bid": "按抢地主次数与明牌倍数的地主胜率", "multiplier_drivers": "倍数从何而来",
        "spring": "春天与反春", "m_landlord_wins": "地主胜", "m_spring": "春天", "m_anti_spring": "反春", "even": "50%：地主与农民持平",
        "mean_mult": "平均倍数", "landlord": "地主", "farmer": "农民", "grabs": "抢地主次数", "show": "明牌 ×", "spring_kind": "春天",
    },
}


# --- rule settings in words (how the report names variants and --rule settings) -----------
#: the game's variants in words, English and Chinese (analysis/report_fmt.py collects them
#: through the registry)
VARIANT_WORDS: dict[str, tuple[str, str]] = {"huopin": ("huopin", "火拼")}
#: the game's own rule parameters (fields of its Rules, ``--rule NAME=...``) in words,
#: English and Chinese; those several games share are analysis/report_fmt.py's
PARAM_WORDS: dict[str, tuple[str, str]] = {
    "peek_limit": ("peeks per seat", "黄金眼次数"), "escape_threshold": ("escape threshold", "逃跑门槛"),
    "escape_landlord": ("landlord escape penalty", "地主逃跑罚分"),
    "escape_farmer": ("farmer escape penalty", "农民逃跑罚分"),
}
