"""Shared helpers for the benchmarks: peak memory of a child process, sample hands."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

from paipu.replay.sim import simulate


def base_hands(game: str, n: int, seed: int = 1, variant: str | None = None) -> list[dict]:
    return list(simulate(game, variant, n, seed, escape_rate=0.01))


def run_child(code: str, cwd: str | None = None) -> tuple[float, float, str]:
    """Run *code* in a fresh Python (importing paipu from *cwd* when given); returns
    (seconds, peak RSS in MB, its stdout)."""
    t = time.perf_counter()
    env = dict(os.environ)
    if cwd is not None:
        env["PYTHONPATH"] = cwd
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


def dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)
