"""Where a dataset lives: a local folder, or a URI on object storage (``s3://bucket/prefix``,
``gs://bucket/prefix``, any scheme :mod:`pyarrow.fs` understands).

Paths stay strings everywhere: a local path goes to :mod:`os` exactly as before, a URI to
the pyarrow filesystem of its scheme and bucket.  An S3-compatible server other than AWS
is named by the ``AWS_ENDPOINT_URL`` environment variable (``paipu --s3-endpoint URL``
sets it), credentials come from the usual AWS variables or files.

On object storage an object appears whole or not at all when its upload completes, and
there is no rename: :func:`replace` copies then deletes.  Folders are key prefixes; a
folder exists when some object is under it.
"""

from __future__ import annotations

import datetime
import functools
import os
import posixpath
import re
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq


#: the filesystem of local paths, given to pyarrow with absolute paths (:func:`local`)
LOCAL = pafs.LocalFileSystem()


def local(path: str) -> str:
    """*path* (local) as pyarrow must get it: absolute. Left to guess, pyarrow takes a
    relative path with a colon (``run-2024-05-01T20:00/hands``) for a URI of an unknown
    scheme, even with the local filesystem given.

    >>> local("run-2024-05-01T20:00/hands") == os.path.join(os.getcwd(), "run-2024-05-01T20:00", "hands")
    True
    """
    return os.path.abspath(path)


_URI = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
#: the schemes of object storage paipu opens (through pyarrow.fs)
SCHEMES = ("s3", "gs", "gcs", "hdfs", "viewfs", "abfs", "abfss")
#: seconds a Google Cloud Storage request is retried before it fails (pyarrow's default is
#: 15 minutes: without credentials or network, ``paipu stats gs://b/ds`` seemed to hang)
RETRY_SECONDS = 10


def is_uri(path: str) -> bool:
    """True for ``scheme://...`` (object storage); local paths and ``file://`` are local
    (a colon elsewhere, as in ``run-2024-05-01T20:00``, is part of a local name).

    >>> is_uri("s3://bucket/ds"), is_uri("out/ds"), is_uri("/tmp/ds"), is_uri("run-2024-05-01T20:00")
    (True, False, False, False)
    """
    m = _URI.match(path)
    return m is not None and m.group(1).lower() != "file"


def place(path: str) -> str:
    """*path* checked as a dataset's place: a ``file://`` URI as its local path, any other
    URI as it is when it names a known scheme and a bucket; a local path unchanged.
    Raises :class:`StoreError` (one line) for a URI paipu cannot open.

    >>> place("file:///tmp/x"), place("file://localhost/tmp/x"), place("s3://b/ds"), place("a:b")
    ('/tmp/x', '/tmp/x', 's3://b/ds', 'a:b')
    >>> place("s3:///ds")
    Traceback (most recent call last):
    ...
    paipu.replay.io.store.StoreError: s3:///ds: no bucket named (like s3://bucket/folder)
    """
    m = _URI.match(path)
    if m is None:
        return path
    scheme, rest = m.group(1).lower(), path[m.end():]
    if scheme == "file":
        host, sep, local_path = rest.partition("/")
        if host not in ("", "localhost"):
            raise StoreError(f"{path}: a file:// URI names a path on this machine (file:///path), not on {host}")
        return "/" + local_path
    if scheme not in SCHEMES:
        raise StoreError(f"{path}: unknown storage scheme {scheme}:// (paipu opens local paths and "
                         f"{', '.join(s + '://' for s in SCHEMES)})")
    if not rest.split("/", 1)[0]:
        raise StoreError(f"{path}: no bucket named (like {scheme}://bucket/folder)")
    return path


def set_endpoint(url: str | None) -> None:
    """Use *url* (``http://host:port``) for S3 URIs from now on, in this process and the
    processes it starts."""
    if url:
        os.environ["AWS_ENDPOINT_URL"] = url
        _filesystem.cache_clear()


@lru_cache(maxsize=16)
def _filesystem(base: str, endpoint: str | None) -> pafs.FileSystem:
    if base.split("://", 1)[0].lower() in ("gs", "gcs"):
        return pafs.GcsFileSystem(retry_time_limit=datetime.timedelta(seconds=RETRY_SECONDS))
    fs, _ = pafs.FileSystem.from_uri(base)
    return fs


def split(uri: str) -> tuple[pafs.FileSystem, str]:
    """(the filesystem, the path in it) of a URI."""
    place(uri)
    scheme, rest = uri.split("://", 1)
    bucket = rest.split("/", 1)[0]
    try:
        fs = _filesystem(f"{scheme}://{bucket}", os.environ.get("AWS_ENDPOINT_URL"))
    except (pa.ArrowException, OSError) as e:
        raise StoreError(f"{uri}: cannot open this location ({_first_line(e)})") from None
    return fs, rest.rstrip("/")


class StoreError(OSError):
    """A URI that names no usable storage (unknown scheme, no bucket, unreachable server)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _first_line(e: BaseException, limit: int = 300) -> str:
    """The first line of an error of the storage, cut at *limit* characters (a Google
    Cloud error's line holds its whole retry history)."""
    line = (str(e).strip().splitlines() or [type(e).__name__])[0]
    return line if len(line) <= limit else line[:limit] + "…"


T = TypeVar("T")


def _remote(at: int = 0) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """What a function does on a URI (its argument number *at*) is done in a thread the
    caller waits for, so that Ctrl-C stops the command at once (a request inside pyarrow
    does not see it), and an error of the storage comes as one :class:`StoreError` line."""
    def wrap(fn: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(fn)
        def remote(*args: Any, **kw: Any) -> T:
            path = args[at]
            if not is_uri(path):
                return fn(*args, **kw)
            done: list[Any] = []

            def run() -> None:
                try:
                    done.append((True, fn(*args, **kw)))
                except BaseException as e:  # handed to the caller's thread below
                    done.append((False, e))

            worker = threading.Thread(target=run, name=f"paipu-store-{fn.__name__}", daemon=True)
            worker.start()
            while worker.is_alive():
                worker.join(0.1)  # a short wait at a time: KeyboardInterrupt comes between two
            ok, value = done[0]
            if ok:
                return value  # type: ignore[no-any-return]
            if isinstance(value, StoreError):
                raise value
            if isinstance(value, (pa.ArrowException, OSError)):
                raise StoreError(f"{path}: {_first_line(value)}") from None
            raise value
        return remote
    return wrap


def join(path: str, *parts: str) -> str:
    """*path* and *parts* joined: with ``/`` in a URI, as :func:`os.path.join` locally.

    >>> join("s3://b/ds", "hands", "game=x")
    's3://b/ds/hands/game=x'
    """
    return posixpath.join(path, *parts) if is_uri(path) else os.path.join(path, *parts)


def basename(path: str) -> str:
    return posixpath.basename(path) if is_uri(path) else os.path.basename(path)


def dirname(path: str) -> str:
    return posixpath.dirname(path) if is_uri(path) else os.path.dirname(path)


@_remote()
def _info(path: str) -> pafs.FileInfo:
    fs, p = split(path)
    return fs.get_file_info(p)


def exists(path: str) -> bool:
    return _info(path).type != pafs.FileType.NotFound if is_uri(path) else os.path.exists(path)


def isdir(path: str) -> bool:
    return _info(path).type == pafs.FileType.Directory if is_uri(path) else os.path.isdir(path)


def getmtime(path: str) -> float:
    if not is_uri(path):
        return os.path.getmtime(path)
    mtime = _info(path).mtime
    return mtime.timestamp() if mtime is not None else 0.0


@_remote()
def listdir(path: str) -> list[str]:
    """The names in a folder, sorted (none if it does not exist)."""
    if not is_uri(path):
        return sorted(os.listdir(path)) if os.path.isdir(path) else []
    fs, p = split(path)
    infos = fs.get_file_info(pafs.FileSelector(p, allow_not_found=True))
    return sorted(posixpath.basename(i.path) for i in infos)


@_remote()
def files_under(path: str) -> list[str]:
    """Every file below *path* (recursive, sorted), as paths of the same kind."""
    if not is_uri(path):
        return sorted(os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs)
    fs, p = split(path)
    prefix = path.split("://", 1)[0] + "://"
    infos = fs.get_file_info(pafs.FileSelector(p, recursive=True, allow_not_found=True))
    return sorted(prefix + i.path for i in infos if i.type == pafs.FileType.File)


def makedirs(path: str) -> None:
    if not is_uri(path):
        os.makedirs(path, exist_ok=True)  # object stores have no folders to make


@_remote()
def remove(path: str) -> None:
    if not is_uri(path):
        os.remove(path)
        return
    fs, p = split(path)
    fs.delete_file(p)


@_remote()
def rmtree(path: str) -> None:
    if not is_uri(path):
        import shutil

        shutil.rmtree(path, ignore_errors=True)
        return
    try:
        fs, p = split(path)
        fs.delete_dir(p)
    except OSError:
        pass  # as shutil.rmtree(ignore_errors=True): gone, or never made (no bucket)


@_remote()
def replace(src: str, dst: str) -> None:
    """Move *src* onto *dst*: an atomic rename locally, copy then delete on object storage."""
    if not is_uri(src):
        os.replace(src, dst)
        return
    fs, s = split(src)
    fs.move(s, split(dst)[1])


@_remote()
def write_bytes(path: str, data: bytes) -> None:
    if not is_uri(path):
        with open(path, "wb") as f:
            f.write(data)
        return
    fs, p = split(path)
    with fs.open_output_stream(p) as f:
        f.write(data)


@_remote()
def read_bytes(path: str) -> bytes:
    if not is_uri(path):
        with open(path, "rb") as f:
            return f.read()
    fs, p = split(path)
    with fs.open_input_stream(p) as f:
        return f.read()


@_remote()
def read_parquet(path: str, columns: list[str] | None = None) -> pa.Table:
    if not is_uri(path):
        return pq.read_table(local(path), columns=columns, filesystem=LOCAL)
    fs, p = split(path)
    return pq.read_table(p, columns=columns, filesystem=fs)


@_remote()
def parquet_rows(path: str) -> int:
    """The number of rows of a Parquet file, from its footer."""
    if not is_uri(path):
        return pq.ParquetFile(local(path), filesystem=LOCAL).metadata.num_rows
    fs, p = split(path)
    with fs.open_input_file(p) as f:
        return pq.ParquetFile(f).metadata.num_rows


@_remote(1)
def write_parquet(data: pa.Table, path: str) -> None:
    """One Parquet file; on object storage the object appears when the upload completes."""
    if not is_uri(path):
        pq.write_table(data, local(path), compression="zstd", filesystem=LOCAL)
        return
    fs, p = split(path)
    pq.write_table(data, p, compression="zstd", filesystem=fs)


@_remote(1)
def dataset(files: list[str], base: str):
    """A hive-partitioned :mod:`pyarrow.dataset` of Parquet *files* under the folder *base*."""
    import pyarrow.dataset as pads

    partitioning = pads.partitioning(flavor="hive")
    if not is_uri(base):
        return pads.dataset([local(f) for f in files], format="parquet", partitioning=partitioning,
                            partition_base_dir=local(base), filesystem=LOCAL)
    fs, b = split(base)
    return pads.dataset([split(f)[1] for f in files], format="parquet", filesystem=fs,
                        partitioning=partitioning, partition_base_dir=b)
