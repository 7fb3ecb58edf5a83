"""Shared helpers for the benchmarks: peak memory of a child process, sample hands, callgrind counts."""

from __future__ import annotations

import glob
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable

from paipu.replay.sim import simulate


def base_hands(game: str, n: int, seed: int = 1, variant: str | None = None) -> list[dict]:
    return list(simulate(game, variant, n, seed, escape_rate=0.01))


def paired(diffs: list[float]) -> tuple[float, float, float]:
    """The mean of paired differences (per deal) and its 95% t interval (NaN with fewer than two)."""
    import math

    from scipy.stats import t

    n = len(diffs)
    if n < 2:
        return (diffs[0] if diffs else math.nan), math.nan, math.nan
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = float(t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def best(fn, times: int = 3) -> float:
    """The least wall time of *times* calls of *fn*."""
    out = []
    for _ in range(times):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return min(out)


def run_child(code: str, cwd: str | None = None, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run *code* in a fresh Python (importing paipu from the checkout *cwd* when given);
    returns (seconds, peak RSS in MB, its stdout). *env*: variables to add."""
    t = time.perf_counter()
    env = dict(os.environ, **(env or {}))
    with tempfile.TemporaryDirectory() as folder:
        if cwd is not None:
            # the checkout's root is the package itself: a link named paipu to it, first on
            # the path, comes before the editable install of this checkout
            os.symlink(os.path.abspath(cwd), os.path.join(folder, "paipu"))
            env["PYTHONPATH"] = folder
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd)
    seconds = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, peak, proc.stdout


def peak_of(code: str, cwd: str | None = None) -> tuple[float, float, str]:
    """Like run_child, but the peak is reported by the child itself (children's max is cumulative)."""
    wrapped = code + "\nimport resource, sys\nprint('PEAK', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
    seconds, _, out = run_child(wrapped, cwd)
    peak = float([line for line in out.splitlines() if line.startswith("PEAK")][-1].split()[1])
    return seconds, peak, out


#: the start of a child script that times CPU: ``cpu()``, the seconds of this process and of
#: the child processes it has reaped (a pool's workers, once the pool closes)
CPU_CLOCK = """
import resource, time
def cpu():
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime
"""


def dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


def write_hands(folder: str, games: Iterable[tuple[str, str]], hands: int) -> list[str]:
    """*hands* simulated hands of each (game, variant) as a JSONL file in *folder*: the
    files' paths, in order."""
    paths = []
    for game, variant in games:
        path = os.path.join(folder, f"{game}-{variant}.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for record in base_hands(game, hands, variant=variant):
                f.write(dump(record) + "\n")
        paths.append(path)
    return paths


#: the start of a child script for :func:`callgrind`: the simulated hands of JSONL files
#: that replay without a violation (``ok_records(path)``)
CHILD_PRELUDE = r"""
import json, os, sys
from paipu.replay.replayer import make_table, replay

def ok_records(path):
    records = [json.loads(line) for line in open(path, encoding="utf-8")]
    return [r for r in records if replay(r).ok]
"""


def callgrind(checkout: str, code: str, args: list[str], env: dict[str, str] | None = None) -> tuple[str, list[int]]:
    """Run *code* with *args* in a fresh Python under callgrind, importing paipu from the
    checkout *checkout* (``PYTHONHASHSEED=0``, *env* added); each call of ``os.getppid``
    in it makes callgrind dump its counts (``--dump-before=getppid``). Returns its stdout
    and the instructions of each dump, in order (the exit's last)."""
    with tempfile.TemporaryDirectory() as folder:
        os.symlink(os.path.abspath(checkout), os.path.join(folder, "paipu"))
        out = os.path.join(folder, "callgrind.out")
        env = dict(os.environ, PYTHONPATH=folder, PYTHONHASHSEED="0", **(env or {}))
        proc = subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=getppid", f"--callgrind-out-file={out}",
                               sys.executable, "-c", code, *args],
                              capture_output=True, text=True, env=env, cwd=checkout)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr[-2000:])
        counts = []
        for part in sorted(glob.glob(out + ".*"), key=lambda p: int(p.rsplit(".", 1)[1])):
            with open(part, encoding="utf-8") as f:
                text = f.read()
            found = re.search(r"^summary:\s+(\d+)", text, re.M) or re.search(r"^totals:\s+(\d+)", text, re.M)
            assert found is not None, part
            counts.append(int(found.group(1)))
    return proc.stdout, counts
