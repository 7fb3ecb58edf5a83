"""``paipu ingest``: hand histories in, a partitioned Parquet dataset out.

Nothing is lost: every hand read lands in ``hands`` (+ its ``actions``) or in ``rejects``
with its file, line, code and reason.  Re-ingesting the same input adds nothing: a hand
whose id is already in the dataset with the same content is skipped; one whose id is
taken by different content is rejected (``duplicate_id``).

The work is split into batches of whole hands (raw lines with their numbers).  A batch is
a pure function from lines to Arrow tables (:func:`work`), run in worker processes when
there is enough input; the main process only reads lines, deduplicates ids in input order
and writes part files.  Memory: a few batches in flight plus the id index.
"""

from __future__ import annotations

import gc
import gzip
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_context

import numpy as np
import pyarrow as pa

from .io.dataset import (
    HANDS, REJECTS, ActionRows, Columns, DatasetWriter, IdIndex, _action_from_row, _record_from_row, add_hand,
    content_hash, id_key,
)
from .io.jsonl import items_of_lines, record_to_json
from .io.sources import Item, iter_lines, sniff_format
from .io.text import HAND_LINE, items_of_text_lines
from .verdicts import Code

#: inputs smaller than this are ingested in-process (starting workers costs more)
PARALLEL_MIN_BYTES = 32 * 1024 * 1024


@dataclass
class IngestStats:
    read: int = 0
    written: int = 0
    duplicates: int = 0
    rejected: int = 0
    by_code: dict[str, int] = field(default_factory=dict)

    def reject(self, code: str) -> None:
        self.rejected += 1
        self.by_code[code] = self.by_code.get(code, 0) + 1


@dataclass
class Batch:
    """Whole hands of one file, as raw lines with their numbers."""

    source: str
    fmt: str
    lines: list[tuple[int, bytes]]
    strict: bool = True
    error: str | None = None  # the file could not be read past these lines
    size: int = 0


@dataclass
class BatchResult:
    read: int
    #: game -> (hands table, actions table with a "_row" column, id keys, content hashes, input order)
    games: dict[str, tuple[pa.Table, pa.Table, np.ndarray, np.ndarray, np.ndarray]]
    rejects: list[tuple[str, int, str, str, str | None]]


def iter_batches(paths: Iterable[str], fmt: str = "auto", batch_size: int = 5_000) -> Iterator[Batch]:
    """Split the input files into batches of at most *batch_size* hands."""
    for path in paths:
        kind = sniff_format(path) if fmt == "auto" else fmt
        lines: list[tuple[int, bytes]] = []
        hands = size = 0
        try:
            for n, data in iter_lines(path):
                if kind == "guandan-competition":
                    starts = False  # a file is one batch: its deals carry levels from one to the next
                    if not data.strip():
                        continue
                elif kind == "jsonl":
                    if not data.strip():
                        continue
                    starts = True
                else:
                    starts = HAND_LINE.match(data[3:] if n == 1 and data.startswith(b"\xef\xbb\xbf") else data) is not None
                if starts:
                    if hands >= batch_size:
                        yield Batch(path, kind, lines, size=size)
                        lines, hands, size = [], 0, 0
                    hands += 1
                lines.append((n, data))
                size += len(data) + 1
        except (OSError, EOFError, gzip.BadGzipFile) as e:
            yield Batch(path, kind, lines, error=f"cannot read the file: {e}", size=size)
            continue
        if lines:
            yield Batch(path, kind, lines, size=size)


def work(batch: Batch) -> BatchResult:
    """Parse and check one batch; hands and actions as Arrow tables, rejects as rows."""
    gc.disable()  # records hold no cycles; a batch of them alive makes collections slow
    try:
        return _work(batch)
    finally:
        gc.enable()


def _work(batch: Batch) -> BatchResult:
    if batch.fmt == "jsonl":
        items = items_of_lines(batch.lines, batch.source, batch.strict)
    elif batch.fmt == "guandan-competition":
        from .io.guandan_competition import items_of_competition_lines

        items = items_of_competition_lines(batch.lines, batch.source, batch.strict)
    else:
        items = items_of_text_lines(batch.lines, batch.source, batch.strict)
    columns: dict[str, tuple[Columns, ActionRows, list[int], list[int], list[int]]] = {}
    rejects: list[tuple[str, int, str, str, str | None]] = []
    read = 0
    for seq, item in enumerate(items):
        read += 1
        record = item.record
        if record is None:
            rejects.append((item.source, item.line, str(item.code), item.message or "", item.raw))
            continue
        game = record["game"]
        if game not in columns:
            columns[game] = (Columns(HANDS), ActionRows(), [], [], [])
        hands, actions, keys, hashes, order = columns[game]
        digest = content_hash(record)
        add_hand(hands, actions, record, item.source, item.line, item.encoding, digest)
        keys.append(id_key(record["id"]))
        hashes.append(digest)
        order.append(seq)
    if batch.error:
        last = batch.lines[-1][0] if batch.lines else 0
        rejects.append((batch.source, last, str(Code.BAD_RECORD), batch.error, None))
        read += 1
    games = {}
    for game, (hands, actions, keys, hashes, order) in columns.items():
        actions_table = actions.to_arrow()
        rows = np.repeat(np.arange(len(actions)), [len(a) for a in actions.lists])
        games[game] = (hands.to_arrow(), actions_table.append_column("_row", pa.array(rows, pa.int64())),
                       np.array(keys, dtype=np.int64), np.array(hashes, dtype=np.int64), np.array(order, dtype=np.int64))
    return BatchResult(read, games, rejects)


class Ingester:
    """Merges batch results into a dataset in input order: dedup, rejects, part files."""

    def __init__(self, out: str, on_reject: Callable[[Item], None] | None = None):
        self.writer = DatasetWriter(out)
        self.index = IdIndex.from_dataset(out)
        self.seen_rejects = _existing_rejects(out)
        self.on_reject = on_reject
        self.stats = IngestStats()

    def add(self, result: BatchResult) -> None:
        self.stats.read += result.read
        self.writer.next_batch()
        rejects = Columns(REJECTS)
        for row in result.rejects:
            self._reject(rejects, *row, hand_id=None)
        entries = sorted((int(seq), game, i) for game, (_, _, _, _, order) in result.games.items()
                         for i, seq in enumerate(order))
        keep = {game: np.zeros(len(t[2]), dtype=bool) for game, t in result.games.items()}
        for _, game, i in entries:
            hands, actions, keys, hashes, _ = result.games[game]
            key, digest = int(keys[i]), int(hashes[i])
            seen = self.index.get(key)
            if seen is None:
                self.index.add(key, digest)
                keep[game][i] = True
                self.stats.written += 1
            elif seen == digest:
                self.stats.duplicates += 1
            else:
                row = hands.slice(i, 1).to_pylist()[0]
                row["game"] = game
                acts = actions.filter(pa.compute.equal(actions.column("_row"), i)).to_pylist()
                raw = record_to_json(_record_from_row(row, [_action_from_row(a) for a in acts])).decode()
                self._reject(rejects, row["source"], row["line"], str(Code.DUPLICATE_ID),
                             f"hand id {row['id']!r} is already in the dataset with different content", raw,
                             hand_id=row["id"])
        for game, (hands, actions, _, _, _) in result.games.items():
            mask = keep[game]
            if not mask.any():
                continue
            self.writer.write("hands", hands.filter(pa.array(mask)), game)
            action_mask = mask[actions.column("_row").to_numpy()]
            self.writer.write("actions", actions.filter(pa.array(action_mask)).drop_columns(["_row"]), game)
        self.writer.write("rejects", rejects.to_arrow())

    def _reject(self, rejects: Columns, source: str, line: int, code: str, message: str, raw: str | None,
                hand_id: str | None) -> None:
        if (source, line, code, message) in self.seen_rejects:  # the same input again: nothing new
            self.stats.duplicates += 1
            return
        self.seen_rejects.add((source, line, code, message))
        r = rejects.cols
        for name, value in zip(("source", "line", "code", "message", "raw", "hand_id"),
                               (source, line, code, message, raw, hand_id)):
            r[name].append(value)
        self.stats.reject(code)
        if self.on_reject:
            self.on_reject(Item(source, line, "", code=Code(code), message=message, raw=raw))


def _existing_rejects(root: str) -> set[tuple]:
    path = os.path.join(root, "rejects")
    if not os.path.isdir(path):
        return set()
    import pyarrow.dataset as pads

    table = pads.dataset(path, format="parquet").to_table(columns=["source", "line", "code", "message"])
    return set(zip(*(table.column(c).to_pylist() for c in ("source", "line", "code", "message"))))


def ingest_files(paths: list[str], out: str, fmt: str = "auto", batch_size: int = 5_000, workers: int | None = None,
                 on_reject: Callable[[Item], None] | None = None,
                 on_batch: Callable[[int], None] | None = None) -> IngestStats:
    """Ingest the files *paths* into the dataset folder *out*; returns the counts.

    *workers*: processes for parsing (default: all cores when the input is large enough,
    else in-process).  *on_batch* is told the bytes of every batch done (progress).
    """
    ingester = Ingester(out, on_reject)
    batches = iter_batches(paths, fmt, batch_size)
    if workers is None:
        workers = os.cpu_count() or 1 if sum(os.path.getsize(p) for p in paths) >= PARALLEL_MIN_BYTES else 1
    with paused_gc():
        if workers <= 1:
            for batch in batches:
                ingester.add(work(batch))
                if on_batch:
                    on_batch(batch.size)
        else:
            with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
                window: list[tuple[Future, int]] = []
                for batch in batches:
                    window.append((pool.submit(work, batch), batch.size))
                    if len(window) > workers:
                        _take(window, ingester, on_batch)
                while window:
                    _take(window, ingester, on_batch)
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
