"""Writing into a dataset safely: one writer at a time, and a batch visible all at once.

A batch (the hands, actions and rejects of one ingest batch; the four audit tables of
one hands part) is written into ``DS/_staging/<batch>/<table>/...``, every file synced;
then a ``COMMIT`` marker is made by an atomic rename, and only then are the files moved
into place (a rename each) and the staging folder removed.  Every writer first repairs
what an interrupted one left: a staged batch with ``COMMIT`` is rolled forward, one
without is deleted, and stray ``*.parquet.tmp`` files of older versions are removed.
So after a kill at any point the next writer leaves each batch complete or absent.

Readers never wait for a writer's run: table folders only ever hold whole ``.parquet``
files, and the staging folder starts with ``_`` (pyarrow, DuckDB and polars globs of
``DS/TABLE/**`` never reach it).  paipu's own readers also see whole batches only, every
table from the same set (:func:`snapshot`): the moves of a batch into place happen under
an exclusive ``flock`` on ``DS/.moving``, a reader lists every table it reads under a
shared one (a few milliseconds), and leaves out the files of any batch still staged with
its ``COMMIT`` that a crashed writer began to move.  A reader that runs between a crash
and the next writer repairs a committed batch itself when no writer holds the lock
(:func:`settle`).

On object storage (a dataset URI, :mod:`replay.io.store`) the same steps run with
objects: each object appears whole when its upload completes, the COMMIT marker is one
object, and moving a file into place is a copy then a delete (rolled forward again after
a crash, as locally).  There is no lock there: run one writer at a time on a dataset
(the scheduler's job), and readers leave staged batches to the next writer.

``PAIPU_CRASH_AT=N`` (tests, ``benchmarks/killtest.py``) ends the process with
``os._exit(137)`` at the Nth write step, as ``kill -9`` would.
"""

from __future__ import annotations

import datetime
import errno
import fcntl
import json
import os
import shutil
import sys
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import pyarrow as pa
import pyarrow.parquet as pq

from . import store

STAGING = "_staging"
COMMIT = "COMMIT"
LOCK = ".lock"
#: the lock of the moves into place (exclusive) and of the readers' listings (shared)
MOVING = ".moving"


class DatasetLocked(RuntimeError):
    """Another process is writing the dataset (the message names it)."""


class DatasetWriteError(RuntimeError):
    """A batch could not be written (disk full, permissions): the dataset is as before it."""


# ---------------------------------------------------------------- fault injection (tests)

_steps = 0


def step() -> None:
    """One write step; with ``PAIPU_CRASH_AT=N`` the Nth ends the process like a kill."""
    global _steps
    at = os.environ.get("PAIPU_CRASH_AT")
    if at:
        _steps += 1
        if _steps == int(at):
            os._exit(137)


# ---------------------------------------------------------------- the lock


class Lock:
    """An exclusive ``flock`` on ``DS/.lock``, holding who took it (pid, command, time)."""

    def __init__(self, root: str):
        self.root = root
        self.fd: int | None = None

    def acquire(self) -> Lock:
        if store.is_uri(self.root):
            return self  # no lock on object storage (see the module doc)
        try:
            os.makedirs(self.root, exist_ok=True)
            fd = os.open(os.path.join(self.root, LOCK), os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise DatasetWriteError(f"{self.root}: cannot write the dataset ({_reason(e)})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = _read_holder(fd)
            os.close(fd)
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            raise DatasetLocked(f"{self.root} is being written by {holder}; wait for it to finish") from None
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        info = json.dumps({"pid": os.getpid(), "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
                           "since": now}, ensure_ascii=False).encode()
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, info, 0)
        except OSError as e:  # a full disk: nothing could be written anyway
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            raise DatasetWriteError(_failure(self.root, e, "nothing was written")) from None
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is not None:
            try:
                os.ftruncate(self.fd, 0)
            except OSError:
                pass  # the holder's line stays: the next writer overwrites it
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> Lock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _read_holder(fd: int) -> str:
    try:
        info = json.loads(os.pread(fd, 4096, 0) or b"{}")
        return f"pid {info['pid']} ({info['command']}, since {info['since']})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


class writing:
    """``with writing(root):`` — the lock, then the repair of interrupted batches."""

    def __init__(self, root: str):
        self.lock = Lock(root)
        self.root = root

    def __enter__(self) -> writing:
        self.lock.acquire()
        try:
            recover(self.root)
        except OSError as e:  # a full disk while rolling a batch forward: it stays staged
            self.lock.release()
            raise DatasetWriteError(_failure(self.root, e, "an interrupted batch could not be repaired yet; "
                                                            "the next paipu run on it repairs it")) from None
        except BaseException:
            self.lock.release()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.lock.release()


# ---------------------------------------------------------------- staged batches


def _fsync_dir(path: str) -> None:
    if store.is_uri(path):
        return  # an uploaded object is durable when its upload completes
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_parquet(data: pa.Table, path: str) -> None:
    """One Parquet file, synced to disk (the only place a part file is written)."""
    if store.is_uri(path):
        store.write_parquet(data, path)
        return
    with open(path, "wb") as f:
        pq.write_table(data, f, compression="zstd")
        f.flush()
        os.fsync(f.fileno())


class StagedBatch:
    """The files of one batch, staged, then committed all at once (see the module doc)."""

    def __init__(self, root: str):
        self.root = root
        self.folder = store.join(root, STAGING, uuid.uuid4().hex)
        self.files: list[str] = []  # paths relative to the dataset root

    def write(self, relpath: str, data: pa.Table) -> None:
        """Stage *data* to become ``DS/relpath``; an OSError aborts the batch."""
        target = store.join(self.folder, relpath)
        try:
            store.makedirs(store.dirname(target))
            step()
            write_parquet(data, target)
        except OSError as e:
            self.abort()
            raise DatasetWriteError(_failure(self.root, e)) from None
        self.files.append(relpath)

    def commit(self) -> None:
        """Make the batch visible: the COMMIT marker, then every file moved into place."""
        if not self.files:
            self.abort()
            return
        try:
            for d in {os.path.dirname(os.path.join(self.folder, f)) for f in self.files}:
                _fsync_dir(d)
            marker = store.join(self.folder, COMMIT)
            step()
            if store.is_uri(marker):  # one object: whole or absent
                store.write_bytes(marker, "\n".join(self.files).encode())
            else:
                with open(marker + ".tmp", "wb") as f:
                    f.write("\n".join(self.files).encode())
                    f.flush()
                    os.fsync(f.fileno())
                step()
                os.replace(marker + ".tmp", marker)
            _fsync_dir(self.folder)
        except OSError as e:
            self.abort()
            raise DatasetWriteError(_failure(self.root, e)) from None
        try:
            roll_forward(self.root, self.folder)
        except OSError as e:  # committed: the next writer (or reader) finishes the moves
            raise DatasetWriteError(f"{self.root}: a committed batch could not be moved into place "
                                    f"({_reason(e)}); the next paipu run on it completes it") from None

    def abort(self) -> None:
        store.rmtree(self.folder)


def _reason(e: OSError) -> str:
    return e.strerror or str(e) or type(e).__name__


def _failure(root: str, e: OSError, state: str = "it is as it was before this batch") -> str:
    what = "the disk is full" if e.errno == errno.ENOSPC else _reason(e)
    return f"{root}: cannot write the dataset ({what}); {state}"


@contextmanager
def _moving(root: str, exclusive: bool) -> Iterator[None]:
    """The ``DS/.moving`` lock: exclusive around a batch's moves, shared around a reader's
    listing.  A reader of a dataset no writer of this version touched yet (no lock file)
    or of object storage (no locks there) goes without."""
    fd = None
    if not store.is_uri(root):
        path = os.path.join(root, MOVING)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644) if exclusive else os.open(path, os.O_RDONLY)
        except OSError:
            if exclusive:
                raise
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        if fd is not None:
            os.close(fd)  # (the lock goes with it)


def roll_forward(root: str, folder: str) -> None:
    """Move a committed batch's files into place (idempotent), then drop its folder."""
    files = [x for x in store.read_bytes(store.join(folder, COMMIT)).decode().split("\n") if x]
    with _moving(root, exclusive=True):
        _move(root, folder, files)


def _move(root: str, folder: str, files: list[str]) -> None:
    for rel in files:
        src, dst = store.join(folder, rel), store.join(root, rel)
        if store.exists(src):
            store.makedirs(store.dirname(dst))
            step()
            store.replace(src, dst)
    for d in {store.dirname(store.join(root, rel)) for rel in files}:
        _fsync_dir(d)
    step()
    if store.is_uri(folder):
        store.rmtree(folder)
    else:
        shutil.rmtree(folder)


def recover(root: str) -> tuple[int, int]:
    """Repair after an interrupted writer (call with the lock held): committed batches are
    rolled forward, uncommitted ones and stray ``*.parquet.tmp`` files deleted.
    Returns (batches rolled forward, batches discarded)."""
    forward = dropped = 0
    staging = store.join(root, STAGING)
    for name in store.listdir(staging):
        folder = store.join(staging, name)
        if store.exists(store.join(folder, COMMIT)):
            roll_forward(root, folder)
            forward += 1
        else:
            store.rmtree(folder) if store.isdir(folder) else store.remove(folder)
            dropped += 1
    if store.is_uri(root):
        return forward, dropped  # nothing is written under a temporary name there
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        for f in files:
            if f.endswith(".parquet.tmp"):
                os.remove(os.path.join(dirpath, f))
    return forward, dropped


def settle(root: str) -> None:
    """For readers: finish a committed batch a crashed writer left, if no writer is busy."""
    if store.is_uri(root):
        return  # no lock there to tell a crashed writer from a busy one: the next writer repairs
    staging = os.path.join(root, STAGING)
    try:
        if not os.path.isdir(staging) or not os.listdir(staging):
            return
        with writing(root):
            pass
    except (DatasetLocked, DatasetWriteError, OSError):
        pass  # a writer is at work (it repairs), or the dataset is read-only


# ---------------------------------------------------------------- reading part files


def snapshot(root: str, tables: Iterable[str]) -> dict[str, list[str]]:
    """The part files of each of *tables* (as :func:`part_files`), all from the same set
    of whole batches: listed while no batch is being moved into place, without the files
    of a batch still staged with its COMMIT (see the module doc).  Read every table of
    one query from one snapshot."""
    tables = list(tables)
    had_lock = store.is_uri(root) or os.path.exists(os.path.join(root, MOVING))
    with _moving(root, exclusive=False):
        pending = _staged_files(root)
        out = {t: [f for f in part_files(root, t) if f not in pending] for t in tables}
    if not had_lock and os.path.exists(os.path.join(root, MOVING)):  # a writer began meanwhile
        return snapshot(root, tables)
    return out


def _staged_files(root: str) -> set[str]:
    """The paths in place of the files of every committed batch moved in part only (a
    writer crashed while moving it): neither its new files nor the old ones it replaces.
    A batch none of whose files has moved yet leaves the old state whole: it is seen."""
    staging = store.join(root, STAGING)
    out: set[str] = set()
    for name in store.listdir(staging):
        try:
            rels = [x for x in store.read_bytes(store.join(staging, name, COMMIT)).decode().split("\n") if x]
        except OSError:
            continue  # not committed (its files are not in place), or gone meanwhile
        if not all(store.exists(store.join(staging, name, rel)) for rel in rels):
            out.update(store.join(root, rel) for rel in rels)
    return out


def part_files(root: str, table: str) -> list[str]:
    """The ``.parquet`` files of a table, sorted; folders and files starting with ``.``
    or ``_`` are not part of it (as pyarrow and Spark treat them)."""
    if store.is_uri(root):
        base = store.join(root, table)
        return [f for f in store.files_under(base) if f.endswith(".parquet")
                and not any(x.startswith((".", "_")) for x in f[len(base) + 1:].split("/"))]
    out = []
    for dirpath, dirs, files in os.walk(os.path.join(root, table)):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        out += [os.path.join(dirpath, f) for f in files if f.endswith(".parquet") and not f.startswith((".", "_"))]
    return sorted(out)


def read_table(root: str, table: str, columns: list[str] | None = None) -> pa.Table | None:
    """A whole table (``game`` from the folder names), or None when it has no part file."""
    files = snapshot(root, [table])[table]
    if not files:
        return None
    return store.dataset(files, store.join(root, table)).to_table(columns=columns)
