"""The fast paths of the text-format reader give exactly what the line-by-line reader gives.

Ingest reads a text file in blocks (sources.iter_blocks), finds where hands start with one
search per block, decodes a block at a time and reads the common action lines with one
split: each is checked here against the plain reader it stands for, on the same input:
the same lines, hands, records, reject codes, messages, lines and raw text.
"""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from paipu.replay.ingest import iter_batches
from paipu.replay.io import sources
from paipu.replay.io.sources import LongLine, ReadError, iter_blocks, iter_lines
from paipu.replay.io.text import (
    HAND_LINE, TextError, _parse_action, _parse_action_full, hand_starts, items_of_text_blocks, items_of_text_lines, iter_text,
    record_to_text,
)
from paipu.replay.sim import simulate

RECORDS = list(simulate("doudizhu", None, 6, 11)) + list(simulate("guandan", None, 1, 4))


def _lines_from_blocks(path: str) -> list:
    out: list = []
    try:
        for first, data in iter_blocks(path):
            if type(data) is LongLine:
                out.append((first, "long", bytes(data), data.length))
                continue
            parts = data.split(b"\n")
            if data.endswith(b"\n"):
                parts.pop()
            out += [(first + i, part.rstrip(b"\r")) for i, part in enumerate(parts)]
    except ReadError as e:
        out.append(("error", e.line, e.message))
    return out


def _lines(path: str) -> list:
    out: list = []
    try:
        for n, data in iter_lines(path):
            out.append((n, "long", bytes(data), data.length) if type(data) is LongLine else (n, data))
    except ReadError as e:
        out.append(("error", e.line, e.message))
    return out


PIECES = [b"\n", b"\r\n", b"\r", b"hand x", b"0 play 3s", b"\xe4\xb8\xad", b" ", b"a" * 30, b"b" * 70]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30), st.sampled_from([5, 20, 64, 1 << 24]),
       st.sampled_from([1, 7, 64, 1 << 20]), st.sampled_from(["plain", "gzip", "cut gzip"]), st.data())
def test_blocks_hold_the_lines_of_iter_lines(tmp_path_factory, pieces, max_line, block, kind, data):
    """Line numbers, bytes, long lines (head and length) and the line a read error stops at."""
    content = b"".join(pieces)
    if kind != "plain":
        content = gzip.compress(content)
        if kind == "cut gzip":
            content = content[:data.draw(st.integers(10, len(content)))]
    path = tmp_path_factory.mktemp("b") / "f"
    path.write_bytes(content)
    old = sources.MAX_LINE, sources.BLOCK
    sources.MAX_LINE, sources.BLOCK = max_line, block
    try:
        assert _lines_from_blocks(str(path)) == _lines(str(path))
    finally:
        sources.MAX_LINE, sources.BLOCK = old


def test_a_long_line_in_blocks_is_cut_short_and_counted(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_LINE", 100)
    monkeypatch.setattr(sources, "BLOCK", 16)
    path = tmp_path / "f"
    path.write_bytes(b"a\n" + b"x" * 250 + b"\nb\r\nc")
    assert _lines_from_blocks(str(path)) == [(1, b"a"), (2, "long", b"x" * 101, 251), (3, b"b"), (4, b"c")]


TOKENS = ["0", "1", "2", "07", "١", "x", "play", "pass", "peek", "bid", "grab", "show", "tribute", "return", "fold",
          "yes", "no", "true", "maybe", "3s", "Th", "BJ", "as", "to", "5", "@0", "@1200", "@012", "@-3", "@1.5",
          "@", "@1e3", "@x", '{"note": 1}', "{", "[1]", "\u3000", "\t"]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=7), st.sampled_from(["0", "2", "12"]))
def test_common_action_lines_read_as_the_full_reader_reads_them(tokens, seat):
    """The one-split reading of an action line equals the general one, errors included."""
    line = " ".join([seat, *tokens])

    def reading(parse):
        try:
            return parse(line, 7)
        except (TextError, ValueError, IndexError) as e:
            return type(e), str(e)

    fast, full = reading(_parse_action), reading(_parse_action_full)
    assert fast == full
    if isinstance(fast, dict):
        assert list(fast) == list(full)  # the same key order too


def _item_tuples(items) -> list:
    return [(i.line, i.encoding, i.record, i.code, i.message, i.raw, i.hand_id) for i in items]


def test_ingest_batches_read_as_the_line_reader(tmp_path):
    """A file with a byte-order mark, CRLF, a GB18030 line, a NUL byte, comments and bad
    hands: in batches of 1, 2, 3 and all hands, ingest reads the same items as the line by
    line reader, and so does iter_text (audit's reader, in blocks), encodings included: a
    hand's is its own lines' (GB18030 for the hand with that line), else the file's
    (the byte-order mark's), whatever batch or block it is read in."""
    texts = [record_to_text(r) for r in RECORDS]
    texts[1] = texts[1].replace("\n", "\r\n")
    texts[2] = texts[2].replace("game ", "  # a comment\ngame ", 1)
    texts[3] = texts[3].replace("\nbottom:", "\nnote: 中文\nbottom:")
    texts[4] = texts[4].replace("\n0 ", "\n0 oops ", 1)
    texts[5] = texts[5].replace("\n1 ", "\n1 \x00", 1)
    data = b"\xef\xbb\xbf" + "\n".join(texts[:3]).encode() + b"\n" + texts[3].encode("gb18030") + \
        "\n".join(texts[4:]).encode()
    path = tmp_path / "h.paipu"
    path.write_bytes(data)
    expected = _item_tuples(items_of_text_lines(iter_lines(str(path)), str(path)))
    assert _item_tuples(iter_text(str(path))) == expected
    assert [code for _, _, _, code, _, _, _ in expected] == [None, None, None, None, "bad_record", "bad_record", None]
    assert [enc for _, enc, _, _, _, _, _ in expected] == ["utf-8-sig"] * 3 + ["gb18030"] + ["utf-8-sig"] * 3
    assert expected[3][2]["note"] == "中文"
    for size in (1, 2, 3, 100):
        batches = list(iter_batches([str(path)], batch_size=size))
        assert len(batches) == -(-len(RECORDS) // size)
        got = [t for b in batches for t in _item_tuples(items_of_text_blocks(b.lines, b.source, base=b.base))]
        assert got == expected, size


def test_text_and_jsonl_ingest_give_the_same_records(tmp_path):
    from paipu.replay.ingest import ingest_files
    from paipu.replay.io.dataset import read_records

    (tmp_path / "a.paipu").write_text("\n".join(record_to_text(r) for r in RECORDS), encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    for name in ("a.paipu", "b.jsonl"):
        ingest_files([str(tmp_path / name)], str(tmp_path / f"ds-{name}"), batch_size=3)
    by_id = [sorted(read_records(str(tmp_path / f"ds-{name}")), key=lambda r: r["id"]) for name in ("a.paipu", "b.jsonl")]
    assert by_id[0] == by_id[1] == sorted(RECORDS, key=lambda r: r["id"])


BASE_LINES = "\n".join(record_to_text(r) for r in RECORDS[:3]).split("\n")
EDITS = ["#", "# c", '"', "{", '{"a": 1}', "@", "@01", "as", "to", "0", "9", "yes", "maybe", "play", "pass", "hand",
         "hand x", "seat", "game", "room:", "x:", ":", "\u3000", "\x0b", "\t", "١", "BJ", "3z"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(BASE_LINES) - 1), st.integers(0, 80), st.sampled_from(EDITS), st.booleans()),
                max_size=5), st.booleans(), st.booleans(), st.booleans())
def test_hands_read_whole_as_the_line_reader_reads_them(edits, crlf, bom, strict):
    """Good hands and hands spoilt by inserted or replacing tokens (comments, ids, acts,
    JSON, odd white space): read as one text, the items are those read line by line."""
    lines = list(BASE_LINES)
    for at, column, token, replace in edits:
        line = lines[at]
        words = line.split(" ")
        if replace and words:
            words[column % len(words)] = token
            lines[at] = " ".join(words)
        else:
            lines[at] = line[:column] + token + line[column:]
    data = "\n".join(lines).replace("\n", "\r\n" if crlf else "\n").encode()
    data = b"\xef\xbb\xbf" + data if bom else data
    by_line = [(n, line.rstrip(b"\r")) for n, line in enumerate(data.split(b"\n"), 1)]
    assert _item_tuples(items_of_text_blocks([(1, data)], "f", strict)) == \
        _item_tuples(items_of_text_lines(by_line, "f", strict))


HAND = record_to_text(RECORDS[0]).split("\n")
SEAT_AT = next(i for i, line in enumerate(HAND) if line.startswith("seat 1 "))


@pytest.mark.parametrize("hand_line", [
    "hand a", "hand a:b", 'hand "a b"', 'hand "a', "hand a b", "hand\u3000a", "hand\ta", "  hand a", "hand a # c",
    "hand", "hand: 5", "handy 5", "hand \u3000a", 'hand a"b', "hand ١",
])
@pytest.mark.parametrize("seat_line", [
    None, "seat 1 bob: 3s 4s", "seat 1 bob : 3s", 'seat 1 "b o": 3s', "seat 1bob: 3s", "seat 0 bob: 3s", "seat\u30001 b: 3s",
    "seat 1 \u3000bob: 3s", "seat 1 b:o: 3s", "seat 99999999999999999999999 b: 3s", "seat ١ b:", "seat 1 b:3s",
    "+seat 1 bob: 3s",  # + : a line more (seat 1 given twice)
])
def test_hand_and_seat_lines_read_whole_as_line_by_line(hand_line, seat_line):
    lines = [hand_line] + HAND[1:]
    if seat_line is not None and seat_line.startswith("+"):
        lines.insert(SEAT_AT + 1, seat_line[1:])
    elif seat_line is not None:
        lines[SEAT_AT] = seat_line
    data = "\n".join(lines).encode()
    by_line = [(n, line) for n, line in enumerate(data.split(b"\n"), 1)]
    assert _item_tuples(items_of_text_blocks([(1, data)], "f")) == _item_tuples(items_of_text_lines(by_line, "f"))


def test_a_seat_given_twice_is_an_error_at_its_line():
    lines = list(HAND)
    lines.insert(SEAT_AT + 1, "seat 1 bob: 3s")
    (item,) = items_of_text_blocks([(1, "\n".join(lines).encode())], "f")
    assert item.record is None and item.message == f"line {SEAT_AT + 2}, column 1: seat 1 given twice"


def test_a_second_game_line_and_extras_that_repeat_the_line_are_errors_at_their_line():
    """A second game line won silently, and an action's JSON extras replaced its own seat,
    act and cards ("1 pass {"act": "play", ...}" was read as a play)."""
    game_at = next(i for i, line in enumerate(HAND) if line.startswith("game "))
    lines = list(HAND)
    lines.insert(game_at + 1, "game paodekuai huopin")
    (item,) = items_of_text_blocks([(1, "\n".join(lines).encode())], "f")
    assert item.record is None and item.message == f"line {game_at + 2}, column 1: game given twice"
    act_at = next(i for i, line in enumerate(HAND) if line[:1].isdigit() and " pass" in line)
    for extra, key in (('{"act": "play", "cards": ["BJ"]}', "act"), ('{"seat": 2}', "seat")):
        lines = list(HAND)
        lines[act_at] = HAND[act_at] + " " + extra
        (item,) = items_of_text_blocks([(1, "\n".join(lines).encode())], "f")
        assert item.record is None and item.message == (
            f"line {act_at + 1}, column {len(HAND[act_at]) + 2}: the extra fields repeat the line's own {key!r}; "
            f"write it once, on the line or in the braces")
    lines = list(HAND)
    lines[act_at] = HAND[act_at] + ' {"note": "kept"}'  # an extra field of its own is kept, as before
    (item,) = items_of_text_blocks([(1, "\n".join(lines).encode())], "f")
    assert item.record is not None and item.record["actions"][act_at - next(
        i for i, line in enumerate(HAND) if line[:1].isdigit())]["note"] == "kept"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b"\n", b"\r\n", b"hand", b"hand x", b" ", b"\t", b"\x0b", b"\xef\xbb\xbf", b"x", b"#"]),
                max_size=20), st.sampled_from([1, 2]))
@example([b"\n", b"hand", b"\n", b"hand"], 1)  # a match must not take the next line's \n
def test_hand_starts_are_the_lines_hand_line_matches(pieces, first):
    block = b"".join(pieces)
    expected, at = [], 0
    for line in block.split(b"\n"):
        head = line[3:] if line.startswith(b"\xef\xbb\xbf") else line  # a mark at any line start is skipped
        if HAND_LINE.match(head.rstrip(b"\r")):
            expected.append(at)
        at += len(line) + 1
    assert hand_starts(block, first) == expected
