"""The JSONL hand record (format.md): one JSON object per line, plain or gzip."""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Iterator
from typing import IO, cast

import orjson

from ..record import FIELDS, check_and_hash
from ..verdicts import Code, RecordError
from .sources import Item, LongLine, ReadError, decode_line, file_encoding, id_of, iter_lines, short


def parse_line(data: bytes, first: bool = False) -> tuple[object, str]:
    """The JSON value of one line and the encoding it was read in.

    Raises UnicodeDecodeError (neither UTF-8 nor GB18030) or orjson.JSONDecodeError.
    """
    if not data.startswith(b"\xef\xbb\xbf"):  # a mark on any line is skipped (decode_line)
        try:
            return orjson.loads(data), "utf-8"
        except orjson.JSONDecodeError:
            try:
                data.decode("utf-8")
                raise
            except UnicodeDecodeError:
                pass  # not UTF-8: try the Chinese national encoding below
    text, encoding = decode_line(data, first)
    return orjson.loads(text), encoding


def item_of_line(number: int, data: bytes, source: str, strict: bool = True, base: str = "utf-8") -> Item:
    """One JSONL line (a non-blank one) as an :class:`Item`; *base*: the file's encoding
    (:func:`~replay.io.sources.file_encoding`), a UTF-8 line's."""
    if type(data) is LongLine:
        return Item(source, number, "unknown", code=Code.BAD_RECORD, message=data.message,
                    raw=short(data.decode("utf-8", "replace")) + "…")
    try:
        obj, encoding = parse_line(data, number == 1)
        if encoding == "utf-8":
            encoding = base
    except UnicodeDecodeError:
        return Item(source, number, "unknown", code=Code.BAD_RECORD,
                    message="not text: neither UTF-8 nor GB18030", raw=short(data.decode("latin-1")))
    except orjson.JSONDecodeError as e:
        return Item(source, number, base, code=Code.BAD_RECORD,
                    message=f"not valid JSON ({e})", raw=short(data.decode("utf-8", "replace")))
    try:
        record, digest = check_and_hash(obj, action_cards=strict)
    except RecordError as e:
        return Item(source, number, encoding, code=e.code, message=e.detail,
                    raw=short(data.decode(encoding, "replace")), hand_id=id_of(obj), action=e.action)
    return Item(source, number, encoding, record=record, digest=digest)


def items_of_lines(lines: Iterable[tuple[int, bytes]], source: str, strict: bool = True,
                   base: str | None = None) -> Iterator[Item]:
    """Items of (line number, bytes) pairs; blank lines are skipped. *base*: the file's
    encoding, else told by line 1 when it is among the lines."""
    for number, data in lines:
        if number == 1 and base is None:
            base = file_encoding(data)
        if type(data) is LongLine or data.strip():
            yield item_of_line(number, data, source, strict, base or "utf-8")


def iter_jsonl(path: str, source: str | None = None, strict: bool = True) -> Iterator[Item]:
    """Every hand of a JSONL file as an :class:`Item`; blank lines are skipped."""
    source = source or path
    try:
        yield from items_of_lines(iter_lines(path), source, strict)
    except ReadError as e:
        yield Item(source, e.line, "unknown", code=Code.BAD_RECORD, message=e.message, unreadable=e.line == 0)


def record_to_json(record: dict) -> bytes:
    """One record as a JSON line (without the newline), known fields first."""
    ordered = {k: record[k] for k in FIELDS if k in record}
    ordered.update((k, v) for k, v in record.items() if k not in ordered)
    return orjson.dumps(ordered)


def write_jsonl(records: Iterable[dict], out: IO[bytes] | str) -> int:
    """Write records as JSONL to a path (``.gz`` compresses) or a binary stream."""
    if isinstance(out, str):
        opener = gzip.open if out.endswith(".gz") else open
        with opener(out, "wb") as f:  # type: ignore[operator]
            return write_jsonl(records, cast(IO[bytes], f))
    n = 0
    for record in records:
        out.write(record_to_json(record) + b"\n")
        n += 1
    return n
