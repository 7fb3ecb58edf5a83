"""Ingest: every hand lands in the dataset or in rejects, with file, line and reason."""

from __future__ import annotations

import gzip
import json
import os

import duckdb
import pytest

from paipu.replay.ingest import ingest_files
from paipu.replay.io.dataset import read_records
from paipu.replay.io.readers import iter_items
from paipu.replay.io.sources import expand_inputs
from paipu.replay.io.text import record_to_text
from paipu.replay.sim import simulate

RECORDS = list(simulate("doudizhu", None, 6, 11))


def jsonl(records) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def run(tmp_path, files: dict[str, bytes | str], **kw):
    src = tmp_path / "in"
    src.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (src / name).write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    out = str(tmp_path / "ds")
    stats = ingest_files(expand_inputs([str(src)]), out, **kw)
    return stats, out


def rows(out: str, table: str, cols: str = "*", order: str = "") -> list[tuple]:
    path = os.path.join(out, table, "**", "*.parquet")
    return duckdb.sql(f"select {cols} from read_parquet('{path}', hive_partitioning=true) {order}").fetchall()


def test_both_formats_gzip_and_counts(tmp_path):
    text = "\n".join(record_to_text(r) for r in RECORDS[3:])
    stats, out = run(tmp_path, {"a.jsonl": jsonl(RECORDS[:2]), "b.jsonl.gz": gzip.compress(jsonl(RECORDS[2:3]).encode()),
                                "c.paipu": text})
    assert (stats.read, stats.written, stats.rejected) == (6, 6, 0)
    assert rows(out, "hands", "count(*), count(distinct id), min(game)") == [(6, 6, "doudizhu")]
    n_actions = sum(len(r["actions"]) for r in RECORDS)
    assert rows(out, "actions", "count(*)") == [(n_actions,)]
    assert rows(out, "hands", "source, line", f"where id = '{RECORDS[4]['id']}'")[0][0].endswith("c.paipu")


def test_dataset_rebuilds_the_records_exactly(tmp_path):
    stats, out = run(tmp_path, {"a.jsonl": jsonl(RECORDS)})
    assert sorted(read_records(out), key=lambda r: r["id"]) == sorted(RECORDS, key=lambda r: r["id"])


def test_reingest_adds_nothing_and_different_hand_with_same_id_is_rejected(tmp_path):
    stats, out = run(tmp_path, {"a.jsonl": jsonl(RECORDS)})
    again = ingest_files(expand_inputs([str(tmp_path / "in")]), out)
    assert (again.written, again.duplicates, again.rejected) == (0, 6, 0)
    changed = dict(RECORDS[0], time="2020-01-01T00:00:00Z")
    (tmp_path / "in2.jsonl").write_text(jsonl([changed]))
    third = ingest_files([str(tmp_path / "in2.jsonl")], out)
    assert (third.written, third.rejected) == (0, 1)
    assert rows(out, "rejects", "code, line, hand_id") == [("duplicate_id", 1, RECORDS[0]["id"])]
    assert rows(out, "hands", "count(*)") == [(6,)]


def test_duplicate_ids_within_one_input(tmp_path):
    changed = dict(RECORDS[1], id=RECORDS[0]["id"])
    stats, out = run(tmp_path, {"a.jsonl": jsonl([RECORDS[0], RECORDS[0], changed])})
    assert (stats.written, stats.duplicates, stats.rejected) == (1, 1, 1)
    assert rows(out, "rejects", "code, line") == [("duplicate_id", 3)]


BAD_LINES = [
    ('{"paipu": 1, "id": "x"', "bad_record", "not valid JSON"),               # truncated line
    ('{"paipu": 1, "id": 5}', "bad_record", 'field "id": expected a string'),  # wrong type
    ("[1, 2]", "bad_record", "expected a JSON object"),
]


def test_bad_lines_are_rejected_with_line_and_reason(tmp_path):
    bad_card = dict(RECORDS[0], id="bc")
    bad_card["deal"] = [list(h) for h in bad_card["deal"]]
    bad_card["deal"][1][3] = "1z"
    unknown = dict(RECORDS[0], id="ug", game="mahjong")
    lines = [json.dumps(RECORDS[0])] + [b for b, _, _ in BAD_LINES] + [json.dumps(bad_card), "", json.dumps(unknown)]
    stats, out = run(tmp_path, {"a.jsonl": "\n".join(lines) + "\n"})
    assert (stats.written, stats.rejected) == (1, 5)
    got = rows(out, "rejects", "line, code, message", "order by line")
    assert [(line, code) for line, code, _ in got] == [(2, "bad_record"), (3, "bad_record"), (4, "bad_record"),
                                                        (5, "bad_card"), (7, "unknown_game")]
    for (_, _, message), (_, _, expected) in zip(got, BAD_LINES):
        assert expected in message
    assert 'field "deal[1][3]": expected a card like' in got[3][2]


def test_encodings_bom_gbk_recorded(tmp_path):
    r = dict(RECORDS[0])
    bom = b"\xef\xbb\xbf" + (json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8")
    gbk_rec = dict(RECORDS[1], players=["张三", "李四", "王五"])
    gbk = (json.dumps(gbk_rec, ensure_ascii=False) + "\n").encode("gb18030")
    text_gbk = record_to_text(dict(RECORDS[2], players=["老王", "小红", "赵六"])).encode("gb18030")
    stats, out = run(tmp_path, {"bom.jsonl": bom, "gbk.jsonl": gbk, "gbk.paipu": text_gbk})
    assert stats.rejected == 0
    got = dict((i, (enc, p)) for i, enc, p in rows(out, "hands", "id, encoding, players"))
    assert got[RECORDS[0]["id"]][0] == "utf-8-sig"
    assert got[RECORDS[1]["id"]] == ("gb18030", ["张三", "李四", "王五"])
    assert got[RECORDS[2]["id"]] == ("gb18030", ["老王", "小红", "赵六"])


@pytest.mark.parametrize("batch_size", [1, 2, 6])
def test_a_hands_encoding_does_not_depend_on_batches(tmp_path, batch_size):
    """hands.encoding is each hand's own: GB18030 for the hand with such a line, the
    byte-order mark's utf-8-sig for every other hand of that file, in JSONL and text,
    whatever the batches (before: a GB18030 hand made the rest of its batch gb18030, and
    the mark counted for the first batch only)."""
    names = [dict(r, players=["老王", "小红", "赵六"]) for r in RECORDS]

    def encoded(texts: list[str]) -> bytes:
        return b"\xef\xbb\xbf" + b"".join(t.encode("gb18030" if k == 2 else "utf-8") for k, t in enumerate(texts))

    jsonl = encoded([json.dumps(dict(r, id=r["id"] + "-j"), ensure_ascii=False) + "\n" for r in names])
    text = encoded([record_to_text(r) + "\n" for r in names])
    stats, out = run(tmp_path, {"h.jsonl": jsonl, "h.paipu": text}, batch_size=batch_size)
    assert stats.rejected == 0
    got = dict(rows(out, "hands", "id, encoding"))
    for suffix in ("", "-j"):
        assert [got[r["id"] + suffix] for r in RECORDS] == ["utf-8-sig"] * 2 + ["gb18030"] + ["utf-8-sig"] * 3


def test_empty_file_and_binary_garbage(tmp_path):
    garbage = bytes(range(256)) * 4
    stats, out = run(tmp_path, {"empty.jsonl": b"", "junk.jsonl": garbage, "junk.paipu": b"\x00\x01\x02hand"})
    assert stats.written == 0 and stats.rejected >= 2
    got = rows(out, "rejects", "source, code, message")
    assert all(code == "bad_record" for _, code, _ in got)
    assert {os.path.basename(s) for s, _, _ in got} == {"junk.jsonl", "junk.paipu"}
    assert any("NUL byte" in m for _, _, m in got)


def test_no_temporary_files_left_and_parts_small_batches(tmp_path):
    stats, out = run(tmp_path, {"a.jsonl": jsonl(RECORDS)}, batch_size=2)
    names = [f for _, _, files in os.walk(out) for f in files if f not in (".lock", ".moving")]  # the writers' and the readers' locks
    assert names and all(n.endswith(".parquet") for n in names)
    assert os.listdir(os.path.join(out, "_staging")) == []  # every batch committed and moved
    assert len([n for n in names if n.startswith("part-")]) >= 3
    assert rows(out, "hands", "count(*)") == [(6,)]


def test_missing_input_is_an_error(tmp_path):
    from paipu.replay.io.sources import InputError

    with pytest.raises(InputError):
        list(iter_items([str(tmp_path / "nope.jsonl")]))


def test_parallel_workers_give_the_same_dataset(tmp_path):
    changed = dict(RECORDS[1], id=RECORDS[0]["id"])
    data = jsonl(RECORDS + [RECORDS[0], changed]) + "not json\n"
    serial_stats, serial = run(tmp_path / "s", {"a.jsonl": data}, batch_size=2, workers=1)
    parallel_stats, parallel = run(tmp_path / "p", {"a.jsonl": data}, batch_size=2, workers=2)
    assert serial_stats == parallel_stats
    assert (parallel_stats.written, parallel_stats.duplicates, parallel_stats.rejected) == (6, 1, 2)
    query = "id, source, line"
    assert sorted((i, os.path.basename(s), n) for i, s, n in rows(serial, "hands", query)) == \
        sorted((i, os.path.basename(s), n) for i, s, n in rows(parallel, "hands", query))
    assert rows(parallel, "rejects", "code, line", "order by line") == [("duplicate_id", 8), ("bad_record", 9)]
    assert sorted(read_records(parallel), key=lambda r: r["id"]) == sorted(RECORDS, key=lambda r: r["id"])


def test_records_are_the_same_whatever_order_the_actions_are_stored_in(tmp_path):
    """A hand's actions are a slice of its part's when stored hand after hand (as ingest
    writes them); stored in another order they are grouped by hand id: the same records,
    keys in the same order, times as they were (whole numbers ints, others floats)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = json.loads(json.dumps(RECORDS))
    records[0]["actions"][0]["t"] = 1.5
    records[1]["actions"][0].pop("t", None)
    # a hand as long as the last one, its actions told apart by their times only
    records.append(dict(records[-1], id="twin", actions=[dict(a, t=7000 + k) for k, a in enumerate(records[-1]["actions"])]))
    _, out = run(tmp_path, {"a.jsonl": jsonl(records)})
    stored = sorted(read_records(out), key=lambda r: r["id"])
    assert stored == sorted(records, key=lambda r: r["id"])
    first = next(r for r in stored if r["id"] == records[0]["id"])
    assert first["actions"][0]["t"] == 1.5 and type(first["actions"][1]["t"]) is int
    assert "t" not in next(r for r in stored if r["id"] == records[1]["id"])["actions"][0]
    (path,) = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(out, "actions")) for f in fs]
    actions = pq.read_table(path)
    twins = len(records[-1]["actions"])
    n = actions.num_rows
    for order in (range(n - 1, -1, -1),  # every hand's actions backwards
                  list(range(5, n)) + list(range(5)),  # one hand split in two
                  list(range(n - 2 * twins)) + list(range(n - twins, n)) + list(range(n - 2 * twins, n - twins))):
        # (the last: the two hands of the same length swapped, each hand's actions in order)
        pq.write_table(actions.take(pa.array(list(order))), path)
        again = sorted(read_records(out), key=lambda r: r["id"])
        assert json.dumps(again, ensure_ascii=False) == json.dumps(stored, ensure_ascii=False)


@pytest.mark.parametrize("merge_at", [1, 2, 200_000])
def test_dedup_against_the_dataset_and_the_batch_whenever_the_index_merges(tmp_path, monkeypatch, merge_at):
    """Ids are looked up a batch at a time against the index's merged part; an id seen
    earlier in the batch, before or after a merge of the recent part, still counts."""
    from paipu.replay.io.dataset import IdIndex

    monkeypatch.setattr(IdIndex, "MERGE_AT", merge_at)
    stats, out = run(tmp_path, {"a.jsonl": jsonl(RECORDS[:3])})
    assert (stats.written, stats.duplicates, stats.rejected) == (3, 0, 0)
    new = [dict(r, id=f"new-{k}") for k, r in enumerate(RECORDS[3:6])]
    later = [RECORDS[0], new[0], new[1], new[2], new[0],  # a stored hand, three new ones, one again
             dict(RECORDS[4], id=RECORDS[1]["id"]),  # a stored id, other content
             dict(RECORDS[0], id=new[1]["id"]),  # an id of this batch, other content
             dict(RECORDS[5], id="new-9")]
    (tmp_path / "later.jsonl").write_text(jsonl(later))
    again = ingest_files([str(tmp_path / "later.jsonl")], out, batch_size=100)
    assert (again.written, again.duplicates, again.rejected) == (4, 2, 2)
    assert rows(out, "rejects", "code, line", "order by line") == [("duplicate_id", 6), ("duplicate_id", 7)]
    assert sorted(r["id"] for r in read_records(out)) == sorted([r["id"] for r in RECORDS[:3]] + ["new-0", "new-1",
                                                                                                  "new-2", "new-9"])


# ---------------------------------------------------------------- a reject's identity: file, line, content

MISSING_GAME = 'field "game": required field missing (expected a string)'


def reject_rows(out: str) -> list[tuple]:
    """(file name, line, code, message, raw) of every reject, in a stable order."""
    return sorted((os.path.basename(s), n, c, m, r) for s, n, c, m, r in rows(out, "rejects", "source, line, code, message, raw"))


def test_a_rotated_log_with_a_new_bad_hand_at_the_same_line_keeps_both(tmp_path):
    """A log rotated under the same name: its bad line 2 has the same message as the old
    one's but other content, so it is a new reject (before: "already there", stored nowhere);
    the rotated file again adds nothing."""
    log = tmp_path / "bad.jsonl"
    out = str(tmp_path / "ds")
    log.write_text(jsonl(RECORDS[:1]) + '{"paipu": 1, "id": "x"}\n')
    first = ingest_files([str(log)], out)
    assert (first.written, first.rejected) == (1, 1)
    assert reject_rows(out) == [("bad.jsonl", 2, "bad_record", MISSING_GAME, '{"paipu": 1, "id": "x"}')]
    log.write_text(jsonl(RECORDS[1:2]) + '{"paipu": 1, "id": "y"}\n')  # rotated: a new log, same name
    second = ingest_files([str(log)], out)
    assert (second.written, second.duplicates, second.rejected) == (1, 0, 1)
    assert reject_rows(out) == [("bad.jsonl", 2, "bad_record", MISSING_GAME, '{"paipu": 1, "id": "x"}'),
                                ("bad.jsonl", 2, "bad_record", MISSING_GAME, '{"paipu": 1, "id": "y"}')]
    third = ingest_files([str(log)], out)
    assert (third.written, third.duplicates, third.rejected) == (0, 2, 0)
    assert len(reject_rows(out)) == 2


def test_one_file_under_several_names_is_one_file(tmp_path, monkeypatch):
    """bad.jsonl, ./bad.jsonl, its absolute path and a symbolic link to it name one file:
    its bad line is one reject, in one run and across runs (before: one per spelling)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.jsonl").write_text(jsonl(RECORDS[:1]) + "not json\n")
    os.symlink("bad.jsonl", tmp_path / "link.jsonl")
    names = ["bad.jsonl", "./bad.jsonl", str(tmp_path / "bad.jsonl"), "link.jsonl"]
    stats = ingest_files(names, "ds")
    assert (stats.written, stats.duplicates, stats.rejected) == (1, 6, 1)
    got = rows("ds", "rejects", "source, line, code, file")
    assert got == [("bad.jsonl", 2, "bad_record", str(tmp_path / "bad.jsonl"))]
    for name in names:
        again = ingest_files([name], "ds")
        assert (again.written, again.duplicates, again.rejected) == (0, 2, 0)
    assert rows("ds", "rejects", "count(*)") == [(1,)]


def test_rejects_stored_before_they_had_an_identity_still_count(tmp_path, monkeypatch):
    """A dataset whose rejects parts lack the file and digest columns (written by an
    earlier paipu): their identity is worked out from source, raw text and message."""
    import pyarrow.parquet as pq

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.jsonl").write_text("not json\n{}\n")
    ingest_files(["bad.jsonl"], "ds")
    (part,) = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join("ds", "rejects")) for f in fs]
    pq.write_table(pq.read_table(part).drop_columns(["file", "digest"]), part)
    again = ingest_files([str(tmp_path / "bad.jsonl")], "ds")
    assert (again.duplicates, again.rejected) == (2, 0)


def test_memory_stays_flat_whatever_the_number_of_rejects(tmp_path):
    """Rejects go to disk a batch at a time, and the check against stored rejects reads only
    the parts a batch's lines fall in: ingesting (and re-ingesting) 60,000 lines of ``{}``
    takes no more memory than 6,000 (before: about 330 bytes a reject, 650 on re-ingest)."""
    import subprocess
    import sys

    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    small.write_bytes(b"{}\n" * 6_000)
    large.write_bytes(b"{}\n" * 60_000)
    child = ("import resource, sys\nfrom paipu.replay.ingest import ingest_files\n"
             "peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
             "s = ingest_files([sys.argv[1]], sys.argv[3], batch_size=1000, workers=1)\n"
             "ingest_files([sys.argv[1]], sys.argv[3], batch_size=1000, workers=1)\n"
             "before = peak()\n"
             "a = ingest_files([sys.argv[2]], sys.argv[4], batch_size=1000, workers=1)\n"
             "b = ingest_files([sys.argv[2]], sys.argv[4], batch_size=1000, workers=1)\n"
             "print(s.rejected, a.rejected, b.duplicates, (peak() - before) // 1024)\n")
    done = subprocess.run([sys.executable, "-c", child, str(small), str(large), str(tmp_path / "d1"),
                           str(tmp_path / "d2")], capture_output=True, text=True, check=True, cwd=tmp_path)
    small_rejects, large_rejects, again, grown_mb = map(int, done.stdout.split())
    assert (small_rejects, large_rejects, again) == (6_000, 60_000, 60_000)
    assert grown_mb < 4, f"memory grew by {grown_mb} MB for 54,000 more rejects"


def test_a_half_written_last_line_is_held_back_until_it_is_whole(tmp_path):
    """A growing file read while its last hand is half written: that line (no line end, not
    whole JSON) is held back, not rejected, so once the hand is whole it lands in hands with
    no reject left behind (before: a permanent bad_record for a hand that is in hands)."""
    log = tmp_path / "live.jsonl"
    out = str(tmp_path / "ds")
    whole = json.dumps(RECORDS[1])
    log.write_text(jsonl(RECORDS[:1]) + whole[:100])
    first = ingest_files([str(log)], out)
    assert (first.written, first.rejected, first.held) == (1, 0, [(str(log), 2)])
    assert not os.path.exists(os.path.join(out, "rejects"))
    log.write_text(jsonl(RECORDS[:1]) + whole)  # the rest of the line, still without its end
    second = ingest_files([str(log)], out)
    assert (second.written, second.duplicates, second.rejected, second.held) == (1, 1, 0, [])
    assert rows(out, "hands", "line, id", "order by line") == [(1, RECORDS[0]["id"]), (2, RECORDS[1]["id"])]
    assert not os.path.exists(os.path.join(out, "rejects"))


def test_a_cut_last_line_with_its_line_end_or_compressed_is_rejected(tmp_path):
    """A line end makes the line whole, and a compressed file read to its end is whole: a cut
    line there is a bad_record as before; a cut UTF-8 character at the end is held back."""
    cut = json.dumps(RECORDS[1])[:100]
    stats, out = run(tmp_path, {"ended.jsonl": cut + "\n", "packed.jsonl.gz": gzip.compress(cut.encode()),
                                "mid-char.jsonl": '{"paipu": 1, "id": "张'.encode()[:-1]})
    assert [os.path.basename(s) for s, _ in stats.held] == ["mid-char.jsonl"]
    assert sorted((os.path.basename(s), n, c) for s, n, c in rows(out, "rejects", "source, line, code")) == [
        ("ended.jsonl", 1, "bad_record"), ("packed.jsonl.gz", 1, "bad_record")]


def test_ingest_says_what_it_held_back(tmp_path):
    from typer.testing import CliRunner

    from paipu.cli import app

    (tmp_path / "live.jsonl").write_text(jsonl(RECORDS[:1]) + '{"paipu": 1, "id"')
    r = CliRunner().invoke(app, ["ingest", str(tmp_path / "live.jsonl"), "--out", str(tmp_path / "ds")])
    assert r.exit_code == 0
    assert r.stdout.strip().endswith("0 already there, 0 rejected, 1 held back")
    assert f"{tmp_path / 'live.jsonl'}:2: held back: the file's last line has no line end" in r.stderr


def test_a_file_name_that_is_not_utf8_is_stored_escaped_and_found_again(tmp_path):
    """Its name's bytes reach Python as lone surrogates, which Arrow cannot store: ingest ended
    in a UnicodeEncodeError traceback, the hand of that file and its neighbours lost."""
    folder = os.fsencode(str(tmp_path))
    good, bad = os.fsdecode(folder + b"/x\xff.jsonl"), os.fsdecode(folder + b"/r\xfe.jsonl")
    record = next(iter(simulate("doudizhu", "huopin", 1, 3)))
    with open(good, "w", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
    with open(bad, "w", encoding="utf-8") as f:
        f.write('{"bad": 1}\n')
    ds = str(tmp_path / "ds")
    stats = ingest_files([good, bad], ds)
    assert (stats.written, stats.rejected) == (1, 1)
    con = duckdb.connect()
    hands = con.sql(f"select source, line from read_parquet('{ds}/hands/**/*.parquet')").fetchall()
    rejects = con.sql(f"select source, line, file from read_parquet('{ds}/rejects/**/*.parquet')").fetchall()
    assert hands == [(str(tmp_path) + "/x\\xff.jsonl", 1)]
    assert rejects == [(str(tmp_path) + "/r\\xfe.jsonl", 1, str(tmp_path) + "/r\\xfe.jsonl")]
    again = ingest_files([good, bad], ds)  # the same files: nothing new, nothing doubled
    assert (again.written, again.rejected, again.duplicates) == (0, 0, 2)
    said = []
    ingest_files([bad], str(tmp_path / "ds2"), on_reject=said.append)  # messages name it as the tables do
    assert [i.where for i in said] == [str(tmp_path) + "/r\\xfe.jsonl:1"]
