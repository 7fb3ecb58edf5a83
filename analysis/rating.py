"""A rating per player from the ``reviews`` table (``paipu review DS``), as columns of
the ``players`` table (docs/review.md, docs/analysis.md).

Per game, variant and player, over the player's decisions with a choice (two options or
more) in the hands reviewed without a violation:

- ``review_hands``, ``review_decisions``: the hands reviewed and the decisions counted;
- ``review_matches`` and ``review_match_rate`` (``_lo``, ``_hi``): decisions whose option
  was the best one (a tie with the best counts: the review records the option chosen as
  the best then), with the 95% Wilson interval, as the per-seat summary of ``paipu review
  --hand`` counts them;
- ``review_mean_loss`` (``review_loss_lo``, ``review_loss_hi``): the mean loss in points
  of win probability, with a 95% t interval whose standard error is clustered by hand
  (the decisions of one hand are not independent: the ratio estimator Σloss/Σn over hands,
  its linearised variance, t with hands − 1 degrees of freedom);
- ``review_mistakes``, ``review_blunders`` and their rates (``_lo``, ``_hi``): decisions
  flagged a mistake, a blunder (exclusive flags), with Wilson intervals.

The Wilson intervals treat decisions as independent trials; decisions of one hand are
correlated, so they are somewhat narrow (the loss interval is not).

When no review has run on the dataset the columns are there, null. When one has (of all
hands or of a sample), a player with no decision counted has 0 counts and null rates; the
rates are those of the hands reviewed (``review_hands`` against the profile's ``hands``
tells how many of the player's hands that is).
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from .inference import wilson
from .queries import frame, sql_text

KEYS = ("game", "variant", "player")
#: the review columns of ``players``, in order, with their types
COLUMNS: dict[str, type[pl.DataType]] = {
    "review_hands": pl.Int64, "review_decisions": pl.Int64,
    "review_matches": pl.Int64, "review_match_rate": pl.Float64, "review_match_lo": pl.Float64,
    "review_match_hi": pl.Float64,
    "review_mean_loss": pl.Float64, "review_loss_lo": pl.Float64, "review_loss_hi": pl.Float64,
    "review_mistakes": pl.Int64, "review_mistake_rate": pl.Float64, "review_mistake_lo": pl.Float64,
    "review_mistake_hi": pl.Float64,
    "review_blunders": pl.Int64, "review_blunder_rate": pl.Float64, "review_blunder_lo": pl.Float64,
    "review_blunder_hi": pl.Float64,
}
#: the count columns (0, not null, for a player reviewed with nothing counted)
COUNTS = ("review_hands", "review_decisions", "review_matches", "review_mistakes", "review_blunders")


def loss_interval(n: list[int], loss: list[float]) -> tuple[float, float, float]:
    """The mean loss over hands (*n* decisions and summed *loss* per hand) and its 95% t
    interval, the standard error clustered by hand (NaN with fewer than two hands or no
    decision).

    >>> m, lo, hi = loss_interval([2, 2, 1], [4.0, 0.0, 2.0])
    >>> round(m, 3), round(lo, 3), round(hi, 3)
    (1.2, -1.955, 4.355)
    """
    return ratio_interval(n, loss)


def ratio_interval(n: list[int], total: list[float]) -> tuple[float, float, float]:
    """Σtotal / Σn over clusters (hands: *n* decisions and the summed figure *total* of
    each) and its 95% t interval, the ratio estimator's linearised (cluster-robust)
    standard error, t with clusters − 1 degrees of freedom; NaN with fewer than two
    clusters or no decision. The mean loss is one (``loss_interval``); the match rate,
    with each hand's matches as *total*, is another, whose interval, unlike Wilson's,
    does not take the decisions of one hand as independent.

    >>> m, lo, hi = ratio_interval([2, 2, 1], [1, 2, 0])
    >>> round(m, 3), round(lo, 3), round(hi, 3)
    (0.6, -0.475, 1.675)
    """
    from scipy.stats import t

    decisions = sum(n)
    if not decisions:
        return math.nan, math.nan, math.nan
    mean = sum(total) / decisions
    hands = len(n)
    if hands < 2:
        return mean, math.nan, math.nan
    resid = sum((x - mean * k) ** 2 for k, x in zip(n, total))
    se = math.sqrt(hands / (hands - 1) * resid) / decisions
    half = float(t.ppf(0.975, hands - 1)) * se
    return mean, mean - half, mean + half


def rating(con) -> pl.DataFrame:
    """The review columns per game, variant and player, from the connection's ``reviews``
    and ``reviewed`` views (``sql/rating.sql``)."""
    per_hand = frame(con.sql(sql_text("rating")))
    rows = []
    for key, part in per_hand.group_by(list(KEYS), maintain_order=True):
        n, loss = part["n"].to_list(), part["loss"].to_list()
        counted = [(k, x) for k, x in zip(n, loss) if k]
        decisions = sum(n)
        row = dict(zip(KEYS, key), review_hands=part.height, review_decisions=decisions)
        for name, column in (("match", "matches"), ("mistake", "mistakes"), ("blunder", "blunders")):
            k = int(part[column].sum())
            lo, hi = wilson(k, decisions)
            lo = 0.0 if k == 0 else lo  # (as the SQL macros: the float noise of the formula at 0)
            row.update({f"review_{column}": k, f"review_{name}_rate": k / decisions if decisions else None,
                        f"review_{name}_lo": lo if decisions else None, f"review_{name}_hi": hi if decisions else None})
        mean, lo, hi = loss_interval([k for k, _ in counted], [x for _, x in counted])
        row.update(review_mean_loss=mean, review_loss_lo=lo, review_loss_hi=hi)
        rows.append(row)
    schema: dict[str, Any] = {"game": pl.String, "variant": pl.String, "player": pl.String, **COLUMNS}
    out = pl.DataFrame(rows, schema=schema, orient="row")
    return out.with_columns(pl.col(c).fill_nan(None) for c, kind in COLUMNS.items() if kind == pl.Float64)


def with_rating(players: pl.DataFrame | None, rated: pl.DataFrame | None) -> pl.DataFrame:
    """*players* (a ``players`` table, None: none yet) with the review columns of *rated*
    in place of any it had: every player of either (a player the review rated but no
    profile has gets a row of its own); null columns when *rated* is None (no review ran)."""
    if players is not None:
        players = players.drop([c for c in players.columns if c in COLUMNS])
    if rated is None:
        base = players if players is not None else pl.DataFrame(schema={k: pl.String for k in KEYS})
        return base.with_columns(pl.lit(None, dtype=kind).alias(c) for c, kind in COLUMNS.items())
    if players is None:
        return rated
    joined = players.join(rated, on=list(KEYS), how="full", coalesce=True)
    reviewed_games = set(rated["game"].to_list())
    in_reviewed = pl.col("game").is_in(list(reviewed_games))
    return joined.with_columns(pl.when(in_reviewed).then(pl.col(c).fill_null(0)).otherwise(pl.col(c)).alias(c)
                               for c in COUNTS)


def dataset_rating(root: str) -> pl.DataFrame | None:
    """The review columns of the dataset *root*, or None when no review has run on it."""
    from .queries import connect

    con = connect(root, need_audit=False)
    try:
        views = {v for (v,) in con.execute("select view_name from duckdb_views()").fetchall()}
        if "reviewed" not in views:
            return None
        if "reviews" not in views:  # every hand reviewed had no decision: an empty table of the columns read
            con.execute("create view reviews as select null::varchar as game, null::varchar as variant, "
                        "null::varchar as player, null::varchar as hand_id, null::varchar as chosen, "
                        "null::varchar as best, null::int as options, null::double as loss, "
                        "null::varchar as flag where false")
        return rating(con)
    finally:
        con.close()


def update_players(root: str) -> pl.DataFrame:
    """Rewrite the ``players`` table with the dataset's review columns (its other columns,
    ``paipu fraud``'s profile, as they were): one part file per game, all replaced in one
    staged batch under the writer's lock. The table written."""
    import os

    from paipu.replay.io.commit import StagedBatch, read_table, writing

    rated = dataset_rating(root)
    with writing(root):
        old = read_table(root, "players")
        frame = None if old is None else pl.DataFrame(pl.from_arrow(old)).with_columns(pl.col("game").cast(pl.String))
        players = with_rating(frame, rated)
        staged = StagedBatch(root)
        for (game,), part in players.group_by(["game"], maintain_order=True):
            staged.write(os.path.join("players", f"game={game}", "part-0.parquet"), part.drop("game").to_arrow())
        staged.commit()
    return players


def rating_table(players: pl.DataFrame, rows: int = 20) -> pl.DataFrame:
    """The rated players for people (``paipu review DS``): the *rows* with the most
    decisions reviewed, with their hands, decisions, match rate, mean loss and mistake and
    blunder rates (rates as per cent, one decimal)."""
    shown = players.filter(players["review_decisions"] > 0).sort("review_decisions", descending=True).head(rows)
    pct = [(pl.col(f"review_{k}_rate") * 100).round(1).alias(f"{k} %") for k in ("match", "mistake", "blunder")]
    return shown.select("game", "variant", "player", pl.col("review_hands").alias("hands"),
                        pl.col("review_decisions").alias("decisions"), pct[0],
                        pl.col("review_mean_loss").round(2).alias("mean loss"), *pct[1:])
