"""Time of the full statistics set next to DuckDB merely scanning the same Parquet files.

    python benchmarks/stats.py --dataset DS          # an audited dataset
    python benchmarks/stats.py --hands 200000        # or build one from simulated hands first

"Scan" reads every column of the tables the statistics use (verdicts, plays, outcomes,
seats) with ``max(columns(*))``; "stats" runs every file of analysis/sql. Best of 3.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
from benchmarks._common import base_hands, best, dump  # noqa: E402

from paipu.analysis.queries import STATS, connect, run_stat  # noqa: E402


def build(folder: str, hands: int) -> str:
    from paipu.replay.audit import audit_dataset
    from paipu.replay.ingest import ingest_files

    src = os.path.join(folder, "hands.jsonl")
    base = [r for g, v in (("doudizhu", "huopin"), ("paodekuai", "huopin"), ("paodekuai", "classic"))
            for r in base_hands(g, 200, variant=v)]
    with open(src, "w", encoding="utf-8") as f:
        for k in range(hands):
            f.write(dump(dict(base[k % len(base)], id=f"s-{k:08d}")) + "\n")
    ds = os.path.join(folder, "ds")
    ingest_files([src], ds)
    audit_dataset(ds)
    return ds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset")
    parser.add_argument("--hands", type=int, default=100_000)
    args = parser.parse_args()
    folder = None
    ds = args.dataset
    if ds is None:
        folder = tempfile.mkdtemp(prefix="paipu-stats-")
        print(f"building an audited dataset of {args.hands} hands in {folder} ...", flush=True)
        ds = build(folder, args.hands)
    con = connect(ds)
    hands = con.execute("select count(*) from outcomes").fetchall()[0][0]

    def scan() -> None:
        for table in ("verdicts", "plays", "outcomes", "seats"):
            con.execute(f"select count(*), max(columns(*)) from {table}").fetchall()

    def stats() -> None:
        for name in STATS:
            run_stat(con, name)

    def opened_stats() -> None:  # a fresh connection: views, macros and the legal-hands table included
        fresh = connect(ds)
        for name in STATS:
            run_stat(fresh, name)
        fresh.close()

    scan_s, stats_s, opened_s = best(scan), best(stats), best(opened_stats)
    print(f"{hands} hands: scan {scan_s:.2f} s; full statistics {stats_s:.2f} s on an open dataset "
          f"({stats_s / scan_s:.1f}x the scan), {opened_s:.2f} s opening it too ({opened_s / scan_s:.1f}x); "
          f"target within 3x")
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
