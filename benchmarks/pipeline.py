"""End to end: ingest + audit of N simulated hands of mixed games, 1 vs 2 workers.

    python benchmarks/pipeline.py [--hands 1000000] [--workers 1 2] [--ray [1 2]] [--ref OTHER_CHECKOUT [--rounds N]]

A few hundred simulated hands per implemented variant are repeated under new ids into
one JSONL file; each run (in a fresh process) ingests it into a new dataset and audits
the dataset into its verdicts/plays/outcomes/seats tables. Prints hands/s and peak memory.

With --ray, the same is done with the audit on a local Ray cluster of 1 and 2 nodes of
one CPU each (``ray.cluster_utils.Cluster``, started before the clock starts), next to
the local pool's rows; the audit's own hands/s and core-µs per action are printed too.

The audit's CPU time (its process and its pool's workers; not Ray's) gives hands per
CPU-second, steadier than hands/s on a shared machine. With ``--ref``, each local-pool
dataset is audited again, after this checkout's audit, by another checkout of paipu (for
example ``git worktree add ../ref COMMIT``) on a copy of the same hands and actions in the
same run: its row, the ratio new/ref of hands per CPU-second, and whether every audit
table file (verdicts, plays, outcomes, seats) is byte for byte the same as this checkout's.
``--rounds N`` audits N times with each checkout, alternately (``force``), and keeps each
one's least CPU time: the load of a shared machine changes within a run.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
from benchmarks._common import CPU_CLOCK, base_hands, dump, peak_of  # noqa: E402

#: the audit of dataset DS with WORKERS workers, timed: wall seconds and CPU seconds of
#: this process and of the pool's worker processes (reaped when the pool closes)
AUDIT = CPU_CLOCK + """
from paipu.replay.audit import audit_dataset
t, c = time.perf_counter(), cpu()
audit_dataset(DS, workers=WORKERS, ray_address=ADDRESS, force=FORCE)
print("AUDIT", time.perf_counter() - t, cpu() - c)
"""
AUDIT_TABLES = ("verdicts", "plays", "outcomes", "seats")

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
    parser.add_argument("--ref", help="another checkout of paipu to audit the same datasets with (local pool runs)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with --ref: audit with each checkout this many times, alternately, and keep the least CPU")
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
          f"{'audit hands/s':>13} {'core-µs/action':>14} {'audit CPU s':>11} {'hands/CPU-s':>11} {'peak MB':>8}")
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
t = time.perf_counter()
s = ingest_files([{src!r}], {ds!r}, workers={workers})
print("INGEST", time.perf_counter() - t)
assert s.written == {args.hands}, s
""" + _audit(ds, workers, False, alone=False)
        seconds, peak, out = peak_of(code)
        ingest_s = float(_line(out, "INGEST")[0])
        audit_s, cpu_s = map(float, _line(out, "AUDIT"))
        _row(label, workers, ingest_s, audit_s, None if nodes else cpu_s, args.hands, actions, peak)
        if args.ref and not nodes:
            ref = os.path.join(folder, f"ref-{workers}")
            shutil.rmtree(ref, ignore_errors=True)
            for table in ("hands", "actions"):
                shutil.copytree(os.path.join(ds, table), os.path.join(ref, table))
            _, ref_peak, out = peak_of(_audit(ref, workers, False), args.ref)
            ref_audit_s, ref_cpu_s = map(float, _line(out, "AUDIT"))
            for _ in range(args.rounds - 1):  # again, alternately: the machine's load changes
                out = peak_of(_audit(ds, workers, True))[2]
                audit_s, cpu_s = min((audit_s, cpu_s), tuple(map(float, _line(out, "AUDIT"))), key=lambda x: x[1])
                out = peak_of(_audit(ref, workers, True), args.ref)[2]
                ref_audit_s, ref_cpu_s = min((ref_audit_s, ref_cpu_s), tuple(map(float, _line(out, "AUDIT"))),
                                             key=lambda x: x[1])
            if args.rounds > 1:
                _row(f"(least of {args.rounds})", workers, ingest_s, audit_s, cpu_s, args.hands, actions, peak)
            _row("ref", workers, ingest_s, ref_audit_s, ref_cpu_s, args.hands, actions, ref_peak)
            print(f"{'new/ref':>14} {'':5} {'':9} {ref_audit_s / audit_s:8.2f}× {'':9} {'':9} {'':13} {'':14} {'':11} "
                  f"{ref_cpu_s / cpu_s:10.2f}×   hands per CPU-second")
            same, differ = _compare(ds, ref)
            print(f"{'':14} audit tables: {same} files byte for byte the same as the ref's"
                  + (f", {len(differ)} NOT: {', '.join(differ[:5])}" if differ else ""))
            shutil.rmtree(ref, ignore_errors=True)
        shutil.rmtree(ds, ignore_errors=True)
    print("\nPeak memory is the main process's; each worker holds about one batch or part file more.")
    print("target for 1M hands: under 10 minutes, peak under 2 GB")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


def _audit(ds: str, workers: int, force: bool, alone: bool = True) -> str:
    """The child's code auditing *ds* (*alone*: in a process of its own, on the local pool)."""
    code = AUDIT.replace("DS", repr(ds)).replace("WORKERS", str(workers)).replace("FORCE", str(force))
    return ("ADDRESS = None\n" if alone else "") + code


def _line(out: str, tag: str) -> list[str]:
    return [x for x in out.splitlines() if x.startswith(tag + " ")][0].split()[1:]


def _row(label: str, workers: int, ingest_s: float, audit_s: float, cpu_s: float | None, hands: int, actions: int,
         peak: float) -> None:
    total = ingest_s + audit_s
    cpu = f"{cpu_s:11.1f} {hands / cpu_s:11.0f}" if cpu_s is not None else f"{'-':>11} {'-':>11}"
    print(f"{label:>14} {workers:5d} {ingest_s:9.1f} {audit_s:9.1f} {total:9.1f} {hands / total:9.0f} "
          f"{hands / audit_s:13.0f} {audit_s * workers / actions * 1e6:14.1f} {cpu} {peak:8.0f}", flush=True)


def _compare(new: str, ref: str) -> tuple[int, list[str]]:
    """(files the same, relative paths that differ or exist on one side only) over the
    audit tables of two datasets audited from the same hands and actions files."""
    same, differ = 0, []
    for table in AUDIT_TABLES:
        files = set()
        for root in (new, ref):
            for dirpath, _, names in os.walk(os.path.join(root, table)):
                files |= {os.path.relpath(os.path.join(dirpath, f), root) for f in names if f.endswith(".parquet")}
        for rel in sorted(files):
            a, b = os.path.join(new, rel), os.path.join(ref, rel)
            if os.path.exists(a) and os.path.exists(b) and filecmp.cmp(a, b, shallow=False):
                same += 1
            else:
                differ.append(rel)
    return same, differ


if __name__ == "__main__":
    main()
