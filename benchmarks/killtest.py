"""The kill test: ingest and the dataset audit killed at every write step and at random
moments, rerun, and every table compared with a dataset written without a kill.

    python benchmarks/killtest.py [--seeds 2] [--hands 40] [--batch 4] [--random 10]

Per seed: an input of mixed games (Dou Dizhu, Paodekuai, Guandan) with a bad line, a
``duplicate_id`` and a repeated hand; then
- ingest killed at each write step N (``PAIPU_CRASH_AT=N``: the process ends with
  ``os._exit``, as ``kill -9`` would), rerun to the end;
- the same, killed a second time at the first write step of the rerun (its repair);
- the dataset audit killed at each of its write steps, rerun;
- ingest and audit as fresh processes SIGKILLed after a random delay, rerun;
- ``ingest --follow`` of a folder (that input, a half-written last line, a text file)
  killed at each of its write steps, restarted, and compared with a plain ingest of the
  folder (``--follow-only``: these trials alone).
Prints the tally: trials, hands and rows checked, rows lost, rows duplicated.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
from tests.crashkit import FOLLOW, INGEST, Bench, Tally, keys, make_input, run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--random", type=int, default=10, help="random-delay SIGKILL trials per seed and writer")
    parser.add_argument("--follow-only", action="store_true", help="only the ingest --follow trials")
    args = parser.parse_args()
    ingest, repair, audit, killed, followed = Tally(), Tally(), Tally(), Tally(), Tally()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(1, args.seeds + 1):
            follow_trials(followed, os.path.join(folder, f"f{seed}"), seed, args.hands, args.batch)
            if args.follow_only:
                continue
            bench = Bench(os.path.join(folder, f"s{seed}"), seed, args.hands, args.batch)
            print(f"seed {seed}: {args.hands} hands in batches of {args.batch}; ingest {bench.ingest_steps} "
                  f"write steps, audit {bench.audit_steps}", flush=True)
            for step in range(1, bench.ingest_steps + 1):
                bench.ingest_trial(ingest, crash_at=step)
                bench.ingest_trial(repair, crash_at=step, again_at=1)
            for step in range(1, bench.audit_steps + 1):
                bench.audit_trial(audit, crash_at=step)
            # fresh processes killed at random moments of their run
            rng = random.Random(seed)
            t = time.perf_counter()
            run(INGEST, bench.src, os.path.join(folder, "timing"), args.batch, kill_after=None)
            took = time.perf_counter() - t + 1.0  # + the start-up of a fresh Python
            for _ in range(args.random):
                bench.ingest_trial(killed, kill_after=rng.uniform(0, took))
                bench.audit_trial(killed, kill_after=rng.uniform(0, took))
    total = Tally()
    for name, tally in (("ingest killed at each step", ingest), ("ingest killed again while repairing", repair),
                        ("audit killed at each step", audit), ("SIGKILL at a random moment", killed),
                        ("ingest --follow killed at each step", followed)):
        print(f"{name:38} {tally}")
        for field in ("trials", "killed", "hands", "rows", "lost", "duplicates"):
            setattr(total, field, getattr(total, field) + getattr(tally, field))
    print(f"{'total':38} {total}   ({time.perf_counter() - t0:.0f} s)")
    if total.lost or total.duplicates:
        raise SystemExit(1)


def follow_trials(tally: Tally, folder: str, seed: int, hands: int, batch: int) -> None:
    """``ingest --follow`` killed at each write step of its run over a folder, restarted."""
    from paipu.replay.ingest import ingest_files
    from paipu.replay.io.sources import expand_inputs
    from paipu.replay.io.text import record_to_text
    from paipu.replay.sim import simulate

    logs = os.path.join(folder, "logs")
    os.makedirs(logs)
    make_input(os.path.join(logs, "in.jsonl"), seed, hands)
    with open(os.path.join(logs, "in.jsonl"), "a", encoding="utf-8") as f:
        f.write('{"id": "half-writ')  # held back
    with open(os.path.join(logs, "t.paipu"), "w", encoding="utf-8") as f:
        f.write("".join(record_to_text(r) for r in simulate("paodekuai", None, 3, seed)))
    tables = ("hands", "actions", "rejects")
    ingest_files(expand_inputs([logs]), os.path.join(folder, "ref"), batch_size=batch, workers=1)
    reference = keys(os.path.join(folder, "ref"), tables)
    out = os.path.join(folder, "trial")
    _, steps = run(FOLLOW, logs, out, batch)
    assert steps is not None
    print(f"seed {seed}: ingest --follow {steps} write steps", flush=True)
    for step in range(1, steps + 1):
        shutil.rmtree(out, ignore_errors=True)
        code, _ = run(FOLLOW, logs, out, batch, step)
        run(FOLLOW, logs, out, batch)
        tally.add(reference, keys(out, tables), code != 0)


if __name__ == "__main__":
    main()
