"""Paodekuai's words for people, in English and Chinese: a hand's (:class:`Words`: the rank
a key stands for, a run's position under the classic rules) and the balance report's
(:data:`REPORT`, what its charts and rates are called; ``paipu report`` adds them to its own).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...cards import RANK_NAMES
from ...words import HandWords, ShownWords
from . import _POSITION_RANK, PaodekuaiRules

if TYPE_CHECKING:
    from ...combos import Combo
    from ...rules import Rules


class Words(HandWords):
    @staticmethod
    def name_key(c: Combo, rules: Rules, level: int | None = None) -> str | None:
        if isinstance(rules, PaodekuaiRules) and rules.ace_low and c.kind in ("straight", "pair_chain"):  # classic: the key is a run position
            return RANK_NAMES[_POSITION_RANK[c.key]]
        return HandWords.name_key(c, rules)


#: the report's words of this game's charts, rates and categories, by language
REPORT: dict[str, dict[str, str]] = {
    "en": {
        "paodekuai_events": "Let-go (放走), paid let-go (包赔) and 喜钱", "m_let_go": "let-go (放走)",
        "m_let_go_paid": "paid let-go (包赔)", "m_xiqian": "hands with 喜钱",
    },
    "zh": {
        "paodekuai_events": "放走、包赔与喜钱", "m_let_go": "放走", "m_let_go_paid": "包赔", "m_xiqian": "有喜钱的牌局",
    },
}


# ---- the views' words (replay/view.py, html.py, review_view.py ask replay.words.shown_of) ----

class Shown(ShownWords):
    """Paodekuai in the views: let-go (放走) and 喜钱."""

    words = {"en": {"let_go": "let-go", "xiqian": "喜钱 bonus"}, "zh": {"let_go": "放走", "xiqian": "喜钱"}}
    result_fields = {"let_go": ("let-go paid by seat", "放走包赔座位"), "escape": ("escaped seat", "逃跑座位")}
    result_lines = ("multiplier", "let_go")
    seat_lines = ("xiqian",)
    highlighted = frozenset({"xiqian"})
    zh_result = {"let_go": "放走", "let_goes": "放走", "xiqian": "喜钱", "xiqian_bombs": "喜钱炸弹"}

    @staticmethod
    def event_text(e: Any, w: Mapping[str, str], name: Callable[[int], str]) -> str | None:
        if e.kind == "let_go":
            return f"{w['let_go']}: {name(e.seat)} → {name(e.data['released'])}"
        if e.kind == "xiqian":
            return f"{w['xiqian']}: {name(e.seat)} +{e.data['received']:,}"
        return None


# --- rule settings in words (how the report names variants and --rule settings) -----------
#: the game's variants in words, English and Chinese (analysis/report_fmt.py collects them
#: through the registry)
VARIANT_WORDS: dict[str, tuple[str, str]] = {"huopin": ("huopin", "火拼"), "classic": ("classic", "经典")}
#: the game's own rule parameters (fields of its Rules, ``--rule NAME=...``) in words,
#: English and Chinese; those several games share are analysis/report_fmt.py's
PARAM_WORDS: dict[str, tuple[str, str]] = {
    "must_play": ("must play", "有出必出"), "let_go": ("let-go pays", "放走包赔"), "xiqian": ("喜钱 bonus", "喜钱"),
    "opening_card": ("opening card", "首出牌"), "opening_card_played": ("opening card must be played", "首出必出该牌"),
    "ace_low": ("A low in straights", "A 可作 1"), "scoring": ("scoring", "计分"),
}

#: the codes of this game's statistics in words (English, Chinese): analysis.report_fmt.value_words
VALUE_WORDS: dict[str, tuple[str, str]] = {
    "let_go": ("let-go", "放走"), "let_go_paid": ("paid let-go", "包赔"), "xiqian": ("喜钱 bomb", "喜钱"),
    "spring": ("spring", "春天"),
}
