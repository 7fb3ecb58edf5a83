"""Statistics over an audited dataset, computed by DuckDB from the ``.sql`` files beside this.

Each table of the dataset is a view of the same name (``hands``, ``actions``, ``rejects``,
``verdicts``, ``plays``, ``outcomes``, ``seats``); a statistic is one file in ``sql/`` (a
game's own statistics: in the ``sql/`` folder of its package, ``replay/games/<game>/sql/``), run
with ``$game`` and ``$variant`` bound (null: all). No SQL text is ever built from values.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
from polars.datatypes import DataTypeClass

from . import COMMON_STATS, NEEDS, stat_names  # noqa: F401 - the lists live where the CLI reads them without duckdb

TABLES = ("hands", "actions", "rejects", "verdicts", "plays", "outcomes", "seats")
#: tables other commands may add (``paipu fraud``, ``paipu review``): views when present, sections of the report
OPTIONAL_TABLES = ("decisions", "players", "suspects", "reviews", "reviewed")
#: the statistics of every game and those the games declare as their own, in report order
STATS = stat_names()


class DatasetError(ValueError):
    """A folder that is not an audited dataset."""


class QueryError(ValueError):
    """An ad-hoc query that cannot run (no statement in it)."""


SQL_DIR = Path(__file__).with_name("sql")


def sql_text(name: str, folder: Path = SQL_DIR) -> str:
    """The text of ``NAME.sql`` in *folder* (``sql/``, or the fraud screens' own; shipped as
    package data), or of a game's own statistic (``sql/NAME.sql`` of the game's package:
    ``Game.stats`` names them)."""
    path = folder / f"{name}.sql"
    if not path.is_file() and folder == SQL_DIR:
        from paipu.replay.games import games

        for g in games():
            if name in g.stats:
                return g.sql_file(name).read_text(encoding="utf-8")
    return path.read_text(encoding="utf-8")


def frame(result: duckdb.DuckDBPyRelation | duckdb.DuckDBPyConnection | None, limit: int | None = None) -> pl.DataFrame:
    """The result of a query as a polars DataFrame, through Arrow in one piece: no row is
    copied in Python. *result* is a relation (``con.sql(text, params=...)``), or a
    connection holding the result of ``execute`` (the ad-hoc query's way, whose errors name
    where in the text they are); None, DuckDB's answer to no statement, is an empty frame.
    *limit*: no more than that many rows are read (the rest of the result is left unread).

    The column types are those the values had in Python, which a copy of the rows gave and
    --json, --csv and the report show: every integer Int64, every float Float64, a decimal
    of scale 0 Int64 (a ``sum`` of integers is a hugeint, which arrives through Arrow as
    ``decimal(38,0)``), inside lists and structs as well; other decimals stay decimals, as
    Python's ``Decimal`` gave them (as floats a table would show ``1.50`` for ``1.5``)."""
    if result is None:
        return pl.DataFrame()
    with warnings.catch_warnings():  # (DuckDB's note that execute's result is copied once, in C++, into Arrow)
        warnings.filterwarnings("ignore", "Arrow output on a DB-API result", UserWarning)
        if limit is None:
            table = result.to_arrow_table()
        else:
            batches, rows = [], 0
            reader = result.to_arrow_reader()
            if reader is None:
                return pl.DataFrame()
            for batch in reader:
                batches.append(batch)
                rows += batch.num_rows
                if rows >= limit:
                    break
            table = pa.Table.from_batches(batches, reader.schema).slice(0, limit)
    df = pl.DataFrame(pl.from_arrow(table))
    cast = [pl.col(name).cast(plain) for name, dtype in df.schema.items() if (plain := _plain(dtype)) != dtype]
    return df.with_columns(cast) if cast else df


def _plain(dtype: pl.DataType | DataTypeClass) -> pl.DataType | DataTypeClass:
    """The type of *dtype*'s values once they have been through Python (see :func:`frame`)."""
    if dtype.is_integer():
        return pl.Int64()
    if dtype.is_float():
        return pl.Float64()
    if isinstance(dtype, pl.Decimal) and dtype.scale == 0:
        return pl.Int64()
    if isinstance(dtype, (pl.List, pl.Array)):
        return pl.List(_plain(dtype.inner))
    if isinstance(dtype, pl.Struct):
        return pl.Struct([pl.Field(f.name, _plain(f.dtype)) for f in dtype.fields])
    return dtype


def parquet_files(folder: str) -> list[str]:
    """The Parquet part files under *folder* (absolute, sorted; temporaries left out)."""
    folder = os.path.abspath(folder)
    return sorted(os.path.join(dp, f) for dp, _, fs in os.walk(folder) for f in fs if f.endswith(".parquet"))


def stray_file(base: str, files: list[str]) -> str | None:
    """A file of the table at *base* (its *files*) that is not where paipu puts its parts,
    or None. A table's parts are all ``game=<name>/<file>`` (partitioned by game) or all
    ``<file>`` (``rejects``): a file anywhere else — one a user's ``COPY ... TO`` left
    beside the partitions, in a folder inside one, under another key — is named, since
    DuckDB's and pyarrow's readers refuse the whole table for it or, deeper in a
    partition, read it as rows of the table."""
    if not all(f.startswith(base) for f in files):
        return None  # (listed from another spelling of the root: not judged)
    parts = [f[len(base):].lstrip("/" + os.sep).replace(os.sep, "/").split("/") for f in files]
    shapes = ["flat" if len(p) == 1 else "game" if len(p) == 2 and p[0].startswith("game=") else "other"
              for p in parts]
    if "other" in shapes:
        return files[shapes.index("other")]
    if "flat" in shapes and "game" in shapes:
        return files[shapes.index("flat")]
    return None


def connect(root: str, need_audit: bool = True, safe: bool = False, memory: str | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the dataset's tables as views and the statistics' macros.

    *safe*: the tables are scanned through Arrow, and DuckDB itself may then touch no file
    at all (no ``read_csv``, ``copy ... to``, ``attach``, extensions), and uses *memory* at most
    (default :data:`SAFE_MEMORY`); see :func:`lock_down`.

    A dataset on object storage (a URI) is read through pyarrow's filesystems, each table
    registered as an Arrow dataset that DuckDB scans: DuckDB's own S3 reader (the httpfs
    extension) is downloaded at first use, which machines without internet cannot do.
    """
    from paipu.replay.io import store
    from paipu.replay.io.commit import settle, snapshot

    def has(table: str) -> bool:
        return store.isdir(store.join(root, table))

    try:
        if not has("hands") and not has("rejects"):
            raise DatasetError(f"{root}: not a paipu dataset (no hands/ folder); make one with 'paipu ingest'")
        if need_audit and not has("hands"):
            from paipu.replay.audit import rejects_only

            raise DatasetError(rejects_only(root) or f"{root}: not a paipu dataset (no hands/ folder); "
                                                     f"make one with 'paipu ingest'")
        if need_audit and not has("outcomes"):
            raise DatasetError(f"{root}: not audited yet (no outcomes/ folder); run 'paipu audit {root}' first")
    except OSError as e:
        raise DatasetError(f"{root}: cannot read it ({str(e).splitlines()[0]})") from None
    settle(root)  # a batch a crashed writer committed is completed first (never half seen)
    # every view from one listing of whole batches: beside a running ingest, no actions
    # of hands the hands view lacks (nor the other way round)
    listed = snapshot(root, TABLES + OPTIONAL_TABLES)
    for table in TABLES + OPTIONAL_TABLES:
        stray = stray_file(store.join(root, table), listed[table])
        if stray:
            where = f"{table}/game=NAME/" if table != "rejects" else f"{table}/"
            raise DatasetError(f"{root}: {stray} is not a part of the {table} table (its parts are "
                               f"{where}FILE); move it out of the dataset")
    con = duckdb.connect()
    from paipu.replay.io.dataset import TABLES as INGESTED

    for table in TABLES + OPTIONAL_TABLES:
        if not listed[table] and table in INGESTED:
            # an ingested table with no row yet (no reject, or every hand rejected) is a view all the
            # same, empty, with its columns (it was missing: "Table with name rejects does not exist")
            schema = INGESTED[table]
            if table != "rejects":
                schema = schema.append(pa.field("game", pa.string()))
            con.register(table, schema.empty_table())
            continue
        if store.is_uri(root):
            files = listed[table]
            if files:  # through Arrow, safe or not: DuckDB's own S3 reader is not available
                con.register(table, store.dataset(files, store.join(root, table)))
            continue
        files = [os.path.abspath(f) for f in listed[table]]
        if files and safe:
            con.register(table, arrow_dataset(os.path.join(root, table), files))
        elif files:
            # the files are listed, not globbed: a folder named like ds[1] or ds*x is taken
            # literally; a view is made from literal text, so each path is quoted, never raw
            listing = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
            con.execute(f"create view {table} as select * from read_parquet([{listing}], hive_partitioning = true, "
                        f"union_by_name = true)")
    con.execute(sql_text("_setup"))
    if has("outcomes"):
        con.execute(sql_text("_legal"))
    if safe:
        try:
            lock_down(con, memory)
        except DatasetError:
            con.close()
            raise
    return con


def open_dataset(root: str) -> duckdb.DuckDBPyConnection:
    """The dataset's tables as DuckDB views, audited or not (what ``paipu sql`` queries)."""
    return connect(root, need_audit=False)


def run_stat(con: duckdb.DuckDBPyConnection, name: str, game: str | None = None,
             variant: str | None = None) -> pl.DataFrame:
    """One statistic as a polars DataFrame."""
    if name not in STATS:
        raise ValueError(f"unknown statistic {name!r} (known: {', '.join(STATS)})")
    if name in NEEDS:  # a statistic of tables another command writes: empty without them
        views = {v for (v,) in con.execute("select view_name from duckdb_views()").fetchall()}
        if not set(NEEDS[name]) <= views:
            return pl.DataFrame()
    return frame(con.sql(sql_text(name), params={"game": game, "variant": variant}))


def legal_by_game(con: duckdb.DuckDBPyConnection, game: str | None = None,
                  variant: str | None = None) -> dict[str, int]:
    """The legal hands of *game* / *variant* (None: all) by game."""
    return dict(con.execute("select game, count(*) from legal($game, $variant) group by game",
                            {"game": game, "variant": variant}).fetchall())


def why_empty(con: duckdb.DuckDBPyConnection, name: str, game: str | None = None,
              variant: str | None = None) -> str:
    """Why statistic *name* has no row for *game* / *variant*, in words."""
    from paipu.replay.games import games

    legal = legal_by_game(con, game, variant)
    where = (f" --game {game}" if game else "") + (f" --variant {variant}" if variant else "")
    if not legal:
        return f"no legal hands match{where}"
    owners = [g.name for g in games() if name in g.stats and name not in COMMON_STATS]
    if owners and not set(owners) & set(legal):
        return (f"a statistic of {', '.join(owners)}, and the {sum(legal.values()):,} legal hands"
                f"{' that match' + where if where else ''} are of {', '.join(sorted(legal))}")
    if name in NEEDS:
        return f"it needs the tables {', '.join(NEEDS[name])} (paipu review DATASET writes them)"
    return f"nothing to count in the {sum(legal.values()):,} legal hands{' that match' + where if where else ''}"


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
        # an aggregate without group by: exactly one row
        [(present,)] = con.execute("select count(*) from information_schema.tables where table_name = ?",
                                   [name]).fetchall()
        if not present:
            return None
        df = frame(con.sql(f"select * from {name}"))
    finally:
        con.close()
    if game is not None and "game" in df.columns:
        df = df.filter(pl.col("game") == game)
    return df


#: what the ``hands`` listing needs of a dataset not audited yet
NO_VERDICTS = "create view verdicts as select null::varchar as hand_id, null::varchar as game, null::boolean as ok, " \
              "null::varchar as code where false"


def find_hands(root: str, game: str | None = None, variant: str | None = None, player: str | None = None,
               code: str | None = None, since: str | None = None, limit: int = 50) -> tuple[pl.DataFrame, int]:
    """Hands of the dataset *root* matching every filter given (``sql/hands.sql``), at most
    *limit* of them in time order, and how many match in all."""
    con = connect(root, need_audit=False)
    try:
        if not con.execute("select 1 from duckdb_views() where view_name = 'verdicts'").fetchall():
            con.execute(NO_VERDICTS)
        if not con.execute("select 1 from duckdb_views() where view_name = 'hands'").fetchall():
            return pl.DataFrame(), 0
        df = frame(con.sql(sql_text("hands"), params={"game": game, "variant": variant, "player": player, "code": code,
                                                      "since": since, "limit": limit}))
        total = int(df["matching"][0]) if df.height else 0
        return df.drop("matching"), total
    finally:
        con.close()


def arrow_dataset(folder: str, files: list[str]):
    """The part files of one table as a lazy Arrow dataset (partition column ``game``),
    every part's columns united by name as ``union_by_name`` does for DuckDB."""
    import pyarrow as pa
    import pyarrow.dataset as pads
    import pyarrow.parquet as pq

    from paipu.replay.io.store import LOCAL

    schema = pa.unify_schemas([pq.read_schema(f, filesystem=LOCAL) for f in files], promote_options="permissive")
    part = pa.schema([("game", pa.string())])
    if "game" not in schema.names:
        schema = schema.append(part.field("game"))
    return pads.dataset(files, format="parquet", schema=schema, partition_base_dir=os.path.abspath(folder), filesystem=LOCAL,
                        partitioning=pads.partitioning(part, flavor="hive"))


#: the bounds of ``paipu sql --safe`` (docs/analysis.md): DuckDB's memory (its default is
#: 80% of the machine's), the seconds a query may run, the rows of its result
SAFE_MEMORY = "1GB"
SAFE_TIMEOUT = 30.0
SAFE_ROWS = 1_000_000


def lock_down(con: duckdb.DuckDBPyConnection, memory: str | None = None) -> None:
    """No file, network or extension access for DuckDB any more, *memory* at most and no
    spilling to disk, and the configuration locked so that a query cannot undo it (the
    tables must be Arrow scans by then)."""
    try:
        con.execute("set memory_limit = ?", [memory or SAFE_MEMORY])
    except duckdb.Error:
        raise DatasetError(f"--memory must be a size such as 512MB or 2GB, got {memory!r}") from None
    con.execute("set temp_directory = ''")  # over the limit a query fails: it never fills a disk
    con.execute("set enable_external_access = false")
    con.execute("set lock_configuration = true")


class QueryStopped(DatasetError):
    """A query past a bound of ``--safe`` (its time or its rows)."""


def run_sql(root: str, query: str, safe: bool = False, memory: str | None = None, timeout: float | None = SAFE_TIMEOUT,
            max_rows: int | None = SAFE_ROWS) -> pl.DataFrame:
    """An ad-hoc query with the dataset's tables as views.

    The query runs with the user's rights: DuckDB can read and write any file the user
    can (``read_csv('/etc/passwd')``, ``copy ... to``); *safe* allows only the views, and
    bounds the query: DuckDB's *memory*, *timeout* seconds (the connection is interrupted
    from a timer thread), *max_rows* rows in the result (None: no bound).
    """
    import threading

    con = connect(root, need_audit=False, safe=safe, memory=memory)
    timer = threading.Timer(timeout, con.interrupt) if safe and timeout else None
    try:
        if timer is not None:
            timer.start()
        try:
            cursor = con.execute(query)
            if cursor is None:  # DuckDB's answer to no statement at all: "", ";", a comment
                raise QueryError("the query has no SQL statement (give one, e.g. \"select count(*) from hands\")")
            if cursor.description is None:
                return pl.DataFrame()
            names = [d[0] for d in cursor.description]
            twice = next((name for name in names if names.count(name) > 1), None)
            if twice is not None:
                raise QueryError(f"the result has more than one column named {twice!r}: give each its own name "
                                 f"(... as NAME)")
            df = frame(cursor, max_rows + 1 if safe and max_rows is not None else None)
        except duckdb.OutOfMemoryException as e:
            if not safe:
                raise
            said = str(e).split("\n")[0].split(" Database is launched")[0]
            raise QueryStopped(f"query stopped: it needs more than the memory limit of --safe ({memory or SAFE_MEMORY}; "
                               f"--memory): {said}") from None
        except duckdb.InterruptException:
            if timer is not None and timer.finished.is_set():
                raise QueryStopped(f"query stopped after {timeout:g} s (the time limit of --safe; --timeout)") from None
            raise
        if safe and max_rows is not None and df.height > max_rows:
            raise QueryStopped(f"the result has more than {max_rows:,} rows (the limit of --safe; --max-rows, "
                               "or a limit clause)")
        return df
    finally:
        if timer is not None:
            timer.cancel()
        con.close()


def sql_query(root: str, query: str, safe: bool = False, memory: str | None = None, timeout: float | None = SAFE_TIMEOUT,
          max_rows: int | None = SAFE_ROWS) -> pl.DataFrame:
    """``paipu sql``: :func:`run_sql`, with DuckDB's own errors (a syntax error, a missing
    table) as a :class:`QueryError` of one line ("query failed: ...")."""
    try:
        return run_sql(root, query, safe=safe, memory=memory, timeout=timeout, max_rows=max_rows)
    except duckdb.Error as e:
        raise QueryError(f"query failed: {' '.join(str(e).split())}") from None


def write_parquet(df: pl.DataFrame, path: str) -> None:
    """*df* as the Parquet file *path*, whole or not at all; an OSError as it comes, and
    polars' wrapping of one (a full disk) as a :class:`QueryError` naming *path*."""
    from paipu.replay.io.output import atomic_file

    try:
        with atomic_file(path, gz=False) as f:  # the old file or the new one
            df.write_parquet(f)
    except pl.exceptions.PolarsError as e:
        raise QueryError(f"{path}: cannot write: {' '.join(str(e).split())}") from None


def csv_text(df: pl.DataFrame) -> str:
    """*df* as CSV, every list or struct column as JSON text (CSV holds no nested values)."""
    import json

    nested = [name for name, dtype in df.schema.items() if dtype.is_nested()]
    return df.with_columns([pl.Series(name, [None if v is None else json.dumps(v, ensure_ascii=False, default=str)
                                             for v in df[name].to_list()], dtype=pl.String)
                            for name in nested]).write_csv()
