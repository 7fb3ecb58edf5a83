"""Rule settings compared on duplicate deals (``paipu compare DS``, a section of the report).

Hands of one variant dealt the same cards under different rule settings (``paipu simulate
--compare``) are paired by their deal. For each figure a game compares (:func:`figures_of`:
those of every game, ``sql/compare.sql``, and the game's own, ``sql/compare.sql`` and
``report.FIGURES`` of its package) and each setting against the base setting (no rule
changes, else the first), the paired difference of the means has a 95% interval (normal,
from the differences' spread); a difference is *significant* when its p-value stays under
5% after Holm's correction over every difference tested, so running many figures does not
manufacture findings. Fewer than :data:`MIN_PAIRS` pairs are shown but never called
significant. This module names no game: it combines what the games declare.
"""

from __future__ import annotations

import json
import math
from typing import NamedTuple

import polars as pl
from markupsafe import Markup

from paipu.replay.fmt import count, p_value
from paipu.replay.games import UnknownGame, find_game
from .inference import _normal_p, holm, mean_interval
from .queries import connect, frame, sql_text


class Figure(NamedTuple):
    """A per-hand figure compared on shared deals: its words for people and its unit."""

    en: str
    zh: str
    #: ``rate`` (a share of hands: means in per cent, differences in percentage points) or
    #: ``number`` (an amount a hand: bombs, tricks, the multiplier)
    unit: str = "number"


#: the per-hand figures of every game (``sql/compare.sql``), in the order a game compares
#: them unless its declaration says otherwise (:func:`figures_of`)
FIGURES: dict[str, Figure] = {
    "first_leader_wins": Figure("first leader's win rate", "首出者胜率", "rate"),
    "bombs": Figure("bombs a hand", "每局炸弹数"),
    "multiplier": Figure("multiplier", "倍数"),
    "tricks": Figure("tricks a hand", "每局轮数"),
    "actions": Figure("actions a hand", "每局动作数"),
}
MIN_PAIRS = 30
ALPHA = 0.05


def figures_of(game: str) -> dict[str, Figure]:
    """The figures *game* compares, in order, each with its words and unit: those of every
    game (:data:`FIGURES`) and the game's own (``report.FIGURES`` of its package), in the
    order its declaration names them (``Game.report["figures"]``, of both kinds), else the
    shared ones then its own. An unknown game compares the shared ones.

    >>> list(figures_of("a game this installation does not know"))
    ['first_leader_wins', 'bombs', 'multiplier', 'tricks', 'actions']
    """
    try:
        g = find_game(game)
    except UnknownGame:
        return dict(FIGURES)
    # (a plain (en, zh[, unit]) tuple is taken as a Figure)
    own = {name: Figure(*fig) for name, fig in getattr(g.part("report"), "FIGURES", {}).items()}
    known = FIGURES | own
    names = tuple(g.report.get("figures") or (*FIGURES, *own))
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"{g.name}: report['figures'] names {', '.join(unknown)}, which neither compare.sql "
                         f"nor the game's report.FIGURES has (known: {', '.join(known)})")
    return {name: known[name] for name in names}


def hands(root: str, game: str | None = None, variant: str | None = None) -> pl.DataFrame:
    """The per-hand figures of every duplicate deal in the audited dataset *root*: those of
    every game (``sql/compare.sql``: the pairing key, the setting) and, beside them, each
    game's own (``sql/compare.sql`` of its package, run with ``$game`` bound to it: a row
    per legal hand, its ``game``, ``hand_id`` and figures)."""
    con = connect(root)
    try:
        df = frame(con.sql(sql_text("compare"), params={"game": game, "variant": variant}))
        own = [frame(con.sql(text, params={"game": name, "variant": variant}))
               for name in (df["game"].unique(maintain_order=True).to_list() if df.height else [])
               if (text := own_sql(name)) is not None]
    finally:
        con.close()
    own = [part for part in own if part.height]
    if not own:
        return df
    return df.join(pl.concat(own, how="diagonal_relaxed"), on=["game", "hand_id"], how="left", maintain_order="left")


def own_sql(game: str) -> str | None:
    """The text of *game*'s own per-hand figures (``sql/compare.sql`` of its package), None
    when it has none or this installation does not know it."""
    try:
        path = find_game(game).sql_file("compare")
    except UnknownGame:
        return None
    return path.read_text(encoding="utf-8") if path.is_file() else None


def setting_label(game: str, variant: str, setting: str) -> str:
    """A setting as the rule changes that make it (``base`` for none), e.g. ``kinds-=four_two_single``."""
    if not setting:
        return "base"
    try:
        params = json.loads(setting)
        from paipu.replay.games import find_rules

        rules = find_rules(game, variant)
    except (ValueError, TypeError):
        return setting
    parts = []
    for name, value in sorted(params.items()):
        default = getattr(rules, name, None)
        if isinstance(default, frozenset) and isinstance(value, list):
            gone, new = sorted(default - set(value)), sorted(set(value) - default)
            parts += ([f"{name}-={','.join(gone)}"] if gone else []) + ([f"{name}+={','.join(new)}"] if new else [])
            if not gone and not new:
                parts.append(f"{name}=(as base)")
        else:
            shown = ",".join(map(str, value)) if isinstance(value, list) else json.dumps(value, ensure_ascii=False)
            parts.append(f"{name}={shown.strip(chr(34))}")
    return " ".join(parts)


def paired(df: pl.DataFrame) -> pl.DataFrame:
    """Paired differences (setting − base) of each figure's mean, with 95% intervals,
    p-values, Holm-adjusted p-values and the verdict ``significant``."""
    rows = []
    for (game, variant), part in df.group_by(["game", "variant"], maintain_order=True):
        figures = figures_of(game)
        settings = sorted(part["setting"].unique().to_list())
        base = settings[0]  # '' (no rule changes) sorts first
        for other in settings[1:]:
            a = part.filter(pl.col("setting") == base)
            b = part.filter(pl.col("setting") == other)
            joined = a.join(b, on="deal_key", suffix="_b")
            for fig in figures:
                if fig not in joined.columns:
                    continue
                pair = joined.select(pl.col(fig).alias("x"), pl.col(f"{fig}_b").alias("y")).drop_nulls()
                n = pair.height
                if n == 0 or (pair["x"].n_unique() == 1 and pair["y"].n_unique() == 1
                              and pair["x"][0] == pair["y"][0]):
                    continue  # the figure does not vary here (not this game's): nothing to compare
                x, y = pl.col("x").cast(pl.Float64), pl.col("y").cast(pl.Float64)
                base_mean, setting_mean, mean, d_sd = pair.select(
                    x.mean().alias("base"), y.mean().alias("setting"), (y - x).mean().alias("diff"),
                    (y - x).std().alias("sd")).row(0)
                sd = float(d_sd) if n > 1 else math.nan
                lo, hi = mean_interval(mean, sd, n)
                if n < 2:
                    p = None
                elif sd == 0:
                    p = 1.0 if mean == 0 else 0.0
                else:
                    p = _normal_p(mean / (sd / math.sqrt(n)))
                rows.append({
                    "game": game, "variant": variant, "base": setting_label(game, variant, base),
                    "setting": setting_label(game, variant, other), "figure": fig, "pairs": n,
                    "base_mean": base_mean, "setting_mean": setting_mean, "diff": mean,
                    "lo": None if math.isnan(lo) else lo, "hi": None if math.isnan(hi) else hi,
                    "p": p, "testable": n >= MIN_PAIRS and p is not None,
                })
    out = pl.DataFrame(rows, schema={
        "game": pl.String, "variant": pl.String, "base": pl.String, "setting": pl.String, "figure": pl.String,
        "pairs": pl.Int64, "base_mean": pl.Float64, "setting_mean": pl.Float64, "diff": pl.Float64,
        "lo": pl.Float64, "hi": pl.Float64, "p": pl.Float64, "testable": pl.Boolean})
    return out.with_columns(p_holm=pl.Series(holm_tested([r["p"] if r["testable"] else None for r in rows]),
                                             dtype=pl.Float64)) \
        .with_columns(significant=pl.col("p_holm").fill_null(1.0) < ALPHA)


def holm_tested(pvalues: list[float | None]) -> list[float | None]:
    """:func:`analysis.inference.holm` over the p-values tested (None: not tested, stays None).

    >>> holm_tested([0.01, 0.04, None, 0.03])
    [0.03, 0.06, None, 0.06]
    """
    tested = [(k, p) for k, p in enumerate(pvalues) if p is not None]
    out: list[float | None] = [None] * len(pvalues)
    for (k, _), adjusted in zip(tested, holm([p for _, p in tested])):
        out[k] = adjusted
    return out


def fmt(unit: str, x: float | None) -> str:
    """A difference in a figure's *unit* (:class:`Figure`): per cent points for a rate,
    else the figure's own.

    >>> fmt("rate", 0.0125), fmt("number", 0.0843), fmt("number", None)
    ('+1.2 points', '+0.084', '–')
    """
    if x is None:
        return "–"
    return f"{100 * x:+,.1f} points" if unit == "rate" else f"{x:+,.3f}"


def level(unit: str, x: float | None) -> str:
    """A mean in a figure's *unit*: per cent for a rate.

    >>> level("rate", 0.717), level("number", 31.9583)
    ('71.7%', '31.958')
    """
    if x is None:
        return "–"
    return f"{100 * x:,.1f}%" if unit == "rate" else f"{x:,.3f}"


def unit_of(game: str, figure: str) -> str:
    """The unit of *figure* as *game* compares it (``number`` for one it does not declare)."""
    found = figures_of(game).get(figure)
    return found.unit if found is not None else "number"


def for_people(result: pl.DataFrame) -> pl.DataFrame:
    """:func:`paired`'s differences as text for people (``paipu compare``'s table): each
    figure in its own unit (a rate's means in per cent, its difference and interval in
    percentage points, ``pp``; bombs, actions and the like as numbers), p-values without
    exponents, ``significant`` as yes or no. The JSON keeps the raw values.

    >>> row = {"game": "toy", "variant": "plain", "base": "base", "setting": "s", "figure": "actions",
    ...        "pairs": 120, "base_mean": 31.9583, "setting_mean": 32.0426, "diff": 0.0843, "lo": -0.0004,
    ...        "hi": 0.169, "p": 0.0501, "testable": True, "p_holm": 0.3, "significant": False}
    >>> for_people(pl.DataFrame([row])).row(0)[5:]
    (120, '31.958', '32.043', '+0.084', '-0.000', '+0.169', '0.050', '0.30', 'no')
    >>> rate = {**row, "figure": "first_leader_wins", "base_mean": 0.1, "setting_mean": 0.125, "diff": 0.025, "lo": 0.01, "hi": 0.04}
    >>> for_people(pl.DataFrame([rate])).row(0)[6:11]
    ('10.0%', '12.5%', '+2.5pp', '+1.0pp', '+4.0pp')
    """
    def points(unit: str, x: float | None) -> str:
        return fmt(unit, x).replace(" points", "pp")

    rows = []
    for r in result.iter_rows(named=True):
        unit = unit_of(r["game"], r["figure"])
        rows.append({
            "game": r["game"], "variant": r["variant"], "base": r["base"], "setting": r["setting"], "figure": r["figure"],
            "pairs": r["pairs"], "base_mean": level(unit, r["base_mean"]), "setting_mean": level(unit, r["setting_mean"]),
            "diff": points(unit, r["diff"]), "lo": points(unit, r["lo"]), "hi": points(unit, r["hi"]),
            "p": p_value(r["p"]), "p_holm": p_value(r["p_holm"]), "significant": "yes" if r["significant"] else "no",
        })
    names = ["game", "variant", "base", "setting", "figure", "pairs", "base_mean", "setting_mean", "diff", "lo", "hi",
             "p", "p_holm", "significant"]
    return pl.DataFrame(rows, schema={name: pl.Int64 if name == "pairs" else pl.String for name in names})


def sentences(result: pl.DataFrame) -> list[str]:
    """What the comparison says, in words: each significant difference, or that there is none."""
    out = []
    tested = int(result["testable"].sum()) if result.height else 0
    for (game, variant, base, setting), part in result.group_by(["game", "variant", "base", "setting"],
                                                                 maintain_order=True):
        sig = part.filter(pl.col("significant"))
        pairs = int(part.select(pl.col("pairs").max()).item())
        head = f"{game}/{variant}: {setting} against {base} on {pairs} shared deals"
        if not part["testable"].any():
            out.append(f"{head}: too few shared deals to test (a difference is tested from {MIN_PAIRS}).")
            continue
        if sig.height == 0:
            out.append(f"{head}: no significant difference (Holm-corrected 5% over {count(tested, 'test')}).")
            continue
        figures = figures_of(game)
        for r in sig.iter_rows(named=True):
            fig = figures.get(r["figure"], Figure(r["figure"], r["figure"]))
            out.append(f"{head}: {fig.en} {level(fig.unit, r['base_mean'])} → "
                       f"{level(fig.unit, r['setting_mean'])}, {fmt(fig.unit, r['diff'])} "
                       f"(95% interval {fmt(fig.unit, r['lo'])} to {fmt(fig.unit, r['hi'])}; "
                       f"Holm p {holm_p(r['p_holm'])}) — significant.")
    return out


def holm_p(p: float) -> str:
    """``= 0.012`` or ``< 0.0001`` (:func:`replay.fmt.p_value`)."""
    text = p_value(p)
    return text if text.startswith("<") else "= " + text


def compare(root: str, game: str | None = None, variant: str | None = None) -> pl.DataFrame:
    """:func:`paired` over the audited dataset *root*."""
    return paired(hands(root, game, variant))


def report_section(root: str, game: str | None, table) -> list[tuple[str, str, Markup]]:
    """The report's section comparing settings as (anchor, title, HTML), none when no deal
    was played under two settings of one variant; *table* renders a frame (the report's);
    the section is the report's template (``parts.html``, ``compare``), which HTML-escapes
    every text from the data. The figures are written as ``paipu compare`` writes them
    (:func:`for_people`: each in its unit)."""
    from paipu.replay.html import macros

    result = compare(root, game)
    if result.height == 0:
        return []
    shown = for_people(result).select("game", "variant", "setting", "base", "figure", "pairs", "base_mean",
                                      "setting_mean", "diff", "lo", "hi", "p_holm", "significant")
    title = "Rule settings compared on the same deals"
    return [("compare", title, macros("paipu.analysis", "parts.html").compare(title, sentences(result), table(shown)))]
