"""Guandan's words for people, in English and Chinese: a hand's (:class:`Words`: a play in
messages, the rank a key stands for at the hand's level, the level) and the balance
report's (:data:`REPORT`, what its charts and rates are called; ``paipu report`` adds them
to its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...cards import RANK_2, RANK_NAMES
from ...words import HandWords
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


# --- rule settings in words (how the report names variants and --rule settings) -----------
#: the game's variants in words, English and Chinese (analysis/report_fmt.py collects them
#: through the registry)
VARIANT_WORDS: dict[str, tuple[str, str]] = {"standard": ("standard", "标准"), "no_tribute": ("no tribute", "不进贡")}
#: the game's own rule parameters (fields of its Rules, ``--rule NAME=...``) in words,
#: English and Chinese; those several games share are analysis/report_fmt.py's
PARAM_WORDS: dict[str, tuple[str, str]] = {"tribute": ("tribute", "进贡"), "double_bomb_size": ("bomb size that doubles", "翻倍炸弹张数")}
