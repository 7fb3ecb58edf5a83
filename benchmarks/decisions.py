"""The fraud pipeline's cost: ``paipu audit --decisions`` against the plain audit, per game.

    python benchmarks/decisions.py [--games doudizhu,paodekuai,guandan,shuangkou] [--hands 20000]
                                   [--workers 2] [--rounds 2]

For each game, *hands* simulated hands are ingested into a dataset; then, alternately,
the plain audit and the audit with ``decisions=True`` are run on it (``force``: every part
again), each in a fresh process, and each kind's least CPU time is kept (the process and
its pool's workers, as ``benchmarks/pipeline.py`` counts it): the machine's load moves
within a run. Prints both CPU times, their ratio (issue 27's target: at most 3×) and
the decisions written per CPU-second.
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
from benchmarks._common import CPU_CLOCK, base_hands, dump, peak_of  # noqa: E402

#: the audit of DS with WORKERS workers, DECISIONS or not: its CPU seconds (this process
#: and the pool's worker processes, reaped when the pool closes) and the decisions rows
AUDIT = CPU_CLOCK + """
from paipu.replay.audit import audit_dataset
from paipu.replay.io.commit import read_table
c = cpu()
audit_dataset(DS, workers=WORKERS, force=True, decisions=DECISIONS)
spent = cpu() - c
rows = read_table(DS, "decisions", ["hand_id"]).num_rows if DECISIONS else 0
print("AUDIT", spent, rows)
"""


def _audit(ds: str, workers: int, decisions: bool) -> tuple[float, int]:
    code = AUDIT.replace("DS", repr(ds)).replace("WORKERS", str(workers)).replace("DECISIONS", str(decisions))
    out = peak_of(code)[2]
    line = [x for x in out.splitlines() if x.startswith("AUDIT ")][0].split()
    return float(line[1]), int(line[2])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="doudizhu,paodekuai,guandan,shuangkou")
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    from paipu.replay.ingest import ingest_files

    print(f"{args.hands} hands a game, {args.workers} workers, least CPU of {args.rounds} alternating rounds")
    print(f"{'game':>10} {'plain CPU s':>11} {'decisions CPU s':>15} {'ratio':>7} {'decisions':>10} {'decisions/CPU-s':>15}")
    for game in args.games.split(","):
        folder = tempfile.mkdtemp(prefix=f"paipu-decisions-{game}-")
        try:
            src = os.path.join(folder, "hands.jsonl")
            with open(src, "w", encoding="utf-8") as f:
                for record in base_hands(game, args.hands):
                    f.write(dump(record) + "\n")
            ds = os.path.join(folder, "ds")
            ingest_files([src], ds, workers=args.workers)
            plain, with_decisions, rows = float("inf"), float("inf"), 0
            for _ in range(args.rounds):
                plain = min(plain, _audit(ds, args.workers, False)[0])
                spent, rows = _audit(ds, args.workers, True)
                with_decisions = min(with_decisions, spent)
            extra = with_decisions - plain
            print(f"{game:>10} {plain:11.2f} {with_decisions:15.2f} {with_decisions / plain:6.2f}× {rows:10d} "
                  f"{rows / extra if extra > 0 else float('inf'):15.0f}", flush=True)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    print("\ntarget (issue 27): audit --decisions at most 3x the plain audit's CPU time")


if __name__ == "__main__":
    main()
