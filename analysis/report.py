"""``paipu report``: the designers' HTML balance report, one self-contained page.

It opens with a summary (per game, the few rates that matter, each with its 95% interval
and sample size) and a table of contents; then a section per game with the charts its
designers ask for (each game's declaration chooses them: ``Game.report``), every rate with
its error bar and n, a caption that names a winner only when the difference is
significant after Holm's correction, and the table behind each chart. Charts are inline
SVG with text kept as text, so that the browser's fonts draw Chinese. Variant and setting
comparisons show each difference with its interval. Players and fraud suspects get a
section when the dataset has those tables. The page is Jinja2 templates
(``analysis/templates/``: ``report.html``, its fragments in ``parts.html``) that HTML-escape
every value, all text from the data included.
"""

from __future__ import annotations

import io
import logging
import math
import os
import textwrap
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple
from urllib.parse import quote

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402
from markupsafe import Markup  # noqa: E402

from paipu.replay.games import UnknownGame, find_game  # noqa: E402

from paipu.replay.fmt import clip, p_value, rate_columns  # noqa: E402
from .inference import holm, newcombe_diff, prop_p, two_prop_p, wilson  # noqa: E402
from .queries import STATS, all_stats, optional_table  # noqa: E402
from .report_fmt import (VALUE_COLUMNS, group_words, interval, num, pct, pp, pval, setting_words,  # noqa: E402
                         value_words, variant_words)

plt.rcParams.update({
    "svg.fonttype": "none", "svg.hashsalt": "paipu", "text.parse_math": False, "font.size": 9,
    "font.family": "sans-serif",
    "font.sans-serif": ["Noto Sans CJK SC", "WenQuanYi Micro Hei", "Source Han Sans SC", "PingFang SC",
                        "Microsoft YaHei", "DejaVu Sans"],
})
logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
ALPHA = 0.05

#: what a game's section shows when its declaration names nothing (``Game.report``: the rates
#: of the summary and of the setting comparisons, and the charts, in order)
DEFAULT_REPORT = {"metrics": ("first_lead", "bomb_hands", "escape"),
                  "charts": ("seat_advantage", "first_lead", "bomb_hands", "bombs_by_kind", "coins_tail", "ends",
                             "compare")}
#: columns of p- and q-values (shown as p-values are everywhere: 0.032, < 0.0001)
P_COLUMNS = frozenset({"p", "p_holm", "q", "p_value"})


@dataclass(frozen=True)
class GamePart:
    """What a game adds to the report, from its own package (its declaration finds them,
    :meth:`paipu.replay.game.Game.part`): the rates and charts it shows (``Game.report``),
    its rates (``report.METRICS``), its charts (``report.chart_KEY(section)``) and its words
    (``words.REPORT``). An unknown game, or one without those modules, shows the defaults."""

    decl: dict[str, tuple[str, ...]]
    metrics: dict[str, tuple[str, dict, str, str]]
    charts: object | None
    words: dict[str, dict[str, str]]

    @classmethod
    def of(cls, game: str) -> GamePart:
        try:
            g = find_game(game)
        except UnknownGame:
            return cls({key: DEFAULT_REPORT[key] for key in DEFAULT_REPORT}, {}, None, {})
        report, words = g.part("report"), g.part("words")
        decl = {key: tuple(g.report.get(key) or DEFAULT_REPORT[key]) for key in DEFAULT_REPORT}
        return cls(decl, dict(getattr(report, "METRICS", {})), report, dict(getattr(words, "REPORT", {})))


#: a rate of every game: (statistic, row filter, successes column, trials column); a game's
#: own are in its package (``report.METRICS``)
METRICS: dict[str, tuple[str, dict, str, str]] = {
    "bomb_hands": ("bombs", {}, "hands_with_bomb", "hands"),
    "first_lead": ("first_lead", {}, "wins", "hands"),
    "redeal": ("ends", {"event": "redeal"}, "k", "hands"),
    "escape": ("ends", {"event": "escape"}, "k", "hands"),
}

TEXT = {
    "en": {
        "title": "paipu balance report", "summary": "Summary", "contents": "Contents", "dataset": "Dataset",
        "method": "Rates come with their sample size n and a 95% Wilson interval (error bars). A caption names a "
                  "winner only when the difference is significant at 5% after Holm's correction for the tests in "
                  "that chart. Violating hands are counted in the overview and left out of every statistic; "
                  "re-dealt and escaped hands are shown as rates.",
        "overview": "Hands", "violations": "Violations", "table": "table", "no_hands": "No audited hands.",
        "n": "n", "ci": "95% CI", "hands": "hands",
        "summary_note": "Each cell: the rate, its 95% interval and the number of hands it is a share of.", "players": "Players", "suspects": "Fraud suspects",
        "most_active": "The most active players (wins = first out).",
        "suspects_note": "From 'paipu fraud': each suspect with its evidence; hand ids open the hand's replay.",
        "no_pages": "{n} of the hands have no page in {folder} and are not linked ('paipu replay DATASET --hands "
                    "ID,... --html {folder}' writes them).",
        "no_diff": "no significant difference", "sig": "significant after Holm's correction",
        "compared": "Variants and rule settings compared", "ref": "reference",
        "multiplier_tail": "Multiplier tail", "coins_tail": "Coins and points per hand: the tail",
        "bomb_hands": "Hands with a bomb",
        "bombs_by_kind": "Bombs per hand by kind", "bombs_by_seat": "Who bombs: share of hands a seat bombs",
        "ends": "Re-deals and escapes",
        "seat_advantage": "Seat advantage: who goes out first", "first_lead": "Does leading first win?",
        "compare": "Differences between variants and settings",
        # metric names
        "m_bomb_hands": "hands with a bomb", "m_first_lead": "first leader wins", "m_redeal": "re-dealt",
        "m_escape": "escaped",
        # words in charts
        "share": "share of hands", "per_hand": "per hand", "first_leader": "the first leader", "wins": "win rate",
        "seat": "seat",
        "fair": "fair share", "at_least": "share of hands at this multiplier or more",
        "coins": "coins moved", "points": "points moved", "bombs": "bombs", "none": "none",
        "difference": "difference from the reference (percentage points)",
        "median": "median", "p90": "90th percentile", "p99": "99th percentile", "max": "largest",
    },
    "zh": {
        "title": "paipu 平衡性报告", "summary": "摘要", "contents": "目录", "dataset": "数据集",
        "method": "每个比率都附样本量 n 与 95% Wilson 置信区间（误差线）。只有在对该图内的检验做 Holm 校正后仍在 5% 水平显著时，"
                  "说明文字才会指出谁更高。违规的牌局只计入概览，不进入任何统计；重新发牌和逃跑以比率显示。",
        "overview": "牌局", "violations": "违规", "table": "数据表", "no_hands": "没有已审计的牌局。",
        "n": "n", "ci": "95% 置信区间", "hands": "局",
        "summary_note": "每格：比率、95% 置信区间，以及作为分母的牌局数。", "players": "玩家", "suspects": "作弊嫌疑",
        "most_active": "最活跃的玩家（胜 = 第一个出完）。",
        "suspects_note": "来自 'paipu fraud'：每个嫌疑及其证据；点击牌局编号打开该局回放。",
        "no_pages": "其中 {n} 局在 {folder} 中没有回放页面，未加链接（用 'paipu replay 数据集 --hands 编号,... --html {folder}' 生成）。",
        "no_diff": "无显著差异", "sig": "经 Holm 校正后显著",
        "compared": "比较的玩法与规则设置", "ref": "参照",
        "multiplier_tail": "倍数的尾部", "coins_tail": "每局输赢的游戏币与分数：尾部", "bomb_hands": "出过炸弹的牌局",
        "bombs_by_kind": "按种类的每局炸弹数", "bombs_by_seat": "谁出炸弹：各座位出炸弹的牌局比例",
        "ends": "重新发牌与逃跑",
        "seat_advantage": "座位优势：谁先出完", "first_lead": "首出者更容易赢吗？",
        "compare": "玩法与规则设置之间的差异",
        "m_bomb_hands": "有炸弹的牌局", "m_first_lead": "首出者胜", "m_redeal": "重新发牌", "m_escape": "逃跑",
        "share": "牌局比例", "per_hand": "每局", "first_leader": "首出者", "wins": "胜率", "seat": "座位",
        "fair": "公平比例", "at_least": "倍数不低于此值的牌局比例",
        "coins": "输赢游戏币", "points": "输赢分数", "bombs": "炸弹数", "none": "无",
        "difference": "与参照之差（百分点）",
        "median": "中位数", "p90": "第 90 百分位", "p99": "第 99 百分位", "max": "最大",
    },
}

#: column names of the tables in words
COLUMN_WORDS = {
    "variant": ("variant", "玩法"), "setting": ("setting", "规则设置"), "hands": ("hands", "局数"),
    "legal": ("legal", "合法"), "violating": ("violating", "违规"), "code": ("code", "违规代码"),
    "rate": ("rate", "比率"), "lo": ("95% low", "95% 下限"), "hi": ("95% high", "95% 上限"), "k": ("count", "次数"),
    "wins": ("wins", "胜"), "seat": ("seat", "座位"), "role": ("role", "角色"), "kind": ("kind", "种类"),
    "size": ("cards", "张数"), "bombs": ("bombs", "炸弹"), "per_hand": ("per hand", "每局"), "share": ("share", "比例"),
    "multiplier": ("multiplier", "倍数"), "player": ("player", "玩家"), "points": ("points", "分数"),
    "coins": ("coins", "游戏币"), "event": ("event", "事件"), "measure": ("measure", "指标"), "level": ("level", "级别"),
    "mean": ("mean", "平均"), "p50": ("median", "中位数"), "p90": ("90th pct", "第 90 百分位"),
    "p99": ("99th pct", "第 99 百分位"), "max": ("max", "最大"), "total": ("of", "总数"),
    "bombs_per_hand": ("bombs per hand", "每局炸弹"), "hands_with_bomb": ("hands with a bomb", "有炸弹的局"),
    "mean_multiplier": ("mean multiplier", "平均倍数"), "sd": ("sd", "标准差"), "driver": ("driver", "因素"),
    "breakdown": ("by", "按"), "difference": ("difference", "差"), "p_holm": ("p (Holm)", "p（Holm）"),
    "metric": ("rate", "比率"), "group": ("variant / setting", "玩法 / 规则"), "game": ("game", "游戏"),
}
HIDDEN_COLUMNS = frozenset({"game"})


@dataclass
class Finding:
    text: str
    rate: float
    lo: float
    hi: float
    n: int


@dataclass
class Difference:
    """A rate of a variant or setting against the same rate of the reference (chart_compare)."""

    metric: str
    group: str
    k: float
    hands: int
    difference: float
    lo: float
    hi: float
    p: float
    p_holm: float = math.nan  # set once every difference of the chart is tested


@dataclass
class Chart:
    key: str
    title: str
    svg: Markup
    caption: str
    table: pl.DataFrame


def wrap(label: str, width: int = 26) -> str:
    return "\n".join(textwrap.wrap(str(label), width)) or str(label)


def svg_of(fig, title: str) -> Markup:
    buf = io.StringIO()
    with warnings.catch_warnings():
        # text stays text in the SVG (svg.fonttype none): the browser's fonts draw the glyphs matplotlib lacks
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # matplotlib's XML writer escapes the chart's text
    return Markup('<svg role="img" aria-label="{}" ').format(title) + Markup(text.removeprefix("<svg "))


class PercentTicks(matplotlib.ticker.Formatter):
    """Rates on an axis in per cent, every tick with the same decimals: the fewest that show
    each tick exactly (``0%, 20%, 40%``; ``0.1%, 1.0%, 10.0%`` on a log axis), at most two."""

    def format_ticks(self, values) -> list[str]:
        lo, hi = sorted(self.axis.get_view_interval()) if self.axis is not None else (-math.inf, math.inf)
        decimals = self._decimals([t for t in values if t > 0 and lo - 1e-12 <= t <= hi + 1e-12])
        return [f"{100 * x:.{decimals}f}%" for x in values]

    def __call__(self, x: float, pos: int | None = None) -> str:
        return f"{100 * x:.{self._decimals([x])}f}%"

    @staticmethod
    def _decimals(ticks: list[float]) -> int:
        decimals = 0
        while decimals < 2 and any(abs(round(100 * t, decimals) - 100 * t) > 1e-9 for t in ticks):
            decimals += 1
        return decimals


def hbars(rows: list[dict], groups: list[str], cats: list[str], *, percent: bool = True, ref: float | None = None,
          xlabel: str = "", ref_label: str = "", log: bool = False, value_fmt: Callable | None = None,
          points: bool = False):
    """Horizontal grouped bars: one row per category, one bar per group, error bars lo–hi, value and n beside.

    *rows*: dicts with cat, group, value, lo, hi (None: no error bar), n.
    """
    per_cat = max(1, len(groups))
    height = max(1.2, 0.28 * len(cats) * per_cat + 0.9 + (0.3 if len(groups) > 1 else 0))
    fig, ax = plt.subplots(figsize=(7.2, height))
    bar = 0.8 / per_cat
    fmt = value_fmt or (pct if percent else num)
    index = {(r["cat"], r["group"]): r for r in rows}
    top = 0.0
    for g_i, group in enumerate(groups):
        ys, xs, los, his, labels = [], [], [], [], []
        for c_i, cat in enumerate(cats):
            r = index.get((cat, group))
            if r is None or r["value"] is None:
                continue
            y = c_i + (g_i - (per_cat - 1) / 2) * bar
            v = r["value"]
            lo = v if r.get("lo") is None or math.isnan(r["lo"]) else r["lo"]
            hi = v if r.get("hi") is None or math.isnan(r["hi"]) else r["hi"]
            ys.append(y)
            xs.append(v)
            los.append(max(0.0, v - lo))
            his.append(max(0.0, hi - v))
            top = max(top, hi, v)
            labels.append(f"{fmt(v)}  n={num(r['n'])}" if r.get("n") is not None else fmt(v))
        color = COLORS[g_i % len(COLORS)]
        if points:
            ax.errorbar(xs, ys, xerr=[los, his], fmt="o", color=color, capsize=3, label=group)
        else:
            ax.barh(ys, xs, bar * 0.9, xerr=[los, his], capsize=2, color=color, label=group,
                    error_kw={"elinewidth": .8, "ecolor": "#333"})
        for y, x, h, text in zip(ys, xs, his, labels):
            # right of the error bar's end (and of the axis at 100%: drawn outside it, never over a bar)
            ax.annotate(text, (x + h, y), xytext=(5, 0), textcoords="offset points", va="center", fontsize=7,
                        annotation_clip=False)
    ax.set_yticks(range(len(cats)), [wrap(c) for c in cats])
    ax.invert_yaxis()
    if ref is not None:
        ax.axvline(ref, color="k", lw=.7, ls="--", label=ref_label or None)
    if log:
        ax.set_xscale("log")
        if percent:
            ax.set_xlim(right=1.0)
    elif not points:
        # room for the labels right of the bars; a rate's axis ends at 100% (labels beyond it are drawn outside)
        right = (top or 1) * 1.35
        ax.set_xlim(0, min(right, 1.0) if percent else right)
    if percent and value_fmt is None:
        ax.xaxis.set_major_formatter(PercentTicks())
    else:
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: fmt(v)))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=.3)
    ax.spines[["top", "right"]].set_visible(False)
    if len(groups) > 1 or ref_label:
        ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(3, len(groups) + 1),
                  frameon=False)
    return fig


class Section:
    """One game's part of the report."""

    def __init__(self, game: str, stats: dict[str, pl.DataFrame], lang: str):
        self.game, self.lang = game, lang
        self.part = part = GamePart.of(game)
        self.t = TEXT[lang] | part.words.get(lang, {})
        self.metrics = METRICS | part.metrics
        self.stats = {k: (df.filter(pl.col("game") == game) if "game" in df.columns and df.height else df)
                      for k, df in stats.items()}
        for name in STATS:
            self.stats.setdefault(name, pl.DataFrame())  # statistics of games not registered here
        self.decl = part.decl
        self.charts: list[Chart] = []

    # ------------------------------------------------------------------ helpers

    def gname(self, row: dict) -> str:
        return group_words(row["variant"], row.get("setting") or "", self.lang)

    def groups_of(self, df: pl.DataFrame) -> list[str]:
        seen = []
        for r in df.iter_rows(named=True):
            g = self.gname(r)
            if g not in seen:
                seen.append(g)
        return seen

    def n_seats(self) -> int:
        seats = self.stats["seat_advantage"]
        return seats["seat"].n_unique() if seats.height else 0

    def rate_rows(self, df: pl.DataFrame, cat: Callable[[dict], str], value="rate", n="hands") -> list[dict]:
        return [{"cat": cat(r), "group": self.gname(r), "value": r[value], "lo": r.get("lo"), "hi": r.get("hi"),
                 "n": r[n]} for r in df.iter_rows(named=True)]

    def finding(self, label: str, group: str, k: float, n: int, many: bool) -> Finding:
        lo, hi = wilson(k, n)
        text = f"{label} ({group})" if many else label
        return Finding(text, k / n, lo, hi, n)

    def metric(self, key: str) -> list[tuple[str, float, int]]:
        """(group, successes, trials) of a METRICS rate, per group with hands."""
        stat, where, k, n = self.metrics[key]
        df = self.stats.get(stat)
        if df is None or not df.height:
            return []
        for col, value in where.items():
            df = df.filter(pl.col(col) == value)
        return [(self.gname(r), r[k], r[n]) for r in df.iter_rows(named=True) if r[n]]

    def add(self, key: str, title: str, fig, caption: str, table: pl.DataFrame) -> None:
        self.charts.append(Chart(key, title, svg_of(fig, title), caption, table))

    def fair_caption(self, tests: list[tuple[str, str, float, int, float]], what: str, fair: float) -> str:
        """Caption for rates tested against a fair share: names only what is significant after Holm.

        *tests*: (who, group, k, n, p0)."""
        t = self.t
        if not tests:
            return ""
        adjusted = holm([prop_p(k, n, p0) for _, _, k, n, p0 in tests])
        sig = [(who, g, k, n, p0, p) for (who, g, k, n, p0), p in zip(tests, adjusted) if p < ALPHA]
        many = len({g for _, g, *_ in tests}) > 1
        if not sig:
            return (f"{what}: {t['no_diff']} from the fair {pct(fair)} (binomial tests, Holm-corrected)."
                    if self.lang == "en" else f"{what}：与公平比例 {pct(fair)} {t['no_diff']}（Holm 校正）。")
        bits = []
        for who, g, k, n, p0, p in sig:
            lo, hi = wilson(k, n)
            where = f" ({g})" if many else ""
            more = ("more" if k / n > p0 else "less") if self.lang == "en" else ("高于" if k / n > p0 else "低于")
            if self.lang == "en":
                bits.append(f"{who}{where} wins {more} often than the fair {pct(p0)}: {pct(k / n)} "
                            f"(95% CI {interval(lo, hi)}, n = {num(n)}, Holm {pval(p)})")
            else:
                bits.append(f"{who}{where} 胜率 {pct(k / n)}，{more}公平比例 {pct(p0)}（95% 置信区间 {interval(lo, hi)}，"
                            f"n = {num(n)}，Holm {pval(p)}）")
        return ("; ".join(bits) + f" — {t['sig']}.") if self.lang == "en" else "；".join(bits) + f"，{t['sig']}。"

    def rates_caption(self, label: str, entries: list[tuple[str, float, int]]) -> str:
        many = len(entries) > 1
        findings = [self.finding(label, g, k, n, many) for g, k, n in entries]
        ci = self.t["ci"]
        text = "; ".join(f"{f.text}: {pct(f.rate)} ({ci} {interval(f.lo, f.hi)}, n = {num(f.n)})" for f in findings)
        return text + ("." if self.lang == "en" else "。")

    # ------------------------------------------------------------------ charts

    def chart_seat_advantage(self) -> None:
        df = self.stats["seat_advantage"]
        if not df.height:
            return
        t, n_seats = self.t, self.n_seats()
        fair = 1 / n_seats
        rows = self.rate_rows(df, lambda r: f"{t['seat']} {r['seat']}")
        cats = [f"{t['seat']} {s}" for s in sorted(df["seat"].unique().to_list())]
        groups = self.groups_of(df)
        tests = [(f"{t['seat']} {r['seat']}", self.gname(r), r["wins"], r["hands"], fair) for r in df.iter_rows(named=True)]
        fig = hbars(rows, groups, cats, ref=fair, ref_label=t["fair"], xlabel=t["wins"])
        self.add("seat_advantage", t["seat_advantage"], fig, self.fair_caption(tests, t["seat_advantage"], fair), df)

    def chart_first_lead(self) -> None:
        df = self.stats["first_lead"]
        n_seats = self.n_seats()
        if not df.height or not n_seats:
            return
        t = self.t
        fair = 1 / n_seats
        rows = self.rate_rows(df, lambda r: t["m_first_lead"])
        tests = [(t["first_leader"], self.gname(r), r["wins"], r["hands"], fair) for r in df.iter_rows(named=True)]
        fig = hbars(rows, self.groups_of(df), [t["m_first_lead"]], ref=fair, ref_label=t["fair"], xlabel=t["wins"])
        self.add("first_lead", t["first_lead"], fig, self.fair_caption(tests, t["m_first_lead"], fair), df)

    def chart_multiplier_tail(self) -> None:
        df = self.stats["multiplier"]
        if not df.height or df["multiplier"].n_unique() < 2:
            return
        t = self.t
        rows, tail_rows = [], []
        for g in self.groups_of(df):
            part = df.filter(pl.struct(["variant", "setting"]).map_elements(
                lambda s: self.gname(s) == g, return_dtype=pl.Boolean))  # noqa: B023 - run here.sort("multiplier")
            total = part["total"][0]
            counts = part["hands"].to_list()
            mults = part["multiplier"].to_list()
            for i, m in enumerate(mults):
                k = sum(counts[i:])
                lo, hi = wilson(k, total)
                rows.append({"cat": f"×{num(m)}", "group": g, "value": k / total, "lo": lo, "hi": hi, "n": total})
                tail_rows.append((g, m, k, total))
        cats = [f"×{num(m)}" for m in sorted(df["multiplier"].unique().to_list())]
        fig = hbars(rows, self.groups_of(df), cats, xlabel=t["at_least"], log=True)
        bits = []
        for g in self.groups_of(df):
            mine = [(m, k, n) for gg, m, k, n in tail_rows if gg == g]
            big = [x for x in mine if x[1] / x[2] <= 0.1]
            if big:
                m, k, n = big[0]
                bits.append((f"{g}: " if len(self.groups_of(df)) > 1 else "")
                            + (f"{pct(k / n)} of decided hands reach ×{num(m)} or more (n = {num(n)})" if self.lang == "en"
                               else f"{pct(k / n)} 的牌局倍数达到 ×{num(m)} 或更高（n = {num(n)}）"))
        caption = ("; ".join(bits) + ". " if bits else "") + (
            "Each bar: the share of hands whose final multiplier is at least that value (log scale)."
            if self.lang == "en" else "每个条形：最终倍数不低于该值的牌局比例（对数刻度）。")
        self.add("multiplier_tail", t["multiplier_tail"], fig, caption, df)

    def chart_coins_tail(self) -> None:
        df = self.stats["coins_tail"]
        if not df.height:
            return
        t = self.t
        measure = "coins" if df.filter(pl.col("measure") == "coins").height else "points"
        df = df.filter(pl.col("measure") == measure)
        rows = []
        for r in df.iter_rows(named=True):
            for q in ("p50", "p90", "p99", "max"):
                rows.append({"cat": t["median"] if q == "p50" else t[q], "group": self.gname(r), "value": r[q],
                             "lo": None, "hi": None, "n": r["hands"]})
        cats = [t["median"], t["p90"], t["p99"], t["max"]]
        positive = [r for r in rows if r["value"] and r["value"] > 0]
        fig = hbars(positive, self.groups_of(df), cats, percent=False, xlabel=t[measure], log=True)
        bits = [(f"{self.gname(r)}: " if df.height > 1 else "")
                + (f"median {num(r['p50'])}, 99th percentile {num(r['p99'])}, largest {num(r['max'])} {t[measure]} per "
                   f"hand (n = {num(r['hands'])})" if self.lang == "en" else
                   f"每局{t[measure]}中位数 {num(r['p50'])}，第 99 百分位 {num(r['p99'])}，最大 {num(r['max'])}（n = {num(r['hands'])}）")
                for r in df.iter_rows(named=True)]
        self.add("coins_tail", t["coins_tail"], fig, "; ".join(bits) + ("." if self.lang == "en" else "。"), df)

    def chart_bomb_hands(self) -> None:
        df = self.stats["bombs"]
        if not df.height:
            return
        t = self.t
        rows = self.rate_rows(df, lambda r: t["m_bomb_hands"])
        caption = self.rates_caption(t["m_bomb_hands"], self.metric("bomb_hands"))
        fig = hbars(rows, self.groups_of(df), [t["m_bomb_hands"]], xlabel=t["share"])
        self.add("bomb_hands", t["bomb_hands"], fig, caption, df)

    def chart_bombs_by_kind(self) -> None:
        df = self.stats["bombs_by_size"]
        if not df.height:
            return
        t = self.t
        rows = self.rate_rows(df, lambda r: f"{r['kind'].replace('_', ' ')} · {r['size']}", value="per_hand")
        cats = list(dict.fromkeys(r["cat"] for r in sorted(rows, key=lambda r: -r["value"])))
        fig = hbars(rows, self.groups_of(df), cats, percent=False, xlabel=t["per_hand"])
        top = max(rows, key=lambda r: r["value"])
        caption = (f"Bombs played per hand by kind and number of cards (95% intervals, Poisson). Most frequent: "
                   f"{top['cat']}, {num(top['value'])} per hand." if self.lang == "en" else
                   f"按种类与张数的每局炸弹数（95% 区间，泊松）。最常见：{top['cat']}，每局 {num(top['value'])}。")
        self.add("bombs_by_kind", t["bombs_by_kind"], fig, caption, df)

    def chart_bombs_by_seat(self) -> None:
        df = self.stats["bombs_by_seat"]
        if not df.height:
            return
        t = self.t

        def cat(r):
            role = t.get(r["role"], r["role"]) if r["role"] else ""
            return f"{t['seat']} {r['seat']}" + (f" · {role}" if role else "")

        rows = self.rate_rows(df, cat)
        cats = list(dict.fromkeys(r["cat"] for r in rows))
        fig = hbars(rows, self.groups_of(df), cats, xlabel=t["share"])
        # the seats compared with each other: each seat against the pooled rate of its group, Holm-corrected
        tests, bits = [], []
        for g in self.groups_of(df):
            part = [r for r in df.iter_rows(named=True) if self.gname(r) == g]
            k_all, n_all = sum(r["hands_with_bomb"] for r in part), sum(r["hands"] for r in part)
            for r in part:
                rest_k, rest_n = k_all - r["hands_with_bomb"], n_all - r["hands"]
                if rest_n and r["hands"]:
                    tests.append((cat(r), g, r["hands_with_bomb"], r["hands"], rest_k, rest_n))
        adjusted = holm([two_prop_p(k, n, rk, rn) for _, _, k, n, rk, rn in tests]) if tests else []
        for (who, g, k, n, rk, rn), p in zip(tests, adjusted):
            if p < ALPHA:
                d, lo, hi = newcombe_diff(k, n, rk, rn)
                bits.append(f"{who}" + (f" ({g})" if len(self.groups_of(df)) > 1 else "")
                            + f": {pct(k / n)} vs {pct(rk / rn)} ({pp(d, self.lang)}, 95% CI {pp(lo, self.lang)} … "
                              f"{pp(hi, self.lang)}, Holm {pval(p)})")
        if bits:
            caption = ("Seats that bomb in a different share of hands than the other seats: " if self.lang == "en"
                       else "出炸弹比例与其他座位显著不同的座位：") + "; ".join(bits) + f" — {t['sig']}."
        else:
            caption = ("No seat bombs in a significantly different share of hands than the others (Holm-corrected)."
                       if self.lang == "en" else "没有座位的出炸弹比例与其他座位有显著差异（Holm 校正）。")
        self.add("bombs_by_seat", t["bombs_by_seat"], fig, caption, df)

    def measure_chart(self, key: str, stat: str, col: str, value: str, title: str,
                      cat: Callable[[dict], str] | None = None) -> None:
        """A chart of rates of one statistic's rows (*col* = *value*; all when empty), one
        bar per row: what the games' own measures (their events, levels, ...) are drawn as."""
        df = self.stats.get(stat)
        if df is None or not df.height:
            return
        df = df.filter(pl.col(col) == value) if value else df
        if not df.height:
            return
        t = self.t
        cat = cat or (lambda r: t.get(f"m_{r[col]}", r[col]))
        rows = self.rate_rows(df, cat)
        cats = list(dict.fromkeys(r["cat"] for r in rows))
        fig = hbars(rows, self.groups_of(df), cats, xlabel=t["share"])
        many = len(self.groups_of(df)) > 1
        caption = "; ".join(f"{r['cat']}" + (f" ({r['group']})" if many else "") + f": {pct(r['value'])} "
                            f"({t['ci']} {interval(r['lo'], r['hi'])}, n = {num(r['n'])})" for r in rows)
        self.add(key, title, fig, caption + ("." if self.lang == "en" else "。"), df)

    def chart_ends(self) -> None:
        df = self.stats["ends"]
        if not df.height:
            return
        # a game that never re-deals shows escapes only
        redeals = df.filter(pl.col("event") == "redeal")["k"].sum()
        if not redeals:
            df = df.filter(pl.col("event") != "redeal")
        t = self.t
        rows = self.rate_rows(df, lambda r: t[f"m_{r['event']}"])
        cats = list(dict.fromkeys(r["cat"] for r in rows))
        fig = hbars(rows, self.groups_of(df), cats, xlabel=t["share"])
        entries = []
        for r in df.iter_rows(named=True):
            entries.append((f"{t['m_' + r['event']]}" + (f" ({self.gname(r)})" if len(self.groups_of(df)) > 1 else ""),
                            r["k"], r["hands"]))
        caption = "; ".join(f"{w}: {pct(k / n)} (n = {num(n)})" for w, k, n in entries) + (
            ". Re-dealt hands have no play and are left out of the play statistics; escaped hands are left out of "
            "win rates." if self.lang == "en" else "。重新发牌的牌局没有出牌，不计入出牌统计；逃跑的牌局不计入胜率。")
        self.add("ends", t["ends"], fig, caption, df)

    def chart_compare(self) -> None:
        """Each variant/setting against the reference (the one with most hands): differences with intervals."""
        t = self.t
        over = self.stats["overview"]
        if over.height < 2:
            return
        ref_row = over.sort("legal", descending=True).row(0, named=True)
        ref = self.gname(ref_row)
        tests: list[Difference] = []
        for key in self.decl["metrics"]:
            entries = {g: (k, n) for g, k, n in self.metric(key)}
            if ref not in entries:
                continue
            rk, rn = entries[ref]
            for g, (k, n) in entries.items():
                if g != ref and n and rn:
                    d, lo, hi = newcombe_diff(k, n, rk, rn)
                    tests.append(Difference(t[f"m_{key}"], g, k, n, d, lo, hi, two_prop_p(k, n, rk, rn)))
        if not tests:
            return
        for x, p in zip(tests, holm([x.p for x in tests])):
            x.p_holm = p
        cats = [f"{x.metric} · {x.group}" for x in tests]
        rows = [{"cat": cat, "group": t["difference"], "value": x.difference, "lo": x.lo, "hi": x.hi, "n": x.hands}
                for cat, x in zip(cats, tests)]
        fig = hbars(rows, [t["difference"]], cats, ref=0.0, points=True,
                    value_fmt=lambda v: pp(v, self.lang), xlabel=t["difference"])
        sig = [x for x in tests if x.p_holm < ALPHA]
        head = (f"Each rate of a variant or setting minus the same rate under {ref} (the {t['ref']}), with its 95% "
                f"interval (Newcombe). " if self.lang == "en" else
                f"各玩法或规则设置的比率减去参照（{ref}）的同一比率，附 95% 区间（Newcombe）。")
        if sig:
            body = "; ".join(f"{x.metric} ({x.group}): {pp(x.difference, self.lang)} "
                             f"({pp(x.lo, self.lang)} … {pp(x.hi, self.lang)}, Holm {pval(x.p_holm)})"
                             for x in sig) + f" — {t['sig']}."
        else:
            body = (f"No difference is significant after Holm's correction over the {len(tests)} comparisons."
                    if self.lang == "en" else f"在 {len(tests)} 项比较中，经 Holm 校正后没有显著差异。")
        table = pl.DataFrame([{"metric": x.metric, "group": x.group, "hands": x.hands, "rate": x.k / x.hands,
                               "difference": x.difference, "lo": x.lo, "hi": x.hi, "p_holm": x.p_holm}
                              for x in tests])
        self.add("compare", t["compare"], fig, head + body, table)

    # ------------------------------------------------------------------ the section

    def build(self) -> None:
        """The charts the game's declaration chooses, in order: its own (``chart_KEY`` of its
        report module) or those of every game (this class's)."""
        for key in self.decl["charts"]:
            own = getattr(self.part.charts, f"chart_{key}", None)
            if own is not None:
                own(self)
            else:
                getattr(self, f"chart_{key}")()

    def summary(self) -> tuple[list[str], list[tuple[str, dict[str, Finding]]]]:
        """The summary table: the groups (columns) and, per summary rate, its finding in each group."""
        groups = [self.gname(r) for r in self.stats["overview"].iter_rows(named=True)]
        rows = []
        for key in self.decl["metrics"]:
            cells = {g: self.finding(self.t[f"m_{key}"], g, k, n, False) for g, k, n in self.metric(key)}
            if cells:
                rows.append((self.t[f"m_{key}"], cells))
        return groups, rows

    def title(self) -> str:
        try:
            g = find_game(self.game)
        except UnknownGame:  # a dataset may hold a game this installation does not know
            return self.game
        return f"{g.title_zh} {g.title}" if self.lang == "en" else g.title_zh


def game_words(game: str, lang: str) -> str:
    """A game's name for people (its registry name when this installation does not know it)."""
    try:
        g = find_game(game)
    except UnknownGame:
        return game
    return g.title if lang == "en" else g.title_zh


class Cell(NamedTuple):
    """A cell of a report table (``parts.html``'s ``table``): its text; *t*, a column of text
    (left-aligned); *title*, the whole text on hover; *links*, (text, href or None) pairs
    shown instead of the text, joined by commas."""

    text: str
    t: bool = False
    title: str | None = None
    links: list[tuple[str, str | None]] | None = None


def text_cell(text: str) -> Cell:
    """A table cell of text from the data: cut to a name's length, the whole text on hover."""
    short = clip(text)
    return Cell(short, True, None if short == text else text)


def parts() -> Any:
    """The report's fragments (``analysis/templates/parts.html``), each a macro that returns Markup."""
    from paipu.replay.html import macros

    return macros("paipu.analysis", "parts.html")


def anchor(*parts: str) -> str:
    """An id of the page from names in the data (a game's partition name), spelled as a replay
    page's file name is (:func:`paipu.replay.html.html_name`): a short plain name as it is, any
    other a slug of safe characters and a hash of the name, the same in ``id=`` and ``href='#...'``.

    >>> anchor("game", "big_two"), anchor("x'><b>")
    ('game-big-two', 'x_b_~a8077e950b252886')
    """
    from paipu.replay.html import html_name

    return html_name("-".join(p.replace("_", "-") for p in parts)).removesuffix(".html")


class Page:
    def __init__(self, lang: str, replays: str | None, out: str):
        self.lang, self.t = lang, TEXT[lang]
        self.replays, self.out = replays, out
        #: hand ids asked for a link whose page is not in the replays folder (shown without a link)
        self.missing: list[str] = []

    def table(self, df: pl.DataFrame, links: frozenset[str] = frozenset(), hidden: frozenset[str] = HIDDEN_COLUMNS) -> Markup:
        """*df* as a table; *hidden* columns left out (the game, inside its own section)."""
        if df.height == 0:
            return parts().table([], [])
        k = 0 if self.lang == "en" else 1
        cols = [c for c in df.columns if c not in hidden]
        rates = rate_columns(df.columns)  # lo/hi of a mean (bombs a hand) stay in its unit
        differences = "difference" in df.columns
        head = [COLUMN_WORDS.get(c, (c.replace('_', ' '),) * 2)[k] for c in cols]
        rows = []
        for row in df.iter_rows(named=True):  # (every column: a hidden game still names the codes' words)
            cells = []
            for c in cols:
                x = row[c]
                if c in links:
                    cells.append(Cell("", True, links=self.hand_links(x)))
                elif c == "setting":
                    cells.append(Cell(setting_words(x, self.lang), True))
                elif c == "game" and isinstance(x, str):
                    cells.append(text_cell(game_words(x, self.lang)))
                elif c == "variant":
                    cells.append(Cell(variant_words(x, self.lang), True))
                elif c in VALUE_COLUMNS and isinstance(x, str) and self.lang != "en":
                    said = value_words(row.get("game"), x, self.lang)  # (the code itself on hover)
                    cells.append(Cell(said, True, None if said == x else x))
                elif c == "difference" and isinstance(x, float) or c in ("lo", "hi") and differences and isinstance(x, float):
                    cells.append(Cell(pp(x, self.lang)))  # (a difference's interval is in points too, not per cent)
                elif c in rates and isinstance(x, float):
                    cells.append(Cell(pct(x)))
                elif c in P_COLUMNS and isinstance(x, float):
                    cells.append(Cell(p_value(x)))  # 0.032 or < 0.0001, as everywhere (not 0.0000000011)
                elif isinstance(x, bool) or x is None:
                    cells.append(Cell(num(x, self.lang) if x is not None else ''))
                elif isinstance(x, (int, float)):
                    cells.append(Cell(num(x)))
                elif isinstance(x, (list, dict)):
                    cells.append(Cell(', '.join(map(str, x)) if isinstance(x, list) else str(x), True))
                else:
                    cells.append(text_cell(str(x)))
            rows.append(cells)
        return parts().table(head, rows)

    def hand_links(self, value) -> list[tuple[str, str | None]]:
        """The hand ids of *value* (a list, or text separated by commas or semicolons), each
        with the link to its page in the replays folder (None: no folder, or not there)."""
        ids = value if isinstance(value, list) else [x.strip() for x in str(value or "").replace(";", ",").split(",")]
        ids = [str(x) for x in ids if str(x)]
        if not self.replays:
            return [(", ".join(ids), None)] if ids else []
        from paipu.replay.html import html_name

        base = os.path.dirname(os.path.abspath(self.out))
        links: list[tuple[str, str | None]] = []
        for hand_id in ids:
            target = os.path.join(os.path.abspath(self.replays), html_name(hand_id))
            if not os.path.isfile(target):  # a link only to a page that is there
                self.missing.append(hand_id)
                links.append((hand_id, None))
                continue
            href = os.path.relpath(target, base)
            links.append((hand_id, quote(href.replace(os.sep, '/'))))
        return links

    def summary_html(self, s: Section) -> Markup:
        """A game's summary: one row per rate, one column per variant/setting, each cell figure, interval, n."""
        groups, rows = s.summary()
        used = [g for g in groups if any(g in cells for _, cells in rows)]
        body = []
        for label, cells in rows:
            body.append((label, [None if (f := cells.get(g)) is None else (pct(f.rate), interval(f.lo, f.hi), num(f.n))
                                 for g in used]))
        compare = next((c for c in s.charts if c.key == "compare"), None)
        return parts().summary(used, body, self.t['summary_note'], compare.caption if compare else None)


def write_report(root: str, out: str, game: str | None = None, lang: str = "en", replays: str | None = None) -> int:
    """Write the HTML report of the audited dataset *root* to the file *out* (whole or not
    at all); returns the number of game sections."""
    from paipu.replay.io.output import write_bytes

    doc, n = report_html(root, out, game, lang, replays)
    write_bytes(out, doc.encode("utf-8"), gz=False)  # the old report or the new one, nothing beside it
    return n


def report_html(root: str, out: str, game: str | None = None, lang: str = "en",
                replays: str | None = None) -> tuple[str, int]:
    """The report's page and its number of game sections; *out* is the file it goes to (the
    links to --replays pages are relative to its folder; ``-``, standard output: the current one)."""
    stats = all_stats(root, game)
    t = TEXT[lang]
    page = Page(lang, replays, out)
    games = sorted(set(stats["overview"]["game"].to_list())) if stats["overview"].height else []
    sections = []
    for g in games:
        s = Section(g, stats, lang)
        s.build()
        sections.append(s)
    shown = []
    for s in sections:
        violations = s.stats["violations"]
        shown.append({
            "id": anchor("game", s.game), "title": s.title(), "summary": page.summary_html(s),
            "groups": [s.gname(r) for r in s.stats["overview"].iter_rows(named=True)],
            "overview": page.table(s.stats["overview"]), "violations": page.table(violations) if violations.height else None,
            "charts": [{"id": anchor(s.game, c.key), "title": c.title, "svg": c.svg, "caption": c.caption,
                        "table": page.table(c.table)} for c in s.charts]})
    # --- rule settings compared on duplicate deals: analysis/compare.py (nothing without them)
    from .compare import report_section

    extra = report_section(root, game, page.table) + _people_sections(root, stats, game, page)
    # ---
    from paipu.replay.html import render

    doc = render("paipu.analysis", "report.html", lang=lang, t=t, root=root, sections=shown,
                 extra=[{"key": key, "title": title, "html": text} for key, title, text in extra])
    return doc, len(sections)


def _people_sections(root: str, stats: dict[str, pl.DataFrame], game: str | None,
                     page: Page) -> list[tuple[str, str, Markup]]:
    """The players and suspects sections: the dataset's own tables when it has them (any columns)."""
    t = page.t
    out = []
    players = optional_table(root, "players", game)
    if players is None:
        players = stats["players"]
        note = t["most_active"]
    else:
        if "hands" in players.columns:
            players = players.sort("hands", descending=True)
        players = players.head(50)
        note = ""
    if players.height:
        out.append(("players", t["players"], parts().players(t["players"], note, page.table(players, hidden=frozenset()))))
    suspects = optional_table(root, "suspects", game)
    if suspects is not None:
        links = frozenset(c for c in suspects.columns if "hand" in c.lower() and suspects[c].dtype in (
            pl.Utf8, pl.List(pl.Utf8)))
        shown = page.table(suspects.head(200), links, hidden=frozenset())
        missing = list(dict.fromkeys(page.missing))
        gap = ""
        if missing and page.replays:
            gap = t["no_pages"].format(n=len(missing), folder=page.replays)
        out.append(("suspects", t["suspects"], parts().suspects(t["suspects"], t["suspects_note"], gap, shown)))
    return out
