"""Statistics over an audited dataset, computed by DuckDB from the ``.sql`` files beside this.

Each table of the dataset is a view of the same name (``hands``, ``actions``, ``rejects``,
``verdicts``, ``plays``, ``outcomes``, ``seats``); a statistic is one file in ``sql/``, run
with ``$game`` and ``$variant`` bound (null: all). No SQL text is ever built from values.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import polars as pl

from replay.games import games

TABLES = ("hands", "actions", "rejects", "verdicts", "plays", "outcomes", "seats")
#: tables other commands may add (``paipu fraud``): views when present, sections of the report
OPTIONAL_TABLES = ("players", "suspects")
#: the statistics of every game, in report order (file names in sql/)
COMMON_STATS = (
    "overview", "violations", "bombs", "bombs_by_size", "bombs_by_seat", "multiplier", "multiplier_drivers",
    "seat_advantage", "first_lead", "hand_length", "scores", "players", "ends", "coins_tail",
)
#: and those the games declare as their own
STATS = COMMON_STATS + tuple(dict.fromkeys(s for g in games() for s in g.stats if s not in COMMON_STATS))


class DatasetError(ValueError):
    """A folder that is not an audited dataset."""


SQL_DIR = Path(__file__).with_name("sql")


def sql_text(name: str) -> str:
    """The text of ``sql/NAME.sql`` (shipped as package data)."""
    return (SQL_DIR / f"{name}.sql").read_text(encoding="utf-8")


def connect(root: str, need_audit: bool = True) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the dataset's tables as views and the statistics' macros."""
    if not os.path.isdir(os.path.join(root, "hands")) and not os.path.isdir(os.path.join(root, "rejects")):
        raise DatasetError(f"{root}: not a paipu dataset (no hands/ folder); make one with 'paipu ingest'")
    if need_audit and not os.path.isdir(os.path.join(root, "outcomes")):
        raise DatasetError(f"{root}: not audited yet (no outcomes/ folder); run 'paipu audit {root}' first")
    from replay.io.commit import settle

    settle(root)  # a batch a crashed writer committed is completed first (never half seen)
    con = duckdb.connect()
    for table in TABLES + OPTIONAL_TABLES:
        folder = os.path.join(root, table)
        if os.path.isdir(folder) and any(f.endswith(".parquet") for _, _, fs in os.walk(folder) for f in fs):
            # a view must be created from literal text: the path is quoted, never interpolated raw
            path = os.path.join(folder, "**", "*.parquet").replace("'", "''")
            con.execute(f"create view {table} as select * from read_parquet('{path}', hive_partitioning = true, "
                        f"union_by_name = true)")
    con.execute(sql_text("_setup"))
    if os.path.isdir(os.path.join(root, "outcomes")):
        con.execute(sql_text("_legal"))
    return con


def run_stat(con: duckdb.DuckDBPyConnection, name: str, game: str | None = None,
             variant: str | None = None) -> pl.DataFrame:
    """One statistic as a polars DataFrame."""
    if name not in STATS:
        raise ValueError(f"unknown statistic {name!r} (known: {', '.join(STATS)})")
    cursor = con.execute(sql_text(name), {"game": game, "variant": variant})
    names = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    return pl.DataFrame(rows, schema=names, orient="row", infer_schema_length=None)


def all_stats(root: str, game: str | None = None, variant: str | None = None) -> dict[str, pl.DataFrame]:
    """Every statistic of :data:`STATS` over the audited dataset *root*."""
    con = connect(root)
    try:
        return {name: run_stat(con, name, game, variant) for name in STATS}
    finally:
        con.close()


def optional_table(root: str, name: str, game: str | None = None) -> pl.DataFrame | None:
    """A table of :data:`OPTIONAL_TABLES` (rows of *game* when it has a game column), or None when absent."""
    if name not in OPTIONAL_TABLES:
        raise ValueError(f"not an optional table: {name!r}")
    con = connect(root, need_audit=False)
    try:
        if not con.execute("select count(*) from information_schema.tables where table_name = ?", [name]).fetchone()[0]:
            return None
        cursor = con.execute(f"select * from {name}")
        names = [d[0] for d in cursor.description]
        df = pl.DataFrame(cursor.fetchall(), schema=names, orient="row", infer_schema_length=None)
    finally:
        con.close()
    if game is not None and "game" in df.columns:
        df = df.filter(pl.col("game") == game)
    return df


def run_sql(root: str, query: str) -> pl.DataFrame:
    """An ad-hoc query with the dataset's tables as views."""
    con = connect(root, need_audit=False)
    try:
        cursor = con.execute(query)
        if cursor.description is None:
            return pl.DataFrame()
        names = [d[0] for d in cursor.description]
        return pl.DataFrame(cursor.fetchall(), schema=names, orient="row", infer_schema_length=None)
    finally:
        con.close()
