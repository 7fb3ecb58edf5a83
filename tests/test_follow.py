"""``paipu ingest --follow``: the installed CLI, run from a folder outside the checkout,
follows a folder while this test (the writer) appends hands, half lines and new files;
the follower is killed (SIGKILL, and at an exact write step: ``PAIPU_CRASH_AT``) and
restarted; the dataset ends with each hand once, the planted rejects, no half hand."""

from __future__ import annotations

import gzip
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import crashkit
import pyarrow.parquet as pq
from crashkit import make_input
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.audit import audit_dataset
from paipu.replay.follow import STATE, follow
from paipu.replay.ingest import Batch, Ingester, ingest_files, merge_results, work
from paipu.replay.io.commit import DatasetLocked, read_table
from paipu.replay.io.jsonl import record_to_json
from paipu.replay.io.sources import expand_inputs
from paipu.replay.io.text import record_to_text
from paipu.replay.sim import simulate

FAST = ("--interval", "0.05", "--settle", "0.3")
TABLES = ("hands", "actions", "rejects")
FOREIGN = os.path.join(os.path.dirname(__file__), "data", "foreign")


def _follower(tmp, *args: str, crash_at: int | None = None) -> subprocess.Popen[str]:
    """The installed ``paipu`` (beside this Python) following ``logs`` into ``ds``, in *tmp*."""
    exe = os.path.join(os.path.dirname(sys.executable), "paipu")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PAIPU_CRASH_AT")}
    if crash_at is not None:
        env["PAIPU_CRASH_AT"] = str(crash_at)
    return subprocess.Popen([exe, "ingest", "logs", "--out", "ds", "--follow", *args], cwd=tmp, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _ids(tmp) -> Counter:
    table = read_table(os.path.join(tmp, "ds"), "hands", ["id"]) if os.path.isdir(os.path.join(tmp, "ds")) else None
    return Counter(table.column("id").to_pylist()) if table is not None else Counter()


def _rejects(tmp) -> list[tuple[str, int, str]]:
    table = read_table(os.path.join(tmp, "ds"), "rejects", ["source", "line", "code"])
    rows = zip(*(table.column(c).to_pylist() for c in ("source", "line", "code"))) if table is not None else ()
    return sorted(rows)


def _wait_for(tmp, ids: set[str], child: subprocess.Popen, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while not ids <= set(_ids(tmp)):
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < end, f"not taken: {sorted(ids - set(_ids(tmp)))}"
        time.sleep(0.05)


def _append(path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
        f.flush()


def _simulated(game: str, hands: int, seed: int) -> tuple[list[dict], list[str]]:
    """*hands* simulated hands of *game* and each as one JSONL line."""
    records = list(simulate(game, None, hands, seed))
    return records, [record_to_json(r).decode() + "\n" for r in records]


def _stop(child: subprocess.Popen, sig: int = signal.SIGINT) -> tuple[str, str]:
    child.send_signal(sig)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
    assert "Traceback" not in err
    return out, err


def test_follow_takes_each_hand_once_across_appends_half_lines_kills_and_restarts(tmp_path):
    tmp = str(tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    hands, line = _simulated("doudizhu", 60, 7)
    a, b, c = logs / "a.jsonl", logs / "b.paipu", logs / "c.jsonl"
    # a.jsonl: 2 hands, a bad line (line 3), a hand, and hand 3 half written
    a.write_text(line[0] + line[1] + "not json\n" + line[2] + line[3][:50], encoding="utf-8")
    child = _follower(tmp, *FAST, "--batch", "5")
    _wait_for(tmp, {hands[k]["id"] for k in range(3)}, child)
    time.sleep(0.5)  # polls see the half line: held back, neither taken nor rejected
    assert _ids(tmp) == Counter(hands[k]["id"] for k in range(3))
    assert _rejects(tmp) == [("logs/a.jsonl", 3, "bad_record")]

    # the half line completed, one more hand, another bad line (7); a new text file
    _append(a, line[3][50:] + line[4] + "{not json either\n")
    b.write_text(record_to_text(hands[5]) + "\n" + record_to_text(hands[6]), encoding="utf-8")
    _wait_for(tmp, {hands[k]["id"] for k in range(7)}, child)
    # a new file of many batches: killed (SIGKILL) once the first is in, whatever it was doing
    c.write_text("".join(line[10:60]), encoding="utf-8")
    end = time.monotonic() + 30
    while not set(_ids(tmp)) & {r["id"] for r in hands[10:60]}:
        assert time.monotonic() < end
        time.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    child.communicate()

    # more written while no follower runs; the next dies at its third write step (mid-batch)
    _append(a, line[7] + line[8][:20])
    crashed = _follower(tmp, *FAST, "--batch", "5", crash_at=3)
    crashed.communicate(timeout=60)
    assert crashed.returncode == 137

    child = _follower(tmp, *FAST, "--batch", "5")
    _wait_for(tmp, {r["id"] for r in hands[:8]} | {r["id"] for r in hands[10:60]}, child)
    time.sleep(0.3)
    _append(a, line[8][20:])
    _wait_for(tmp, {hands[8]["id"]}, child)
    out, err = _stop(child)
    assert out.count("\n") == 1 and out.startswith("stopped (SIGINT): ingested ")

    expected = Counter(r["id"] for r in hands[:9] + hands[10:60])
    assert _ids(tmp) == expected  # each hand once, hand 9 never written
    assert _rejects(tmp) == [("logs/a.jsonl", 3, "bad_record"), ("logs/a.jsonl", 7, "bad_record")]
    state = {os.path.basename(r["file"]): r for r in pq.read_table(tmp_path / "ds" / STATE).to_pylist()}
    assert state["a.jsonl"]["offset"] == a.stat().st_size and state["a.jsonl"]["line"] == 9
    assert state["c.jsonl"]["offset"] == c.stat().st_size and state["c.jsonl"]["line"] == 50
    # b.paipu's last hand was taken once it settled; its position stays at that hand's start
    assert state["b.paipu"]["line"] == record_to_text(hands[5]).count("\n") + 1


def test_a_replaced_truncated_or_rewritten_file_is_read_again_without_doubling(tmp_path):
    logs, ds = tmp_path / "logs", str(tmp_path / "ds")
    logs.mkdir()
    hands, line = _simulated("paodekuai", 8, 3)
    a = logs / "a.jsonl"

    def run() -> tuple[int, int, int]:  # the library's follower, in this process, until idle
        stats = follow([str(logs)], ds, interval=0.02, settle=0.1, idle_exit=0.1)
        assert stats.stopped == "idle" and stats.files == 1
        return stats.written, stats.duplicates, stats.rejected

    a.write_text(line[0] + line[1] + line[2], encoding="utf-8")
    assert run() == (3, 0, 0)
    assert run() == (0, 0, 0)  # at its position: nothing read again
    (logs / "new").write_text(line[0] + line[3], encoding="utf-8")
    os.replace(logs / "new", a)  # rotated: a new inode, shorter
    assert run() == (1, 1, 0)
    with open(a, "r+", encoding="utf-8") as f:  # truncated in place, then written again
        f.truncate(0)
        f.write(line[4])
    assert run() == (1, 0, 0)
    with open(a, "r+", encoding="utf-8") as f:  # rewritten in place, longer: its bytes before the offset differ
        f.write(line[5] + line[6])
    assert run() == (2, 0, 0)
    assert _ids(str(tmp_path)) == Counter(r["id"] for r in hands[:7])
    assert _rejects(str(tmp_path)) == []


def test_sigterm_stops_cleanly_and_a_texts_last_hand_waits_for_the_next(tmp_path):
    tmp = str(tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    hands = list(simulate("doudizhu", None, 3, 11))
    b = logs / "b.paipu"
    b.write_text(record_to_text(hands[0]) + record_to_text(hands[1]), encoding="utf-8")
    child = _follower(tmp, "--interval", "0.05", "--settle", "60")
    _wait_for(tmp, {hands[0]["id"]}, child)
    time.sleep(0.4)
    assert _ids(tmp) == Counter([hands[0]["id"]])  # the last hand may still grow: not taken
    out, err = _stop(child, signal.SIGTERM)
    assert out == "stopped (SIGTERM): ingested 1 hand from 1 file into ds; 0 already there, 0 rejected, " \
                  "1 held back (being written)\n"
    _append(b, record_to_text(hands[2]))  # the next hand line ends it
    child = _follower(tmp, "--interval", "0.05", "--settle", "60")
    _wait_for(tmp, {hands[1]["id"]}, child)
    out, _ = _stop(child)
    assert out.startswith("stopped (SIGINT): ingested 1 hand from 1 file into ds; 0 already there, 0 rejected, 1 held")
    assert _ids(tmp) == Counter(r["id"] for r in hands[:2])


def _unlocked(run, timeout: float = 30.0):
    """*run()*, tried again while the follower holds the lock (it may be committing its read
    position when the hands are already visible; on a loaded machine that takes a while:
    the test flaked with DatasetLocked). Locked for *timeout* seconds fails the test."""
    end = time.monotonic() + timeout
    while True:
        try:
            return run()
        except DatasetLocked:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


def test_audit_and_another_ingest_run_beside_the_follower_and_nothing_is_doubled(tmp_path):
    tmp = str(tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    hands, line = _simulated("guandan", 6, 5)
    (logs / "a.jsonl").write_text(line[0] + line[1], encoding="utf-8")
    child = _follower(tmp, *FAST)
    _wait_for(tmp, {hands[0]["id"], hands[1]["id"]}, child)
    # the follower holds the lock only while it writes: a plain ingest and the audit get it
    other = tmp_path / "other.jsonl"
    other.write_text(line[2] + line[3], encoding="utf-8")
    stats = _unlocked(lambda: ingest_files([str(other)], str(tmp_path / "ds"), workers=1))
    assert (stats.written, stats.duplicates) == (2, 0)
    assert _unlocked(lambda: audit_dataset(str(tmp_path / "ds"), workers=1)) == 2  # the follower's part, the ingest's
    assert read_table(str(tmp_path / "ds"), "verdicts", ["hand_id"]).num_rows == 4
    # the same hands reach the followed folder: the follower knows them (it reloaded its index)
    (logs / "b.jsonl").write_text(line[2] + line[3] + line[4], encoding="utf-8")
    _wait_for(tmp, {hands[4]["id"]}, child)
    out, _ = _stop(child)
    assert out.startswith("stopped (SIGINT): ingested 3 hands from 2 files into ds; 2 already there, 0 rejected")
    assert _ids(tmp) == Counter(r["id"] for r in hands[:5])


def test_follow_killed_at_write_steps_then_restarted_gives_what_ingest_gives(tmp_path):
    logs, out = tmp_path / "logs", str(tmp_path / "trial")
    logs.mkdir()
    make_input(str(logs / "in.jsonl"), seed=3, hands=12)  # a bad line, a duplicate_id, a repeated hand
    _append(logs / "in.jsonl", '{"id": "half-writ')  # held back by both
    hands = list(simulate("paodekuai", None, 3, 9))
    (logs / "t.paipu").write_text("".join(record_to_text(r) for r in hands), encoding="utf-8")
    src = str(logs)
    ingest_files(expand_inputs([src]), str(tmp_path / "ref"), batch_size=4, workers=1)
    reference = crashkit.keys(str(tmp_path / "ref"), TABLES)
    code, steps = crashkit.run(crashkit.FOLLOW, src, out, 4)
    assert code == 0 and steps is not None and steps > 10
    assert crashkit.keys(out, TABLES) == reference
    # seeded steps here (benchmarks/killtest.py kills it at every step): the last one is
    # killed again at the first step of its restart (the repair)
    tally = crashkit.Tally()
    chosen = random.Random(1).sample(range(1, steps + 1), 4)
    for k, n in enumerate(chosen):
        shutil.rmtree(out)
        code, _ = crashkit.run(crashkit.FOLLOW, src, out, 4, crash_at=n)
        assert code == 137
        if k == len(chosen) - 1:
            assert crashkit.run(crashkit.FOLLOW, src, out, 4, crash_at=1)[0] == 137
        crashkit.run(crashkit.FOLLOW, src, out, 4)
        tally.add(reference, crashkit.keys(out, TABLES), True)
    assert (tally.trials, tally.lost, tally.duplicates) == (4, 0, 0), str(tally)


def test_a_document_or_gzip_file_being_written_is_taken_whole_once_it_settles(tmp_path):
    """A Botzone log and a .gz file, each written in two parts while the follower runs (in
    a thread of this process): neither is read half written (no reject), both are taken
    once they stop changing."""
    logs, ds = tmp_path / "logs", str(tmp_path / "ds")
    logs.mkdir()
    doc = Path(FOREIGN, "botzone-ftl.json").read_bytes()
    packed = gzip.compress("".join(record_to_json(r).decode() + "\n" for r in simulate("shuangkou", None, 4, 2)).encode())
    ingest_files([os.path.join(FOREIGN, "botzone-ftl.json")], str(tmp_path / "ref"), workers=1)
    expected = Counter(read_table(str(tmp_path / "ref"), "hands", ["id"]).column("id").to_pylist())
    expected += Counter(r["id"] for r in simulate("shuangkou", None, 4, 2))
    done: list = []
    thread = threading.Thread(target=lambda: done.append(follow([str(logs)], ds, interval=0.02, settle=1.0,
                                                                idle_exit=1.5)))
    thread.start()
    with open(logs / "m.json", "wb") as f, open(logs / "s.jsonl.gz", "wb") as g:
        for part in (0, 1):
            f.write(doc[:len(doc) // 2] if part == 0 else doc[len(doc) // 2:])
            g.write(packed[:len(packed) // 2] if part == 0 else packed[len(packed) // 2:])
            f.flush()
            g.flush()
            time.sleep(0.2)  # polls see both half written (well within --settle)
    thread.join(timeout=60)
    stats = done[0]
    assert (stats.written, stats.rejected, stats.stopped) == (sum(expected.values()), 0, "idle")
    assert _ids(str(tmp_path)) == expected


def test_the_follow_options_are_checked(tmp_path):
    runner = CliRunner()
    (tmp_path / "logs").mkdir()
    logs, ds = str(tmp_path / "logs"), str(tmp_path / "ds")
    for args, message in ((["--idle-exit", "1"], "error: --interval, --settle and --idle-exit go with --follow"),
                          (["--follow", "--interval", "0"], "error: --interval must be more than 0 seconds, "
                                                            "--settle and --idle-exit at least 0"),
                          (["--follow", "--workers", "2"], "error: --workers does not go with --follow"),
                          (["--follow", "--out", "s3://bucket/ds"], "error: --follow writes a local dataset")):
        r = runner.invoke(app, ["ingest", logs, "--out", ds, *args])
        assert r.exit_code == 2 and r.output.startswith(message), r.output
    assert not os.path.exists(os.path.join(ds, "hands"))
    # an empty folder is followed (files may come); a missing one is an error
    r = runner.invoke(app, ["ingest", logs, "--out", ds, "--follow", "--idle-exit", "0", "--interval", "0.01"])
    assert (r.exit_code, r.output) == (0, f"stopped (no input changed for 0 s): ingested 0 hands from 0 files into "
                                           f"{ds}; 0 already there, 0 rejected\n")
    r = runner.invoke(app, ["ingest", logs + "-nope", "--out", ds, "--follow"])
    assert r.exit_code == 2 and "no such file or folder" in r.output


def test_merged_batches_keep_each_hands_actions_and_the_input_order(tmp_path):
    """Two files' batches written as one (ingest.merge_results): the second file repeats a
    hand of the first (skipped) and reuses an id (duplicate_id); every stored hand has its
    own actions, as ingesting the two files one by one gives."""
    hands = list(simulate("doudizhu", None, 3, 4)) + list(simulate("guandan", None, 2, 4))
    a = [record_to_json(r) for r in hands[:3]] + [record_to_json(hands[3])]
    b = [record_to_json(hands[1]), record_to_json(dict(hands[0], players=["x", "y", "z"])), record_to_json(hands[4])]
    batches = [Batch(name, "jsonl", list(enumerate(lines, 1))) for name, lines in (("a.jsonl", a), ("b.jsonl", b))]
    merged = Ingester(str(tmp_path / "merged"))
    merged.add(merge_results([work(x) for x in batches]))
    one_by_one = Ingester(str(tmp_path / "each"))
    for x in batches:
        one_by_one.add(work(x))
    assert (merged.stats.written, merged.stats.duplicates, merged.stats.by_code) == (5, 1, {"duplicate_id": 1})
    for table in TABLES:
        assert crashkit.keys(str(tmp_path / "merged"), [table]) == crashkit.keys(str(tmp_path / "each"), [table])

    def where(ds: str) -> list:  # each hand from its first file and line
        t = read_table(str(tmp_path / ds), "hands", ["id", "source", "line"])
        return sorted(zip(*(t.column(c).to_pylist() for c in ("id", "source", "line"))))

    assert where("merged") == where("each") and ("doudizhu-huopin-s4-000001", "a.jsonl", 2) in where("merged")
    actions = read_table(str(tmp_path / "merged"), "actions", ["hand_id"]).column("hand_id").to_pylist()
    assert Counter(actions) == Counter({r["id"]: len(r["actions"]) for r in hands})


def test_a_growing_competition_log_is_read_again_from_its_start_and_each_deal_taken_once(tmp_path):
    logs, ds = tmp_path / "logs", str(tmp_path / "ds")
    logs.mkdir()
    sample = Path(os.path.dirname(__file__), "..", "sample_logs", "guandan_competition_match.jsonl").read_bytes()
    lines = sample.splitlines(keepends=True)
    (tmp_path / "whole.jsonl").write_bytes(sample)
    ingest_files([str(tmp_path / "whole.jsonl")], str(tmp_path / "ref"), workers=1)
    reference = crashkit.keys(str(tmp_path / "ref"), TABLES)
    match = logs / "match.jsonl"
    match.write_bytes(b"".join(lines[:2]) + lines[2][:40])  # two deals and the third half written

    def run() -> tuple[int, int, int]:
        stats = follow([str(logs)], ds, interval=0.02, settle=0.1, idle_exit=0.1)
        return stats.written, stats.duplicates, len(stats.held)

    assert run() == (2, 0, 1)
    with open(match, "ab") as f:
        f.write(lines[2][40:] + b"".join(lines[3:]))
    assert run() == (len(lines) - 2, 2, 0)  # (read from its start: its levels follow from the deals before)
    got = crashkit.keys(ds, TABLES)
    assert got["hands"] == reference["hands"] and got["actions"] == reference["actions"] and not got["rejects"]


def test_a_too_long_line_is_held_while_unended_and_rejected_once_when_ended(tmp_path, monkeypatch):
    from paipu.replay.io import sources

    monkeypatch.setattr(sources, "MAX_LINE", 50_000)
    logs, ds = tmp_path / "logs", str(tmp_path / "ds")
    logs.mkdir()
    hand = next(iter(simulate("doudizhu", None, 1, 8)))
    a = logs / "a.jsonl"
    a.write_text(record_to_json(hand).decode() + "\n" + '{"id": "' + "x" * 120_000, encoding="utf-8")

    def run() -> tuple[int, int, int]:
        stats = follow([str(logs)], ds, interval=0.02, settle=0.05, idle_exit=0.2)
        return stats.written, stats.rejected, len(stats.held)

    assert run() == (1, 0, 1)
    _append(a, "x" * 1000 + '"}\n')
    assert run() == (0, 1, 0)
    assert run() == (0, 0, 0)
    assert _rejects(str(tmp_path)) == [(str(a), 2, "bad_record")]
