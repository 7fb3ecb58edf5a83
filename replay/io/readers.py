"""One entry point for every hand-record format paipu reads."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable, Iterator

import orjson

from .jsonl import iter_jsonl
from .mapping import is_mapping
from .foreign import sniff_foreign
from .sources import JSONL_SUFFIXES, TEXT_SUFFIXES, Item, base_suffix, expand_inputs, iter_lines
from .text import iter_text

#: the importers of other tools' logs (docs/formats.md): format -> (module, its lines -> items)
FOREIGN = {
    "rlcard": ("rlcard", "items_of_rlcard_lines"), "rlcard-showdown": ("rlcard", "items_of_showdown_lines"),
    "douzero": ("douzero", "items_of_douzero_lines"), "openspiel": ("openspiel", "items_of_openspiel_lines"),
    "botzone": ("botzone", "items_of_botzone_lines"),
}
#: the formats ``paipu convert --to`` writes besides jsonl and text
WRITERS = ("openspiel", "rlcard-showdown", "botzone")
FORMATS = ("auto", "jsonl", "text", "guandan-competition", *FOREIGN)


def sniff_format(path: str) -> str:
    """``jsonl``, ``text``, ``guandan-competition`` or another tool's format
    (:func:`~replay.io.foreign.sniff_foreign`): by the first meaningful line (a JSON
    object with notify messages and no ``paipu`` field is a competition log), else by the
    file ending."""
    suffix = base_suffix(path)
    if suffix == ".paipu":
        return "text"
    foreign = sniff_foreign(path)
    if foreign is not None:
        return foreign
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
    except OSError:
        pass
    return "jsonl" if suffix in JSONL_SUFFIXES or suffix not in TEXT_SUFFIXES else "text"

def foreign_items(fmt: str) -> Callable[[Iterable[tuple[int, bytes]], str, bool], Iterator[Item]]:
    """The importer of format *fmt* (a key of :data:`FOREIGN`, or a mapping file's path):
    a file's lines -> items."""
    if is_mapping(fmt):
        from .mapping import items_of_mapping_lines

        return functools.partial(items_of_mapping_lines, fmt)
    module, name = FOREIGN[fmt]
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)  # type: ignore[no-any-return]


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
    if fmt in FOREIGN or is_mapping(fmt):
        from .foreign import items_of_file

        return items_of_file(path, path, foreign_items(fmt), strict)
    raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")


def check_format(fmt: str) -> None:
    """A ValueError of one line unless *fmt* is one of :data:`FORMATS` or a usable mapping
    file (docs/formats.md: its :class:`~replay.io.mapping.MappingError`)."""
    from .mapping import load_mapping

    if is_mapping(fmt):
        load_mapping(fmt)
    elif fmt not in FORMATS:
        raise ValueError(f"must be one of {', '.join(FORMATS)} or a mapping file (.toml), got {fmt!r}")


def iter_items(inputs: list[str], fmt: str = "auto", strict: bool = True) -> Iterator[Item]:
    """Every hand of every input (files, folders, globs), in order."""
    for path in expand_inputs(inputs):
        yield from iter_file(path, fmt, strict)


def write_foreign(fmt: str, record: dict) -> bytes:
    """One record in format *fmt* (of :data:`WRITERS`); ValueError (CannotHold) when the
    format cannot hold the hand."""
    if fmt == "openspiel":
        from .openspiel import record_to_state

        return record_to_state(record).encode()
    if fmt == "botzone":
        from .botzone import record_to_log

        return orjson.dumps(record_to_log(record)) + b"\n"
    from .rlcard import record_to_showdown

    return orjson.dumps(record_to_showdown(record)) + b"\n"
