"""``paipu report``: a self-contained HTML balance report for designers.

One section per game; within it, every variant and rule setting of that game side by
side in the same charts (grouped bars), each chart with one plain sentence saying what
it shows and the table behind it. Charts are matplotlib PNGs embedded as data URIs; all
text that comes from the data (player names, settings) is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from replay.games import games  # noqa: E402

from .queries import all_stats  # noqa: E402

GAME_TITLES = {g.name: f"{g.title_zh} {g.title}" for g in games()}
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { border-bottom: 2px solid #444; } h2 { margin-top: 2em; border-bottom: 1px solid #aaa; }
figure { margin: 1.5em 0; } figcaption { font-size: 1.05em; margin: .3em 0 .6em; }
table { border-collapse: collapse; font-size: .85em; margin: .5em 0 1em; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; } th { background: #f0f0f0; }
td.t { text-align: left; } details { margin-bottom: 1em; } .note { color: #666; font-size: .9em; }
"""


def label(row: dict) -> str:
    """The name of a variant and rule setting."""
    return row["variant"] + (f" {row['setting']}" if row.get("setting") else "")


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def figure_html(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return f'<img alt="chart" src="data:image/png;base64,{base64.b64encode(buf.getvalue()).decode()}">'


def table_html(df: pl.DataFrame) -> str:
    if df.height == 0:
        return "<p class='note'>no rows</p>"
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)
    rows = []
    for row in df.iter_rows():
        cells = []
        for x in row:
            if isinstance(x, float):
                cells.append(f"<td>{x:.4g}</td>")
            elif isinstance(x, int):
                cells.append(f"<td>{x}</td>")
            else:
                cells.append(f"<td class='t'>{html.escape('' if x is None else str(x))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def grouped_bars(ax, df: pl.DataFrame, x: str, y: str, lo: str | None = None, hi: str | None = None,
                 fmt_x: Callable = str) -> None:
    """Bars of *y* by *x*, one colour per variant/setting, with error bars from lo/hi."""
    groups = sorted({label(r) for r in df.iter_rows(named=True)})
    xs = sorted({r[x] for r in df.iter_rows(named=True)}, key=lambda v: (str(type(v)), v))
    width = 0.8 / max(1, len(groups))
    for g_index, group in enumerate(groups):
        rows = {r[x]: r for r in df.iter_rows(named=True) if label(r) == group}
        pos = [k + (g_index - (len(groups) - 1) / 2) * width for k in range(len(xs))]
        heights = [rows[v][y] if v in rows and rows[v][y] is not None else 0 for v in xs]
        err = None
        if lo and hi:
            err = [[max(0, h - (rows[v][lo] or 0)) if v in rows else 0 for v, h in zip(xs, heights)],
                   [max(0, (rows[v][hi] or 0) - h) if v in rows else 0 for v, h in zip(xs, heights)]]
        ax.bar(pos, heights, width, yerr=err, capsize=3, label=group, color=COLORS[g_index % len(COLORS)])
    ax.set_xticks(range(len(xs)), [fmt_x(v) for v in xs])
    if len(groups) > 1:
        ax.legend(fontsize=8)


class Section:
    """Charts for one game, every variant/setting side by side."""

    def __init__(self, game: str, stats: dict[str, pl.DataFrame]):
        self.game = game
        self.stats = {k: (df.filter(pl.col("game") == game) if "game" in df.columns and df.height else df)
                      for k, df in stats.items()}
        self.parts: list[str] = []

    def chart(self, title: str, sentence: str, draw: Callable, table: pl.DataFrame, size=(7, 3.2)) -> None:
        fig, ax = plt.subplots(figsize=size)
        draw(ax)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="y", alpha=.3)
        self.parts.append(
            f"<figure>{figure_html(fig)}<figcaption>{html.escape(sentence)}</figcaption>"
            f"<details><summary>table</summary>{table_html(table)}</details></figure>")

    def rate_sentence(self, df: pl.DataFrame, what: str, by: str | None = None) -> str:
        bits = []
        for r in df.iter_rows(named=True):
            where = f" ({by} {r[by]})" if by else ""
            bits.append(f"{label(r)}{where}: {pct(r['rate'])} of {r['hands']} hands (95% CI {pct(r['lo'])}–{pct(r['hi'])})")
        return f"{what}: " + "; ".join(bits) + "." if bits else f"{what}: no hands."

    def build(self) -> str:
        s = self.stats
        over = s["overview"]
        self.parts.append(f"<h2>{html.escape(GAME_TITLES.get(self.game, self.game))}</h2>")
        settings = ", ".join(html.escape(label(r)) for r in over.iter_rows(named=True))
        self.parts.append(f"<p>Variants and rule settings compared: {settings}. Violating hands are counted in the "
                          f"overview and left out of every statistic.</p>{table_html(over)}")
        if s["violations"].height:
            self.parts.append("<h3>Violations</h3>" + table_html(s["violations"]))
        bombs = s["bombs"]
        if bombs.height:
            self.chart("Hands with at least one bomb", self.rate_sentence(bombs, "Share of played hands with a bomb or rocket"),
                       lambda ax: (grouped_bars(ax, bombs.with_columns(pl.lit("all").alias("x")), "x", "rate", "lo", "hi"),
                                   ax.set_ylabel("share of hands")), bombs)
        by_size = s["bombs_by_size"]
        if by_size.height:
            df = by_size.with_columns((pl.col("kind") + " " + pl.col("size").cast(pl.Utf8)).alias("bomb_kind"))
            top = df.sort("per_hand", descending=True).row(0, named=True)
            self.chart("Bombs per hand by kind and size",
                       f"The most frequent bomb is the {top['kind']} of {top['size']} cards in {label(top)}, "
                       f"{top['per_hand']:.3f} per played hand.",
                       lambda ax: (grouped_bars(ax, df, "bomb_kind", "per_hand"), ax.set_ylabel("per hand")), by_size)
        by_seat = s["bombs_by_seat"]
        if by_seat.height:
            df = by_seat.with_columns((pl.col("seat").cast(pl.Utf8) + " " + pl.col("role")).str.strip_chars().alias("who"))
            best = df.sort("bombs_per_hand", descending=True).row(0, named=True)
            self.chart("Bombs played per hand, by seat and role",
                       f"Seat {best['who']} in {label(best)} bombs most: {best['bombs_per_hand']:.3f} bombs per hand.",
                       lambda ax: (grouped_bars(ax, df, "who", "bombs_per_hand"), ax.set_ylabel("bombs per hand")), by_seat)
        mult = s["multiplier"]
        if mult.height:
            top = mult.sort("share", descending=True).row(0, named=True)
            self.chart("Final multiplier", f"The most common final multiplier is ×{top['multiplier']} "
                       f"({pct(top['share'])} of decided hands in {label(top)}).",
                       lambda ax: (grouped_bars(ax, mult, "multiplier", "share", fmt_x=lambda v: f"×{v}"),
                                   ax.set_ylabel("share of hands")), mult)
        drivers = s["multiplier_drivers"]
        if drivers.height:
            df = drivers.with_columns((pl.col("driver") + " " + pl.col("level")).alias("what"))
            self.chart("Mean multiplier by what drives it", "Mean final multiplier by number of grabs, show factor, "
                       "bombs played and spring: each driver's levels side by side.",
                       lambda ax: (grouped_bars(ax, df, "what", "mean_multiplier"), ax.tick_params(axis="x", labelsize=7),
                                   ax.set_ylabel("mean multiplier")), drivers, size=(9, 3.2))
        wins = s["landlord_wins"]
        if wins.height:
            df = wins.with_columns((pl.col("breakdown") + " " + pl.col("level")).alias("what"))
            overall = wins.filter(pl.col("breakdown") == "all")
            self.chart("Landlord win rate", self.rate_sentence(overall, "Landlords won"),
                       lambda ax: (grouped_bars(ax, df, "what", "rate", "lo", "hi"), ax.axhline(0.5, color="k", lw=.5),
                                   ax.set_ylabel("landlord wins")), wins, size=(8, 3.2))
        spring = s["spring"]
        if spring.height:
            self.chart("Spring and anti-spring", self.rate_sentence(spring, "Spring / anti-spring", "kind"),
                       lambda ax: (grouped_bars(ax, spring, "kind", "rate", "lo", "hi"), ax.set_ylabel("share")), spring)
        seats = s["seat_advantage"]
        if seats.height:
            n = seats["seat"].n_unique()
            self.chart("Win rate by seat", self.rate_sentence(seats, "Seats win", "seat")
                       + f" A fair game gives each of the {n} seats about {pct(1 / n)}.",
                       lambda ax: (grouped_bars(ax, seats, "seat", "rate", "lo", "hi", fmt_x=lambda v: f"seat {v}"),
                                   ax.axhline(1 / n, color="k", lw=.5), ax.set_ylabel("wins")), seats)
        first = s["first_lead"]
        if first.height:
            self.chart("Does leading first win?", self.rate_sentence(first, "The seat that led the first trick won"),
                       lambda ax: (grouped_bars(ax, first.with_columns(pl.lit("first leader").alias("x")), "x", "rate",
                                                "lo", "hi"), ax.set_ylabel("wins")), first)
        events = s["paodekuai_events"]
        if events.height:
            self.chart("Let-go (fang zou) and xiqian (bomb bonus)", self.rate_sentence(events, "Hands with the event (放走 let-go, 包赔 paid, 喜钱)", "event"),
                       lambda ax: (grouped_bars(ax, events, "event", "rate", "lo", "hi"), ax.set_ylabel("share of hands")),
                       events)
        length = s["hand_length"]
        if length.height:
            longest = length.sort("mean_actions", descending=True).row(0, named=True)
            melted = length.unpivot(index=["game", "variant", "setting"], on=["mean_actions", "mean_tricks"],
                                    variable_name="measure", value_name="value")
            self.chart("Hand length", f"Hands are longest in {label(longest)}: {longest['mean_actions']:.1f} actions and "
                       f"{longest['mean_tricks']:.1f} tricks on average.",
                       lambda ax: grouped_bars(ax, melted, "measure", "value"), length)
        scores = s["scores"]
        if scores.height:
            melted = scores.unpivot(index=["game", "variant", "setting"],
                                    on=["mean_top_score", "median_top_score", "p90_top_score"],
                                    variable_name="measure", value_name="value")
            top = scores.sort("mean_top_score", descending=True).row(0, named=True)
            self.chart("Points won by the best seat", f"The best-placed seat wins {top['mean_top_score']:.1f} points on "
                       f"average in {label(top)} (90th percentile {top['p90_top_score']:.1f}).",
                       lambda ax: grouped_bars(ax, melted, "measure", "value"), scores)
        guandan = s.get("guandan")
        if guandan is not None and guandan.height:
            dd = guandan.filter(pl.col("measure") == "double_down")
            up = guandan.filter(pl.col("measure") == "upgrade")
            self.chart("Double-down rate", self.rate_sentence(dd, "Hands ending in a double-down (双下)"),
                       lambda ax: (grouped_bars(ax, dd.with_columns(pl.lit("double down").alias("x")), "x", "rate",
                                                "lo", "hi"), ax.set_ylabel("share of hands")), dd)
            self.chart("Upgrade of the winning team", "How many levels the winning team went up: +3 after a "
                       "double-down, +2 when its second seat came third, +1 when it came last.",
                       lambda ax: (grouped_bars(ax, up, "level", "rate", "lo", "hi", fmt_x=lambda v: f"+{v}"),
                                   ax.set_ylabel("share of hands")), up)
        kou = s.get("shuangkou")
        if kou is not None and kou.height:
            dist = kou.filter(pl.col("measure") == "kou")
            self.chart("Winning margin (kou)", self.rate_sentence(dist, "Hands won by", "level")
                       + " 双扣 (double) pays ×3, 单扣 (single) ×2, 平扣 (flat) ×1.",
                       lambda ax: (grouped_bars(ax, dist, "level", "rate", "lo", "hi"), ax.set_ylabel("share of hands")),
                       kou)
        players = s["players"]
        if players.height:
            self.parts.append("<h3>Most active players</h3>" + table_html(players))
        return "\n".join(self.parts)


def write_report(root: str, out: str, game: str | None = None) -> int:
    """Write the HTML report of the audited dataset *root* to *out*; returns the sections."""
    stats = all_stats(root, game)
    games = sorted(set(stats["overview"]["game"].to_list())) if stats["overview"].height else []
    sections = [Section(g, stats).build() for g in games]
    body = "\n".join(sections) or "<p>No audited hands.</p>"
    page = (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>paipu balance report</title>"
            f"<style>{CSS}</style></head><body><h1>paipu balance report</h1>"
            f"<p class='note'>Dataset: {html.escape(root)}. Rates come with their sample size and a 95% Wilson interval "
            f"(error bars).</p>{body}</body></html>")
    with open(out, "w", encoding="utf-8") as f:
        f.write(page)
    return len(sections)
