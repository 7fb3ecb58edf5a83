"""One entry point for every hand-record format paipu reads."""

from __future__ import annotations

from collections.abc import Iterator

from .jsonl import iter_jsonl
from .sources import Item, expand_inputs, sniff_format
from .text import iter_text

FORMATS = ("auto", "jsonl", "text", "guandan-competition")


def iter_file(path: str, fmt: str = "auto", strict: bool = True) -> Iterator[Item]:
    """Every hand of one file, in the format named or sniffed.

    ``strict=False`` leaves misspelt cards inside actions to the replay (audit).
    """
    fmt = sniff_format(path) if fmt == "auto" else fmt
    if fmt == "jsonl":
        return iter_jsonl(path, strict=strict)
    if fmt == "text":
        return iter_text(path, strict=strict)
    if fmt == "guandan-competition":
        from .guandan_competition import iter_competition

        return iter_competition(path, strict=strict)
    raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")


def iter_items(inputs: list[str], fmt: str = "auto", strict: bool = True) -> Iterator[Item]:
    """Every hand of every input (files, folders, globs), in order."""
    for path in expand_inputs(inputs):
        yield from iter_file(path, fmt, strict)
