"""Ingest throughput and peak memory, next to DuckDB's own read_json -> Parquet copy.

    python benchmarks/ingest.py [--hands 100000] [--keep DIR] [--ref DIR]

Generates N Dou Dizhu hands (a few hundred simulated hands repeated under new ids) as
JSONL and as paipu text, then times, each in a fresh process:
- ``paipu ingest`` of the JSONL file and of the text file, with 1 and 2 worker processes,
- DuckDB ``COPY (select * from read_json(...)) TO ... (FORMAT parquet)`` of the JSONL file.

Each run reports wall seconds and CPU seconds (of the process and its workers, from the
call to its end: imports and start-up not counted); the ratios to DuckDB are of CPU
time, 1 worker against DuckDB's 1 thread, so that other work on the machine counts less.

``--ref DIR`` also times 1-worker ingest with another version of paipu, a folder holding
it as ``DIR/paipu`` (``mkdir -p DIR/paipu && git archive COMMIT | tar -x -C DIR/paipu``).
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


def timed(code: str, path: str | None = None) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds of the timed part, peak MB) of *code* run in a fresh
    process after ``_start()``; the CPU is the process's and its children's (workers).
    *path*: a folder to import paipu from."""
    prefix = ("import resource, time\n"
              "def _cpu():\n"
              "    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)\n"
              "    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime\n")
    suffix = "\nprint('CPU', _cpu() - _t0)\n"
    seconds, peak, out = peak_of(prefix + code.replace("_start()", "_t0 = _cpu()") + suffix, path)
    cpu = float([line for line in out.splitlines() if line.startswith("CPU")][-1].split()[1])
    return seconds, cpu, peak


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--keep", help="keep the generated files in this folder")
    parser.add_argument("--ref", help="a folder holding another version of paipu (as DIR/paipu) to time too")
    args = parser.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="paipu-bench-")
    os.makedirs(folder, exist_ok=True)
    print(f"generating {args.hands} hands in {folder} (load average {os.getloadavg()[0]:.1f}) ...", flush=True)
    jsonl, text = write_inputs(folder, args.hands)
    rows = []
    runs = (("paipu ingest (JSONL, 1 worker)", jsonl, 1), ("paipu ingest (JSONL, 2 workers)", jsonl, 2),
            ("paipu ingest (text, 1 worker)", text, 1), ("paipu ingest (text, 2 workers)", text, 2))
    for k, (label, path, workers) in enumerate(runs):
        out = os.path.join(folder, f"ds-{k}")
        shutil.rmtree(out, ignore_errors=True)
        code = f"from paipu.replay.ingest import ingest_files\n_start()\n" \
               f"s = ingest_files([{path!r}], {out!r}, workers={workers})\nassert s.written == {args.hands}, s"
        rows.append((label, path, *timed(code)))
    refs = []
    for k, (label, path, workers) in enumerate(runs if args.ref else ()):
        if workers == 1:
            out = os.path.join(folder, f"ds-ref-{k}")
            code = f"from paipu.replay.ingest import ingest_files\n_start()\n" \
                   f"s = ingest_files([{path!r}], {out!r}, workers=1)\nassert s.written == {args.hands}, s"
            refs.append((label.replace("paipu", "ref"), path, *timed(code, os.path.abspath(args.ref))))
    duck_out = os.path.join(folder, "duck.parquet")
    code = ("import duckdb\ncon = duckdb.connect()\ncon.execute(\"SET threads TO 1\")\n_start()\n"
            f"con.execute(\"COPY (SELECT * FROM read_json('{jsonl}', format='newline_delimited', maximum_object_size=100000000)) "
            f"TO '{duck_out}' (FORMAT parquet, COMPRESSION zstd)\")")
    rows.append(("DuckDB read_json -> Parquet (1 thread)", jsonl, *timed(code)))
    rows.append(("DuckDB read_json -> Parquet (2 threads)", jsonl, *timed(code.replace("SET threads TO 1", "SET threads TO 2"))))
    print(f"\n{'':42} {'hands/s':>10} {'hands/CPU-s':>12} {'MB/s':>8} {'seconds':>8} {'CPU s':>8} {'peak MB':>8}")
    for label, path, seconds, cpu, peak in rows + refs:
        mb = os.path.getsize(path) / 1e6
        print(f"{label:42} {args.hands / seconds:10.0f} {args.hands / cpu:12.0f} {mb / seconds:8.1f} {seconds:8.2f} "
              f"{cpu:8.2f} {peak:8.0f}")
    load = os.getloadavg()[0]
    print(f"\nCPU time against DuckDB's single-thread copy, 1 worker: JSONL ingest {rows[0][3] / rows[4][3]:.1f}x, "
          f"text ingest {rows[2][3] / rows[4][3]:.1f}x (target: within 3x); 2 workers against DuckDB's 2 threads "
          f"(wall): JSONL {rows[1][2] / rows[5][2]:.1f}x, text {rows[3][2] / rows[5][2]:.1f}x; "
          f"input {os.path.getsize(jsonl) / 1e6:.0f} MB JSONL, {os.path.getsize(text) / 1e6:.0f} MB text; "
          f"load average {load:.1f} at the end")
    for label, _, _, cpu, _ in refs:
        print(f"{label}: {cpu / rows[4][3]:.1f}x DuckDB's single-thread copy in CPU time")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
