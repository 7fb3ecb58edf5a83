"""End to end: ingest + audit of N simulated hands of mixed games, 1 vs 2 workers.

    python benchmarks/pipeline.py [--hands 1000000] [--workers 1 2] [--ray [1 2]]

A few hundred simulated hands per implemented variant are repeated under new ids into
one JSONL file; each run (in a fresh process) ingests it into a new dataset and audits
the dataset into its verdicts/plays/outcomes/seats tables. Prints hands/s and peak memory.

With --ray, the same is done with the audit on a local Ray cluster of 1 and 2 nodes of
one CPU each (``ray.cluster_utils.Cluster``, started before the clock starts), next to
the local pool's rows; the audit's own hands/s and core-µs per action are printed too.
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


#: a local Ray cluster of NODES nodes of one CPU each, its sockets under a short folder
RAY_SETUP = """
import os, tempfile
os.environ["RAY_TMPDIR"] = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
import ray
from ray.cluster_utils import Cluster
cluster = Cluster(initialize_head=True, head_node_args={{"num_cpus": 1, "include_dashboard": False}})
for _ in range({nodes} - 1):
    cluster.add_node(num_cpus=1)
ray.init(address=cluster.address, logging_level="ERROR", log_to_driver=False)
ADDRESS = cluster.address
import atexit, shutil
atexit.register(lambda: (ray.shutdown(), cluster.shutdown(), shutil.rmtree(os.environ["RAY_TMPDIR"], True)))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--keep", help="work in this folder and keep it")
    parser.add_argument("--ray", type=int, nargs="*", metavar="NODES",
                        help="also audit on local Ray clusters of these many 1-CPU nodes (default 1 2)")
    args = parser.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="paipu-pipeline-")
    os.makedirs(folder, exist_ok=True)
    src = os.path.join(folder, "hands.jsonl")
    base = [r for game, variant, n in VARIANTS for r in base_hands(game, n, variant=variant)]
    with open(src, "w", encoding="utf-8") as f:
        for k in range(args.hands):
            record = dict(base[k % len(base)], id=f"p-{k:08d}")
            if "match" in record:  # each repetition of a match is a match of its own
                record["match"] = dict(record["match"], id=f"{record['match']['id']}-{k // len(base)}")
            f.write(dump(record) + "\n")
    print(f"{args.hands} hands, {os.path.getsize(src) / 1e6:.0f} MB JSONL, in {folder}")
    actions = sum(len(base[k % len(base)]["actions"]) for k in range(args.hands))
    print(f"{actions} actions ({actions / args.hands:.1f} a hand)")
    print(f"{'audit on':>14} {'cores':>5} {'ingest s':>9} {'audit s':>9} {'total s':>9} {'hands/s':>9} "
          f"{'audit hands/s':>13} {'core-µs/action':>14} {'peak MB':>8}")
    runs = [("local pool", workers, None) for workers in args.workers]
    if args.ray is not None:
        runs += [(f"ray {nodes} node{'s' if nodes > 1 else ''}", nodes, nodes) for nodes in (args.ray or [1, 2])]
    for label, workers, nodes in runs:
        ds = os.path.join(folder, f"ds-{workers}-{nodes}")
        shutil.rmtree(ds, ignore_errors=True)
        code = RAY_SETUP.format(nodes=nodes) if nodes else "ADDRESS = None\n"
        code += f"""
import time
from paipu.replay.ingest import ingest_files
from paipu.replay.audit import audit_dataset
t = time.perf_counter()
s = ingest_files([{src!r}], {ds!r}, workers={workers})
t1 = time.perf_counter()
audit_dataset({ds!r}, workers={workers}, ray_address=ADDRESS)
t2 = time.perf_counter()
assert s.written == {args.hands}, s
print("TIMES", t1 - t, t2 - t1)
"""
        seconds, peak, out = peak_of(code)
        ingest_s, audit_s = map(float, [x for x in out.splitlines() if x.startswith("TIMES")][0].split()[1:])
        total = ingest_s + audit_s
        print(f"{label:>14} {workers:5d} {ingest_s:9.1f} {audit_s:9.1f} {total:9.1f} {args.hands / total:9.0f} "
              f"{args.hands / audit_s:13.0f} {audit_s * workers / actions * 1e6:14.1f} {peak:8.0f}")
        shutil.rmtree(ds, ignore_errors=True)
    print("\nPeak memory is the main process's; each worker holds about one batch or part file more.")
    print("target for 1M hands: under 10 minutes, peak under 2 GB")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
