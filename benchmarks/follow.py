"""``ingest --follow`` against a plain ingest of the same folder, in the same run.

    python benchmarks/follow.py [--files 300] [--hands 5000]

Prints, each with the plain ingest (one worker) as the reference:
- the first poll of a folder of FILES files of one hand each (a server's file per table);
- the first poll of one JSONL file of HANDS hands (a catch-up);
- a poll that finds nothing new, per 1,000 files;
- the delay from an appended hand to its commit, the CLI at its default ``--interval`` of 2 s.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]

from paipu.replay.follow import _Follower, _Stop, follow  # noqa: E402
from paipu.replay.ingest import ingest_files  # noqa: E402
from paipu.replay.io.commit import read_table, writing  # noqa: E402
from paipu.replay.io.jsonl import record_to_json  # noqa: E402
from paipu.replay.io.sources import expand_inputs  # noqa: E402
from paipu.replay.sim import simulate  # noqa: E402


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--hands", type=int, default=5000)
    args = parser.parse_args()
    lines = [record_to_json(r).decode() + "\n" for r in simulate("doudizhu", None, max(args.files, args.hands), 1)]
    with tempfile.TemporaryDirectory() as tmp:
        many, one = os.path.join(tmp, "many"), os.path.join(tmp, "one")
        os.makedirs(many)
        os.makedirs(one)
        for i in range(args.files):
            with open(os.path.join(many, f"table-{i:05d}.jsonl"), "w", encoding="utf-8") as f:
                f.write(lines[i])
        with open(os.path.join(one, "all.jsonl"), "w", encoding="utf-8") as f:
            f.writelines(lines[:args.hands])
        for name, folder, what in (("many", many, f"{args.files:,} files of one hand"),
                                   ("one", one, f"one file of {args.hands:,} hands")):
            plain = timed(lambda: ingest_files(expand_inputs([folder]), os.path.join(tmp, f"p-{name}"), workers=1))  # noqa: B023
            followed = timed(lambda: follow([folder], os.path.join(tmp, f"f-{name}"), interval=0.01, settle=0,  # noqa: B023
                                            idle_exit=0))
            print(f"first poll, {what:28} follow {followed:6.2f} s, plain ingest {plain:6.2f} s "
                  f"(follow / ingest {followed / plain:.2f})", flush=True)
        follower = _Follower([many], os.path.join(tmp, "f-many"), "auto", 5000, 10.0, None, _Stop())
        with writing(follower.out):
            follower.load()
            follower.poll(first=True)
        polls = 10
        idle = timed(lambda: [follower.poll() for _ in range(polls)]) / polls
        print(f"a poll that finds nothing new: {idle * 1000:.1f} ms for {args.files:,} files "
              f"({idle * 1000 * 1000 / args.files:.1f} ms per 1,000 files)")
        # the delay from an appended hand to its commit: the CLI at its default --interval
        ds = os.path.join(tmp, "f-one")
        exe = os.path.join(os.path.dirname(sys.executable), "paipu")
        child = subprocess.Popen([exe, "ingest", one, "--out", ds, "--follow", "-q"], stdout=subprocess.DEVNULL)
        delays, rng = [], random.Random(1)
        try:
            time.sleep(3)
            for k in range(5):
                record = list(simulate("doudizhu", None, 1, 1000 + k))[0]
                t = time.perf_counter()
                with open(os.path.join(one, "all.jsonl"), "a", encoding="utf-8") as f:
                    f.write(record_to_json(record).decode() + "\n")
                while record["id"] not in set(read_table(ds, "hands", ["id"]).column("id").to_pylist()):
                    time.sleep(0.02)
                delays.append(time.perf_counter() - t)
                time.sleep(rng.uniform(0, 2))  # appends at any moment of the interval
        finally:
            child.send_signal(signal.SIGINT)
            child.wait()
        delays.sort()
        print(f"an appended hand committed after {delays[len(delays) // 2]:.2f} s (median of {len(delays)}; "
              f"{delays[0]:.2f}-{delays[-1]:.2f}) at --interval 2")


if __name__ == "__main__":
    main()
