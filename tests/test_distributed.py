"""The jobs of a dataset audit (Guandan parts grouped by the matches they share) and the
local pool of :func:`replay.distributed.run_parts` (the Ray side: test_ray.py)."""

from __future__ import annotations

import glob
import os

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from helpers import square_plus

from paipu.cli import app
from paipu.replay.audit import audit_jobs
from paipu.replay.distributed import ClusterError, connect, run_parts

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "sample_logs")


@pytest.fixture(scope="module")
def guandan(tmp_path_factory):
    """Five Guandan matches: 6 hands; 12 in one file; 6; and, simulated with seed 2, 9 then 3
    in one file. 8 hands a part file, so the 12-hand match spans two parts, and so does the
    9-hand one, whose second part also holds the 3-hand match."""
    from paipu.replay.io.jsonl import record_to_json
    from paipu.replay.sim import simulate

    tmp = tmp_path_factory.mktemp("jobs")
    nine_three = tmp / "guandan_s2.jsonl"
    nine_three.write_bytes(b"".join(record_to_json(r) + b"\n" for r in simulate("guandan", "standard", 12, 2)))
    ds = str(tmp / "ds")
    files = [str(nine_three), *sorted(glob.glob(os.path.join(SAMPLES, "guandan_*.jsonl")))]
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
    assert [len(job[2]) for job in jobs] == [2, 2, 1, 1]  # the longest first
    per_job = []
    for root, game, parts, force, decisions in jobs:
        assert (root, game, force, decisions) == (guandan, "guandan", False, False)
        counts: dict[str, int] = {}
        for hands, actions in parts:
            assert actions == hands.replace(os.sep + "hands" + os.sep, os.sep + "actions" + os.sep)
            for m, n in matches_of(hands).items():
                counts[m] = counts.get(m, 0) + n
        per_job.append(counts)
    assert sorted(per_job[:2], key=len) == [{"guandan-standard-s2026-000000": 12},
                                           {"guandan-standard-s2-000000": 9, "guandan-standard-s2-000009": 3}]
    assert per_job[2:] == [{"guandan-standard-s11-000000": 6}, {"guandan-no_tribute-s2026-000000": 6}]
    for job in jobs[:2]:
        first, second = (p for p, _ in job[2])
        assert os.path.getmtime(first) <= os.path.getmtime(second)  # hands 1-8 before 9
        assert sum(matches_of(first).values()) == 8 and len(matches_of(first)) == 1


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
