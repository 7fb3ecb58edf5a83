"""Kill ingest and the dataset audit part-way (a child process dies at a chosen write step,
as ``kill -9`` would), rerun: every table has every hand exactly once.

``benchmarks/killtest.py`` runs the same trials at every step and with random SIGKILLs.
"""

from __future__ import annotations

import random

import pytest

from crashkit import Bench, Tally


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return Bench(str(tmp_path_factory.mktemp("crash")), seed=3, hands=16, batch=3)


def test_the_reference_has_every_table(bench):
    ref = bench.reference
    assert len(ref["hands"]) == 16 and len(ref["verdicts"]) == 16 and len(ref["outcomes"]) == 16
    assert sorted(code for _, _, code in ref["rejects"]) == ["bad_record", "duplicate_id"]
    assert sum(ref["actions"].values()) > 16 * 10 and sum(ref["plays"].values()) > 16 * 5
    assert bench.ingest_steps > 30 and bench.audit_steps > 20


@pytest.mark.parametrize("seed", [1, 2])
def test_ingest_killed_at_a_random_step_then_rerun(bench, seed):
    rng = random.Random(seed)
    tally = Tally()
    bench.ingest_trial(tally, crash_at=rng.randrange(1, bench.ingest_steps + 1))
    # killed again while the rerun repairs (its first step rolls a committed batch forward
    # when the first kill came after a COMMIT)
    bench.ingest_trial(tally, crash_at=rng.randrange(1, bench.ingest_steps + 1), again_at=1)
    assert (tally.trials, tally.killed) == (2, 2)
    assert (tally.lost, tally.duplicates) == (0, 0), str(tally)


def test_audit_killed_at_a_random_step_then_rerun(bench):
    rng = random.Random(7)
    tally = Tally()
    for _ in range(2):
        bench.audit_trial(tally, crash_at=rng.randrange(1, bench.audit_steps + 1))
    assert (tally.trials, tally.killed) == (2, 2)
    assert (tally.lost, tally.duplicates) == (0, 0), str(tally)


def test_the_tally_sees_a_loss_and_a_duplicate(bench, tmp_path):
    """The check itself can fail: a part file removed is a loss, one copied a duplicate."""
    import os
    import shutil

    from crashkit import keys

    out = str(tmp_path / "ds")
    shutil.copytree(bench.ingested, out)
    folder = os.path.join(out, "hands", "game=doudizhu")
    first, second = sorted(os.listdir(folder))[:2]
    os.remove(os.path.join(folder, first))
    shutil.copy(os.path.join(folder, second), os.path.join(folder, "part-copy.parquet"))
    tally = Tally()
    tally.add({"hands": bench.reference["hands"]}, keys(out, ["hands"]), False)
    assert tally.lost > 0 and tally.duplicates > 0


@pytest.mark.parametrize("seed", [3, 4])
def test_a_rerun_naming_the_input_another_way_repairs_without_doubling(bench, tmp_path, seed):
    """Killed part-way, then rerun with the input named through a symbolic link: every
    hand and every reject is there once (a reject is its file, line and content, not the
    path it was given by; before, each reject the first run stored came twice)."""
    import os

    from paipu.replay.io.commit import read_table
    from crashkit import INGEST, keys, run

    link = str(tmp_path / "link.jsonl")
    os.symlink(bench.src, link)
    out = str(tmp_path / "ds")
    code, _ = run(INGEST, bench.src, out, bench.batch, random.Random(seed).randrange(1, bench.ingest_steps + 1))
    assert code == 137
    run(INGEST, link, out, bench.batch)
    rejects = read_table(out, "rejects", ["line", "code"])
    got = sorted(zip(rejects.column("line").to_pylist(), rejects.column("code").to_pylist()))
    assert got == sorted((n, c) for _, n, c in bench.reference["rejects"].elements())
    assert set(read_table(out, "rejects", ["file"]).column("file").to_pylist()) == {os.path.realpath(bench.src)}
    assert keys(out, ["hands", "actions"]) == {t: bench.reference[t] for t in ("hands", "actions")}
