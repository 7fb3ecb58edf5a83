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

import os
import posixpath
from functools import lru_cache

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq


def is_uri(path: str) -> bool:
    """True for ``scheme://...`` (object storage); local paths and ``file://`` are local.

    >>> is_uri("s3://bucket/ds"), is_uri("out/ds"), is_uri("/tmp/ds")
    (True, False, False)
    """
    return "://" in path and not path.startswith("file://")


def set_endpoint(url: str | None) -> None:
    """Use *url* (``http://host:port``) for S3 URIs from now on, in this process and the
    processes it starts."""
    if url:
        os.environ["AWS_ENDPOINT_URL"] = url
        _filesystem.cache_clear()


@lru_cache(maxsize=16)
def _filesystem(base: str, endpoint: str | None) -> pafs.FileSystem:
    fs, _ = pafs.FileSystem.from_uri(base)
    return fs


def split(uri: str) -> tuple[pafs.FileSystem, str]:
    """(the filesystem, the path in it) of a URI."""
    scheme, rest = uri.split("://", 1)
    bucket = rest.split("/", 1)[0]
    try:
        fs = _filesystem(f"{scheme}://{bucket}", os.environ.get("AWS_ENDPOINT_URL"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as e:
        raise StoreError(f"{uri}: cannot open this location ({str(e).splitlines()[0]})") from None
    return fs, rest.rstrip("/")


class StoreError(OSError):
    """A URI that names no usable storage (unknown scheme, unreachable server)."""


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


def listdir(path: str) -> list[str]:
    """The names in a folder, sorted (none if it does not exist)."""
    if not is_uri(path):
        return sorted(os.listdir(path)) if os.path.isdir(path) else []
    fs, p = split(path)
    infos = fs.get_file_info(pafs.FileSelector(p, allow_not_found=True))
    return sorted(posixpath.basename(i.path) for i in infos)


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


def remove(path: str) -> None:
    if not is_uri(path):
        os.remove(path)
        return
    fs, p = split(path)
    fs.delete_file(p)


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


def replace(src: str, dst: str) -> None:
    """Move *src* onto *dst*: an atomic rename locally, copy then delete on object storage."""
    if not is_uri(src):
        os.replace(src, dst)
        return
    fs, s = split(src)
    fs.move(s, split(dst)[1])


def write_bytes(path: str, data: bytes) -> None:
    if not is_uri(path):
        with open(path, "wb") as f:
            f.write(data)
        return
    fs, p = split(path)
    with fs.open_output_stream(p) as f:
        f.write(data)


def read_bytes(path: str) -> bytes:
    if not is_uri(path):
        with open(path, "rb") as f:
            return f.read()
    fs, p = split(path)
    with fs.open_input_stream(p) as f:
        return f.read()


def read_parquet(path: str, columns: list[str] | None = None) -> pa.Table:
    if not is_uri(path):
        return pq.read_table(path, columns=columns)
    fs, p = split(path)
    return pq.read_table(p, columns=columns, filesystem=fs)


def parquet_rows(path: str) -> int:
    """The number of rows of a Parquet file, from its footer."""
    if not is_uri(path):
        return pq.ParquetFile(path).metadata.num_rows
    fs, p = split(path)
    with fs.open_input_file(p) as f:
        return pq.ParquetFile(f).metadata.num_rows


def write_parquet(data: pa.Table, path: str) -> None:
    """One Parquet file; on object storage the object appears when the upload completes."""
    if not is_uri(path):
        pq.write_table(data, path, compression="zstd")
        return
    fs, p = split(path)
    pq.write_table(data, p, compression="zstd", filesystem=fs)


def dataset(files: list[str], base: str):
    """A hive-partitioned :mod:`pyarrow.dataset` of Parquet *files* under the folder *base*."""
    import pyarrow.dataset as pads

    partitioning = pads.partitioning(flavor="hive")
    if not is_uri(base):
        return pads.dataset(files, format="parquet", partitioning=partitioning, partition_base_dir=base)
    fs, b = split(base)
    return pads.dataset([split(f)[1] for f in files], format="parquet", filesystem=fs,
                        partitioning=partitioning, partition_base_dir=b)
