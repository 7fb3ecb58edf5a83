"""Input files: expanding paths, opening gzip, decoding lines (UTF-8, BOM, GB18030, UTF-16).

Every hand read from any format arrives as an :class:`Item`: the record, or the reason it
could not be taken (code + message), always with its file and line.
"""

from __future__ import annotations

import codecs
import glob
import gzip
import io
import os
import stat
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..verdicts import Code

#: file name endings paipu reads when given a folder (each also with .gz)
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
TEXT_SUFFIXES = (".paipu", ".txt")
GZIP_MAGIC = b"\x1f\x8b"
#: a line longer than this is rejected (``bad_record``) and skipped without being held
MAX_LINE = 16 * 1024 * 1024
_UTF16 = {codecs.BOM_UTF16_LE: "utf-16-le", codecs.BOM_UTF16_BE: "utf-16-be"}


@dataclass(slots=True)
class Item:
    """One hand as read: ``record`` set, or ``code``/``message`` saying why not."""

    source: str
    line: int
    encoding: str
    record: dict | None = None
    code: Code | None = None
    message: str | None = None
    raw: str | None = None
    #: the hand's id when the input gave one, also for a hand that was not taken
    hand_id: str | None = None
    #: the file (or folder) could not be read at all (audit exits 2)
    unreadable: bool = False
    #: for a hand not taken: the index of the action its error is in (RecordError.action)
    action: int | None = None
    #: the record's content hash (:func:`~replay.record.content_hash`) when the reader
    #: computed it with its checks (ingest's readers do: the record is serialised once)
    digest: int | None = None

    @property
    def where(self) -> str:
        return f"{stored_path(self.source)}:{self.line}"


def stored_path(path: str) -> str:
    r"""A file's path as the dataset stores it, text: a name that is not UTF-8 (its bytes held by
    Python as lone surrogates, which Arrow cannot store) spelled with ``\x`` escapes.

    >>> stored_path("logs/a.jsonl"), stored_path("x\udcff.paipu")
    ('logs/a.jsonl', 'x\\xff.paipu')
    """
    if path.isascii():
        return path
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        try:
            return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:
            return path.encode("utf-8", "backslashreplace").decode("utf-8")


class InputError(OSError):
    """An input that cannot be read at all (missing file, unreadable folder)."""


class ReadError(OSError):
    """A file that could not be read past line *line* - 1 (0: not at all)."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


class Unreadable(str):
    """A path found while expanding inputs that cannot be read (dangling or looping
    symlink, unreadable folder, not a regular file); readers report it."""

    error: str

    def __new__(cls, path: str, error: str) -> Unreadable:
        obj = super().__new__(cls, path)
        obj.error = error
        return obj


class LongLine(bytes):
    """Stands for a line longer than :data:`MAX_LINE` (its first bytes; ``length`` = its size)."""

    length: int = 0

    @property
    def message(self) -> str:
        return f"line longer than the limit of {MAX_LINE:,} bytes ({self.length:,} bytes or more): skipped"


def size_of(path: str) -> int:
    """The size of *path* in bytes, 0 when it cannot be read (progress and planning only)."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def read_size(path: str) -> int:
    """The bytes ingest reads from *path*: its size, or for gzip what it unpacks to (the
    trailer's size field, modulo 4 GiB). Ingest counts its progress in unpacked bytes:
    with the packed size as the total, the bar of a .gz input ran to several hundred per cent."""
    size = size_of(path)
    if not path.endswith(".gz") or size < 18:
        return size
    try:
        with open(path, "rb") as f:
            f.seek(-4, os.SEEK_END)
            return int.from_bytes(f.read(4), "little") or size
    except OSError:
        return size


def read_small(path: str, limit: int, what: str) -> bytes:
    """The bytes of a small input (a TOML file of rules, a list of hand ids): a regular file
    of at most *limit* bytes, else an :class:`InputError` of one line (``/dev/zero`` or a
    pipe was read until memory ran out)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{what} {path}: not a regular file")
        if st.st_size > limit:
            raise InputError(f"{what} {path}: {st.st_size:,} bytes, more than the limit of {limit:,}")
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except InputError:
        raise
    except OSError as e:
        raise InputError(f"{what} {path}: {e.strerror or e}") from None
    if len(data) > limit:  # grown since
        raise InputError(f"{what} {path}: more than the limit of {limit:,} bytes")
    return data


def _file_problem(path: str) -> str | None:
    """Why *path* (found in a folder) cannot be read as a file, or None."""
    try:
        st = os.stat(path)
    except OSError as e:
        if os.path.islink(path):
            return f"a {'looping' if e.errno == 40 else 'dangling'} symbolic link ({e.strerror})"
        return e.strerror or str(e)
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    return None


def base_suffix(path: str) -> str:
    """The format ending of *path*, without a trailing ``.gz``."""
    name = path.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return os.path.splitext(name)[1]


def expand_inputs(inputs: list[str], suffixes: tuple[str, ...] = JSONL_SUFFIXES + TEXT_SUFFIXES) -> list[str]:
    """Files named by *inputs*: files as given, folders walked, globs expanded (sorted).

    What cannot be read inside a folder (a dangling or looping symlink, an unreadable
    subfolder, a FIFO) is listed too, as an :class:`Unreadable` path: readers report it.
    """
    out: list[str] = []
    for spec in inputs:
        if os.path.isdir(spec):
            found: list[str] = []

            def unreadable_folder(e: OSError) -> None:
                found.append(Unreadable(e.filename or spec, f"cannot read the folder ({e.strerror or e})"))  # noqa: B023 - os.walk below calls it

            for root, dirs, files in os.walk(spec, onerror=unreadable_folder):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for f in files:
                    if base_suffix(f) in suffixes and not f.startswith("."):
                        path = os.path.join(root, f)
                        problem = _file_problem(path)
                        found.append(Unreadable(path, problem) if problem else path)
            out += sorted(found)
        elif os.path.isfile(spec):
            out.append(spec)
        elif any(ch in spec for ch in "*?["):
            matches = sorted(glob.glob(spec, recursive=True))
            if not matches:
                raise InputError(f"{spec}: no file matches this pattern")
            out += [m for m in matches if os.path.isfile(m)]
        elif os.path.islink(spec):
            out.append(Unreadable(spec, _file_problem(spec) or "cannot read"))
        else:
            raise InputError(f"{spec}: no such file or folder")
    return out


def open_binary(path: str) -> io.BufferedIOBase:
    """Open *path* for reading bytes, through gzip when it is gzip (by content, not name).

    A UTF-16 file (by its byte-order mark) is read as UTF-8 bytes; its ``encoding``
    attribute then names the file's encoding.
    """
    if isinstance(path, Unreadable):
        raise ReadError(0, f"cannot read: {path.error}")
    f = open(path, "rb")  # noqa: SIM115 - the stream is returned to the caller, who closes it
    stream = gzip.open(f, "rb") if f.peek(2)[:2] == GZIP_MAGIC else f  # noqa: SIM115 - likewise
    head = stream.peek(2)[:2] if hasattr(stream, "peek") else b""
    if head in _UTF16:
        return _Transcoded(stream, _UTF16[head])  # type: ignore[return-value]
    return stream  # type: ignore[return-value]


class _Transcoded(io.RawIOBase):
    """A UTF-16 stream read as UTF-8 lines (``readline`` with a size bound, like files)."""

    def __init__(self, raw, encoding: str):
        self.raw, self.encoding = raw, encoding
        self.text = io.TextIOWrapper(raw, encoding="utf-16", newline="")

    def readline(self, size: int = -1) -> bytes:  # type: ignore[override]
        # *size* characters: at least as many bytes, so a cut line is still seen as too long
        return self.text.readline(size).encode("utf-8")

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self.text.close()
        super().close()


def file_encoding(head: bytes) -> str:
    """The encoding a file's first bytes tell for all its lines that are UTF-8:
    ``utf-8-sig`` after a byte-order mark, else ``utf-8`` (a GB18030 line is told by
    its own bytes; a UTF-16 file by :func:`open_binary`)."""
    return "utf-8-sig" if head.startswith(b"\xef\xbb\xbf") else "utf-8"


def decode_line(data: bytes, first: bool) -> tuple[str, str]:
    """Decode one line; returns (text, encoding). Raises UnicodeDecodeError if neither fits.

    A byte-order mark at the start of any line is skipped (files concatenated with ``cat``
    keep each one's mark); it tells the encoding ``utf-8-sig`` on line 1 only.
    """
    utf8 = "utf-8"
    if data.startswith(b"\xef\xbb\xbf"):
        data, utf8 = data[3:], "utf-8-sig" if first else "utf-8"
    try:
        return data.decode("utf-8"), utf8
    except UnicodeDecodeError:
        return data.decode("gb18030"), "gb18030"


_READ_ERRORS = (OSError, EOFError, zlib.error, UnicodeDecodeError)


def iter_lines(path: str, encoding: list[str] | None = None,
               unended: list[int] | None = None) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, raw bytes without the line end) for every line of *path*.

    Memory stays bounded whatever the file holds: a line longer than :data:`MAX_LINE`
    comes as a :class:`LongLine` and its bytes are skipped, not held.  A file that cannot
    be read to its end raises :class:`ReadError` naming the line where reading stopped.
    *encoding*, when given, receives the file's encoding when it is not read as bytes
    (UTF-16).  *unended*, when given, receives the number of the file's last line before
    it is yielded when that line has no line end and the file is not compressed: a file
    still being written (a compressed one is whole when it can be read to its end).
    """
    count = [0]
    try:
        with _opened(path, count, encoding) as f:
            yield from _lines(f, count, None if isinstance(f, gzip.GzipFile) else unended)
    except ReadError:
        raise
    except _READ_ERRORS as e:
        raise _read_error(e, count) from None


def iter_blocks(path: str, encoding: list[str] | None = None) -> Iterator[tuple[int, bytes]]:
    """The lines of :func:`iter_lines` in blocks: (number of the first line, its bytes).

    A block is whole lines with their line ends (the file's last line may have none),
    read a megabyte at a time: what a reader splits at ``\\n`` and strips of ``\\r``
    is :func:`iter_lines`'s lines.  A line longer than :data:`MAX_LINE` comes alone as a
    :class:`LongLine`, and a read error raises the same :class:`ReadError`, after every
    whole line before it.
    """
    count = [0]
    try:
        with _opened(path, count, encoding) as f:
            if isinstance(f, _Transcoded):  # UTF-16 is transcoded line by line anyway
                for n, data in _lines(f, count):
                    yield n, data if type(data) is LongLine else data + b"\n"
            else:
                yield from _blocks(f, count)
    except ReadError:
        raise
    except _READ_ERRORS as e:
        raise _read_error(e, count) from None


@contextmanager
def _opened(path: str, count: list[int], encoding: list[str] | None) -> Iterator[io.BufferedIOBase]:
    with open_binary(path) as f:
        count.append(1)  # opened: a read error is at a line, not at 0
        if encoding is not None and isinstance(f, _Transcoded):
            encoding.append(f.encoding)
        yield f


def _read_error(e: BaseException, count: list[int]) -> ReadError:
    number = count[0]
    where = number + 1 if len(count) > 1 else 0
    reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e) or type(e).__name__
    if isinstance(e, UnicodeDecodeError):
        reason = f"not valid UTF-16 ({e.reason})"
    return ReadError(where, f"cannot read the file{f' past line {number}' if number else ''}: {reason}")


def _long_line(head: bytes, length: int) -> LongLine:
    line = LongLine(head[:min(200, MAX_LINE + 1)])  # as much as _lines has read
    line.length = length
    return line


def _lines(f: io.BufferedIOBase, count: list[int], unended: list[int] | None = None) -> Iterator[tuple[int, bytes]]:
    readline = f.readline
    while True:
        data = readline(MAX_LINE + 1)
        if not data:
            return
        count[0] += 1
        if len(data) > MAX_LINE and not data.endswith(b"\n"):
            length, head = len(data), data[:200]
            del data
            while True:
                chunk = readline(1 << 20)
                length += len(chunk)
                if not chunk or chunk.endswith(b"\n"):
                    break
            yield count[0], _long_line(head, length)
            continue
        if unended is not None and not data.endswith(b"\n"):  # (only the last line can end so)
            unended.append(count[0])
        yield count[0], data.rstrip(b"\r\n")


def tail_lines(f: io.BufferedIOBase, offset: int, line: int, end: int) -> Iterator[tuple[int, bytes, int, bool]]:
    """The lines of the plain file *f* (open for reading bytes) between byte *offset* (the
    start of line *line* + 1) and byte *end*: (line number, bytes without the line end,
    the byte position after the line, whether it had its line end).  Bytes past *end* are
    not read (a file being written: the last line may be cut at *end*, and says so).  A
    line longer than :data:`MAX_LINE` comes as a :class:`LongLine`, its bytes skipped.
    ``ingest --follow`` reads appended bytes so (replay/follow.py)."""
    f.seek(offset)
    pos = offset
    while pos < end:
        data = f.readline(min(MAX_LINE + 1, end - pos))
        if not data:
            return
        pos += len(data)
        line += 1
        if len(data) > MAX_LINE and not data.endswith(b"\n"):
            length, head = len(data), data[:200]
            del data
            chunk = b""
            while pos < end:
                chunk = f.readline(min(1 << 20, end - pos))
                if not chunk:
                    break
                pos += len(chunk)
                length += len(chunk)
                if chunk.endswith(b"\n"):
                    break
            yield line, _long_line(head, length), pos, chunk.endswith(b"\n")
            continue
        yield line, data.rstrip(b"\r\n"), pos, data.endswith(b"\n")


#: bytes read at a time by :func:`iter_blocks` (at most MAX_LINE: see :func:`_blocks`)
BLOCK = 1 << 20


def _blocks(f: io.BufferedIOBase, count: list[int]) -> Iterator[tuple[int, bytes]]:
    # Reads of at most MAX_LINE bytes: only a line begun in an earlier read (pending) can
    # be too long, so that is the one line whose length is checked.
    read = f.read1 if hasattr(f, "read1") else f.read  # read1: whatever is there, before an error
    size = min(BLOCK, MAX_LINE)
    pending = bytearray()  # the start of a line begun in earlier reads (at most MAX_LINE bytes)
    data = read(size)
    while data:
        if pending:
            end = data.find(b"\n")
            if end < 0 and len(pending) + len(data) <= MAX_LINE:
                pending += data
                data = read(size)
                continue
            if end >= 0 and len(pending) + end <= MAX_LINE:
                data = bytes(pending) + data
            else:  # too long: skip to its end, holding nothing
                head, length = bytes(pending[:200]) + data[:200], len(pending)
                count[0] += 1  # counted before the skip, as by _lines: a read error there is past it
                while end < 0 and data:
                    length += len(data)
                    data = read(size)  # the rest after the line's end is at most MAX_LINE, as above
                    end = data.find(b"\n")
                if data:
                    length += end + 1
                    data = data[end + 1:]
                yield count[0], _long_line(head, length)
                pending = bytearray()
                data = data or read(size)
                continue
            pending = bytearray()
        cut = data.rfind(b"\n") + 1
        if cut:
            block = data[:cut] if cut < len(data) else data
            yield count[0] + 1, block
            count[0] += block.count(b"\n")
        if cut < len(data):
            pending += data[cut:]
        data = read(size)
    if pending:
        count[0] += 1
        if len(pending) > MAX_LINE:
            yield count[0], _long_line(bytes(pending[:200]), len(pending))
        else:
            yield count[0], bytes(pending)


def id_of(obj: object) -> str | None:
    r"""The ``id`` of a record that could not be taken, when it has a usable one; a lone
    surrogate in it (``hand "\ud800"``: no Unicode text can hold it, so no output could
    print it) as its escape.

    >>> id_of({"id": "h\ud800"}), id_of({"id": ""}), id_of({"id": 7})
    ('h\\ud800', None, None)
    """
    hand_id = obj.get("id") if isinstance(obj, dict) else None
    if not isinstance(hand_id, str) or not hand_id:
        return None
    try:
        hand_id.encode("utf-8")
    except UnicodeEncodeError:
        return hand_id.encode("utf-8", "backslashreplace").decode("utf-8")
    return hand_id


#: the raw text kept in a reject, in characters
RAW_LIMIT = 100_000


def short(text: str, limit: int = RAW_LIMIT) -> str:
    """Raw text kept in rejects, cut at *limit* characters."""
    return text if len(text) <= limit else text[:limit] + "…"
