"""Hostile inputs: each bad value costs its own hand only, never its neighbours or the batch.

Every case is a file with good hands around one bad one, ingested and audited.  For each:
no exception, the exact reject code and field (or line and column in the text format),
the good hands kept, and hands + rejects = input records.  Ingest and audit report the
same line.
"""

from __future__ import annotations

import copy
import errno
import gzip
import json
import os
import re

import pytest

from paipu.replay.audit import iter_verdicts
from paipu.replay.ingest import ingest_files
from paipu.replay.io import sources
from paipu.replay.io.commit import read_table
from paipu.replay.io.dataset import read_records
from paipu.replay.io.sources import expand_inputs
from paipu.replay.io.text import record_to_text
from paipu.replay.sim import simulate

GOOD = list(simulate("doudizhu", None, 4, 7))
GUANDAN = list(simulate("guandan", None, 1, 3))[0]


def spoil(change, base: dict | None = None) -> dict:
    record = copy.deepcopy(base or GOOD[0])
    record["id"] = "bad"
    change(record)
    return record


def jsonl_lines(records) -> bytes:
    """JSON lines; Python's json writes what orjson refuses (big integers, NaN)."""
    return b"".join(json.dumps(r, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n" for r in records)


def text_of(records) -> bytes:
    return "\n".join(record_to_text(r) if isinstance(r, dict) else r for r in records).encode("utf-8", "surrogatepass")


def ingest(tmp_path, name: str, data: bytes, n_records: int, **kw):
    """Ingest one file; returns (stats, hands ids, reject rows); checks the counts add up."""
    src = tmp_path / "in"
    src.mkdir(parents=True, exist_ok=True)
    (src / name).write_bytes(data)
    out = str(tmp_path / "ds")
    stats = ingest_files(expand_inputs([str(src / name)]), out, batch_size=kw.pop("batch_size", 100), **kw)
    hands = read_table(out, "hands", ["id"])
    ids = sorted(hands.column("id").to_pylist()) if hands is not None else []
    rejects = read_table(out, "rejects")
    rows = rejects.to_pylist() if rejects is not None else []
    assert stats.read == n_records
    assert len(ids) + len(rows) == n_records == stats.written + stats.rejected
    assert not any("Traceback" in (r["message"] or "") for r in rows)
    # the audit of the same file reports the same lines
    verdicts = list(iter_verdicts([str(src / name)]))
    assert len(verdicts) == n_records
    bad = sorted((v.line, str(v.violation.code)) for v in verdicts if v.violation and v.violation.code in
                 ("bad_record", "bad_card", "unknown_game"))
    assert bad == sorted((r["line"], r["code"]) for r in rows)
    return stats, ids, rows


GOOD_IDS = sorted(r["id"] for r in GOOD)
BIG = 2 ** 53 + 2

# (name, bad record, field named in the message, expected text)
JSONL_CASES = [
    ("stacks above 2^53", spoil(lambda r: r.update(stacks=[BIG, 0, 0])), "stacks[0]", "from -2^53 to 2^53"),
    ("stacks as a string", spoil(lambda r: r.update(stacks=[1, "2", 3])), "stacks[1]", "a number"),
    ("t above 2^53", spoil(lambda r: r["actions"][2].update(t=BIG)), "actions[2].t", "from 0 to 2^53"),
    ("negative t", spoil(lambda r: r["actions"][0].update(t=-1)), "actions[0].t", "from 0 to 2^53"),
    ("show factor 2^31", spoil(lambda r: r["actions"].insert(0, {"seat": 0, "act": "show", "factor": 2 ** 31})),
     "actions[0].factor", "32 bits"),
    ("match.hand 2^63", spoil(lambda r: r.update(match={"id": "m", "hand": 2 ** 63})), "match.hand", "2^63 - 1"),
    ("string room.base", spoil(lambda r: r.update(room={"base": "1", "coef": 100})), "room.base", "a number"),
    ("room.coef true", spoil(lambda r: r.update(room={"coef": True})), "room.coef", "a number"),
    ("garbage Guandan levels", spoil(lambda r: r.update(levels=["2", "Z"]), GUANDAN), "levels", "two level ranks"),
    ("garbage Guandan level", spoil(lambda r: r.update(level="[]"), GUANDAN), "level", "a level rank"),
    ("nested 300 deep", spoil(lambda r: r.update(params={"x": json.loads("[" * 300 + "]" * 300)})),
     "params.x" + "[0]" * 252, "nested at most 254 deep"),
    ("a seat name that is a number", spoil(lambda r: r["players"].__setitem__(1, 7)), "players[1]", "a string"),
]


@pytest.mark.parametrize("name,bad,field,expected", JSONL_CASES, ids=[c[0] for c in JSONL_CASES])
def test_a_bad_value_in_jsonl_rejects_its_hand_only(tmp_path, name, bad, field, expected):
    data = jsonl_lines(GOOD[:2] + [bad] + GOOD[2:])
    stats, ids, rows = ingest(tmp_path, "h.jsonl", data, 5)
    assert ids == GOOD_IDS
    assert [(r["line"], r["code"]) for r in rows] == [(3, "bad_record")]
    assert f'field "{field}": expected' in rows[0]["message"] and expected in rows[0]["message"], rows[0]["message"]


# cases only the JSON parser sees (orjson refuses them: one line, one reject)
PARSER_CASES = [
    ("NaN in stacks", b'"stacks": [NaN, 1, 2]', "not valid JSON"),
    ("Infinity in t", b'"t": Infinity', "not valid JSON"),
    ("1e400 in t", b'"t": 1e400', "number is infinity"),
    ("lone surrogate", b'"players": ["\\ud800", "b", "c"]', "surrogate"),
]


@pytest.mark.parametrize("name,fragment,expected", PARSER_CASES, ids=[c[0] for c in PARSER_CASES])
def test_values_json_cannot_hold_in_jsonl(tmp_path, name, fragment, expected):
    line = jsonl_lines([spoil(lambda r: None)]).rstrip(b"\n")
    key = fragment.split(b":")[0]
    if key == b'"t"':
        line = re.sub(rb'"t": \d+', fragment, line, count=1)
    else:
        line = line.replace(b', "id":', b", " + fragment + b', "id":', 1)
    assert fragment in line
    stats, ids, rows = ingest(tmp_path, "h.jsonl", jsonl_lines(GOOD[:1]) + line + b"\n" + jsonl_lines(GOOD[1:]), 5)
    assert ids == GOOD_IDS
    assert [(r["line"], r["code"]) for r in rows] == [(2, "bad_record")]
    assert expected in rows[0]["message"]


def test_integers_over_64_bits_from_python_are_bad_records():
    """JSONL's parser reads such integers as doubles; records built in Python can hold them."""
    from paipu.replay.record import check_record
    from paipu.replay.verdicts import RecordError

    for change, field in ((lambda r: r.update(note=2 ** 70), "note"),
                          (lambda r: r["actions"][1].update(n=-(2 ** 64) - 1), "actions[1].n"),
                          (lambda r: r.update(result={"x": [{"y": 2 ** 64}]}), "result.x[0].y")):
        with pytest.raises(RecordError) as e:
            check_record(spoil(change))
        assert (e.value.code, e.value.field) == ("bad_record", field)
        assert "expected an integer of at most 64 bits" in str(e.value)


def _text_case(head_line: str) -> str:
    """The text form of a good hand with one more line after its seats."""
    lines = record_to_text(spoil(lambda r: [r.pop(k, None) for k in ("room", "stacks", "params")])).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("bottom:")) + 1
    return "\n".join(lines[:at] + [head_line] + lines[at:]) + "\n"


# (name, extra line in the hand, reject message part); the hand starts at line 1 + its offset
TEXT_CASES = [
    ("integer over 64 bits", 'room: {"name": "x", "big": 123456789012345678901234567890}',
     'field "room.big": expected an integer of at most 64 bits'),
    ("stacks above 2^53", "stacks: [9007199254740994, 0, 0]", 'field "stacks[0]": expected a number from -2^53'),
    ("integer over 64 bits in an action's extra", '0 bid yes {"n": -18446744073709551616}',
     'field "actions[0].n": expected an integer of at most 64 bits'),
    ("NaN in stacks", "stacks: [NaN, 0, 0]", "expected a JSON value (NaN is not a JSON number)"),
    ("Infinity in stacks", "stacks: [1, -Infinity, 0]", "expected a JSON value (-Infinity is not a JSON number)"),
    ("1e400 in stacks", "stacks: [1e400, 0, 0]", "expected a JSON value (1e400 is too large for a number)"),
    ("NaN in t", "0 bid yes @NaN", "expected milliseconds after @ (like @1200) (NaN is not a JSON number)"),
    ("lone surrogate in a field", 'time: "\\udc00"', 'field "time": expected valid Unicode text'),
    ("lone surrogate in an action's extra", '0 bid yes {"note": "\\ud800x"}', 'field "actions[0].note": expected valid'),
    ("nested 1,000 deep", "params: " + "[" * 1000 + "]" * 1000, "expected a JSON value (nested too deep)"),
    ("a seat number of 5,000 digits", "9" * 5000 + " pass", "line "),
    ("show factor 2^31", "0 show 2147483648", 'field "actions[0].factor": expected a whole number of 32 bits'),
    ("string room.base", 'room: {"base": "x", "coef": 1}', 'field "room.base": expected a number'),
]


@pytest.mark.parametrize("name,line,expected", TEXT_CASES, ids=[c[0] for c in TEXT_CASES])
def test_a_bad_value_in_the_text_format_rejects_its_hand_only(tmp_path, name, line, expected):
    bad = _text_case(line)
    data = text_of(GOOD[:2] + [bad] + GOOD[2:])
    stats, ids, rows = ingest(tmp_path, "h.paipu", data, 5)
    assert ids == GOOD_IDS
    assert [r["code"] for r in rows] == ["bad_record"]
    assert expected in rows[0]["message"], rows[0]["message"]


def test_lone_surrogate_in_a_text_name(tmp_path):
    bad = record_to_text(spoil(lambda r: None)).replace("seat 1 ", 'seat 1 "\\ud800" ', 1)
    bad = bad.replace('seat 1 "\\ud800" ' + GOOD[0]["players"][1], 'seat 1 "\\ud800"', 1)
    stats, ids, rows = ingest(tmp_path, "h.paipu", text_of([bad] + GOOD), 5)
    assert ids == GOOD_IDS
    assert [(r["line"], r["code"]) for r in rows] == [(1, "bad_record")]
    assert 'field "players[1]": expected valid Unicode text' in rows[0]["message"]


def test_nul_byte_rejects_only_its_hand(tmp_path):
    texts = [record_to_text(r) for r in GOOD]
    first_len = len(texts[0].splitlines()) + 1  # the hand and the blank line after it
    lines = texts[1].splitlines()
    lines[5] = lines[5][:3] + "\x00" + lines[5][3:]
    texts[1] = "\n".join(lines) + "\n"
    stats, ids, rows = ingest(tmp_path, "h.paipu", "\n".join(texts).encode(), 4)
    assert ids == sorted(r["id"] for r in GOOD if r is not GOOD[1])
    assert [(r["line"], r["code"]) for r in rows] == [(first_len + 6, "bad_record")]
    assert f"line {first_len + 6}, column 4: expected text, found a NUL byte" in rows[0]["message"]


def test_nul_byte_in_a_hand_line(tmp_path):
    texts = [record_to_text(r) for r in GOOD]
    texts[2] = texts[2].replace("hand ", "hand \x00", 1)
    stats, ids, rows = ingest(tmp_path, "h.paipu", "\n".join(texts).encode(), 4)
    assert ids == sorted(r["id"] for r in GOOD if r is not GOOD[2])
    assert [r["code"] for r in rows] == ["bad_record"] and "NUL byte" in rows[0]["message"]


def test_utf16_files_with_a_bom_are_read(tmp_path):
    for codec in ("utf-16-le", "utf-16-be"):
        bom = b"\xff\xfe" if codec == "utf-16-le" else b"\xfe\xff"
        text = jsonl_lines(GOOD[:2]).decode() + "not json\n" + jsonl_lines(GOOD[2:]).decode()
        stats, ids, rows = ingest(tmp_path / codec, "h.jsonl", bom + text.replace("\n", "\r\n").encode(codec), 5)
        assert ids == GOOD_IDS
        assert [(r["line"], r["code"]) for r in rows] == [(3, "bad_record")]
        enc = read_table(str(tmp_path / codec / "ds"), "hands", ["encoding"]).column("encoding").to_pylist()
        assert set(enc) == {codec}
        assert sorted(read_records(str(tmp_path / codec / "ds")), key=lambda r: r["id"]) == \
            sorted(GOOD, key=lambda r: r["id"])
    paipu = b"\xff\xfe" + text_of(GOOD).decode().encode("utf-16-le")
    stats, ids, rows = ingest(tmp_path / "text", "h.paipu", paipu, 4)
    assert ids == GOOD_IDS and rows == []


def test_long_line_and_gzip_bomb_are_rejects_in_bounded_memory(tmp_path, monkeypatch):
    import tracemalloc

    monkeypatch.setattr(sources, "MAX_LINE", 1 << 20)
    bomb = gzip.compress(b"{" + b"0" * (64 << 20) + b"\n", 9)  # 64 MiB in one line, 64 KiB packed
    assert len(bomb) < 200_000
    data = gzip.compress(jsonl_lines(GOOD[:2])) + bomb + gzip.compress(jsonl_lines(GOOD[2:]))
    tracemalloc.start()
    stats, ids, rows = ingest(tmp_path, "h.jsonl.gz", data, 5)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 24 << 20, peak  # far below the 64 MiB line
    assert ids == GOOD_IDS
    assert [(r["line"], r["code"]) for r in rows] == [(3, "bad_record")]
    assert "line longer than the limit of 1,048,576 bytes (67,108,866 bytes or more)" in rows[0]["message"]


def test_long_line_in_the_text_format(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_LINE", 4096)
    bad = _text_case("note: " + "x" * 10_000)
    stats, ids, rows = ingest(tmp_path, "h.paipu", text_of(GOOD[:1] + [bad] + GOOD[1:]), 5)
    assert ids == GOOD_IDS
    assert [r["code"] for r in rows] == ["bad_record"] and "longer than the limit of 4,096" in rows[0]["message"]


def test_truncated_gzip_is_reported_at_the_same_line_by_ingest_and_audit(tmp_path):
    whole = gzip.compress(jsonl_lines(GOOD), 1)
    cut = whole[: len(whole) * 3 // 4]
    stats, ids, rows = ingest(tmp_path, "h.jsonl.gz", cut, None or _readable_lines(cut) + 1)
    n = _readable_lines(cut)
    assert ids == sorted(r["id"] for r in GOOD[:n])
    assert [(r["line"], r["code"]) for r in rows] == [(n + 1, "bad_record")]
    assert f"cannot read the file past line {n}" in rows[0]["message"]


@pytest.mark.parametrize("fraction", [0.5, 0.75, 0.9])
def test_truncated_gzip_text_rejects_the_hand_it_may_have_cut(tmp_path, fraction):
    """A text file cut short: the hands before the last readable hand line are kept, that
    hand (its end unknown) is rejected at its line, then the read error, by ingest and
    audit alike; before, ingest stored the cut hand as whole and audit dropped it."""
    text = text_of(GOOD) + b"\n"
    whole = gzip.compress(text, 1)
    cut = whole[: int(len(whole) * fraction)]
    n = _readable_lines(cut)
    starts = [k for k, line in enumerate(text.split(b"\n"), 1) if line.startswith(b"hand ")]
    open_hand = max(k for k in starts if k <= n)
    before = starts.index(open_hand)
    stats, ids, rows = ingest(tmp_path, "h.paipu.gz", cut, before + 2)
    assert ids == sorted(r["id"] for r in GOOD[:before])
    assert [(r["line"], r["code"]) for r in rows] == [(open_hand, "bad_record"), (n + 1, "bad_record")]
    assert rows[0]["message"] == (f"hand cut short: the file cannot be read past line {n}, so its end is unknown "
                                  "(not taken)")
    assert rows[0]["raw"] == f"hand {GOOD[before]['id']}"
    assert f"cannot read the file past line {n}" in rows[1]["message"]


def _readable_lines(data: bytes) -> int:
    import zlib

    d = zlib.decompressobj(31)
    return d.decompress(data).count(b"\n")


def _folder_with_problems(tmp_path):
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    (src / "a.jsonl").write_bytes(jsonl_lines(GOOD[:2]))
    (src / "sub" / "b.jsonl").write_bytes(jsonl_lines(GOOD[2:]))
    os.symlink(src / "missing.jsonl", src / "dangling.jsonl")
    os.symlink(src / "loop2.jsonl", src / "loop1.jsonl")
    os.symlink(src / "loop1.jsonl", src / "loop2.jsonl")
    os.mkfifo(src / "fifo.jsonl")  # opening it would block for ever
    return src


def test_dangling_looping_symlinks_and_fifos_are_reported(tmp_path):
    src = _folder_with_problems(tmp_path)
    out = str(tmp_path / "ds")
    stats = ingest_files(expand_inputs([str(src)]), out)
    assert (stats.written, stats.rejected) == (4, 4)
    rejects = {(os.path.basename(r["source"]), r["line"], r["message"]) for r in read_table(out, "rejects").to_pylist()}
    assert rejects == {
        ("dangling.jsonl", 0, "cannot read: a dangling symbolic link (No such file or directory)"),
        ("fifo.jsonl", 0, "cannot read: not a regular file"),
        ("loop1.jsonl", 0, "cannot read: a looping symbolic link (Too many levels of symbolic links)"),
        ("loop2.jsonl", 0, "cannot read: a looping symbolic link (Too many levels of symbolic links)"),
    }


def test_audit_exits_2_on_unreadable_inputs_and_still_audits_the_rest(tmp_path, monkeypatch):
    from test_cli import invoke

    src = _folder_with_problems(tmp_path)
    r = invoke("audit", str(src), "--jsonl")
    assert r.exit_code == 2
    verdicts = [json.loads(line) for line in r.stdout.splitlines()]
    assert sorted(v["id"] for v in verdicts if v["ok"]) == GOOD_IDS
    assert len([v for v in verdicts if not v["ok"]]) == 4
    assert "4 inputs could not be read" in r.stderr and "Traceback" not in r.stderr


def test_unreadable_subfolder_and_file(tmp_path, monkeypatch):
    """Root reads everything, so unreadability is simulated: os.scandir of the subfolder
    and open() of one file raise PermissionError, as they do for other users."""
    src = _folder_with_problems(tmp_path)
    (src / "c.jsonl").write_bytes(jsonl_lines(GOOD[:1]))
    real_scandir, real_open = os.scandir, open

    def scandir(path="."):
        if str(path).endswith("sub"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    def fake_open(path, *a, **kw):
        if str(path).endswith("c.jsonl"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *a, **kw)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(sources, "open", fake_open, raising=False)
    out = str(tmp_path / "ds")
    stats = ingest_files(expand_inputs([str(src)]), out)
    assert stats.written == 2
    rejects = {(os.path.basename(r["source"]), r["line"], r["message"]) for r in read_table(out, "rejects").to_pylist()}
    assert ("sub", 0, "cannot read: cannot read the folder (Permission denied)") in rejects
    assert ("c.jsonl", 0, "cannot read the file: Permission denied") in rejects
    assert len(rejects) == 6


def test_a_value_no_audit_column_holds_costs_only_its_hand(tmp_path):
    """Coins beyond what a double holds exactly (a room's numbers multiply): the audit
    gives that hand a bad_record verdict naming the column and keeps the others."""
    huge = spoil(lambda r: [r.pop("stacks", None), r.pop("result"), r.update(room={"coef": 2 ** 52, "base": 4})],
                 GOOD[1])
    src = tmp_path / "h.jsonl"
    src.write_bytes(jsonl_lines(GOOD + [huge]))
    out = str(tmp_path / "ds")
    ingest_files([str(src)], out)
    from paipu.replay.audit import audit_dataset

    summaries = []
    audit_dataset(out, workers=1, on_part=summaries.append)
    assert sum(x.hands for x in summaries) == 5 and sum(x.ok for x in summaries) == 4
    assert [x.by_code for x in summaries if x.by_code] == [{"bad_record": 1}]
    verdicts = {r["hand_id"]: r for r in read_table(out, "verdicts").to_pylist()}
    assert set(verdicts) == set(GOOD_IDS) | {"bad"}
    assert verdicts["bad"]["code"] == "bad_record" and "outcomes.coins" in verdicts["bad"]["message"]
    assert all(verdicts[i]["code"] != "bad_record" for i in GOOD_IDS)
    seats = read_table(out, "seats", ["hand_id"]).column("hand_id").to_pylist()
    assert "bad" not in seats and len(seats) == 3 * len(GOOD)


def test_full_disk_leaves_the_dataset_as_before_the_batch(tmp_path, monkeypatch):
    from paipu.replay.io import commit

    src = tmp_path / "h.jsonl"
    src.write_bytes(jsonl_lines(GOOD))
    out = str(tmp_path / "ds")
    ingest_files([str(src)], out, batch_size=2)  # two batches in
    before = sorted(os.path.relpath(os.path.join(d, f), out) for d, _, fs in os.walk(out) for f in fs)
    more = tmp_path / "more.jsonl"
    more.write_bytes(jsonl_lines([spoil(lambda r, k=k: r.update(id=f"m{k}")) for k in range(4)]))
    writes = []

    def full(data, path):
        writes.append(path)
        if len(writes) == 2:  # the batch's hands are written, its actions hit a full disk
            raise OSError(errno.ENOSPC, "No space left on device")
        real(data, path)

    real = commit.write_parquet
    monkeypatch.setattr(commit, "write_parquet", full)
    with pytest.raises(commit.DatasetWriteError) as e:
        ingest_files([str(more)], out, batch_size=10)
    assert str(e.value) == f"{out}: cannot write the dataset (the disk is full); it is as it was before this batch"
    after = sorted(os.path.relpath(os.path.join(d, f), out) for d, _, fs in os.walk(out) for f in fs)
    assert after == before
    monkeypatch.setattr(commit, "write_parquet", real)
    again = ingest_files([str(more)], out)
    assert again.written == 4
    assert sorted(read_table(out, "hands", ["id"]).column("id").to_pylist()) == sorted(GOOD_IDS + ["m0", "m1", "m2", "m3"])


def test_full_disk_is_one_line_from_the_cli(tmp_path, monkeypatch):
    from paipu.replay.io import commit
    from test_cli import invoke

    src = tmp_path / "h.jsonl"
    src.write_bytes(jsonl_lines(GOOD))

    def full(data, path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(commit, "write_parquet", full)
    r = invoke("ingest", str(src), "--out", str(tmp_path / "ds"))
    assert r.exit_code == 2
    assert r.stderr.strip() == f"error: {tmp_path / 'ds'}: cannot write the dataset (the disk is full); " \
                               "it is as it was before this batch"


def test_a_second_writer_fails_at_once_naming_the_first(tmp_path):
    import subprocess
    import sys

    from paipu.replay.io.commit import DatasetLocked, Lock

    out = str(tmp_path / "ds")
    src = tmp_path / "h.jsonl"
    src.write_bytes(jsonl_lines(GOOD))
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom paipu.replay.io.commit import Lock\n"
                               f"Lock({out!r}).acquire()\nprint('locked', flush=True)\ntime.sleep(30)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(DatasetLocked) as e:
            ingest_files([str(src)], out)
        message = str(e.value)
        assert message.startswith(f"{out} is being written by pid {holder.pid} (")
        assert "-c" in message and " UTC); wait for it to finish" in message
        from paipu.replay.audit import audit_dataset

        with pytest.raises(DatasetLocked):
            audit_dataset(out)
        from test_cli import invoke

        r = invoke("ingest", str(src), "--out", out)
        assert r.exit_code == 2 and r.stderr.count("\n") == 1 and f"pid {holder.pid}" in r.stderr
    finally:
        holder.kill()
        holder.wait()
    assert ingest_files([str(src)], out).written == 4  # the lock goes with its holder
    with Lock(out):
        pass


def test_stale_temporaries_are_ignored_and_cleaned(tmp_path):
    src = tmp_path / "h.jsonl"
    src.write_bytes(jsonl_lines(GOOD[:2]))
    out = str(tmp_path / "ds")
    ingest_files([str(src)], out)
    stale = [os.path.join(out, "hands", "game=doudizhu", "part-old-00001.parquet.tmp"),
             os.path.join(out, "rejects", "part-old-00001.parquet.tmp")]
    for path in stale:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"PAR1 half a file")
    assert len(list(read_records(out))) == 2  # readers skip them
    from paipu.analysis.queries import run_sql

    assert run_sql(out, "select count(*) as n from hands")["n"].to_list() == [2]
    (tmp_path / "more.jsonl").write_bytes(jsonl_lines(GOOD[2:]))
    assert ingest_files([str(tmp_path / "more.jsonl")], out).written == 2  # writers clean them
    assert not any(os.path.exists(p) for p in stale)


def test_uncommitted_staging_is_dropped_and_committed_is_completed(tmp_path):
    from paipu.replay.io.commit import StagedBatch, recover

    src = tmp_path / "h.jsonl"
    src.write_bytes(jsonl_lines(GOOD[:1]))
    out = str(tmp_path / "ds")
    ingest_files([str(src)], out)
    table = read_table(out, "hands")
    half = StagedBatch(out)
    half.write("hands/game=doudizhu/part-x-1.parquet", table.drop_columns(["game"]))
    whole = StagedBatch(out)
    whole.write("hands/game=doudizhu/part-y-1.parquet", table.drop_columns(["game"]))
    whole.commit = lambda: None  # type: ignore[method-assign]
    os.makedirs(whole.folder, exist_ok=True)
    with open(os.path.join(whole.folder, "COMMIT"), "w") as f:
        f.write("hands/game=doudizhu/part-y-1.parquet")
    assert recover(out) == (1, 1)
    names = sorted(os.listdir(os.path.join(out, "hands", "game=doudizhu")))
    assert "part-y-1.parquet" in names and "part-x-1.parquet" not in names
    assert os.listdir(os.path.join(out, "_staging")) == []


def test_the_cli_never_shows_a_traceback_on_the_hostile_corpus(tmp_path):
    from test_cli import invoke

    src = _folder_with_problems(tmp_path)
    for k, (_name, bad, _, _) in enumerate(JSONL_CASES):
        (src / f"j{k}.jsonl").write_bytes(jsonl_lines([bad]))
    for k, (_name, line, _) in enumerate(TEXT_CASES):
        (src / f"t{k}.paipu").write_bytes(text_of([_text_case(line)]))
    out = str(tmp_path / "ds")
    r = invoke("ingest", str(src), "--out", out)
    assert r.exit_code == 0 and "Traceback" not in r.stderr + r.stdout
    n_bad = len(JSONL_CASES) + len(TEXT_CASES) + 4
    assert f"ingested 4 hands from {n_bad + 2} files" in r.stdout and f"{n_bad} rejected" in r.stdout
    r = invoke("audit", out, "--workers", "1")
    assert r.exit_code == 0 and "Traceback" not in r.stderr + r.stdout
    assert len(list(read_records(out))) == 4


def test_last_resort_a_value_the_checks_miss_rejects_one_record(tmp_path, monkeypatch):
    """Were the checks to let a value through that no column holds, the batch's conversion
    fails and each record is tried alone: that one is rejected naming the column."""
    from paipu.replay.io import jsonl

    from paipu.replay.record import content_hash

    # checks nothing (the hash as ingest's reader computes it)
    monkeypatch.setattr(jsonl, "check_and_hash", lambda obj, action_cards=True: (obj, content_hash(obj)))
    bad = [spoil(lambda r: r.update(stacks=[2 ** 60, 0, 0])),
           spoil(lambda r: [r.update(id="bad2"), r["actions"][0].update(t=2 ** 60)])]
    src = tmp_path / "h.jsonl"
    src.write_bytes(jsonl_lines(GOOD[:2] + bad + GOOD[2:]))
    out = str(tmp_path / "ds")
    stats = ingest_files([str(src)], out)
    assert (stats.written, stats.rejected) == (4, 2)
    assert sorted(read_table(out, "hands", ["id"]).column("id").to_pylist()) == GOOD_IDS
    rows = sorted((r["line"], r["code"], r["message"]) for r in read_table(out, "rejects").to_pylist())
    assert [(line, code) for line, code, _ in rows] == [(3, "bad_record"), (4, "bad_record")]
    assert rows[0][2].startswith('field "stacks": does not fit the dataset column stacks (list<item: double>)')
    assert rows[1][2].startswith('field "actions[0]": does not fit the dataset\'s actions table')


def test_sniffing_a_gzip_bomb_holds_one_bounded_line(tmp_path, monkeypatch):
    import tracemalloc

    from paipu.replay.io.readers import sniff_format

    monkeypatch.setattr(sources, "MAX_LINE", 1 << 20)
    path = tmp_path / "bomb.gz"  # no telling name: the format is sniffed from the content
    path.write_bytes(gzip.compress(b" " * (32 << 20) + b"{}\n", 9))
    tracemalloc.start()
    assert sniff_format(str(path)) == "jsonl"
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 12 << 20, peak


def test_lines_before_the_first_hand_are_one_reject(tmp_path):
    """A run of lines before the first hand is one reject at its first line (before: one
    reject a line, a million of them for a log file read as hands), then the hands."""
    junk = "".join(f"2026-11-30 12:00:{k:02d} INFO server up\n" for k in range(30))
    stats, ids, rows = ingest(tmp_path, "h.paipu", junk.encode() + text_of(GOOD), len(GOOD) + 1)
    assert ids == GOOD_IDS
    assert [(r["line"], r["code"], r["message"]) for r in rows] == [
        (1, "bad_record", "line 1, column 1: expected 'hand ID' before anything else")]
    assert rows[0]["raw"] == junk.rstrip("\n")


def test_a_hand_followed_by_a_flood_of_lines_is_one_short_reject(tmp_path):
    """A hand with 40,000 foreign lines after it: one reject whose raw text stops at the
    limit kept (appending every line to it had cost their square: minutes for 15 MB)."""
    flood = "".join(f"2026-11-30 INFO request {k} served in 5 ms by worker 7\n" for k in range(40_000))
    data = text_of(GOOD[:1]) + b"\n" + flood.encode() + text_of(GOOD[1:])
    stats, ids, rows = ingest(tmp_path, "h.paipu", data, len(GOOD))
    assert ids == sorted(r["id"] for r in GOOD[1:])
    first_foreign = data.split(b"\n").index(flood.encode().split(b"\n")[0]) + 1
    assert [(r["line"], r["code"]) for r in rows] == [(first_foreign, "bad_record")]
    assert len(rows[0]["raw"]) == sources.RAW_LIMIT + 1 and rows[0]["raw"].endswith("…")
    assert rows[0]["raw"].startswith(f"hand {GOOD[0]['id']}\n")


def test_text_without_hands_is_read_in_bounded_chunks(tmp_path, monkeypatch):
    """Lines outside any hand are cut into chunks of CHUNK_BYTES by ingest and audit
    alike (one reject a chunk), so that memory stays bounded whatever a file holds; a hand
    more than four chunks long (none is real) is cut too."""
    from paipu.replay import ingest as ingest_module
    from paipu.replay.io import text

    monkeypatch.setattr(sources, "BLOCK", 1024)
    monkeypatch.setattr(text, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(ingest_module, "BATCH_BYTES", 4096)
    line = "x" * 99 + "\n"  # 100 bytes: a chunk ends at the end of the block that reaches 4,096
    junk = (line * 100).encode()  # 10,000 bytes, 100 lines
    stats, ids, rows = ingest(tmp_path, "h.paipu", junk + text_of(GOOD), len(GOOD) + 3)
    assert ids == GOOD_IDS
    firsts = [r["line"] for r in rows]
    assert len(firsts) == 3 and firsts[0] == 1 and all(r["raw"].startswith("x" * 99) for r in rows)
    assert sum(r["raw"].count("\n") + 1 for r in rows) == 100  # every junk line in one reject


# ---------------------------------------------------------------- paths, URIs and resource bounds


def cli(*args: str):
    from typer.testing import CliRunner

    from paipu.cli import app

    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_a_dataset_folder_with_a_colon_is_a_local_folder(tmp_path, monkeypatch):
    """``run-2024-05-01T20:00`` is a relative path, not a URI: audit, replay, stats and sql
    read it (pyarrow took it for a URI of the scheme ``run-2024-05-01t20``: a traceback)."""
    from paipu.replay.io.jsonl import write_jsonl

    monkeypatch.chdir(tmp_path)
    write_jsonl(GOOD, "h.jsonl")
    name = "run-2024-05-01T20:00"
    assert cli("ingest", "h.jsonl", "--out", name, "-q").exit_code == 0
    assert os.path.isdir(os.path.join(name, "hands")) and not os.path.exists("file:")
    r = cli("audit", name)
    assert r.exit_code == 0 and r.stdout.endswith(f"{len(GOOD)} hands: {len(GOOD)} ok, 0 with violations\n")
    r = cli("replay", name, "--hand", GOOD[1]["id"])
    assert r.exit_code == 0 and GOOD[1]["players"][0] in r.stdout
    r = cli("sql", "--safe", "--csv", name, "select count(*) as n from verdicts")
    assert (r.exit_code, r.stdout) == (0, f"n\n{len(GOOD)}\n")
    assert cli("stats", name, "--json").exit_code == 0


@pytest.mark.parametrize("uri, message", [
    ("weird://x/y", "weird://x/y: unknown storage scheme weird:// (paipu opens local paths and s3://, gs://, "
                    "gcs://, hdfs://, viewfs://, abfs://, abfss://)"),
    ("s3://", "s3://: no bucket named (like s3://bucket/folder)"),
    ("s3:///nobucket", "s3:///nobucket: no bucket named (like s3://bucket/folder)"),
    ("file://elsewhere/x", "file://elsewhere/x: a file:// URI names a path on this machine (file:///path), "
                           "not on elsewhere"),
])
def test_a_dataset_uri_that_names_no_storage_is_one_line(tmp_path, uri, message):
    """Before: tracebacks (pyarrow's ArrowInvalid, or the StoreError itself), for ingest and readers alike."""
    from paipu.replay.io.jsonl import write_jsonl

    write_jsonl(GOOD, str(tmp_path / "h.jsonl"))
    for args in (["ingest", str(tmp_path / "h.jsonl"), "--out", uri, "-q"], ["stats", uri], ["audit", uri],
                 ["replay", uri], ["sql", uri, "select 1"]):
        r = cli(*args)
        assert (r.exit_code, r.stderr) == (2, f"error: {message}\n"), args


def test_hdfs_without_its_library_is_one_line(tmp_path):
    from paipu.replay.io.jsonl import write_jsonl

    write_jsonl(GOOD, str(tmp_path / "h.jsonl"))
    r = cli("ingest", str(tmp_path / "h.jsonl"), "--out", "hdfs://namenode/ds", "-q")
    assert r.exit_code == 2 and r.stderr.startswith("error: hdfs://namenode/ds") and r.stderr.count("\n") == 1


def test_a_file_uri_is_its_local_path(tmp_path, monkeypatch):
    """``--out file:///abs/ds`` writes /abs/ds (before: ./file:/abs/ds, a folder named file:)."""
    from paipu.replay.io.jsonl import write_jsonl

    monkeypatch.chdir(tmp_path)
    write_jsonl(GOOD, "h.jsonl")
    target = tmp_path / "elsewhere" / "ds"
    r = cli("ingest", "h.jsonl", "--out", f"file://{target}", "-q")
    assert r.exit_code == 0 and f"into {target};" in r.stdout
    assert (target / "hands").is_dir() and not (tmp_path / "file:").exists()
    assert cli("audit", f"file://{target}").exit_code == 0
    assert cli("hands", f"file://localhost{target}").exit_code == 0


def test_an_s3_endpoint_that_refuses_connections_is_one_line(aws_env, tmp_path, monkeypatch):
    import socket

    from paipu.replay.io import store
    from paipu.replay.io.jsonl import write_jsonl

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
    store._filesystem.cache_clear()
    write_jsonl(GOOD, str(tmp_path / "h.jsonl"))
    try:
        for args in (["ingest", str(tmp_path / "h.jsonl"), "--out", "s3://b/ds", "-q"], ["stats", "s3://b/ds"],
                     ["sql", "s3://b/ds", "select 1"]):
            r = cli(*args)
            assert r.exit_code == 2 and r.stderr.startswith("error: s3://b/ds"), args
            assert r.stderr.count("\n") == 1 and "Could not connect to server" in r.stderr
    finally:
        store._filesystem.cache_clear()


def test_gcs_without_credentials_fails_in_bounded_time(monkeypatch):
    """No network, no credentials: one line after the retry limit (pyarrow's default had
    retried for 15 minutes)."""
    import time

    from paipu.replay.io import store

    monkeypatch.setattr(store, "RETRY_SECONDS", 1)
    store._filesystem.cache_clear()
    t = time.monotonic()
    r = cli("stats", "gs://paipu-test-bucket/ds")
    store._filesystem.cache_clear()
    assert time.monotonic() - t < 8
    assert r.exit_code == 2 and r.stderr.startswith("error: gs://paipu-test-bucket/ds: cannot read it (")
    assert r.stderr.count("\n") == 1 and len(r.stderr) < 500


def test_ctrl_c_stops_a_request_to_object_storage_at_once():
    """A request inside pyarrow (retrying for its credentials) did not see Ctrl-C: the
    command went on for 20 s and more."""
    import signal
    import subprocess
    import sys
    import time

    child = ("import sys\nfrom paipu.replay.io import store\nprint('ready', flush=True)\n"
             "try:\n    store.isdir('gs://paipu-test-bucket/ds')\nexcept KeyboardInterrupt:\n    sys.exit(130)\n")
    p = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.stdout.readline() == "ready\n"
    time.sleep(0.5)
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    p.wait(timeout=30)
    assert (p.returncode, time.monotonic() - t < 2) == (130, True)


def test_a_lone_surrogate_hand_id_is_printed_escaped(tmp_path):
    """``hand "\\ud800"``: no UTF-8 output can hold the id; audit crashed with
    UnicodeEncodeError printing it, and the next hand's verdict was never printed."""
    path = tmp_path / "h.paipu"
    path.write_bytes(text_of([record_to_text(GOOD[0]).replace(f"hand {GOOD[0]['id']}", 'hand "\\ud800"'), GOOD[1]]))
    message = "field \"id\": expected valid Unicode text (a lone surrogate is not), got '\\ud800'"
    r = cli("audit", str(path))
    assert (r.exit_code, r.stdout) == (1, f"{path}:1 \\ud800: bad_record at record: {message}\n"
                                          "2 hands: 1 ok, 1 with violations (bad_record 1)\n")
    r = cli("audit", "--jsonl", str(path))
    assert [json.loads(line)["id"] for line in r.stdout.splitlines()] == ["\\ud800", GOOD[1]["id"]]


CONTROL_TEXT = ["a\x00b", "\x00", "x\x01", "\x7fy", "tab\there", "v\x0bt", "\x1e"]


@pytest.mark.parametrize("value", CONTROL_TEXT)
def test_convert_to_text_round_trips_control_characters(tmp_path, value):
    """An id, a name or a field with a NUL (or another control character) was written raw
    into the text format, which the reader then refused ("found a NUL byte")."""
    from paipu.replay.io.jsonl import write_jsonl

    record = copy.deepcopy(GOOD[0])
    record["id"], record["players"][1], record["note"] = value, value + "p", value
    record["actions"][0]["x"] = value
    write_jsonl([record, GOOD[1]], str(tmp_path / "in.jsonl"))
    assert cli("convert", "--to", "text", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "h.paipu")).exit_code == 0
    assert b"\x00" not in (tmp_path / "h.paipu").read_bytes()
    r = cli("convert", "--to", "jsonl", str(tmp_path / "h.paipu"), "-o", str(tmp_path / "back.jsonl"))
    assert (r.exit_code, r.stderr) == (0, "")
    back = [json.loads(line) for line in (tmp_path / "back.jsonl").read_text(encoding="utf-8").splitlines()]
    assert back == [json.loads(line) for line in (tmp_path / "in.jsonl").read_text(encoding="utf-8").splitlines()]


def test_convert_says_which_record_the_text_format_cannot_hold(tmp_path):
    """A field name that is no text-format key: one line for that record, the others
    converted, exit 1 (before: a ValueError traceback and nothing written)."""
    from paipu.replay.io.jsonl import write_jsonl

    record = copy.deepcopy(GOOD[0])
    record["odd key"] = 1
    write_jsonl([record, GOOD[1]], str(tmp_path / "in.jsonl"))
    r = cli("convert", "--to", "text", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "h.paipu"))
    assert (r.exit_code, r.stderr) == (1, f"{tmp_path / 'in.jsonl'}:1: not converted: field name 'odd key' cannot "
                                          "be written in the text format (keep it in JSONL)\n")
    assert (tmp_path / "h.paipu").read_text(encoding="utf-8") == record_to_text(GOOD[1])


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("name, part", [
    ("h.paipu", lambda records: text_of(records)),
    # a GB18030 comment: the file is read line by line (not as one UTF-8 text)
    ("h.paipu", lambda records: "# 注释\n".encode("gb18030") + text_of(records)),
    ("h.jsonl", lambda records: jsonl_lines(records)),
])
def test_files_concatenated_with_their_byte_order_marks(tmp_path, name, part):
    """``cat a b`` of two files that each begin with a byte-order mark: the second mark
    begins a line in the middle. Before: the text format folded the hand it begins into
    the hand before (2 hands and 1 reject of 4), JSONL refused the line."""
    data = BOM + part(GOOD[:2]) + (b"\n" if name.endswith(".paipu") else b"") + BOM + part(GOOD[2:])
    stats, ids, rows = ingest(tmp_path, name, data, len(GOOD))
    assert (ids, rows) == (GOOD_IDS, [])
    verdicts = list(iter_verdicts([str(tmp_path / "in" / name)]))
    assert [(v.id, v.ok) for v in verdicts] == [(r["id"], True) for r in GOOD]
    lines = data.split(b"\n")
    third = next(k for k, line in enumerate(lines, 1) if GOOD[2]["id"].encode() in line)  # after the second mark
    assert BOM in lines[third - 1] or BOM in lines[third - 2]
    assert verdicts[2].line == third


def test_a_byte_order_mark_before_an_action_line_is_skipped(tmp_path):
    text = record_to_text(GOOD[0])
    first_action = text.split("\n").index(next(line for line in text.split("\n") if line[:1].isdigit()))
    lines = text.split("\n")
    lines[first_action] = "\ufeff" + lines[first_action]
    stats, ids, rows = ingest(tmp_path, "h.paipu", "\n".join(lines).encode() + b"\n" + text_of(GOOD[1:]), len(GOOD))
    assert (ids, rows) == (GOOD_IDS, [])


def _rss_of_interrupted(args: list[str], cwd, part_glob: str) -> tuple[int, int]:
    """(exit code, peak RSS in kB) of ``paipu ARGS`` in a fresh process, interrupted
    (SIGINT) as soon as a file matching *part_glob* in *cwd* holds some bytes."""
    import subprocess
    import sys

    watcher = f"""
import glob, os, resource, signal, subprocess, sys, time
p = subprocess.Popen({args!r}, cwd={str(cwd)!r}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
end = time.monotonic() + 60
while p.poll() is None and time.monotonic() < end:
    if any(os.path.getsize(f) for f in glob.glob(os.path.join({str(cwd)!r}, {part_glob!r}))):
        p.send_signal(signal.SIGINT)
        break
    time.sleep(0.02)
code = p.wait(timeout=60)
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
    out = subprocess.run([sys.executable, "-c", watcher], capture_output=True, text=True, timeout=120).stdout.split()
    return int(out[0]), int(out[1])


def test_simulate_memory_does_not_depend_on_the_number_of_hands(tmp_path):
    """The jobs of a run were built in one list before the first hand (2.5 GB for a billion
    hands, a MemoryError traceback for ten billion): now made as they are consumed."""
    import shutil

    paipu = shutil.which("paipu")
    small = _rss_of_interrupted([paipu, "simulate", "-g", "ddz", "-n", "1000", "--workers", "1", "-o", "a.jsonl"],
                                tmp_path, ".a.jsonl.part-*")
    large = _rss_of_interrupted([paipu, "simulate", "-g", "ddz", "-n", "100000000", "--workers", "1", "-o",
                                 "b.jsonl"], tmp_path, ".b.jsonl.part-*")
    assert small[0] == large[0] == 130
    assert large[1] - small[1] < 30_000, (small, large)  # kB: 100 million hands' jobs took some 250 MB
    assert (tmp_path / "b.jsonl").read_bytes().count(b"\n") >= 1


def test_simulate_workers_are_capped_by_the_work_and_the_cores(tmp_path, monkeypatch):
    from paipu import cli as cli_module

    monkeypatch.setattr(cli_module, "cores", lambda: 2)
    r = cli("simulate", "-g", "ddz", "-n", "250", "--workers", "1000", "-o", str(tmp_path / "a.jsonl"))
    assert r.exit_code == 0
    assert r.stderr == f"--workers 1,000: 2 used (2 cores, 3 blocks of work)\nwrote 250 hands to {tmp_path / 'a.jsonl'}\n"
    monkeypatch.setattr(cli_module, "cores", lambda: 8)
    r = cli("simulate", "-g", "ddz", "-n", "250", "--workers", "1000", "-o", str(tmp_path / "b.jsonl"))
    assert r.stderr.startswith("--workers 1,000: 3 used (8 cores, 3 blocks of work)\n")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    r = cli("ingest", str(tmp_path / "a.jsonl"), "--out", str(tmp_path / "ds"), "--workers", "1000", "-q")
    assert r.exit_code == 0 and r.stderr == "--workers 1,000: 8 used (8 cores)\n"


@pytest.fixture(scope="module")
def small_ds(tmp_path_factory):
    from paipu.replay.io.jsonl import write_jsonl

    folder = tmp_path_factory.mktemp("sql")
    write_jsonl(GOOD, str(folder / "h.jsonl"))
    ingest_files([str(folder / "h.jsonl")], str(folder / "ds"))
    return str(folder / "ds")


def test_sql_safe_stops_a_query_at_its_time_limit(small_ds):
    """A count over range(1e12) ran until killed (--safe had no time bound)."""
    import time

    t = time.monotonic()
    r = cli("sql", "--safe", "--timeout", "1", small_ds, "select count(*) from range(1000000000000)")
    assert time.monotonic() - t < 60  # unbounded, the count would run for many minutes; under load, opening the dataset alone took >10 s
    assert (r.exit_code, r.stderr) == (2, "error: query stopped after 1 s (the time limit of --safe; --timeout)\n")


def test_sql_safe_bounds_memory_rows_and_its_own_settings(small_ds):
    """DuckDB's memory limit was its default (80% of the machine: 18.8 GiB here)."""
    r = cli("sql", "--safe", "--csv", small_ds, "select current_setting('memory_limit') as m, "
                                                "current_setting('temp_directory') as t")
    assert (r.exit_code, r.stdout) == (0, 'm,t\n953.6 MiB,""\n')  # 1GB, and no spilling to disk
    r = cli("sql", "--safe", "--memory", "50MB", small_ds, "select list(range) from range(100000000)")
    assert r.exit_code == 2 and r.stderr.startswith(
        "error: query stopped: it needs more than the memory limit of --safe (50MB; --memory): Out of Memory Error: ")
    assert r.stderr.count("\n") == 1
    r = cli("sql", "--safe", "--max-rows", "3", small_ds, "select id from hands")
    assert (r.exit_code, r.stderr) == (2, "error: the result has more than 3 rows (the limit of --safe; --max-rows, "
                                          "or a limit clause)\n")
    assert cli("sql", "--safe", "--max-rows", "4", "--csv", small_ds, "select id from hands").exit_code == 0
    r = cli("sql", "--safe", small_ds, "set memory_limit = '20GB'")
    assert r.exit_code == 2 and "the configuration has been locked" in r.stderr
    r = cli("sql", "--safe", "--memory", "lots", small_ds, "select 1")
    assert (r.exit_code, r.stderr) == (2, "error: --memory must be a size such as 512MB or 2GB, got 'lots'\n")
    r = cli("sql", "--csv", small_ds, "select count(*) as n from range(2000000)")  # without --safe: no bounds
    assert (r.exit_code, r.stdout) == (0, "n\n2000000\n")


def test_inputs_that_are_not_regular_files_or_too_large_are_refused_in_one_line(tmp_path, monkeypatch):
    """``--rules /dev/zero`` and ``replay --hands @/dev/zero`` read until memory ran out
    (MemoryError tracebacks); so did a FIFO, and any file however large."""
    from paipu.replay import api as api_module
    from paipu.replay.io.jsonl import write_jsonl
    from paipu.replay.sim import settings

    write_jsonl(GOOD, str(tmp_path / "h.jsonl"))
    (tmp_path / "rules.toml").write_text('kinds- = ["four_two_single"]\n' + "# a comment\n" * 100)
    monkeypatch.setattr(settings, "MAX_RULES_BYTES", 1000)
    r = cli("simulate", "-g", "ddz", "-n", "1", "--rules", str(tmp_path / "rules.toml"))
    assert (r.exit_code, r.stderr) == (2, f"error: {tmp_path / 'rules.toml'}: 1,229 bytes, more than the limit "
                                          "of 1,000\n")
    (tmp_path / "ids.txt").write_text("".join(f"{r['id']}\n" for r in GOOD))
    monkeypatch.setattr(api_module, "MAX_ID_LIST", 50)
    r = cli("replay", str(tmp_path / "h.jsonl"), "--hands", f"@{tmp_path / 'ids.txt'}", "--html", str(tmp_path / "p"))
    assert (r.exit_code, r.stderr) == (2, f"error: --hands {tmp_path / 'ids.txt'}: 104 bytes, more than the limit "
                                          "of 50\n")
    monkeypatch.setattr(api_module, "MAX_ID_LIST", 104)
    r = cli("replay", str(tmp_path / "h.jsonl"), "--hands", f"@{tmp_path / 'ids.txt'}", "--html", str(tmp_path / "p"))
    assert r.exit_code == 0 and len(os.listdir(tmp_path / "p")) == len(GOOD) + 1
    os.mkfifo(tmp_path / "fifo")  # last: before the fix, reading these never ended
    for path in ("/dev/zero", str(tmp_path / "fifo")):
        r = cli("simulate", "-g", "ddz", "-n", "1", "--rules", path)
        assert (r.exit_code, r.stderr) == (2, f"error: {path}: not a regular file\n")
        r = cli("replay", str(tmp_path / "h.jsonl"), "--hands", f"@{path}", "--html", str(tmp_path / "pages"))
        assert (r.exit_code, r.stderr) == (2, f"error: --hands {path}: not a regular file\n")


def test_a_population_past_its_bounds_is_refused_in_one_line(tmp_path):
    """``--players 1000000000`` built a billion players' schedules: a MemoryError traceback."""
    import time

    t = time.monotonic()
    r = cli("simulate", "-g", "ddz", "-n", "10", "--players", "1000000000")
    assert (r.exit_code, r.stderr) == (2, "error: --players must be at most 100,000 (a population's schedules are "
                                          "held in memory), got 1,000,000,000\n")
    r = cli("simulate", "-g", "ddz", "-n", "10000000000", "--players", "10")
    assert (r.exit_code, r.stderr) == (2, "error: --hands must be at most 1,000,000 with --players (the hands of a "
                                          "population are scheduled up front), got 10,000,000,000\n")
    r = cli("simulate", "-g", "ddz", "-n", "10", "--players", "-3")  # (it spoke of a --cheat not given)
    assert (r.exit_code, r.stderr) == (2, "error: --players must be at least 3 for doudizhu, got -3\n")
    assert time.monotonic() - t < 5


def _long_hand(actions: int) -> str:
    """GOOD[0] in the text format with *actions* passes before its actions."""
    lines = record_to_text(GOOD[0]).split("\n")
    k = next(i for i, line in enumerate(lines) if line[:1].isdigit())
    return "\n".join(lines[:k] + ["0 pass"] * actions + lines[k:])


def _peak_reading(path) -> int:
    """Peak RSS (kB) of a fresh process that reads every item of *path* (audit's reader)."""
    import subprocess
    import sys

    child = ("import resource, sys\nfrom paipu.replay.io.readers import iter_items\n"
             "items = [(i.line, i.record is not None) for i in iter_items([sys.argv[1]])]\n"
             "print(items[-1], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", child, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split()[-1])


def test_a_hand_past_the_line_limit_is_refused_unread_and_its_neighbour_kept(tmp_path):
    """One text hand of 30 million actions took some 330 bytes an action (a MemoryError
    traceback under 6 GB, its valid neighbour lost): a hand has at most MAX_ACTIONS actions,
    and one of more than MAX_HAND_LINES lines is refused without its lines being split or
    its actions parsed, at a cost of a few bytes a line."""
    from paipu.replay.io import text

    assert (text.MAX_HAND_LINES, text.MAX_ACTIONS) == (200_000, 100_000)
    data = (_long_hand(300_000) + "\n" + record_to_text(GOOD[1])).encode()
    stats, ids, rows = ingest(tmp_path, "h.paipu", data, 2)
    assert ids == [GOOD[1]["id"]]
    assert [(r["line"], r["code"], r["message"]) for r in rows] == [
        (1, "bad_record", "a hand of more than 200,000 lines (a hand has at most 100,000 actions): not read, nor "
                          "its lines up to the next hand")]
    assert [v.id for v in iter_verdicts([str(tmp_path / "in" / "h.paipu")])] == [GOOD[0]["id"], GOOD[1]["id"]]
    assert len(rows[0]["raw"]) == sources.RAW_LIMIT + 1
    # read line by line (a GB18030 comment): the same reject, at the same line
    stats, ids, rows2 = ingest(tmp_path / "gb", "h.paipu", "# 注释\n".encode("gb18030") + data, 2)
    assert ids == [GOOD[1]["id"]] and [(r["line"], r["message"]) for r in rows2] == [(2, rows[0]["message"])]
    small, large = tmp_path / "small.paipu", tmp_path / "large.paipu"
    small.write_bytes((_long_hand(300_000) + "\n" + record_to_text(GOOD[1])).encode())
    large.write_bytes((_long_hand(900_000) + "\n" + record_to_text(GOOD[1])).encode())
    growth = (_peak_reading(large) - _peak_reading(small)) * 1024 / 600_000
    assert growth < 40, growth  # bytes an action line (7 bytes each: the file's bytes, held a few times)


def test_a_hand_past_the_action_limit_is_one_reject_in_both_formats(tmp_path):
    from paipu.replay.record import MAX_ACTIONS

    many = copy.deepcopy(GOOD[0])
    many["actions"] = [{"seat": 0, "act": "pass"}] * (MAX_ACTIONS - len(GOOD[0]["actions"]) + 1) + many["actions"]
    message = f"field \"actions\": expected at most {MAX_ACTIONS:,} actions, got {MAX_ACTIONS + 1:,}"
    for name, data in (("h.jsonl", jsonl_lines([many, GOOD[1]])), ("h.paipu", text_of([many, GOOD[1]]))):
        stats, ids, rows = ingest(tmp_path / name, name, data, 2)
        assert ids == [GOOD[1]["id"]]
        assert [(r["line"], r["code"], r["message"]) for r in rows] == [(1, "bad_record", message)]


#: a name that would clear the screen, retitle the window and reverse the line it is on
SPOOF = "A\x1b[2J\x1b]0;pwned\x07\u202eB"


def test_control_characters_in_names_are_shown_not_obeyed_on_the_terminal(tmp_path):
    """A player's name went to the terminal as it was: replay, review, hands and fraud
    printed its ESC sequences, carriage returns and direction overrides raw (found by a
    stranger's red-team: a replay cleared the screen 21 times). Every segment of text the
    CLI's consoles write goes through fmt.printable; rich's own styles are untouched."""
    record = spoil(lambda r: r["players"].__setitem__(0, SPOOF), GOOD[0])
    path = tmp_path / "h.jsonl"
    path.write_bytes(jsonl_lines([record]))
    ingest_files([str(path)], str(tmp_path / "ds"))
    shown = "A␛[2J␛]0;pwned�B"  # (rich drops the bell itself)
    for args, seen in ((["replay", str(path), "--hand", "bad"], shown), (["hands", str(tmp_path / "ds")], shown),
                       (["review", str(path), "--hand", "bad", "--samples", "2", "--budget", "0", "--seat", "0"],
                        "A␛[2J␛]0;pw…")):  # (the review cuts a long name)
        r = cli(*args)
        assert r.exit_code == 0, (args, r.output)
        assert not set(r.output) & {"\x1b", "\x07", "\r", "\u202e"}, args
        assert seen in r.output, (args, r.output)


def test_a_reject_or_an_error_naming_a_file_with_control_characters_stays_one_line(tmp_path):
    """A file named with a newline split its reject line in two, and rich dropped a bell, a
    backspace and a carriage return without a trace (a\\rb.jsonl was reported as ab.jsonl,
    a name that does not exist: a red-team of the importers)."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a\rb.jsonl").write_text("x\n")
    (tmp_path / "in" / "c\nd\x07e.jsonl").write_text("y\n")
    r = cli("ingest", str(tmp_path / "in"), "--out", str(tmp_path / "ds"))
    lines = r.stderr.splitlines()
    assert len(lines) == 2 and not set(r.stderr) & {"\r", "\x07"}, r.stderr
    assert lines[0].startswith(f"{tmp_path / 'in'}/a\u240db.jsonl:1: bad_record: not valid JSON")
    assert lines[1].startswith(f"{tmp_path / 'in'}/c\u240ad\u2407e.jsonl:1: bad_record: not valid JSON")
    r = cli("replay", str(tmp_path / "in" / "c\nd\x07e.jsonl"), "--hand", "z")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "c\u240ad\u2407e.jsonl" in r.stderr, r.stderr


def test_the_safe_console_keeps_rich_styles():
    """On a colour terminal the styles are rich's own escape codes: they stay; the text's are replaced."""
    import io

    from rich.text import Text

    from paipu.cli import SafeConsole

    buf = io.StringIO()
    SafeConsole(file=buf, force_terminal=True, color_system="standard", width=80).print(Text(SPOOF, style="bold red"))
    assert buf.getvalue() == "\x1b[1;31mA␛[2J␛]0;pwned�B\x1b[0m\n"  # (rich drops the bell itself)


def test_ingesting_no_hand_says_no_dataset_was_made(tmp_path):
    """An empty input reported success and left a folder with only its lock, which every
    later command called "not a paipu dataset ... make one with 'paipu ingest'"."""
    (tmp_path / "e.jsonl").write_text("")
    r = cli("ingest", str(tmp_path / "e.jsonl"), "--out", str(tmp_path / "ds"))
    assert (r.exit_code, r.stdout) == (0, f"ingested 0 hands from 1 file into {tmp_path / 'ds'}; 0 already there, 0 rejected\n")
    assert r.stderr == f"note: the inputs held no hand, so {tmp_path / 'ds'} is no dataset yet (ingest hands into it to make one)\n"
    (tmp_path / "h.jsonl").write_bytes(jsonl_lines(GOOD[:1]))
    r = cli("ingest", str(tmp_path / "h.jsonl"), "--out", str(tmp_path / "ds"))
    again = cli("ingest", str(tmp_path / "e.jsonl"), "--out", str(tmp_path / "ds"))  # a dataset now: no note
    assert (r.exit_code, again.exit_code, again.stderr) == (0, 0, "")


def test_names_are_no_rich_markup_nor_emoji_codes(tmp_path):
    """Text went through rich's markup and emoji codes: a player named ``[/]`` raised
    MarkupError (a traceback) in hands and stats, ``[vip]老王`` lost its bracket and
    ``x:100:y`` became ``x💯y``; so did a reject's line ``b.jsonl:100:`` (a second red-team)."""
    names = ["[/]", "[vip]老王", "x:100:y"]
    record = spoil(lambda r: r.__setitem__("players", names), GOOD[0])
    path = tmp_path / "h.jsonl"
    path.write_bytes(jsonl_lines([record]))
    ds = str(tmp_path / "ds")
    assert cli("ingest", str(path), "--out", ds).exit_code == 0 and cli("audit", ds).exit_code == 0
    for args in (["hands", ds], ["stats", ds, "--stat", "players"]):
        r = cli(*args)
        assert r.exit_code == 0, (args, r.output)
        assert all(n in r.stdout for n in names) and "💯" not in r.stdout, (args, r.stdout)
    lines = b"".join(jsonl_lines([dict(GOOD[0], id=f"g{k}")]) for k in range(99)) + b"{\n"
    (tmp_path / "b.jsonl").write_bytes(lines)  # the 100th line is no record
    r = cli("ingest", str(tmp_path / "b.jsonl"), "--out", str(tmp_path / "ds2"))
    assert f"{tmp_path / 'b.jsonl'}:100: bad_record" in r.stderr and "💯" not in r.stderr, r.stderr


def test_stats_and_report_say_which_hands_the_audit_has_not_seen(tmp_path):
    """Hands ingested after the last audit were left out of stats and the report without a
    word (a second red-team: 200 Paodekuai hands missing from an overview of 3)."""
    ds = str(tmp_path / "ds")
    (tmp_path / "a.jsonl").write_bytes(jsonl_lines(GOOD[:2]))
    (tmp_path / "b.jsonl").write_bytes(jsonl_lines(GOOD[2:]))
    assert cli("ingest", str(tmp_path / "a.jsonl"), "--out", ds).exit_code == 0 and cli("audit", ds).exit_code == 0
    assert cli("ingest", str(tmp_path / "b.jsonl"), "--out", ds).exit_code == 0
    said = f"{ds}: 2 of its 4 hands are not audited yet and not in these figures (run 'paipu audit {ds}')\n"
    r = cli("stats", ds, "--stat", "overview")
    assert (r.exit_code, r.stderr) == (0, said)
    r = cli("report", ds, "--out", str(tmp_path / "r.html"))
    assert r.exit_code == 0 and said in r.stderr
    r = cli("report", ds, "--out", "-")  # the page on standard output, the warning beside it
    assert r.exit_code == 0 and r.stderr == said and r.stdout.startswith("<!doctype html>")
    assert cli("audit", ds).exit_code == 0
    assert cli("stats", ds, "--stat", "overview").stderr == ""
