"""Kills with real processes: the dataset audit's workers die with it and never make
anything visible themselves; one worker killed (as the out-of-memory killer does) ends the
audit with one line and a rerun completes it.  Every writer of a single file leaves the
old file or the new one and nothing beside it (a full disk, a kill); a reader beside a
running ingest sees whole batches only."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter

import duckdb
import pytest

from paipu.replay.audit import audit_dataset
from paipu.replay.ingest import ingest_files
from paipu.replay.io.jsonl import record_to_json
from paipu.replay.sim import simulate
from crashkit import keys

#: the child: ``paipu audit`` whose every part file write first sleeps with the staged
#: file open (in the spawned workers too: they import this file as their __mp_main__), so
#: that a kill lands mid-part and a watcher polling the workers' open files sees the write
#: (sleeping before the open left a window of a few ms, which an idle machine's fast
#: writes could slip through: the test flaked with 'timed out')
SLOW_AUDIT = """
import sys, time
from paipu.replay.io import commit
real = commit.write_parquet
def slow(data, path):
    with open(path, "wb"):
        time.sleep(0.1)
    return real(data, path)
commit.write_parquet = slow
if __name__ == "__main__":
    from paipu.cli import app
    app(["audit", sys.argv[1], "--workers", "2"])
"""
AUDIT_TABLES = ("verdicts", "plays", "outcomes", "seats")


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kill")
    src = folder / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in simulate("doudizhu", None, 48, 5)))
    ds = str(folder / "ingested")
    ingest_files([str(src)], ds, batch_size=8, workers=1)  # 6 parts
    reference = str(folder / "reference")
    shutil.copytree(ds, reference)
    audit_dataset(reference, workers=1)
    return ds, keys(reference, AUDIT_TABLES)


def children(pid: int) -> list[int]:
    """The pool workers (spawned Pythons) whose parent is *pid*."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if ppid == pid and b"spawn_main" in cmd:
            out.append(int(entry))
    return out


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # dead, not reaped yet
    except OSError:
        return True


def staged_files(ds: str) -> list[str]:
    staging = os.path.join(ds, "_staging")
    return [os.path.join(dp, f) for dp, _, fs in os.walk(staging) for f in fs if f.endswith(".parquet")]


def visible(ds: str) -> list[str]:
    return sorted(os.path.join(dp, f) for t in AUDIT_TABLES for dp, _, fs in os.walk(os.path.join(ds, t)) for f in fs)


def start(tmp_path, code: str, *args: str) -> subprocess.Popen:
    """*code* run as a script in a child (its stderr to ``stderr.txt``)."""
    script = tmp_path / "child.py"
    script.write_text(code)
    # no pipes: a worker left running would hold them open, and reading them would hang
    with open(tmp_path / "stderr.txt", "wb") as err:
        return subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.DEVNULL, stderr=err,
                                cwd=str(tmp_path))


def hands_file(tmp_path, hands: int, seed: int) -> str:
    src = tmp_path / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in simulate("doudizhu", None, hands, seed)))
    return str(src)


def end(child: subprocess.Popen, workers: list[int]) -> None:
    """No process of a trial outlives it (a failing trial's workers included)."""
    child.kill()
    child.wait()
    for pid in workers:
        if not gone(pid):
            os.kill(pid, signal.SIGKILL)


def wait_for(condition, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def each_hand_once(ds: str, reference: dict[str, Counter]) -> None:
    got = keys(ds, AUDIT_TABLES)
    for table in AUDIT_TABLES:
        assert got[table] == reference[table], table
    staging = os.path.join(ds, "_staging")
    assert not os.path.exists(staging) or os.listdir(staging) == []


def test_a_killed_audit_takes_its_workers_with_it_and_they_commit_nothing(ingested, tmp_path):
    src, reference = ingested
    ds = str(tmp_path / "ds")
    shutil.copytree(src, ds)
    child = start(tmp_path, SLOW_AUDIT, ds)
    workers: list[int] = []
    try:
        wait_for(lambda: len(children(child.pid)) == 2 and staged_files(ds))
        workers = children(child.pid)
        child.send_signal(signal.SIGKILL)
        child.wait()
        before = visible(ds)
        time.sleep(1.0)  # a worker left running would finish its part and commit it now
        assert [p for p in workers if not gone(p)] == []
        assert visible(ds) == before
    finally:
        end(child, workers)
    audit_dataset(ds, workers=1)  # repairs what the kill left, audits the rest
    each_hand_once(ds, reference)


def worker_writing(ds: str, workers: list[int]) -> tuple[int, str] | None:
    """A worker with a staged part file open, and that part's name."""
    staging = os.path.join(os.path.abspath(ds), "_staging")
    for pid in workers:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith(staging) and target.endswith(".parquet"):
                    return pid, os.path.basename(target)
        except OSError:
            continue
    return None


def test_one_worker_killed_ends_the_audit_with_one_line_and_a_rerun_completes(ingested, tmp_path):
    src, reference = ingested
    ds = str(tmp_path / "ds")
    shutil.copytree(src, ds)
    child = start(tmp_path, SLOW_AUDIT, ds)
    found: list = []
    workers: list[int] = []

    def writing() -> bool:
        workers[:] = children(child.pid)
        found[:] = [worker_writing(ds, workers)]
        return found[0] is not None

    try:
        wait_for(writing)
        pid, part = found[0]
        os.kill(pid, signal.SIGKILL)  # as the out-of-memory killer does
        child.wait(timeout=30)
    finally:
        end(child, workers)
    stderr = (tmp_path / "stderr.txt").read_text()
    assert child.returncode == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert f"an audit worker process was killed (out of memory?) while auditing doudizhu part {part}" in lines[0]
    assert "run paipu audit again to finish" in lines[0]
    staging = os.path.join(ds, "_staging")
    assert not os.path.exists(staging) or os.listdir(staging) == []  # the dead worker's staged part is gone
    audit_dataset(ds, workers=1)
    each_hand_once(ds, reference)


def test_a_full_disk_at_the_lock_is_one_line_for_ingest_and_audit(ingested, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from paipu.cli import app

    src, _ = ingested
    ds = str(tmp_path / "ds")
    shutil.copytree(src, ds)
    before = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(ds) for f in fs)

    def no_space(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "pwrite", no_space)  # the holder's line in DS/.lock
    for args in (["ingest", str(tmp_path / "none.jsonl"), "--out", ds], ["audit", ds, "--workers", "1"]):
        (tmp_path / "none.jsonl").write_text("")
        r = CliRunner().invoke(app, args, catch_exceptions=False)
        assert r.exit_code == 2, r.output
        assert r.stderr == f"error: {ds}: cannot write the dataset (the disk is full); nothing was written\n"
    assert sorted(os.path.join(dp, f) for dp, _, fs in os.walk(ds) for f in fs) == before


def test_a_full_disk_while_repairing_is_one_line_and_the_next_run_repairs(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from paipu.cli import app
    from paipu.replay.io import commit

    src = hands_file(tmp_path, 4, 5)
    ds = str(tmp_path / "ds")
    batch = commit.StagedBatch(ds)
    import pyarrow as pa

    from paipu.replay.io.dataset import REJECTS

    row = {"source": "elsewhere.jsonl", "line": 1, "code": "bad_record", "message": "m", "raw": "x", "hand_id": None}
    batch.write("rejects/part-x.parquet", pa.Table.from_pylist([row], schema=REJECTS))
    real_roll = commit.roll_forward
    monkeypatch.setattr(commit, "roll_forward", lambda root, folder: None)
    batch.commit()  # committed, then the writer "died" before moving anything
    monkeypatch.setattr(commit, "roll_forward", real_roll)
    real = os.replace

    def full(a, b):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    r = CliRunner().invoke(app, ["ingest", src, "--out", ds, "-q"], catch_exceptions=False)
    assert r.exit_code == 2
    assert r.stderr == (f"error: {ds}: cannot write the dataset (the disk is full); an interrupted batch could not "
                        "be repaired yet; the next paipu run on it repairs it\n")
    monkeypatch.setattr(os, "replace", real)
    assert not os.path.exists(os.path.join(ds, "rejects", "part-x.parquet"))
    r = CliRunner().invoke(app, ["ingest", src, "--out", ds, "-q"], catch_exceptions=False)
    assert r.exit_code == 0
    assert os.path.exists(os.path.join(ds, "rejects", "part-x.parquet"))
    assert os.listdir(os.path.join(ds, "_staging")) == []


#: the child: an ingest whose every move of a file into place first sleeps, so that a
#: reader often lists the tables while a batch is half moved
SLOW_INGEST = """
import sys, time
from paipu.replay.io import commit
real = commit.store.replace
def slow(src, dst):
    time.sleep(0.03)
    return real(src, dst)
commit.store.replace = slow
from paipu.replay.ingest import ingest_files
ingest_files([sys.argv[1]], sys.argv[2], batch_size=4, workers=1)
"""


def test_a_reader_beside_a_running_ingest_sees_whole_batches_only(tmp_path):
    from paipu.analysis.queries import DatasetError, run_sql
    from paipu.replay.io.dataset import iter_hand_files

    ds = str(tmp_path / "ds")
    child = start(tmp_path, SLOW_INGEST, hands_file(tmp_path, 120, 6), ds)
    query = ("select (select count(*) from hands), "
             "(select count(*) from actions where hand_id not in (select id from hands)), "
             "(select count(*) from hands where id not in (select hand_id from actions))")
    seen, torn, unpaired = set(), [], 0
    try:
        while child.poll() is None:
            try:
                hands, orphans, bare = run_sql(ds, query).row(0)
            except (DatasetError, duckdb.Error):
                continue  # no batch in place yet: no views
            seen.add(hands)
            if orphans or bare:
                torn.append((hands, orphans, bare))
            unpaired += sum(actions is None for _, _, actions in iter_hand_files(ds))
    finally:
        child.kill()
        child.wait()
    assert len(seen) >= 5  # the reader ran all along the ingest
    assert torn == [] and unpaired == 0


#: the child: ``paipu ingest --workers 2`` whose batches each take a while in the workers
SLOW_INGEST_POOL = """
import sys, time
from paipu.replay import ingest
real = ingest.work
def slow(batch):
    time.sleep(0.2)
    return real(batch)
ingest.work = slow
if __name__ == "__main__":
    from paipu.cli import app
    app(["ingest", sys.argv[1], "--out", sys.argv[2], "--batch", "4", "--workers", "2", "-q"])
"""


def test_one_ingest_worker_killed_ends_ingest_with_one_line_and_a_rerun_completes(tmp_path):
    src, ds = hands_file(tmp_path, 40, 8), str(tmp_path / "ds")
    child = start(tmp_path, SLOW_INGEST_POOL, src, ds)
    workers: list[int] = []
    try:
        wait_for(lambda: len(children(child.pid)) == 2 and os.path.isdir(os.path.join(ds, "hands")))
        workers = children(child.pid)
        os.kill(workers[0], signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        end(child, workers)
    stderr = (tmp_path / "stderr.txt").read_text()
    assert child.returncode == 2 and len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr, stderr
    assert stderr.startswith(f"error: {ds}: an ingest worker process was killed (out of memory?); the ")
    assert stderr.rstrip().endswith("hands written are kept: run the same paipu ingest again to finish "
                                    "(hands already in are skipped)")
    stats = ingest_files([src], ds, batch_size=4, workers=1)
    assert stats.written + stats.duplicates == 40
    assert keys(ds, ["hands"])["hands"] == Counter({(r["id"],): 1 for r in simulate("doudizhu", None, 40, 8)})
    assert os.listdir(os.path.join(ds, "_staging")) == []


def test_a_batch_a_crashed_writer_left_half_moved_is_not_seen_until_repaired(tmp_path):
    from paipu.analysis.queries import run_sql
    from paipu.replay.io import commit
    from paipu.replay.io.dataset import iter_hand_files

    src, ds = hands_file(tmp_path, 8, 9), str(tmp_path / "ds")
    ingest_files([src], ds, batch_size=4, workers=1)  # two batches of four hands
    hands = sorted(os.listdir(os.path.join(ds, "hands", "game=doudizhu")))
    second = [os.path.join(t, "game=doudizhu", hands[1]) for t in ("hands", "actions")]
    staged = os.path.join(ds, "_staging", "b")
    for rel in second:  # the writer committed it and moved its hands file, not its actions file
        os.makedirs(os.path.dirname(os.path.join(staged, rel)), exist_ok=True)
    os.replace(os.path.join(ds, second[1]), os.path.join(staged, second[1]))
    with open(os.path.join(staged, commit.COMMIT), "w") as f:
        f.write("\n".join(second))
    query = "select (select count(*) from hands), (select count(distinct hand_id) from actions)"
    lock = commit.Lock(ds).acquire()  # a writer runs (it repairs first): readers cannot repair
    try:
        assert run_sql(ds, query).row(0) == (4, 4)
        assert [os.path.basename(h) for _, h, _ in iter_hand_files(ds)] == [hands[0]]
    finally:
        lock.release()
    assert run_sql(ds, query).row(0) == (8, 8)  # no writer now: the reader completed the batch
