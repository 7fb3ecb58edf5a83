"""``paipu ingest``: hand histories in, a partitioned Parquet dataset out.

Nothing is lost: every hand read lands in ``hands`` (+ its ``actions``) or in ``rejects``
with its file, line, code and reason.  Re-ingesting the same input adds nothing: a hand
whose id is already in the dataset with the same content is skipped; one whose id is
taken by different content is rejected (``duplicate_id``); a reject already stored (the
same file, line and content: io.dataset.RejectIndex) is not stored again.  The last line
of a JSONL (or competition) file still being written (no line end, not a whole JSON value) is held back,
neither taken nor rejected: :attr:`IngestStats.held` names it, and a later run takes it.

The work is split into batches of whole hands (raw lines with their numbers).  A batch is
a pure function from lines to Arrow tables (:func:`work`), run in worker processes when
there is enough input; the main process only reads lines, deduplicates ids in input order
and writes part files.  Memory: a few batches in flight plus the id index (about 16
bytes a hand), never growing with the rejects.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_context

import numpy as np
import orjson
import pyarrow as pa

from .io.commit import DatasetWriteError, writing
from .io.dataset import (
    HANDS, REJECTS, ActionRows, Columns, DatasetWriter, IdIndex, RejectIndex, _action_dicts, _records_of_columns,
    add_hand, content_hash, file_identity, id_key, reject_digest, reject_keys, unfit_field,
)
from .io.jsonl import items_of_lines, parse_line, record_to_json
from .io.mapping import is_mapping
from .io.readers import FOREIGN, foreign_items, sniff_format
from .io.sources import Item, ReadError, file_encoding, iter_lines, short, size_of, stored_path
from .io.text import CHUNK_BYTES, items_of_text_blocks, text_batches
from .verdicts import Code

#: inputs smaller than this are ingested in-process (starting workers costs more)
PARALLEL_MIN_BYTES = 32 * 1024 * 1024
#: a batch is cut at this many bytes of input too (memory stays bounded with long lines)
BATCH_BYTES = CHUNK_BYTES


@dataclass
class IngestStats:
    read: int = 0
    written: int = 0
    duplicates: int = 0
    rejected: int = 0
    by_code: dict[str, int] = field(default_factory=dict)
    #: (file, line) of each last line held back: no line end yet and not a whole record
    held: list[tuple[str, int]] = field(default_factory=list)

    def reject(self, code: str) -> None:
        self.rejected += 1
        self.by_code[code] = self.by_code.get(code, 0) + 1


@dataclass
class Batch:
    """Whole hands of one file, as raw lines with their numbers (the text format: blocks of
    lines with the number of their first, see :func:`~replay.io.sources.iter_blocks`)."""

    source: str
    fmt: str
    lines: list[tuple[int, bytes]]
    strict: bool = True
    error: str | None = None  # the file could not be read past these lines
    error_line: int = 0  # the line where reading stopped (0: the file could not be opened)
    size: int = 0
    encoding: str | None = None  # the file's encoding when it is not told line by line (UTF-16)
    cut: Item | None = None  # the text hand the read error may have cut short, rejected
    base: str = "utf-8"  # the encoding line 1 tells for the file's UTF-8 lines (io.sources.file_encoding)
    unended: int = 0  # the file's last line when it has no line end (JSONL, uncompressed)


RejectRow = tuple[str, int, str, str, str | None, str | None, int]


@dataclass
class BatchResult:
    read: int
    #: game -> (hands table, actions table with a "_row" column, id keys, content hashes, input order)
    games: dict[str, tuple[pa.Table, pa.Table, np.ndarray, np.ndarray, np.ndarray]]
    #: (source, line, code, message, raw, hand_id, digest)
    rejects: list[RejectRow]
    held: list[tuple[str, int]] = field(default_factory=list)


def merge_results(results: list[BatchResult]) -> BatchResult:
    """Batch results of several (small) batches as one, in their order: written as one
    batch, so that many small files cost one commit (``ingest --follow``)."""
    if len(results) == 1:
        return results[0]
    parts: dict[str, list[tuple[pa.Table, pa.Table, np.ndarray, np.ndarray, np.ndarray]]] = {}
    seq = 0  # the input order of each result's entries comes after the ones before
    for r in results:
        for game, (hands, actions, ids, hashes, order) in r.games.items():
            parts.setdefault(game, []).append((hands, actions, ids, hashes, order + seq))
        seq += r.read
    games = {}
    for game, tables in parts.items():
        rows = np.cumsum([0] + [t[0].num_rows for t in tables[:-1]])
        actions = [a.set_column(a.schema.get_field_index("_row"), "_row", pa.compute.add(a.column("_row"), int(k)))
                   for (_, a, _, _, _), k in zip(tables, rows)]
        games[game] = (pa.concat_tables([t[0] for t in tables]), pa.concat_tables(actions),
                       *(np.concatenate([t[i] for t in tables]) for i in (2, 3, 4)))
    return BatchResult(sum(r.read for r in results), games, [row for r in results for row in r.rejects],
                       [h for r in results for h in r.held])


def iter_batches(paths: Iterable[str], fmt: str = "auto", batch_size: int = 5_000) -> Iterator[Batch]:
    """Split the input files into batches of at most *batch_size* hands."""
    for path in paths:
        kind = sniff_format(path) if fmt == "auto" else fmt
        # one batch a file (a JSON document, OpenSpiel's text, a mapped operator's log)
        whole = kind == "guandan-competition" or kind in FOREIGN or is_mapping(kind)
        if kind not in ("jsonl", "guandan-competition") and not whole:
            yield from _text_batches(path, batch_size)
            continue
        lines: list[tuple[int, bytes]] = []
        hands = size = 0
        encoding: list[str] = []
        unended: list[int] = []
        base = "utf-8"
        try:
            for n, data in iter_lines(path, encoding, unended):
                if n == 1:
                    base = file_encoding(data)
                if whole:
                    starts = False  # a file is one batch: its deals carry levels from one to the next
                    if not data.strip():
                        continue
                else:
                    if not data.strip():
                        continue
                    starts = True
                if starts:
                    if hands >= batch_size or size >= BATCH_BYTES:
                        yield Batch(path, kind, lines, size=size, encoding=encoding[0] if encoding else None, base=base)
                        lines, hands, size = [], 0, 0
                    hands += 1
                lines.append((n, data))
                size += len(data) + 1
        except ReadError as e:
            yield Batch(path, kind, lines, error=e.message, error_line=e.line, size=size,
                        encoding=encoding[0] if encoding else None, base=base)
            continue
        if lines:
            # (another tool's file is no JSON lines: its last line is never held back)
            yield Batch(path, kind, lines, size=size, encoding=encoding[0] if encoding else None, base=base,
                        unended=unended[0] if unended and kind in ("jsonl", "guandan-competition") else 0)


def _text_batches(path: str, batch_size: int) -> Iterator[Batch]:
    """:func:`iter_batches` for a text-format file: io.text's batches (audit reads the
    same: io.text.iter_text)."""
    for b in text_batches(path, path, batch_size, BATCH_BYTES):
        e = b.error
        yield Batch(path, "text", b.blocks, error=e.message if e else None, error_line=e.line if e else 0,
                    size=b.size, encoding=b.encoding, cut=b.cut, base=b.base)


def work(batch: Batch) -> BatchResult:
    """Parse and check one batch; hands and actions as Arrow tables, rejects as rows."""
    gc.disable()  # records hold no cycles; a batch of them alive makes collections slow
    try:
        return _work(batch)
    finally:
        gc.enable()


def _work(batch: Batch) -> BatchResult:
    lines, held = batch.lines, []
    if batch.unended and lines and lines[-1][0] == batch.unended and not _whole(lines[-1][1], batch.unended == 1):
        # a file still being written: its last line may be half there (held back, not rejected)
        lines, held = lines[:-1], [(batch.source, batch.unended)]
    if batch.fmt == "jsonl":
        items = items_of_lines(lines, batch.source, batch.strict, batch.base)
    elif batch.fmt == "guandan-competition":
        from .io.guandan_competition import items_of_competition_lines

        items = items_of_competition_lines(lines, batch.source, batch.strict)
    elif batch.fmt in FOREIGN or is_mapping(batch.fmt):
        items = foreign_items(batch.fmt)(batch.lines, batch.source, batch.strict)
    else:
        items = items_of_text_blocks(batch.lines, batch.source, batch.strict, batch.base)
    columns: dict[str, list[tuple[int, Item, int]]] = {}
    rejects: list[tuple[str, int, str, str, str | None]] = []  # (the digest added at the end)
    read = 0
    for seq, item in enumerate(items):
        read += 1
        record = item.record
        if record is None:
            rejects.append((item.source, item.line, str(item.code), item.message or "", item.raw))
            continue
        try:
            digest = item.digest if item.digest is not None else content_hash(record)
        except (TypeError, ValueError, OverflowError, orjson.JSONEncodeError) as e:  # last resort: checks missed it
            rejects.append((item.source, item.line, str(Code.BAD_RECORD), f"cannot be stored: {e}", None))
            continue
        if batch.encoding:
            item.encoding = batch.encoding
        columns.setdefault(record["game"], []).append((seq, item, digest))
    if batch.cut is not None:
        cut = batch.cut
        rejects.append((cut.source, cut.line, str(cut.code), cut.message or "", cut.raw))
        read += 1
    if batch.error:
        rejects.append((batch.source, batch.error_line, str(Code.BAD_RECORD), batch.error, None))
        read += 1
    games = {}
    for game, entries in columns.items():
        try:
            games[game] = _tables(entries)
        except (pa.ArrowException, OverflowError, ValueError, TypeError):
            # last resort, one record at a time: a value the checks let through that a column
            # cannot hold rejects its hand, not the batch
            kept = []
            for entry in entries:
                item = entry[1]
                assert item.record is not None  # entries hold read records only
                problem = unfit_field(item.record)
                if problem is None:
                    kept.append(entry)
                    continue
                raw = None
                try:
                    raw = short(record_to_json(item.record).decode())
                except (TypeError, ValueError, orjson.JSONEncodeError):
                    pass
                rejects.append((item.source, item.line, str(Code.BAD_RECORD), problem, raw))
            if kept:
                games[game] = _tables(kept)
    return BatchResult(read, games, [(*row, None, reject_digest(row[4], row[3])) for row in rejects], held)


def _whole(data: bytes, first: bool) -> bool:
    """Whether a line is a whole JSON value (else, the last line of a file being written,
    it may be cut short)."""
    try:
        parse_line(data, first)
    except (orjson.JSONDecodeError, UnicodeDecodeError):
        return False
    return True


def _tables(entries: list[tuple[int, Item, int]]) -> tuple[pa.Table, pa.Table, np.ndarray, np.ndarray, np.ndarray]:
    hands, actions = Columns(HANDS), ActionRows()
    ids = []
    for _, item, digest in entries:
        record = item.record
        assert record is not None  # entries hold read records only
        add_hand(hands, actions, record, item.source, item.line, item.encoding, digest)
        ids.append(id_key(record["id"]))
    actions_table = actions.to_arrow()
    rows = np.repeat(np.arange(len(actions)), [len(a) for a in actions.lists])
    return (hands.to_arrow(), actions_table.append_column("_row", pa.array(rows, pa.int64())),
            np.array(ids, dtype=np.int64),
            np.array([d for _, _, d in entries], dtype=np.int64), np.array([seq for seq, _, _ in entries], dtype=np.int64))


class Ingester:
    """Merges batch results into a dataset in input order: dedup, rejects, part files."""

    def __init__(self, out: str, on_reject: Callable[[Item], None] | None = None):
        self.writer = DatasetWriter(out)
        self.index = IdIndex.from_dataset(out)
        self.stored_rejects = RejectIndex(out)
        self._files: dict[str, str] = {}  # source as given -> file identity
        self.on_reject = on_reject
        self.stats = IngestStats()

    def add(self, result: BatchResult, also: dict[str, pa.Table] | None = None) -> None:
        """Write one batch's new hands and rejects; *also*: more files of the dataset
        (relative path -> table) committed with them (``ingest --follow``'s read positions)."""
        self.stats.read += result.read
        self.stats.held += result.held
        self.writer.next_batch()
        rejects = list(result.rejects)
        entries = sorted((seq, game, i) for game, (_, _, _, _, order) in result.games.items()
                         for i, seq in enumerate(order.tolist()))
        keep = {game: np.zeros(len(t[2]), dtype=bool) for game, t in result.games.items()}
        # each batch's ids against the dataset's merged index in one search; an id of this
        # batch seen before is in the index's recent part, which get() asks first
        keys = {game: t[2].tolist() for game, t in result.games.items()}
        hashes = {game: t[3].tolist() for game, t in result.games.items()}
        stored = {game: self.index.lookup(t[2]) for game, t in result.games.items()}
        merges = self.index.merges
        for _, game, i in entries:
            key, digest = keys[game][i], hashes[game][i]
            seen = self.index.get(key, stored[game][i]) if self.index.merges == merges else self.index.get(key)
            if seen is None:
                self.index.add(key, digest)
                keep[game][i] = True
                self.stats.written += 1
            elif seen == digest:
                self.stats.duplicates += 1
            else:
                hands, actions = result.games[game][:2]
                one = hands.slice(i, 1)
                row = one.select(["id", "source", "line"]).to_pylist()[0]
                acts = _action_dicts(actions.filter(pa.compute.equal(actions.column("_row"), i)))
                raw = record_to_json(next(_records_of_columns(game, one, [acts]))).decode()
                message = f"hand id {row['id']!r} is already in the dataset with different content"
                rejects.append((row["source"], row["line"], str(Code.DUPLICATE_ID), message, raw, row["id"],
                                reject_digest(raw, message)))
        for game, (hands, actions, _, _, _) in result.games.items():
            mask = keep[game]
            if not mask.any():
                continue
            self.writer.write("hands", hands.filter(pa.array(mask)), game)
            action_mask = mask[actions.column("_row").to_numpy()]
            self.writer.write("actions", actions.filter(pa.array(action_mask)).drop_columns(["_row"]), game)
        table = self._new_rejects(rejects)
        path = self.writer.write("rejects", table) if table is not None else None
        for relpath, data in (also or {}).items():
            self.writer.stage(relpath, data)
        self.writer.commit()
        if path is not None and table is not None:
            ranges = table.group_by("file").aggregate([("line", "min"), ("line", "max")])
            for f, first, last in zip(*(ranges.column(c).to_pylist() for c in ("file", "line_min", "line_max"))):
                self.stored_rejects.add(path, f, first, last)

    def _new_rejects(self, rows: list[RejectRow]) -> pa.Table | None:
        """The rejects of a batch not stored yet, as a table, or None (a reject is its file,
        line and content: io.dataset.RejectIndex); one already there counts as a duplicate."""
        if not rows:
            return None
        source, line, code, message, raw, hand_id, digest = (list(c) for c in zip(*rows))
        files = {s: self._identity(s) for s in dict.fromkeys(source)}
        file = [files[s] for s in source] if len(files) > 1 else [files[source[0]]] * len(rows)
        lines = np.array(line, dtype=np.int64)
        keys = reject_keys(lines, np.array(digest, dtype=np.int64))
        new = np.zeros(len(rows), dtype=bool)
        names = np.array(file, dtype=object)
        for f in dict.fromkeys(files.values()):
            at = np.flatnonzero(names == f) if len(files) > 1 else np.arange(len(rows))
            there = self.stored_rejects.stored(f, int(lines[at].min()), int(lines[at].max()))
            _, first = np.unique(keys[at], return_index=True)  # (a file's line is one reject in a batch)
            at = at[np.sort(first)]
            new[at[~np.isin(keys[at], there)]] = True
        self.stats.duplicates += int(len(rows) - new.sum())
        if not new.any():
            return None
        kept = np.flatnonzero(new).tolist()
        for k in kept:
            self.stats.reject(code[k])
            if self.on_reject:
                self.on_reject(Item(source[k], line[k], "", code=Code(code[k]), message=message[k], raw=raw[k]))
        table = pa.table([pa.array(c, type=t) for c, t in zip(([stored_path(x) for x in source], line, code, message, raw,
                                                                hand_id, file, digest),
                                                               REJECTS.types)], schema=REJECTS)
        return table.filter(pa.array(new)) if len(kept) < len(rows) else table

    def _identity(self, source: str) -> str:
        if source not in self._files:
            if len(self._files) > 1000:
                self._files.clear()
            self._files[source] = file_identity(source)
        return self._files[source]


def ingest_files(paths: list[str], out: str, fmt: str = "auto", batch_size: int = 5_000, workers: int | None = None,
                 on_reject: Callable[[Item], None] | None = None,
                 on_batch: Callable[[int], None] | None = None) -> IngestStats:
    """Ingest the files *paths* into the dataset folder *out*; returns the counts.

    *workers*: processes for parsing (default: all cores when the input is large enough,
    else in-process).  *on_batch* is told the bytes of every batch done (progress).

    The dataset is locked while ingest runs (:class:`~replay.io.commit.DatasetLocked` if
    another writer holds it); each batch appears whole or not at all, and a batch that
    cannot be written (disk full) raises :class:`~replay.io.commit.DatasetWriteError`
    with the dataset as it was before that batch.
    """
    with writing(out):
        return _ingest(paths, out, fmt, batch_size, workers, on_reject, on_batch)


def _ingest(paths, out, fmt, batch_size, workers, on_reject, on_batch) -> IngestStats:
    ingester = Ingester(out, on_reject)
    batches = iter_batches(paths, fmt, batch_size)
    if workers is None:
        workers = os.cpu_count() or 1 if sum(size_of(p) for p in paths) >= PARALLEL_MIN_BYTES else 1
    with paused_gc():
        if workers <= 1:
            for batch in batches:
                ingester.add(work(batch))
                if on_batch:
                    on_batch(batch.size)
        else:
            from .distributed import die_with_parent

            # the workers return tables (this process writes) and die with it (no orphans)
            try:
                with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=die_with_parent,
                                         initargs=(os.getpid(),)) as pool:
                    window: list[tuple[Future, int]] = []
                    for batch in batches:
                        window.append((pool.submit(work, batch), batch.size))
                        if len(window) > workers:
                            _take(window, ingester, on_batch)
                    while window:
                        _take(window, ingester, on_batch)
            except BrokenProcessPool:  # a worker was killed: the batches written stay
                raise DatasetWriteError(f"{out}: an ingest worker process was killed (out of memory?); the "
                                        f"{ingester.stats.written:,} hands written are kept: run the same paipu "
                                        "ingest again to finish (hands already in are skipped)") from None
    return ingester.stats


def _take(window: list, ingester: Ingester, on_batch: Callable[[int], None] | None) -> None:
    future, size = window.pop(0)
    ingester.add(future.result())
    if on_batch:
        on_batch(size)


@contextmanager
def paused_gc():
    """Pause the cyclic garbage collector: records hold no cycles, and a batch of them
    alive would otherwise make every collection walk tens of thousands of dicts."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
