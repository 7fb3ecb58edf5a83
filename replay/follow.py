"""``paipu ingest --follow``: folders that keep growing, ingested while a server writes them.

The follower polls its inputs (files, folders, globs, expanded again at every poll) every
*interval* seconds and ingests what is new through the same :class:`~replay.ingest.Ingester`
as ``paipu ingest``: the same checks, the same dedup of hands (id and content) and of
rejects (file, line, content), the same batches committed whole (:mod:`replay.io.commit`).

**Read positions.**  For each file the dataset keeps, in ``DS/_follow/state.parquet``, the
byte offset and line number up to which its records are complete and taken, with the
file's device and inode and a hash of the (up to) 4 KiB before the offset.  The state is
staged and committed *in the same batch* as the hands and rejects read up to it, so after a
kill at any point the dataset holds a batch and the position after it, or neither: a
restart resumes where the last committed batch ended, reading nothing twice (and if it
did, the dedup would skip it).  A file whose inode changed (replaced, rotated), that is
shorter than its offset (truncated) or whose bytes before the offset changed (rewritten)
is read again from its start; its hands already stored are skipped by id and content.
The batches of one poll are gathered up to *batch_size* hands (:func:`~replay.ingest.merge_results`),
so that a poll over many small files costs one commit, with all their positions.

**What is complete.**

- JSONL (``.jsonl``, ``.ndjson``, ``.json`` of paipu records): a line with its line end.
  The last line without one is taken when it is a whole JSON value, else held back
  (:mod:`replay.ingest`); either way the offset stays before it, so it is read again once
  the writer ends it (a duplicate then, skipped).
- The text format (``.paipu``, ``.txt``): a hand is complete when the next ``hand`` line
  arrives; a file's last hand is taken when the file has not changed for *settle* seconds
  (the offset stays at its start: if the writer adds lines to it later, the longer hand is a
  ``duplicate_id`` reject, so a writer that pauses mid-hand longer than that should write
  each hand whole).
- Guandan competition logs: each deal carries levels from the deals before it, so a grown
  file is read again from its start (its deals already in are skipped); its unended last
  line is held back as in JSONL.
- A whole document (Botzone, RLCard, DouZero, OpenSpiel, a mapping file's logs), a gzip file
  and a UTF-16 file cannot be read from an offset: each is read whole once it has not
  changed for *settle* seconds, and again whenever it changes after that.  (A ``.json`` or
  ``.txt`` file's format is sniffed once it has settled: it may be such a document.)

**Polling, not file events.**  Positions make events unnecessary for correctness (an event
would only wake the follower sooner), polling works alike on every OS and on network and
container filesystems where inotify is silent, and it adds no dependency: ``watchdog``
would not earn its keep.  A poll costs one ``stat`` a file.

**The lock.**  The dataset's writer lock is taken for each poll that has work and released
between polls, so ``paipu audit`` can run on the dataset while it is followed; a poll that
finds the dataset locked waits for the next.  When another writer added hands or rejects
meanwhile, the follower reloads its id index first, so nothing is stored twice.

Stopping: SIGINT (Ctrl-C) or SIGTERM ends the follower after the batch in hand is committed
(a second one ends it at once, exit 130: the batch is left out, and the next run takes it);
*idle_exit* ends it after that many seconds in which no input file changed.
"""

from __future__ import annotations

import hashlib
import io
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pyarrow as pa

from .ingest import BATCH_BYTES, Batch, BatchResult, Ingester, IngestStats, iter_batches, merge_results, paused_gc, work
from .io.commit import DatasetLocked, part_files, writing
from .io.dataset import file_identity
from .io.sources import (
    _UTF16, GZIP_MAGIC, InputError, Item, LongLine, Unreadable, base_suffix, expand_inputs, file_encoding, tail_lines,
)
from .io.readers import sniff_format
from .io.text import HAND_LINE

#: the follower's read positions, inside the dataset (``_``: no table reader sees it)
STATE = "_follow/state.parquet"
STATE_SCHEMA = pa.schema([("file", pa.string()), ("dev", pa.int64()), ("ino", pa.int64()), ("offset", pa.int64()),
                          ("line", pa.int64()), ("tail", pa.int64()), ("size", pa.int64()), ("mtime_ns", pa.int64())])
#: endings of files whose first line tells their format (a ``.json`` or ``.txt`` file may be
#: another tool's document: its format is sniffed once it has settled)
_LINE_SUFFIXES = (".jsonl", ".ndjson", ".paipu")
#: the bytes before a file's offset whose hash tells a rewritten file
TAIL = 4096
#: seconds between polls, and how long a file (or a text file's last hand) stays unchanged
#: before it is taken whole (the CLI's defaults)
INTERVAL = 2.0
SETTLE = 10.0


@dataclass
class Position:
    """Where a file's complete, taken records end: byte *offset*, the *line* there."""

    dev: int
    ino: int
    offset: int = 0
    line: int = 0
    tail: int = 0
    size: int = 0
    mtime_ns: int = 0


@dataclass
class FollowStats(IngestStats):
    files: int = 0  # distinct files seen
    polls: int = 0
    stopped: str = ""  # "SIGINT", "SIGTERM" or "idle"


@dataclass
class _Watch:
    """What the follower saw of a file in this run."""

    seen: tuple[int, int, int, int]  # dev, inode, size, mtime_ns
    since: float  # when *seen* last changed (monotonic)
    done: tuple[int, int, int, int] | None = None  # *seen* when it was last read through
    kind: str | None = None
    pending: bool = False  # a text file's last hand waits to settle


def load_state(out: str) -> dict[str, Position]:
    """The read positions stored in the dataset *out* (none for a dataset never followed)."""
    import pyarrow.parquet as pq

    path = os.path.join(out, STATE)
    if not os.path.exists(path):
        return {}
    rows = pq.read_table(path).to_pylist()
    return {r.pop("file"): Position(**r) for r in rows}


def _state_table(state: dict[str, Position]) -> pa.Table:
    names = list(state)
    cols = [names] + [[getattr(state[n], c) for n in names] for c in STATE_SCHEMA.names[1:]]
    return pa.table(cols, schema=STATE_SCHEMA)


def _tail_hash(f: io.BufferedReader, offset: int) -> int:
    if offset == 0:
        return 0
    data = os.pread(f.fileno(), min(offset, TAIL), offset - min(offset, TAIL))
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little") >> 1


def _head(path: str, n: int = 3) -> bytes:
    with open(path, "rb") as f:
        return f.read(n)


def _mode(path: str, kind: str) -> str:
    """How a file is followed: ``lines`` (JSONL from an offset), ``text`` (hands from an
    offset), ``reread`` (from its start when it grew) or ``whole`` (once settled)."""
    if kind in ("jsonl", "text"):
        head = _head(path, 2)
        return "whole" if head == GZIP_MAGIC or head in _UTF16 else "lines" if kind == "jsonl" else "text"
    return "reread" if kind == "guandan-competition" else "whole"


class _Stop:
    """SIGINT and SIGTERM set the stop flag (the batch in hand is finished); a second one
    raises KeyboardInterrupt at once."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.signal = ""

    def __call__(self, signum: int, frame: object) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt
        self.signal = signal.Signals(signum).name
        self.event.set()

    @contextmanager
    def installed(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        old = {s: signal.signal(s, self) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for s, handler in old.items():
                signal.signal(s, handler)


def follow(inputs: list[str], out: str, fmt: str = "auto", batch_size: int = 5_000, interval: float = INTERVAL,
           settle: float = SETTLE, idle_exit: float | None = None, on_reject: Callable[[Item], None] | None = None,
           on_poll: Callable[[IngestStats], None] | None = None,
           on_wait: Callable[[str], None] | None = None) -> FollowStats:
    """Ingest *inputs* into the dataset *out* as they grow, until SIGINT/SIGTERM or
    *idle_exit* seconds without a change (see the module doc).  *on_poll* is told the
    counts of every poll that took or rejected something; *on_wait* why a poll waits
    (another writer holds the dataset).  Raises :class:`~replay.io.commit.DatasetLocked`
    when the dataset is locked at the start, :class:`~replay.io.commit.DatasetWriteError`
    when a batch cannot be written (the dataset is as before that batch)."""
    stop = _Stop()
    follower = _Follower(inputs, out, fmt, batch_size, settle, on_reject, stop)
    with stop.installed(), paused_gc():
        with writing(out):
            follower.load()
            follower.poll(first=True)
        if on_poll and (follower.stats.written or follower.stats.rejected):
            on_poll(_delta(follower.stats, (0, 0, 0, 0)))
        last_change = time.monotonic()
        waiting = False
        while not stop.event.is_set():
            if idle_exit is not None and time.monotonic() - last_change >= idle_exit:
                follower.stats.stopped = "idle"
                break
            stop.event.wait(interval)
            if stop.event.is_set():
                break
            before = _counts(follower.stats)
            try:
                changed = follower.poll()
                waiting = False
            except DatasetLocked as e:
                changed = True  # (not idle: the work waits)
                if not waiting and on_wait:
                    on_wait(str(e))
                waiting = True
            if changed:
                last_change = time.monotonic()
            delta = _delta(follower.stats, before)
            if on_poll and (delta.written or delta.rejected):
                on_poll(delta)
    stats = follower.stats
    stats.stopped = stats.stopped or stop.signal
    stats.held = [h for held in follower.held.values() for h in held]
    stats.files = len(follower.watches)
    return stats


def _counts(s: IngestStats) -> tuple[int, int, int, int]:
    return s.read, s.written, s.duplicates, s.rejected


def _delta(s: IngestStats, before: tuple[int, int, int, int]) -> IngestStats:
    read, written, duplicates, rejected = (a - b for a, b in zip(_counts(s), before))
    return IngestStats(read, written, duplicates, rejected)


class _Follower:
    def __init__(self, inputs: list[str], out: str, fmt: str, batch_size: int, settle: float,
                 on_reject: Callable[[Item], None] | None, stop: _Stop):
        self.inputs, self.out, self.fmt, self.batch_size, self.settle = inputs, out, fmt, batch_size, settle
        self.on_reject, self.stop = on_reject, stop
        self.stats = FollowStats()
        self.watches: dict[str, _Watch] = {}
        self.held: dict[str, list[tuple[str, int]]] = {}  # file identity -> what is held back in it now
        self.reported: set[str] = set()  # unreadable paths already reported this run

    def _listing(self) -> tuple:
        """What tells that another writer changed the dataset since this one's last poll."""
        try:
            state = os.stat(os.path.join(self.out, STATE)).st_ino
        except OSError:
            state = 0
        return tuple(part_files(self.out, "hands")), tuple(part_files(self.out, "rejects")), state

    def load(self) -> None:
        """The id index, the stored rejects and the read positions, from the dataset (lock held)."""
        ingester = Ingester(self.out, self.on_reject)
        ingester.stats = self.stats
        self.ingester = ingester
        self.state = load_state(self.out)
        self.listing = self._listing()

    def poll(self, first: bool = False) -> bool:
        """Look at every input file once, ingest what is new; whether any file changed."""
        self.stats.polls += 1
        now = time.monotonic()
        try:
            paths = expand_inputs(self.inputs)
        except InputError:
            paths = []  # a folder or file gone (or a glob matching nothing yet): nothing to read now
        todo: list[tuple[str, str, os.stat_result | None, _Watch | None]] = []
        changed, present = False, set()
        for path in paths:
            if isinstance(path, Unreadable):
                if path not in self.reported:
                    todo.append((path, "", None, None))
                    changed = True
                continue
            try:
                st = os.stat(path)
                ident = file_identity(path)
            except OSError:
                continue  # gone since it was listed
            present.add(ident)
            seen = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
            w = self.watches.get(ident)
            if w is None or w.seen != seen:
                kind = w.kind if w is not None and w.seen[:2] == seen[:2] else None
                w = self.watches[ident] = _Watch(seen, now, kind=kind)
                changed = True
            if w.done == seen and not (w.pending and now - w.since >= self.settle):
                continue
            todo.append((path, ident, st, w))
        # (not idle while a file waits to settle)
        changed = changed or any(w.pending or w.done != w.seen for w in self.watches.values())
        gone = [k for k in self.state if k not in present and not os.path.exists(k)]
        if not todo and not gone:
            return changed
        if first:
            self._work(todo, gone, now)
        else:
            with writing(self.out):
                if self._listing() != self.listing:
                    self.load()
                self._work(todo, gone, now)
        return changed

    def _work(self, todo: list, gone: list[str], now: float) -> None:
        """Read the files of *todo*; their batches are gathered and written a few files at
        a time (one commit for many small files), each with the positions after it."""
        self.results: list[BatchResult] = []
        self.moved: dict[str, Position] = {}  # positions after the gathered batches
        self.size = 0
        for ident in gone:
            del self.state[ident]
            self.held.pop(ident, None)
        for path, ident, st, w in todo:
            if self.stop.event.is_set():
                break
            if w is None:  # an unreadable path: one reject (io.sources.Unreadable)
                for unread in iter_batches([path], self.fmt, self.batch_size):
                    self._take(unread, "", None)
                self.reported.add(path)
                continue
            self.held[ident] = []
            for batch, pos in self._batches(path, ident, st, w, now):
                self._take(batch, ident, pos)
                if self.stop.event.is_set():
                    break  # (the file is looked at again by the next run)
        if self.results or self.moved or gone:
            self._flush()
        self.listing = self._listing()

    def _take(self, batch: Batch | None, ident: str, pos: Position | None) -> None:
        """Gather one batch (None: only a position), with the file's position after it."""
        if batch is not None:
            result = work(batch)
            self.results.append(result)
            self.size += batch.size + 1
            if ident:
                self.held[ident] += result.held
        if pos is not None:
            self.moved[ident] = pos
        if self.size >= BATCH_BYTES or sum(r.read for r in self.results) >= self.batch_size:
            self._flush()

    def _flush(self) -> None:
        """The gathered batches as one batch of the dataset, the positions with them."""
        state = {**self.state, **self.moved}
        table = {STATE: _state_table(state)}
        if self.results:
            self.ingester.add(merge_results(self.results), table)
        else:
            self.ingester.writer.stage(STATE, table[STATE])
            self.ingester.writer.commit()
        self.state = state
        self.results, self.moved, self.size = [], {}, 0

    def _batches(self, path: str, ident: str, st: os.stat_result, w: _Watch,
                 now: float) -> Iterator[tuple[Batch | None, Position | None]]:
        """The new batches of one file, each with the file's position after it (None: not
        known yet); when they are all taken the file is marked read through."""
        settled = now - w.since >= self.settle
        if w.kind is None:
            if st.st_size == 0:
                w.done = w.seen
                return
            if not settled and (base_suffix(path) not in _LINE_SUFFIXES or not _first_line_ended(path)):
                return  # its format is told by its first line (a .json file, by its first bytes): wait for them
            w.kind = sniff_format(path) if self.fmt == "auto" else self.fmt
        mode = _mode(path, w.kind)
        old = self.state.get(ident)
        fresh = Position(st.st_dev, st.st_ino, size=st.st_size, mtime_ns=st.st_mtime_ns)
        if mode in ("whole", "reread"):
            if old is not None and (old.dev, old.ino, old.size, old.mtime_ns) == w.seen:
                w.done = w.seen
                return
            if mode == "whole" and not settled:
                return
            fresh.offset = st.st_size
            last = None  # the position goes with the file's last batch
            for batch in iter_batches([path], w.kind, self.batch_size):
                if last is not None:
                    yield last, None
                last = batch
            yield last, fresh
            w.done = w.seen
            return
        with open(path, "rb") as f:
            now_st = os.fstat(f.fileno())
            if (now_st.st_dev, now_st.st_ino) != (st.st_dev, st.st_ino):
                return  # replaced since the poll looked: the next poll reads the new file
            if old is not None and ((old.dev, old.ino) != (st.st_dev, st.st_ino) or st.st_size < old.offset
                                    or _tail_hash(f, old.offset) != old.tail):
                old = None  # replaced, truncated or rewritten: read again from the start
            start = old or fresh
            base = file_encoding(os.pread(f.fileno(), 3, 0))
            pending: list[tuple[str, int]] = []
            reader = _line_batches if mode == "lines" else _text_batches
            for batch, offset, line in reader(f, path, start.offset, start.line, st.st_size, self.batch_size, base,
                                              settled, pending):
                yield batch, Position(st.st_dev, st.st_ino, offset, line, _tail_hash(f, offset), st.st_size,
                                      st.st_mtime_ns)
        self.held[ident] += pending
        w.pending = bool(pending) and mode == "text"  # (a held JSONL line waits for its writer, not to settle)
        w.done = w.seen


def _first_line_ended(path: str) -> bool:
    with open(path, "rb") as f:
        return b"\n" in f.read(1 << 16)


def _line_batches(f: io.BufferedReader, path: str, offset: int, line: int, end: int, batch_size: int, base: str,
                  settled: bool, pending: list[tuple[str, int]]) -> Iterator[tuple[Batch, int, int]]:
    """JSONL of *f* (the file *path*) from byte *offset* (line *line*) to *end*: batches
    of whole lines, each with the offset and line after it; the last line without its line
    end goes in the last batch (taken when whole, held back otherwise: replay.ingest), the
    offset before it."""
    lines: list[tuple[int, bytes]] = []
    hands = size = unended = 0
    moved = False
    for n, data, after, ended in tail_lines(f, offset, line, end):
        if not ended:
            if type(data) is LongLine:
                pending.append((path, n))  # too long, and not ended: rejected once it is
            elif data.strip():
                lines.append((n, data))
                unended = n
            break
        if data.strip():
            if hands >= batch_size or size >= BATCH_BYTES:
                yield Batch(path, "jsonl", lines, size=size, base=base), offset, line
                lines, hands, size, moved = [], 0, 0, False
            lines.append((n, data))
            hands += 1
            size += len(data) + 1
        offset, line, moved = after, n, True
    if lines or moved:
        yield Batch(path, "jsonl", lines, size=size, base=base, unended=unended), offset, line


def _text_batches(f: io.BufferedReader, path: str, offset: int, line: int, end: int, batch_size: int, base: str,
                  settled: bool, pending: list[tuple[str, int]]) -> Iterator[tuple[Batch, int, int]]:
    """Text-format hands of *f* (the file *path*) from byte *offset* (line *line*) to
    *end*: batches of whole hands (each ended by the next ``hand`` line), each with the
    offset and line before the hand after it.  The last hand is taken when *settled*, the
    offset staying at its start; otherwise it is named in *pending*."""
    ready: list[tuple[int, bytes]] = []  # lines of whole hands (and of lines before the first)
    current: list[tuple[int, bytes]] = []  # the lines of the hand being read
    hands = size = 0
    at = told = (offset, line)  # where *current* starts; the position of the last batch
    start = offset  # where the line being read starts
    for n, data, after, _ in tail_lines(f, offset, line, end):
        head = data[3:] if n == 1 and data.startswith(b"\xef\xbb\xbf") else data
        if HAND_LINE.match(head):
            ready += current
            current, at = [], (start, n - 1)
            if hands >= batch_size or size >= BATCH_BYTES:
                yield Batch(path, "text", _blocks(ready), size=size, base=base), *at
                ready, hands, size, told = [], 0, 0, at
            hands += 1
        current.append((n, data))
        size += len(data) + 1
        start = after
    if current and settled:
        ready += current
    elif any(d.strip() for _, d in current):
        pending.append((path, current[0][0]))
    if ready or at != told:
        yield Batch(path, "text", _blocks(ready), size=size, base=base), *at


def _blocks(lines: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    """Consecutive lines (number, bytes without the line end) as the blocks io.text reads."""
    out: list[tuple[int, bytes]] = []
    run: list[bytes] = []
    first = 0
    for n, data in lines:
        if type(data) is LongLine:
            if run:
                out.append((first, b"\n".join(run) + b"\n"))
                run = []
            out.append((n, data))
            continue
        if not run:
            first = n
        run.append(data)
    if run:
        out.append((first, b"\n".join(run) + b"\n"))
    return out
