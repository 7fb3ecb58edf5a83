"""Dou Dizhu's part of the balance report (``paipu report``): its rates and charts, found
by the report through the game's declaration (``Game.part("report")``, ``Game.report``
chooses which are shown); its words are in :mod:`.words`, its statistics in ``sql/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from paipu.analysis.compare import Figure
from paipu.analysis.inference import mean_interval
from paipu.analysis.report import hbars

if TYPE_CHECKING:
    from paipu.analysis.report import Section

#: the game's own rates (summary and comparisons): (statistic, row filter, successes column, trials column)
METRICS: dict[str, tuple[str, dict[str, str], str, str]] = {
    "landlord_wins": ("landlord_wins", {"breakdown": "all"}, "wins", "hands"),
    "spring": ("spring", {"kind": "spring"}, "k", "hands"),
    "anti_spring": ("spring", {"kind": "anti_spring"}, "k", "hands"),
}

# --- compared on shared deals (paipu compare; issue #25 item 3) ---------------------------
#: the game's own figures of the setting comparisons (``paipu compare``, the report's section):
#: per hand in ``sql/compare.sql``, in the order of the declaration's ``report["figures"]``
FIGURES: dict[str, Figure] = {
    "landlord_wins": Figure("landlord win rate", "地主胜率", "rate"),
    "spring": Figure("spring rate", "春天比例", "rate"),
}


def chart_landlord_wins(s: Section) -> None:
    df = s.stats["landlord_wins"]
    df = df.filter(pl.col("breakdown") == "all") if df.height else df
    if not df.height:
        return
    t = s.t
    rows = s.rate_rows(df, lambda r: t["landlord"])
    caption = s.rates_caption(t["m_landlord_wins"], s.metric("landlord_wins"))
    fig = hbars(rows, s.groups_of(df), [t["landlord"]], ref=0.5, ref_label=t["even"], xlabel=t["wins"])
    s.add("landlord_wins", t["landlord_wins"], fig, caption, df)


def chart_landlord_by_bid(s: Section) -> None:
    df = s.stats["landlord_wins"]
    df = df.filter(pl.col("breakdown") != "all") if df.height else df
    if not df.height:
        return
    t = s.t

    def cat(r: dict[str, Any]) -> str:
        return f"{t['grabs']} {r['level']}" if r["breakdown"] == "grabs" else f"{t['show']}{r['level']}"

    rows = s.rate_rows(df, cat)
    cats = list(dict.fromkeys(r["cat"] for r in rows))
    fig = hbars(rows, s.groups_of(df), cats, ref=0.5, ref_label=t["even"], xlabel=t["wins"])
    caption = ("Landlord win rate for each number of grabs and each show factor; bars with few hands have wide "
               "intervals and are not compared." if s.lang == "en" else
               "按抢地主次数和明牌倍数的地主胜率；局数少的条形区间宽，不作比较。")
    s.add("landlord_by_bid", t["landlord_by_bid"], fig, caption, df)


def chart_multiplier_drivers(s: Section) -> None:
    df = s.stats["multiplier_drivers"]
    if not df.height:
        return
    t = s.t
    names = {"grabs": t["grabs"], "show": t["show"].strip(" ×"), "bombs": t["bombs"], "spring": t["spring_kind"]}
    rows = []
    for r in df.iter_rows(named=True):
        lo, hi = mean_interval(r["mean_multiplier"], r["sd"], r["hands"])
        level = t.get(f"m_{r['level']}", t["none"] if r["level"] == "none" else r["level"])
        rows.append({"cat": f"{names.get(r['driver'], r['driver'])}: {level}", "group": s.gname(r),
                     "value": r["mean_multiplier"], "lo": lo, "hi": hi, "n": r["hands"]})
    cats = list(dict.fromkeys(r["cat"] for r in rows))
    fig = hbars(rows, s.groups_of(df), cats, percent=False, xlabel=t["mean_mult"])
    caption = ("Mean final multiplier at each level of what builds it (grabs, show factor, bombs played, spring), "
               "with 95% intervals of the mean; a level seen in few hands has no error bar."
               if s.lang == "en" else "在各因素（抢地主、明牌、炸弹数、春天）的每个水平下的平均最终倍数，附均值的 95% 区间。")
    s.add("multiplier_drivers", t["multiplier_drivers"], fig, caption, df)


def chart_spring(s: Section) -> None:
    s.measure_chart("spring", "spring", "kind", "", s.t["spring"])
