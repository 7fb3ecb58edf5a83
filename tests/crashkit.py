"""Kill ingest or the dataset audit part-way, rerun, and count what was lost or doubled.

A trial runs the writer in a child process that dies at its Nth write step
(``PAIPU_CRASH_AT=N``: ``os._exit(137)``, as ``kill -9`` would) or after a random delay
(SIGKILL), then reruns it to the end and compares every table with a dataset written
without a crash: each table's rows are keyed (hands by id, actions by hand and index,
...), and a key missing is a loss, a key too many a duplicate.  Used by
``tests/test_crash.py``, ``tests/test_follow.py`` (``ingest --follow``: :data:`FOLLOW`) and
``benchmarks/killtest.py``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass

from paipu.replay.io.commit import read_table
from paipu.replay.sim import simulate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

INGEST = ("import sys\nfrom paipu.replay.ingest import ingest_files\n"
          "ingest_files([sys.argv[1]], sys.argv[2], batch_size=int(sys.argv[3]), workers=1)\n"
          "from paipu.replay.io import commit\nprint(commit._steps)")
AUDIT = ("import sys\nfrom paipu.replay.audit import audit_dataset\naudit_dataset(sys.argv[2], workers=1)\n"
         "from paipu.replay.io import commit\nprint(commit._steps)")
#: ``ingest --follow`` of a folder until it is idle (its text file's last hand settled at once)
FOLLOW = ("import sys\nfrom paipu.replay.follow import follow\nfollow([sys.argv[1]], sys.argv[2], "
          "batch_size=int(sys.argv[3]), interval=0.01, settle=0, idle_exit=0)\n"
          "from paipu.replay.io import commit\nprint(commit._steps)")
#: the key of a row in each table
KEYS = {"hands": ("id",), "actions": ("hand_id", "idx"), "rejects": ("source", "line", "code"),
        "verdicts": ("hand_id",), "plays": ("hand_id", "idx"), "outcomes": ("hand_id",), "seats": ("hand_id", "seat"),
        "reviews": ("hand_id", "index"), "reviewed": ("hand_id",)}


def make_input(path: str, seed: int, hands: int = 40) -> int:
    """A JSONL file of mixed games with a few bad lines and a repeated hand; its line count."""
    records = (list(simulate("doudizhu", None, hands // 2, seed)) + list(simulate("paodekuai", None, hands // 4, seed))
               + list(simulate("guandan", None, hands - hands // 2 - hands // 4, seed)))
    random.Random(seed).shuffle(records)
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    lines.insert(len(lines) // 3, "not json")
    lines.insert(len(lines) // 2, json.dumps(dict(records[0], players=["x", "y", "z"])))  # duplicate_id
    lines.insert(2 * len(lines) // 3, lines[1])  # the same hand again: skipped
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return len(lines)


def run(code: str, src: str, out: str, batch: int, crash_at: int | None = None,
        kill_after: float | None = None) -> tuple[int, int | None]:
    """Run the writer in a child: (exit code, write steps it counted when it finished).

    With *kill_after* the child is a fresh Python killed by SIGKILL after that many
    seconds; else it is a fork of this process (no start-up cost) that ends itself at
    write step *crash_at* (``PAIPU_CRASH_AT``)."""
    if kill_after is None:
        return _forked(code, src, out, batch, crash_at)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), PAIPU_CRASH_AT=str(10 ** 9))
    child = subprocess.Popen([sys.executable, "-c", code, src, out, str(batch)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(kill_after)
    child.send_signal(signal.SIGKILL)
    stdout, stderr = child.communicate()
    if child.returncode not in (0, -signal.SIGKILL):
        raise RuntimeError(stderr)
    return (0 if child.returncode == 0 else 137), int(stdout) if child.returncode == 0 else None


def _forked(code: str, src: str, out: str, batch: int, crash_at: int | None) -> tuple[int, int | None]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run the writer, report its step count, never return
        status = 1
        try:
            os.close(read)
            from paipu.replay.io import commit

            os.environ["PAIPU_CRASH_AT"] = str(crash_at if crash_at is not None else 10 ** 9)
            commit._steps = 0
            if code == AUDIT:
                from paipu.replay.audit import audit_dataset

                audit_dataset(out, workers=1)
            elif code == FOLLOW:
                from paipu.replay.follow import follow

                follow([src], out, batch_size=batch, interval=0.01, settle=0, idle_exit=0)
            else:
                from paipu.replay.ingest import ingest_files

                ingest_files([src], out, batch_size=batch, workers=1)
            os.write(write, str(commit._steps).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read) as f:
        steps = f.read()
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 137):
        raise RuntimeError(f"the writer failed with exit code {code}")
    return code, int(steps) if code == 0 else None


def forked(fn, *args, crash_at: int | None = None) -> int:
    """``fn(*args)`` in a fork of this process that ends itself at write step *crash_at*
    (``PAIPU_CRASH_AT``, as ``kill -9`` would); its exit code (137: it was killed)."""
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            from paipu.replay.io import commit

            os.environ["PAIPU_CRASH_AT"] = str(crash_at if crash_at is not None else 10 ** 9)
            commit._steps = 0
            fn(*args)
            status = 0
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def keys(out: str, tables) -> dict[str, Counter]:
    found = {}
    for table in tables:
        data = read_table(out, table, list(KEYS[table]))
        rows = zip(*(data.column(c).to_pylist() for c in KEYS[table])) if data is not None else ()
        found[table] = Counter(rows)
    return found


@dataclass
class Tally:
    trials: int = 0
    killed: int = 0
    hands: int = 0
    rows: int = 0
    lost: int = 0
    duplicates: int = 0

    def add(self, reference: dict[str, Counter], got: dict[str, Counter], killed: bool) -> None:
        self.trials += 1
        self.killed += killed
        self.hands += sum(reference["hands"].values()) if "hands" in reference else len(reference["verdicts"])
        for table, ref in reference.items():
            self.rows += sum(ref.values())
            self.lost += sum((ref - got[table]).values())
            self.duplicates += sum((got[table] - ref).values())

    def __str__(self) -> str:
        return (f"{self.trials} trials ({self.killed} killed part-way), {self.hands:,} hands and {self.rows:,} rows "
                f"checked: {self.lost} lost, {self.duplicates} duplicates")


class Bench:
    """One input, its reference dataset, and trials against it."""

    INGEST_TABLES = ("hands", "actions", "rejects")
    ALL_TABLES = ("hands", "actions", "rejects", "verdicts", "plays", "outcomes", "seats")

    def __init__(self, folder: str, seed: int, hands: int = 40, batch: int = 4):
        self.folder, self.batch = folder, batch
        os.makedirs(folder, exist_ok=True)
        self.src = os.path.join(folder, "in.jsonl")
        make_input(self.src, seed, hands)
        self.ingested = os.path.join(folder, "ingested")
        code, self.ingest_steps = run(INGEST, self.src, self.ingested, batch)
        audited = os.path.join(folder, "audited")
        shutil.copytree(self.ingested, audited)
        code, self.audit_steps = run(AUDIT, self.src, audited, batch)
        self.reference = keys(audited, self.ALL_TABLES)

    def ingest_trial(self, tally: Tally, crash_at: int | None = None, again_at: int | None = None,
                     kill_after: float | None = None) -> None:
        """Ingest killed at a step (or after a delay), optionally killed again while
        rerunning (repairing), then rerun to the end."""
        out = os.path.join(self.folder, "trial")
        shutil.rmtree(out, ignore_errors=True)
        code, _ = run(INGEST, self.src, out, self.batch, crash_at, kill_after)
        if again_at is not None:
            run(INGEST, self.src, out, self.batch, again_at)
        run(INGEST, self.src, out, self.batch)
        tally.add({t: self.reference[t] for t in self.INGEST_TABLES}, keys(out, self.INGEST_TABLES), code != 0)

    def audit_trial(self, tally: Tally, crash_at: int | None = None, kill_after: float | None = None) -> None:
        out = os.path.join(self.folder, "trial")
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(self.ingested, out)
        code, _ = run(AUDIT, self.src, out, self.batch, crash_at, kill_after)
        run(AUDIT, self.src, out, self.batch)
        tally.add(self.reference, keys(out, self.ALL_TABLES), code != 0)
