"""Ingest throughput and peak memory, next to DuckDB's own read_json -> Parquet copy.

    python benchmarks/ingest.py [--hands 100000] [--keep DIR]

Generates N Dou Dizhu hands (a few hundred simulated hands repeated under new ids) as
JSONL and as paipu text, then times, each in a fresh process:
- ``paipu ingest`` of the JSONL file and of the text file, with 1 and 2 worker processes,
- DuckDB ``COPY (select * from read_json(...)) TO ... (FORMAT parquet)`` of the JSONL file.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# run as a script, this folder is first on the path and this file would shadow the package
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
from benchmarks._common import base_hands, dump, peak_of  # noqa: E402

from paipu.replay.io.text import record_to_text  # noqa: E402


def write_inputs(folder: str, n: int) -> tuple[str, str]:
    base = base_hands("doudizhu", 300)
    jsonl, text = os.path.join(folder, "hands.jsonl"), os.path.join(folder, "hands.paipu")
    with open(jsonl, "w", encoding="utf-8") as fj, open(text, "w", encoding="utf-8") as ft:
        for k in range(n):
            record = dict(base[k % len(base)], id=f"bench-{k:08d}")
            fj.write(dump(record) + "\n")
            ft.write(record_to_text(record) + "\n")
    return jsonl, text


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--keep", help="keep the generated files in this folder")
    args = parser.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="paipu-bench-")
    os.makedirs(folder, exist_ok=True)
    print(f"generating {args.hands} hands in {folder} ...", flush=True)
    jsonl, text = write_inputs(folder, args.hands)
    rows = []
    runs = (("paipu ingest (JSONL, 1 worker)", jsonl, 1), ("paipu ingest (JSONL, 2 workers)", jsonl, 2),
            ("paipu ingest (text, 1 worker)", text, 1), ("paipu ingest (text, 2 workers)", text, 2))
    for k, (label, path, workers) in enumerate(runs):
        out = os.path.join(folder, f"ds-{k}")
        shutil.rmtree(out, ignore_errors=True)
        code = f"from paipu.replay.ingest import ingest_files\n" \
               f"s = ingest_files([{path!r}], {out!r}, workers={workers})\nassert s.written == {args.hands}, s"
        seconds, peak, _ = peak_of(code)
        rows.append((label, path, seconds, peak))
    duck_out = os.path.join(folder, "duck.parquet")
    code = ("import duckdb\ncon = duckdb.connect()\ncon.execute(\"SET threads TO 1\")\n"
            f"con.execute(\"COPY (SELECT * FROM read_json('{jsonl}', format='newline_delimited', maximum_object_size=100000000)) "
            f"TO '{duck_out}' (FORMAT parquet, COMPRESSION zstd)\")")
    seconds, peak, _ = peak_of(code)
    rows.append(("DuckDB read_json -> Parquet (1 thread)", jsonl, seconds, peak))
    code2 = code.replace('SET threads TO 1', 'SET threads TO 2')
    seconds2, peak2, _ = peak_of(code2)
    rows.append(("DuckDB read_json -> Parquet (2 threads)", jsonl, seconds2, peak2))
    print(f"\n{'':42} {'hands/s':>10} {'MB/s':>8} {'seconds':>8} {'peak MB':>8}")
    for label, path, seconds, peak in rows:
        mb = os.path.getsize(path) / 1e6
        print(f"{label:42} {args.hands / seconds:10.0f} {mb / seconds:8.1f} {seconds:8.2f} {peak:8.0f}")
    duck1, duck2 = rows[4][2], rows[5][2]
    print(f"\nJSONL ingest takes {rows[0][2] / duck1:.1f}x DuckDB's single-thread copy with 1 worker, "
          f"{rows[1][2] / duck2:.1f}x DuckDB's 2-thread copy with 2 workers (target: within 3x); "
          f"input {os.path.getsize(jsonl) / 1e6:.0f} MB JSONL, {os.path.getsize(text) / 1e6:.0f} MB text")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
