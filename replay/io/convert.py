"""``paipu convert``: hand records from any format paipu reads into JSONL, the text
format (both lossless) or one of the formats of :data:`~replay.io.readers.WRITERS`.

>>> data, bad = convert(["sample_logs/doudizhu_handmade.paipu"], "jsonl", on_bad=print)
>>> bad, data.count(b"\\n"), data[:28]
(0, 1, b'{"paipu":1,"id":"ddz-handmad')
"""

from __future__ import annotations

from collections.abc import Callable

from .jsonl import record_to_json
from .readers import WRITERS, iter_file, write_foreign
from .sources import expand_inputs
from .text import record_to_text

#: what convert writes: the two lossless formats, then the other tools'
TARGETS = ("jsonl", "text", *WRITERS)


def convert(inputs: list[str], to: str, fmt: str = "auto", on_bad: Callable[[str], None] = print) -> tuple[bytes, int]:
    """The records of *inputs* (files, folders, globs; read as *fmt*) written as *to* (of
    :data:`TARGETS`), and how many were left out: a hand that cannot be read, or that the
    format cannot hold, is told to *on_bad* in one line (``file:line: why``) and skipped.
    :raises InputError: an input that is not there."""
    if to not in TARGETS:
        raise ValueError(f"cannot convert to {to!r} (known: {', '.join(TARGETS)})")
    bad = 0
    chunks: list[bytes] = []
    for path in expand_inputs(inputs):
        for item in iter_file(path, fmt):
            if item.record is None:
                bad += 1
                on_bad(f"{item.where}: {item.code}: {item.message}")
                continue
            if to in WRITERS:
                try:
                    chunks.append(write_foreign(to, item.record))
                except ValueError as e:  # the format cannot hold this hand
                    bad += 1
                    on_bad(f"{item.where}: {to} cannot hold hand {item.record['id']}: {e}")
                continue
            if to == "jsonl":
                chunks.append(record_to_json(item.record) + b"\n")
                continue
            try:
                text = record_to_text(item.record)
            except ValueError as e:  # a field name the text format cannot hold: said, never a traceback
                bad += 1
                on_bad(f"{item.where}: not converted: {e} (keep it in JSONL)")
                continue
            chunks.append((("\n" if chunks else "") + text).encode())
    return b"".join(chunks), bad
