"""Dou Dizhu's words for people, in English and Chinese: a hand's (:class:`Words`: a play
in messages) and the balance report's (:data:`REPORT`, what its charts and rates are
called; ``paipu report`` adds them to its own).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...cards import RANK_NAMES
from ...words import HandWords, ShownWords
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


# ---- the views' words (replay/view.py, html.py, review_view.py ask replay.words.shown_of) ----

class Shown(ShownWords):
    """Dou Dizhu in the views: the bidding's words (call, grab, show, 黄金眼 peek), the
    landlord who takes the bottom, the spring; the Chinese of its messages."""

    words = {
        "en": {"bid_yes": "calls the landlord", "bid_no": "declines", "grab_yes": "grabs", "grab_no": "does not grab",
               "show": "shows its cards", "peek": "peeks at the bottom", "becomes": "becomes landlord",
               "redeal": "everybody declined: redeal", "spring_kind": "spring / anti-spring", "spring": "spring",
               "anti_spring": "anti-spring"},
        "zh": {"bid_yes": "叫地主", "bid_no": "不叫", "grab_yes": "抢地主", "grab_no": "不抢",
               "show": "明牌", "peek": "黄金眼", "becomes": "成为地主", "redeal": "都不叫：重新发牌",
               "spring_kind": "春天/反春", "spring": "春天", "anti_spring": "反春"},
    }
    declared_role = "landlord"
    end_cause = "spring_kind"
    result_fields = {"multiplier": ("multiplier", "倍数"), "spring_kind": ("spring", "春天"),
                     "escape": ("escaped seat", "逃跑座位")}
    result_lines = ("multiplier", "spring_kind")
    zh_codes = {"bad_bid": "叫抢地主不合规则"}
    zh_acts = {"bid": "叫地主", "grab": "抢地主", "show": "明牌", "peek": "看底牌"}
    zh_phases = {"bidding": "叫地主", "grabbing": "抢地主", "calling": "叫地主"}
    #: the moments of a show
    zh_when = {"during bidding": "在叫地主时", "after the first play": "在首出之后"}
    zh_rules = {"the landlord leads the first trick": "地主先出"}
    zh_result = {"landlord": "地主", "spring": "春天", "spring_kind": "春天/反春", "redeal": "重新发牌",
                 "grabs": "抢地主次数", "show_factor": "明牌倍数"}
    zh_messages = (
        (r"seat (\d+) bid, but it is seat (\d+)'s turn to bid", "座位 {0} 叫地主，但轮到座位 {1} 叫"),
        (r"seat (\d+) grabbed, but it is seat (\d+)'s turn", "座位 {0} 抢地主，但轮到座位 {1}"),
        (r"seat (\d+) bid during (?P<phase>\w+); calling is over", "座位 {0} 在{phase}阶段叫地主，叫地主已经结束"),
        (r"seat (\d+) grabbed during (?P<phase>\w+); there is no grab turn now", "座位 {0} 在{phase}阶段抢地主，现在不能抢"),
        (r"seat (\d+) already showed its cards", "座位 {0} 已经明牌"),
        (r"seat (\d+) used 黄金眼 \(peek\) after bidding; it is only allowed while bidding",
         "座位 {0} 叫地主结束后用了黄金眼，只能在叫地主时用"),
        (r"seat (\d+) used 黄金眼 \(peek\) a (\d+)rd time; at most (\d+) per hand", "座位 {0} 第 {1} 次用黄金眼，每局最多 {2} 次"),
        (r"a show before bidding has factor 5, 4 or 3 \(明牌开始 / 发牌明牌\), not (-?\d+)",
         "叫地主前明牌是 ×5、×4 或 ×3（明牌开始 / 发牌明牌），不是 ×{0}"),
        (r"after the deal only the landlord \(seat (\d+)\) may show, not seat (\d+)",
         "叫完地主后只有地主（座位 {0}）可以明牌，座位 {1} 不能"),
        (r"the landlord's show after taking the bottom has factor 2, not (-?\d+)", "地主拿底牌后明牌是 ×2，不是 ×{0}"),
        (r"seat (\d+) showed (?P<when>during bidding|after the first play); shows are made before bidding "
         r"\(×5, ×4, ×3\) or by the landlord before the first play \(×2\)",
         "座位 {0} {when}明牌；明牌只能在叫地主前（×5、×4、×3），或由地主在首出前（×2）"),
    )

    @staticmethod
    def declarer(table: Table) -> int | None:
        seat: int | None = getattr(table, "landlord", None)
        return seat

    @staticmethod
    def act_text(action: Mapping[str, Any], w: Mapping[str, str], cards: Callable[[object], str]) -> str | None:
        act = action["act"]
        if act == "bid":
            return w["bid_yes"] if action["call"] else w["bid_no"]
        if act == "grab":
            return w["grab_yes"] if action["grab"] else w["grab_no"]
        if act == "show":
            return f"{w['show']} ×{action['factor']}"
        return None

    @staticmethod
    def event_text(e: Any, w: Mapping[str, str], name: Callable[[int], str]) -> str | None:
        return w["redeal"] if e.kind == "redeal" else None


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

#: the codes of this game's statistics in words (English, Chinese): analysis.report_fmt.value_words
VALUE_WORDS: dict[str, tuple[str, str]] = {
    "show": ("show", "明牌"), "grabs": ("grabs", "抢地主"), "spring": ("spring", "春天"),
    "anti_spring": ("anti-spring", "反春"),
}
