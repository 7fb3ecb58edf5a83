"""Input files: expanding paths, opening gzip, decoding lines (UTF-8, BOM, GB18030).

Every hand read from any format arrives as an :class:`Item`: the record, or the reason it
could not be taken (code + message), always with its file and line.
"""

from __future__ import annotations

import glob
import gzip
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass

from ..verdicts import Code

#: file name endings paipu reads when given a folder (each also with .gz)
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
TEXT_SUFFIXES = (".paipu", ".txt")
GZIP_MAGIC = b"\x1f\x8b"


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

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"


class InputError(OSError):
    """An input that cannot be read at all (missing file, unreadable folder)."""


def base_suffix(path: str) -> str:
    """The format ending of *path*, without a trailing ``.gz``."""
    name = path.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return os.path.splitext(name)[1]


def expand_inputs(inputs: list[str], suffixes: tuple[str, ...] = JSONL_SUFFIXES + TEXT_SUFFIXES) -> list[str]:
    """Files named by *inputs*: files as given, folders walked, globs expanded (sorted)."""
    out: list[str] = []
    for spec in inputs:
        if os.path.isdir(spec):
            found = []
            for root, dirs, files in os.walk(spec):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found += [os.path.join(root, f) for f in files if base_suffix(f) in suffixes and not f.startswith(".")]
            out += sorted(found)
        elif os.path.isfile(spec):
            out.append(spec)
        elif any(ch in spec for ch in "*?["):
            matches = sorted(glob.glob(spec, recursive=True))
            if not matches:
                raise InputError(f"{spec}: no file matches this pattern")
            out += [m for m in matches if os.path.isfile(m)]
        else:
            raise InputError(f"{spec}: no such file or folder")
    return out


def open_binary(path: str) -> io.BufferedIOBase:
    """Open *path* for reading bytes, through gzip when it is gzip (by content, not name)."""
    f = open(path, "rb")
    if f.peek(2)[:2] == GZIP_MAGIC:
        return gzip.open(f, "rb")  # type: ignore[return-value]
    return f


def decode_line(data: bytes, first: bool) -> tuple[str, str]:
    """Decode one line; returns (text, encoding). Raises UnicodeDecodeError if neither fits."""
    if first and data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8"), "utf-8-sig"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("gb18030"), "gb18030"


def iter_lines(path: str) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, raw bytes without the line end) for every line of *path*."""
    with open_binary(path) as f:
        for number, data in enumerate(f, 1):
            yield number, data.rstrip(b"\r\n")


def sniff_format(path: str) -> str:
    """``jsonl``, ``text`` or ``guandan-competition``: by the first meaningful line (a JSON
    object with notify messages and no ``paipu`` field is a competition log), else by the
    file ending."""
    suffix = base_suffix(path)
    if suffix == ".paipu":
        return "text"
    try:
        for _, data in iter_lines(path):
            stripped = data.lstrip(b"\xef\xbb\xbf \t")
            if not stripped or stripped.startswith(b"#"):
                continue
            if stripped.startswith(b"{"):
                if b'"paipu"' not in stripped and (b'"messages"' in stripped or b'"notify"' in stripped):
                    return "guandan-competition"
                return "jsonl"
            return "jsonl" if suffix in JSONL_SUFFIXES else "text"
    except (OSError, EOFError):
        pass
    return "jsonl" if suffix in JSONL_SUFFIXES or suffix not in TEXT_SUFFIXES else "text"


def id_of(obj: object) -> str | None:
    """The ``id`` of a record that could not be taken, when it has a usable one."""
    hand_id = obj.get("id") if isinstance(obj, dict) else None
    return hand_id if isinstance(hand_id, str) and hand_id else None


def short(text: str, limit: int = 100_000) -> str:
    """Raw text kept in rejects, cut at *limit* characters."""
    return text if len(text) <= limit else text[:limit] + "…"
