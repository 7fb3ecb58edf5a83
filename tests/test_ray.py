"""The dataset audit on a two-node Ray cluster: the same rows as the local pool, every hand
exactly once after a worker is killed mid-part or a node is removed mid-run, resuming,
and a dataset on object storage.

One cluster (two nodes of one CPU each) serves the whole module. Deselect these with
``-m "not ray"``; they run by default (CI too).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections import Counter

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from paipu.cli import app
from helpers import BID_0, ddz
from paipu.replay.io.jsonl import record_to_json
from paipu.replay.audit import audit_dataset, audit_jobs, audit_parts
from paipu.replay.derive import AUDIT_TABLES
from paipu.replay.distributed import run_parts
from paipu.replay.io.dataset import iter_hand_files

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.ray
SAMPLES = os.path.join(os.path.dirname(__file__), "..", "sample_logs")
PARTS = 30


@pytest.fixture(scope="module")
def ray_cluster(aws_env):
    """The two-node cluster (a ``ray.cluster_utils.Cluster``), this process its driver."""
    from ray.cluster_utils import Cluster

    import tempfile

    # Ray's socket names must stay short whatever TMPDIR is, and its address file apart
    # from any other Ray on this machine
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    was = os.environ.get("RAY_TMPDIR")
    os.environ["RAY_TMPDIR"] = temp
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=1)
    ray.init(address=c.address, logging_level="ERROR", log_to_driver=False)
    # the test module's helpers travel by value: the workers cannot import tests/
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield c
    ray.shutdown()
    c.shutdown()
    shutil.rmtree(temp, ignore_errors=True)
    if was is None:
        del os.environ["RAY_TMPDIR"]
    else:
        os.environ["RAY_TMPDIR"] = was


@pytest.fixture(scope="module")
def cluster(ray_cluster):
    """The cluster's address."""
    return ray_cluster.address


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    """Every game of sample_logs (205 hands, Guandan matches among them) and one broken
    Dou Dizhu hand, 8 hands a part file: 30 parts."""
    tmp = tmp_path_factory.mktemp("ray")
    broken = ddz(BID_0 + "0 play 3h\n1 play 4h\n2 play 3c\n")
    broken["id"] = "broken"
    (tmp / "broken.jsonl").write_bytes(record_to_json(broken) + b"\n")
    ds = str(tmp / "ingested")
    r = CliRunner().invoke(app, ["ingest", SAMPLES, str(tmp / "broken.jsonl"), "--out", ds, "--batch", "8", "-q"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert len(list(iter_hand_files(ds))) == PARTS
    return ds


@pytest.fixture(scope="module")
def local(ingested, tmp_path_factory):
    """The ingested dataset audited by the local pool (two processes)."""
    ds = str(tmp_path_factory.mktemp("ray") / "local")
    shutil.copytree(ingested, ds)
    assert audit_dataset(ds, workers=2) == PARTS
    return ds


def copy_of(ingested: str, tmp_path) -> str:
    ds = str(tmp_path / "ds")
    shutil.copytree(ingested, ds)
    return ds


def audit_files(root: str) -> dict[str, object]:
    """Every audit part file of the dataset, by path under the root, read as a table."""
    out = {}
    for table in AUDIT_TABLES:
        for dirpath, _, files in os.walk(os.path.join(root, table)):
            for f in files:
                path = os.path.join(dirpath, f)
                out[os.path.relpath(path, root)] = pq.read_table(path)
    return out


def column(root: str, table: str, name: str) -> list:
    return [x for t in (pq.read_table(p) for p in audit_paths(root, table)) for x in t.column(name).to_pylist()]


def audit_paths(root: str, table: str) -> list[str]:
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(root, table)) for f in fs)


def hand_ids(root: str) -> list[str]:
    return [x for _, h, _ in iter_hand_files(root) for x in pq.read_table(h, columns=["id"]).column("id").to_pylist()]


def test_the_cli_on_two_nodes_writes_the_local_pools_rows(cluster, ingested, local, tmp_path):
    ds = copy_of(ingested, tmp_path)
    r = CliRunner().invoke(app, ["audit", ds, "--ray", cluster], catch_exceptions=False)
    assert r.exit_code == 1, r.output
    assert "206 hands: 205 ok, 1 with violations (does_not_beat 1)" in r.stdout
    assert "audited 206 of 206 hands (0 were audited already)" in r.stderr
    mine, theirs = audit_files(ds), audit_files(local)
    assert sorted(mine) == sorted(theirs) and len(mine) == 4 * PARTS
    for path, table in mine.items():
        assert table.equals(theirs[path]), path  # same rows, same order, same values
    # run again: every part is audited already and nothing is written
    before = {p: os.stat(os.path.join(ds, p)).st_mtime_ns for p in mine}
    r = CliRunner().invoke(app, ["audit", ds, "--ray", cluster], catch_exceptions=False)
    assert "audited 0 of 206 hands (206 were audited already)" in r.stderr
    assert {p: os.stat(os.path.join(ds, p)).st_mtime_ns for p in mine} == before


def node_of(job_index: int) -> tuple[int, str]:
    import time

    time.sleep(0.5)
    return job_index, ray.get_runtime_context().get_node_id()


def test_tasks_spread_over_both_nodes_and_results_keep_job_order(cluster):
    seen = []
    results = run_parts(node_of, [(k,) for k in range(8)], cluster, on_result=lambda i, r: seen.append(i))
    assert [k for k, _ in results] == list(range(8))
    assert sorted(seen) == list(range(8))
    assert len({node for _, node in results}) == 2


def die_once(marker: str, *job):
    """audit_parts, except that the first call anywhere kills its worker process after the
    part's first table file is written (a part half audited), as a kill -9 would."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return audit_parts(*job)
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    writes = 0
    real = pq.write_table

    def write_then_die(*args, **kw):
        nonlocal writes
        writes += 1
        if writes == 2:
            os._exit(137)
        return real(*args, **kw)

    pq.write_table = write_then_die
    return audit_parts(*job)


def test_a_worker_killed_mid_part_is_retried_and_every_hand_is_audited_once(cluster, ingested, local, tmp_path):
    ds = copy_of(ingested, tmp_path)
    marker = str(tmp_path / "killed")
    jobs = audit_jobs(ds)
    guandan = [k for k, job in enumerate(jobs) if len(job[2]) > 1]
    assert len(guandan) == 1 and len(jobs) == PARTS - len(jobs[guandan[0]][2]) + 1
    summaries = run_parts(die_once, [(marker, *job) for job in jobs], cluster)
    with open(marker) as f:
        pid = int(f.read())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the worker that took the first job is gone
    assert sum(s.hands for ss in summaries for s in ss) == 206
    ids = hand_ids(ds)
    for table in ("verdicts", "outcomes"):
        counts = Counter(column(ds, table, "hand_id"))
        assert sorted(counts) == sorted(ids) and set(counts.values()) == {1}, table
    mine, theirs = audit_files(ds), audit_files(local)
    assert sorted(mine) == sorted(theirs)
    assert all(table.equals(theirs[path]) for path, table in mine.items())
    # the dead worker's half-staged part is out of sight, and the next writer removes it
    staging = os.path.join(ds, "_staging")
    assert [os.path.exists(os.path.join(staging, b, "COMMIT")) for b in os.listdir(staging)] == [False]
    assert audit_dataset(ds, workers=1) == 0
    assert not os.path.exists(staging) or os.listdir(staging) == []


def test_an_interrupted_run_resumes_with_the_parts_left(cluster, ingested, local, tmp_path):
    ds = copy_of(ingested, tmp_path)
    jobs = audit_jobs(ds)
    run_parts(audit_parts, jobs[:5], cluster)  # the run stopped after five jobs
    progress = []
    done = audit_dataset(ds, ray_address=cluster, on_part=progress.append)
    first_five = sum(len(job[2]) for job in jobs[:5])
    assert done == PARTS - first_five
    assert len(progress) == PARTS and sum(s.skipped for s in progress) == first_five
    mine, theirs = audit_files(ds), audit_files(local)
    assert sorted(mine) == sorted(theirs)
    assert all(table.equals(theirs[path]) for path, table in mine.items())


def test_a_dataset_on_s3_is_audited_on_the_cluster_as_by_the_local_pool(cluster, s3, tmp_path):
    """The nodes reach the dataset on object storage: the endpoint goes with the tasks."""
    from paipu.replay.io import store
    from paipu.replay.io.commit import read_table

    inputs = [os.path.join(SAMPLES, f) for f in ("guandan_standard_simulated.jsonl", "doudizhu_simulated.paipu")]
    remote, local = "s3://paipu/on-ray", str(tmp_path / "ds")
    for ds in (remote, local):
        r = CliRunner().invoke(app, ["ingest", *inputs, "--out", ds, "--batch", "5", "-q"], catch_exceptions=False)
        assert r.exit_code == 0, r.output
    assert audit_dataset(local, workers=1) == 5
    r = CliRunner().invoke(app, ["audit", remote, "--ray", cluster], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    n = len(hand_ids(local))
    assert f"audited {n} of {n} hands (0 were audited already)" in r.stderr
    assert not [f for f in store.files_under(remote) if "/_staging/" in f]
    for table in AUDIT_TABLES:
        keys = [("hand_id", "ascending")] + ([("seat", "ascending")] if table == "seats" else [])
        if table == "plays":
            keys.append(("idx", "ascending"))
        assert read_table(remote, table).sort_by(keys).equals(read_table(local, table).sort_by(keys)), table


def audit_slowly(started: str, *job):
    """audit_parts, after noting which node runs it and waiting a little (so that a node can
    be removed while parts are running on it)."""
    import time

    node = ray.get_runtime_context().get_node_id()
    with open(os.path.join(started, f"{node}-{os.getpid()}-{time.monotonic_ns()}"), "w"):
        pass
    time.sleep(1.0)
    return audit_parts(*job)


def test_a_node_removed_mid_run_is_survived_with_every_hand_once(ray_cluster, ingested, local, tmp_path):
    import threading
    import time

    doomed = ray_cluster.add_node(num_cpus=1)
    ray_cluster.wait_for_nodes()
    ds, started = copy_of(ingested, tmp_path), tmp_path / "started"
    started.mkdir()
    jobs = audit_jobs(ds)
    result: list = []
    run = threading.Thread(target=lambda: result.append(run_parts(audit_slowly, [(str(started), *j) for j in jobs],
                                                                  ray_cluster.address)))
    run.start()
    deadline = time.monotonic() + 120
    while not any(f.startswith(doomed.node_id) for f in os.listdir(started)):
        assert time.monotonic() < deadline, "no part ever started on the third node"
        time.sleep(0.1)
    ray_cluster.remove_node(doomed, allow_graceful=False)  # the node dies with parts running on it
    run.join()
    assert len(os.listdir(started)) > len(jobs)  # the part that ran on the lost node ran again
    assert sum(s.hands for ss in result[0] for s in ss) == 206
    mine, theirs = audit_files(ds), audit_files(local)
    assert sorted(mine) == sorted(theirs)
    assert all(table.equals(theirs[path]) for path, table in mine.items())
    for table in ("verdicts", "outcomes"):
        counts = Counter(column(ds, table, "hand_id"))
        assert sorted(counts) == sorted(hand_ids(ds)) and set(counts.values()) == {1}, table


def test_fraud_decisions_on_the_cluster_equal_the_local_ones(cluster, ingested, tmp_path):
    """paipu fraud --ray: the heavy per-hand part (the decisions) runs as Ray tasks, the
    screens stay in DuckDB/polars; the decisions rows and the suspects equal a local run."""
    from paipu.replay.io.commit import read_table

    here, there = copy_of(ingested, tmp_path / "a"), copy_of(ingested, tmp_path / "b")
    r = CliRunner().invoke(app, ["fraud", here, "--min-hands", "1", "--json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    r2 = CliRunner().invoke(app, ["fraud", there, "--min-hands", "1", "--json", "--ray", cluster], catch_exceptions=False)
    assert r2.exit_code == 0, r2.output
    keys = [("hand_id", "ascending"), ("idx", "ascending")]
    mine, theirs = read_table(there, "decisions"), read_table(here, "decisions")
    assert mine.num_rows == theirs.num_rows > 0
    assert mine.sort_by(keys).equals(theirs.sort_by(keys).select(mine.column_names))
    assert json.loads(r2.stdout)["suspects"] == json.loads(r.stdout)["suspects"]


def test_the_review_pass_on_ray_writes_what_the_pool_does(ray_cluster, tmp_path):
    """``paipu review DS --ray``: the chunks as Ray tasks, committed by the driver: the same
    rows as one local process."""
    import polars as pl

    from paipu.replay.ingest import ingest_files
    from paipu.replay.io.commit import read_table
    from paipu.replay.review_pass import Settings, review_dataset
    from paipu.replay.sim import simulate

    src = tmp_path / "in.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in simulate("doudizhu", None, 3, 9)))
    local, remote = str(tmp_path / "local"), str(tmp_path / "ray")
    ingest_files([str(src)], local, batch_size=2, workers=1)
    shutil.copytree(local, remote)
    settings = Settings(samples=2, budget_ms=None)
    review_dataset(local, settings, workers=1, chunk=1)
    done = review_dataset(remote, settings, ray_address="auto", chunk=1)
    assert done.hands == 3 and done.decisions > 0

    def rows(root: str) -> pl.DataFrame:
        return pl.DataFrame(pl.from_arrow(read_table(root, "reviews"))).sort("hand_id", "index")

    assert rows(remote).equals(rows(local))
    assert review_dataset(remote, settings, ray_address="auto").hands == 0  # nothing left to review
