"""Shared helpers for the benchmarks: peak memory of a child process, sample hands."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from paipu.replay.sim import simulate


def base_hands(game: str, n: int, seed: int = 1, variant: str | None = None) -> list[dict]:
    return list(simulate(game, variant, n, seed, escape_rate=0.01))


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


def dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)
