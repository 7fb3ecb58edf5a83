"""The jobs of a dataset audit (Guandan parts grouped by the matches they share) and the
local pool of :func:`replay.distributed.run_parts` (the Ray side: test_ray.py)."""

from __future__ import annotations

import glob
import os

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.audit import audit_jobs
from paipu.replay.distributed import ClusterError, connect, run_parts

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "sample_logs")


@pytest.fixture(scope="module")
def guandan(tmp_path_factory):
    """Three Guandan matches: 6 hands; 12 in one file; 6. 8 hands a part file, so the
    12-hand match spans two parts."""
    ds = str(tmp_path_factory.mktemp("jobs") / "ds")
    files = sorted(glob.glob(os.path.join(SAMPLES, "guandan_*.jsonl")))
    r = CliRunner().invoke(app, ["ingest", *files, "--out", ds, "--batch", "8", "-q"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return ds


def matches_of(hands_path: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in pq.read_table(hands_path, columns=["match_id"]).column("match_id").to_pylist():
        out[m] = out.get(m, 0) + 1
    return out


def test_parts_sharing_a_match_are_one_job_and_other_parts_their_own(guandan):
    jobs = audit_jobs(guandan)
    assert [len(job[2]) for job in jobs] == [2, 1, 1]  # the longest first
    per_job = []
    for root, game, parts, force, decisions in jobs:
        assert (root, game, force, decisions) == (guandan, "guandan", False, False)
        counts: dict[str, int] = {}
        for hands, actions in parts:
            assert actions == hands.replace(os.sep + "hands" + os.sep, os.sep + "actions" + os.sep)
            for m, n in matches_of(hands).items():
                counts[m] = counts.get(m, 0) + n
        per_job.append(counts)
    assert per_job == [{"guandan-standard-s2026-000000": 12},
                       {"guandan-standard-s11-000000": 6}, {"guandan-no_tribute-s2026-000000": 6}]
    first, second = (p for p, _ in jobs[0][2])
    assert os.path.getmtime(first) <= os.path.getmtime(second)  # hands 1-8 before 9
    assert matches_of(first) == {"guandan-standard-s2026-000000": 8}


def square_plus(x: int, y: int) -> int:
    return x * x + y


@pytest.mark.parametrize("workers", [1, 2])
def test_local_pool_results_in_job_order_and_each_reported_once(workers):
    seen: list[tuple[int, int]] = []
    results = run_parts(square_plus, [(k, 1) for k in range(5)], workers=workers,
                        on_result=lambda i, r: seen.append((i, r)))
    assert results == [1, 2, 5, 10, 17]
    assert sorted(seen) == list(enumerate(results))


def test_no_ray_address_reachable_is_one_clear_error(monkeypatch):
    import tempfile

    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("this process is connected to a cluster already")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with tempfile.TemporaryDirectory(dir="/tmp") as empty:
        monkeypatch.setenv("RAY_TMPDIR", empty)  # where `ray start` would have noted its address
        with pytest.raises(ClusterError, match="^cannot reach the Ray cluster at 'auto': "):
            connect("auto")
