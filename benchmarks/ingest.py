"""Ingest throughput and peak memory, next to DuckDB's own read_json -> Parquet copy.

    python benchmarks/ingest.py [--hands 100000] [--keep DIR] [--ref DIR] [--pure] [--rounds N]

Generates N Dou Dizhu hands (a few hundred simulated hands repeated under new ids) as
JSONL and as paipu text, then times, each in a fresh process:
- ``paipu ingest`` of the JSONL file and of the text file, with 1 and 2 worker processes,
- DuckDB ``COPY (select * from read_json(...)) TO ... (FORMAT parquet)`` of the JSONL file.

Each run reports wall seconds and CPU seconds (of the process and its workers, from the
call to its end: imports and start-up not counted); the ratios to DuckDB are of CPU
time, 1 worker against DuckDB's 1 thread, so that other work on the machine counts less.

``--ref DIR`` also times 1-worker ingest with another version of paipu, a folder holding
it as ``DIR/paipu`` (``mkdir -p DIR/paipu && git archive COMMIT | tar -x -C DIR/paipu``);
``--pure`` also with the pure-Python engine (``PAIPU_PURE=1``); ``--rounds N`` times the
1-worker runs and DuckDB's 1-thread copy N times, alternating, and gives each round's ratio
against that round's DuckDB run (the load on a shared machine moves within a run).
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


def ingest_code(path: str, out: str, hands: int, workers: int = 1, pure: bool = False) -> str:
    shutil.rmtree(out, ignore_errors=True)
    return (("import os\nos.environ['PAIPU_PURE'] = '1'\n" if pure else "")
            + f"from paipu.replay.ingest import ingest_files\n_start()\n"
            f"s = ingest_files([{path!r}], {out!r}, workers={workers})\nassert s.written == {hands}, s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--keep", help="keep the generated files in this folder")
    parser.add_argument("--ref", help="a folder holding another version of paipu (as DIR/paipu) to time too")
    parser.add_argument("--rounds", type=int, default=1,
                        help="time the 1-worker runs and DuckDB's 1-thread copy this many times, alternating "
                             "(each round's ratios against its own DuckDB run; the load moves within a run)")
    parser.add_argument("--pure", action="store_true", help="also time 1-worker ingest with PAIPU_PURE=1")
    args = parser.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="paipu-bench-")
    os.makedirs(folder, exist_ok=True)
    print(f"generating {args.hands} hands in {folder} (load average {os.getloadavg()[0]:.1f}) ...", flush=True)
    jsonl, text = write_inputs(folder, args.hands)
    n = args.hands
    duck_out = os.path.join(folder, "duck.parquet")
    duck = ("import duckdb\ncon = duckdb.connect()\ncon.execute(\"SET threads TO 1\")\n_start()\n"
            f"con.execute(\"COPY (SELECT * FROM read_json('{jsonl}', format='newline_delimited', maximum_object_size=100000000)) "
            f"TO '{duck_out}' (FORMAT parquet, COMPRESSION zstd)\")")
    # the 1-worker runs, timed in every round: (label, input, code, paipu folder or None)
    single = [("paipu ingest (JSONL, 1 worker)", jsonl, False, None), ("paipu ingest (text, 1 worker)", text, False, None)]
    if args.pure:
        single += [("pure ingest (JSONL, 1 worker)", jsonl, True, None), ("pure ingest (text, 1 worker)", text, True, None)]
    if args.ref:
        single += [("ref ingest (JSONL, 1 worker)", jsonl, False, os.path.abspath(args.ref)),
                   ("ref ingest (text, 1 worker)", text, False, os.path.abspath(args.ref))]
    times: dict[str, list[tuple[float, float, float]]] = {}
    for r in range(args.rounds):
        for k, (label, path, pure, where) in enumerate(single):
            code = ingest_code(path, os.path.join(folder, f"ds-{k}"), n, pure=pure)
            times.setdefault(label, []).append(timed(code, where))
        times.setdefault("DuckDB read_json -> Parquet (1 thread)", []).append(timed(duck))
        if args.rounds > 1:
            print(f"round {r + 1}: " + ", ".join(f"{label} {t[-1][1]:.2f}" for label, t in times.items())
                  + f" CPU s; load average {os.getloadavg()[0]:.1f}", flush=True)
    rows = [(label, path, *min(times[label], key=lambda t: t[1])) for label, path, _, _ in single]
    duck_row = ("DuckDB read_json -> Parquet (1 thread)", jsonl, *min(times["DuckDB read_json -> Parquet (1 thread)"],
                                                                        key=lambda t: t[1]))
    for k, (label, path, workers) in enumerate((("paipu ingest (JSONL, 2 workers)", jsonl, 2),
                                                ("paipu ingest (text, 2 workers)", text, 2))):
        rows.append((label, path, *timed(ingest_code(path, os.path.join(folder, f"ds-2w-{k}"), n, workers))))
    duck2 = ("DuckDB read_json -> Parquet (2 threads)", jsonl, *timed(duck.replace("SET threads TO 1", "SET threads TO 2")))
    least = " (the least CPU of each over the rounds)" if args.rounds > 1 else ""
    print(f"\n{'':42} {'hands/s':>10} {'hands/CPU-s':>12} {'MB/s':>8} {'seconds':>8} {'CPU s':>8} {'peak MB':>8}{least}")
    for label, path, seconds, cpu, peak in rows + [duck_row, duck2]:
        mb = os.path.getsize(path) / 1e6
        print(f"{label:42} {n / seconds:10.0f} {n / cpu:12.0f} {mb / seconds:8.1f} {seconds:8.2f} "
              f"{cpu:8.2f} {peak:8.0f}")
    duck_cpu = [t[1] for t in times["DuckDB read_json -> Parquet (1 thread)"]]
    print(f"\nCPU time against DuckDB's single-thread copy, 1 worker (each round against its own DuckDB run; target: "
          f"within 3x); load average {os.getloadavg()[0]:.1f} at the end:")
    for label, _, _, _ in single:
        ratios = [t[1] / d for t, d in zip(times[label], duck_cpu)]
        print(f"  {label}: {min(ratios):.2f}x" + (f" - {max(ratios):.2f}x over {len(ratios)} rounds" if len(ratios) > 1 else ""))
    print(f"2 workers against DuckDB's 2 threads (wall): JSONL {rows[-2][2] / duck2[2]:.1f}x, text {rows[-1][2] / duck2[2]:.1f}x; "
          f"input {os.path.getsize(jsonl) / 1e6:.0f} MB JSONL, {os.path.getsize(text) / 1e6:.0f} MB text")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
