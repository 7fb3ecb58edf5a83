"""End to end: ingest + audit of N simulated hands of mixed games, 1 vs 2 workers.

    python benchmarks/pipeline.py [--hands 1000000] [--workers 1 2]

A few hundred simulated hands per implemented variant are repeated under new ids into
one JSONL file; each run (in a fresh process) ingests it into a new dataset and audits
the dataset into its verdicts/plays/outcomes/seats tables. Prints hands/s and peak memory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
from benchmarks._common import base_hands, dump, peak_of  # noqa: E402

VARIANTS = (("doudizhu", "huopin", 200), ("paodekuai", "huopin", 200), ("paodekuai", "classic", 200),
            ("guandan", "standard", 50))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--keep", help="work in this folder and keep it")
    args = parser.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="paipu-pipeline-")
    os.makedirs(folder, exist_ok=True)
    src = os.path.join(folder, "hands.jsonl")
    base = [r for game, variant, n in VARIANTS for r in base_hands(game, n, variant=variant)]
    with open(src, "w", encoding="utf-8") as f:
        for k in range(args.hands):
            f.write(dump(dict(base[k % len(base)], id=f"p-{k:08d}")) + "\n")
    print(f"{args.hands} hands, {os.path.getsize(src) / 1e6:.0f} MB JSONL, in {folder}")
    print(f"{'workers':>8} {'ingest s':>9} {'audit s':>9} {'total s':>9} {'hands/s':>9} {'peak MB':>8}")
    for workers in args.workers:
        ds = os.path.join(folder, f"ds-{workers}")
        shutil.rmtree(ds, ignore_errors=True)
        code = f"""
import time
from replay.ingest import ingest_files
from replay.audit import audit_dataset
t = time.perf_counter()
s = ingest_files([{src!r}], {ds!r}, workers={workers})
t1 = time.perf_counter()
audit_dataset({ds!r}, workers={workers})
t2 = time.perf_counter()
assert s.written == {args.hands}, s
print("TIMES", t1 - t, t2 - t1)
"""
        seconds, peak, out = peak_of(code)
        ingest_s, audit_s = map(float, [x for x in out.splitlines() if x.startswith("TIMES")][0].split()[1:])
        total = ingest_s + audit_s
        print(f"{workers:8d} {ingest_s:9.1f} {audit_s:9.1f} {total:9.1f} {args.hands / total:9.0f} {peak:8.0f}")
        shutil.rmtree(ds, ignore_errors=True)
    print("\nPeak memory is the main process's; each worker holds about one batch or part file more.")
    print("target for 1M hands: under 10 minutes, peak under 2 GB")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
