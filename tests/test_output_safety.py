"""Every writer of one file leaves the old file or the new one and nothing beside it: a
full disk (ENOSPC injected at the write, the flush, the sync), a kill (the part it leaves
is removed by the next run), a device or a FIFO as the target (refused, left as it is).
Replay pages get a different, short name for every hand id, and the index always comes."""

from __future__ import annotations

import errno
import gzip
import json
import os
import signal
import stat
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.html import html_name
from paipu.replay.io.jsonl import record_to_json
from paipu.replay.sim import simulate

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


def no_space(*args, **kw):
    raise OSError(errno.ENOSPC, "No space left on device")


def disk_full_under(folder, monkeypatch) -> None:
    """Files opened for writing under *folder* are made on disk, but their writes go to
    /dev/full: the kernel's own ENOSPC, at whichever write or flush comes first."""
    import builtins

    real = builtins.open

    def opened(file, mode="r", *args, **kw):
        f = real(file, mode, *args, **kw)
        if isinstance(file, (str, os.PathLike)) and str(file).startswith(str(folder)) and "w" in mode:
            full = os.open("/dev/full", os.O_WRONLY)
            os.dup2(full, f.fileno())
            os.close(full)
        return f

    monkeypatch.setattr(builtins, "open", opened)


@pytest.fixture
def records_file(tmp_path):
    src = tmp_path / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in simulate("doudizhu", None, 3, 4)))
    return src


@pytest.mark.parametrize("where", ["write", "fsync"])
def test_convert_on_a_full_disk_keeps_the_old_file_and_leaves_nothing(tmp_path, records_file, monkeypatch, where):
    target = tmp_path / "out.paipu"
    target.write_bytes(b"the old file\n")
    if where == "fsync":
        monkeypatch.setattr(os, "fsync", no_space)
    else:
        disk_full_under(tmp_path, monkeypatch)
    r = invoke("convert", str(records_file), "--to", "text", "--out", str(target))
    assert r.exit_code == 2
    assert r.stderr.strip() == f"error: {target}: No space left on device"
    assert target.read_bytes() == b"the old file\n"
    assert sorted(os.listdir(tmp_path)) == ["h.jsonl", "out.paipu"]


def test_convert_writes_the_whole_file_at_once(tmp_path, records_file):
    target = tmp_path / "out.jsonl.gz"
    target.write_bytes(b"old")
    assert invoke("convert", str(records_file), "--to", "jsonl", "--out", str(target)).exit_code == 0
    assert gzip.decompress(target.read_bytes()) == records_file.read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["h.jsonl", "out.jsonl.gz"]


def test_simulate_on_a_full_disk_leaves_the_old_file_and_no_part(tmp_path, monkeypatch):
    target = tmp_path / "sim.jsonl.gz"
    target.write_bytes(b"old")
    import zlib

    real = zlib.compressobj

    class Full:  # gzip's compressor: the disk fills at the final flush (the close)
        def __init__(self, *a, **kw):
            self.c = real(*a, **kw)

        def compress(self, data):
            return self.c.compress(data)

        def flush(self, *a):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(zlib, "compressobj", Full)
    r = invoke("simulate", "-g", "doudizhu", "-n", "3", "-o", str(target), "--workers", "1")
    assert r.exit_code == 2
    assert r.stderr.strip() == f"error: {target}: No space left on device"
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["sim.jsonl.gz"]


def test_a_killed_simulate_leaves_a_part_the_next_run_removes(tmp_path):
    target = tmp_path / "x.jsonl.gz"
    child = subprocess.Popen([sys.executable, "-m", "paipu.cli", "simulate", "-g", "doudizhu", "-n", "1000000",
                              "-o", str(target), "--workers", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    part = tmp_path / f".x.jsonl.gz.part-{child.pid}"
    try:
        end = time.monotonic() + 30
        while not (part.exists() and part.stat().st_size > 0):
            assert time.monotonic() < end and child.poll() is None
            time.sleep(0.05)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert os.listdir(tmp_path) == [part.name]  # what a kill leaves: the part of a dead process
    assert invoke("simulate", "-g", "doudizhu", "-n", "2", "-o", str(target), "--workers", "1").exit_code == 0
    assert os.listdir(tmp_path) == ["x.jsonl.gz"]
    assert len(gzip.decompress(target.read_bytes()).splitlines()) == 2


def test_a_part_of_a_live_process_is_left_alone(tmp_path):
    from paipu.replay.io.output import remove_stale_parts

    target = str(tmp_path / "x.jsonl")
    live = tmp_path / f".x.jsonl.part-{os.getppid()}"
    live.write_bytes(b"")
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    (tmp_path / f".x.jsonl.part-{dead.pid}").write_bytes(b"")
    (tmp_path / f".y.jsonl.part-{dead.pid}").write_bytes(b"")  # another file's part
    assert remove_stale_parts(target) == [f".x.jsonl.part-{dead.pid}"]
    assert sorted(os.listdir(tmp_path)) == sorted([live.name, f".y.jsonl.part-{dead.pid}"])


def test_report_on_a_full_disk_leaves_no_temporary_file(tmp_path, monkeypatch):
    src = tmp_path / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in simulate("doudizhu", None, 20, 4)))
    ds = str(tmp_path / "ds")
    assert invoke("ingest", str(src), "--out", ds, "-q").exit_code == 0
    assert invoke("audit", ds, "--workers", "1").exit_code == 0
    out = tmp_path / "report.html"
    out.write_text("old report")
    monkeypatch.setattr(os, "fsync", no_space)
    r = invoke("report", ds, "--out", str(out))
    assert r.exit_code == 2 and r.stderr.strip() == f"error: {out}: No space left on device"
    assert out.read_text() == "old report"
    assert sorted(os.listdir(tmp_path)) == ["ds", "h.jsonl", "report.html"]


def test_replay_html_refuses_a_fifo_and_leaves_it(tmp_path, records_file):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    r = invoke("replay", str(records_file), "--html", str(fifo))
    assert r.exit_code == 2
    assert r.stderr.strip() == (f"error: {fifo}: cannot write: not a regular file: paipu writes only regular files "
                                "(or standard output)")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["h.jsonl", "pipe"]


def test_page_names_differ_for_every_id_stay_short_and_the_index_always_comes(tmp_path):
    ids = ["a/b", "a_2fb", "index", "Index", "中" * 36, "x" * 3000, "ddz-1", "DDZ-1"]
    base = list(simulate("doudizhu", None, len(ids), 4))
    src = tmp_path / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(dict(r, id=i)) + b"\n" for r, i in zip(base, ids)))
    (tmp_path / "ids.txt").write_text("\n".join(ids) + "\n", encoding="utf-8")
    out = tmp_path / "pages"
    r = invoke("replay", str(src), "--hands", f"@{tmp_path / 'ids.txt'}", "--html", str(out))
    assert r.exit_code == 0, r.output
    names = [html_name(i) for i in ids]
    assert len({n.lower() for n in names}) == len(ids) and "index.html" not in names
    assert max(len(n.encode()) for n in names) <= 62
    assert names[0] == "a_b~" + names[0][4:] and names[1] == "a_2fb.html" and names[6] == "ddz-1.html"
    assert sorted(os.listdir(out)) == sorted(names + ["index.html"])
    index = (out / "index.html").read_text(encoding="utf-8")
    import re

    assert re.findall(r"href='([^']+)'", index) == names
    page = (out / names[1]).read_text(encoding="utf-8")
    assert json.dumps("a_2fb") in page or "a_2fb" in page


def test_a_page_that_cannot_be_written_still_gives_the_index(tmp_path, records_file):
    ids = [json.loads(line)["id"] for line in records_file.read_text().splitlines()]
    out = tmp_path / "pages"
    out.mkdir()
    os.mkfifo(out / html_name(ids[1]))  # that page cannot be replaced
    r = invoke("replay", str(records_file), "--hands", ",".join(ids), "--html", str(out))
    assert r.exit_code == 1
    assert f"{out / html_name(ids[1])}: cannot write: not a regular file" in r.stderr
    index = (out / "index.html").read_text(encoding="utf-8")
    assert html_name(ids[0]) in index and html_name(ids[2]) in index and html_name(ids[1]) not in index


def test_sql_parquet_on_a_full_disk_keeps_the_old_file(tmp_path, records_file, monkeypatch):
    ds = str(tmp_path / "ds")
    assert invoke("ingest", str(records_file), "--out", ds, "-q").exit_code == 0
    target = tmp_path / "out.parquet"
    target.write_bytes(b"old")
    assert invoke("sql", ds, "select id from hands", "--parquet", str(target)).exit_code == 0
    import pyarrow.parquet as pq

    assert pq.read_table(target).num_rows == 3
    good = target.read_bytes()
    monkeypatch.setattr(os, "fsync", no_space)
    r = invoke("sql", ds, "select id from hands", "--parquet", str(target))
    assert r.exit_code == 2 and r.stderr.strip() == f"error: {target}: No space left on device"
    assert target.read_bytes() == good
    assert sorted(os.listdir(tmp_path)) == ["ds", "h.jsonl", "out.parquet"]


def test_sql_parquet_is_refused_inside_the_dataset_and_a_stray_file_is_named(tmp_path, records_file):
    """A Parquet file written into a table's folder broke every command on the dataset with
    DuckDB's traceback ("Hive partition mismatch"): --parquet there is refused, and a file
    left there by other means (the query's own COPY) is named in one line, the rest intact."""
    ds = str(tmp_path / "ds")
    assert invoke("ingest", str(records_file), "--out", ds, "-q").exit_code == 0
    stray = os.path.join(ds, "hands", "x.parquet")
    r = invoke("sql", ds, "select 1 as a", "--parquet", stray)
    assert r.exit_code == 2 and r.stderr.strip() == (
        f"error: --parquet {stray} is inside the dataset {ds}: a file there would be read as part of its "
        f"tables; write it outside")
    assert not os.path.exists(stray)
    r = invoke("sql", ds, "select 1 as a", "--parquet", "s3://bucket/ds/hands/y.parquet")  # (was: "the folder ... does not exist")
    assert r.exit_code == 2 and r.stderr.strip() == "error: --parquet s3://bucket/ds/hands/y.parquet: writes a local file, not to a URI; give a path"
    r = invoke("sql", ds, "select 1 as a", "--parquet", str(tmp_path / "p.parquet"), "--csv")
    assert r.exit_code == 2 and "--csv and --parquet: choose one" in r.stderr
    # beside the partitions (DuckDB's traceback), deeper in one (read as rows of the table, without a
    # word), under another key (DuckDB's error): each named, and the table whole again once it is moved
    game = next(d for d in os.listdir(os.path.join(ds, "hands")) if d.startswith("game="))
    for folder in ("", os.path.join(game, "sub"), "foo=1"):
        os.makedirs(os.path.join(ds, "hands", folder), exist_ok=True)
        place = os.path.join(ds, "hands", folder, "x.parquet") if folder else stray
        assert invoke("sql", ds, f"copy (select * from hands limit 1) to '{place}'").exit_code == 0
        r = invoke("sql", ds, "select count(*) as n from hands", "--csv")
        assert r.exit_code == 2 and r.stderr.strip() == (
            f"error: {ds}: {place} is not a part of the hands table (its parts are hands/game=NAME/FILE); "
            f"move it out of the dataset")
        os.remove(place)
        r = invoke("sql", ds, "select count(*) as n from hands", "--csv")
        assert r.exit_code == 0 and r.stdout == "n\n3\n"
    os.makedirs(os.path.join(ds, "rejects", "sub"), exist_ok=True)
    bad = os.path.join(ds, "rejects", "sub", "x.parquet")
    assert invoke("sql", ds, f"copy (select 1 as a) to '{bad}'").exit_code == 0
    r = invoke("sql", ds, "select count(*) as n from hands", "--csv")
    assert r.exit_code == 2 and "is not a part of the rejects table (its parts are rejects/FILE)" in r.stderr
