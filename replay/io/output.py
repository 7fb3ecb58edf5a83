"""Writing one output file safely: the old file or the new one, never half of either.

Every file paipu writes (``convert --out``, ``simulate --out``, ``report``, replay pages,
labels) goes through :func:`atomic_file`: the bytes go to ``.NAME.part-PID`` beside the
target, are synced, and the part is renamed onto the target at the end.  An error (a
full disk, a permission) removes the part and leaves the old file; a kill leaves the
old file and the part, which the next write of that file removes (its PID is dead).
A target that exists and is not a regular file (a device, a FIFO, a folder) is refused:
renaming onto ``/dev/full`` would replace the device itself.
"""

from __future__ import annotations

import errno
import gzip
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO


class NotRegularFile(OSError):
    """The target exists and is not a regular file (a device, a pipe, a folder)."""


def check_target(path: str) -> None:
    """Raise :class:`NotRegularFile` unless *path* is absent or a regular file (a symlink
    to one counts as one: the rename replaces the link, as every editor does)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise OSError(e.errno, e.strerror, path) from None
    import stat

    if not stat.S_ISREG(st.st_mode):
        what = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise NotRegularFile(errno.EINVAL, f"{what}: paipu writes only regular files (or standard output)", path)


def part_name(path: str, pid: int | None = None) -> str:
    """The temporary file a write of *path* goes to: ``.NAME.part-PID`` beside it."""
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(folder, f".{name}.part-{os.getpid() if pid is None else pid}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove_stale_parts(path: str) -> list[str]:
    """Remove the parts of *path* that killed writes left (their process is gone)."""
    folder, name = os.path.split(os.path.abspath(path))
    pattern = re.compile(rf"\.{re.escape(name)}\.part-(\d+)\Z")
    removed: list[str] = []
    try:
        entries = os.listdir(folder)
    except OSError:
        return removed
    for entry in entries:
        m = pattern.match(entry)
        if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            try:
                os.unlink(os.path.join(folder, entry))
                removed.append(entry)
            except OSError:
                pass
    return removed


@contextmanager
def atomic_file(path: str, gz: bool | None = None) -> Iterator[BinaryIO]:
    """A binary file object whose bytes replace *path* when the block ends without an
    error (gzip-compressed when *gz*, by default when *path* ends with ``.gz``).  Any
    OSError about the temporary part names *path* instead."""
    check_target(path)
    remove_stale_parts(path)
    temp = part_name(path)
    gz = path.endswith(".gz") if gz is None else gz
    raw = f = None
    try:
        try:
            raw = open(temp, "wb")  # noqa: SIM115 - closed below, on every path
            f = gzip.GzipFile(filename=os.path.basename(path)[:-3], mode="wb", fileobj=raw) if gz else raw
            yield f  # type: ignore[misc]
            if gz:
                f.close()
            raw.flush()
            os.fsync(raw.fileno())
            raw.close()
            check_target(path)  # it may have been made a device meanwhile
            os.replace(temp, path)
        except OSError as e:  # about the part (named, or no name: a write): say the file
            if isinstance(e, NotRegularFile) or e.filename not in (None, temp):
                raise
            raise type(e)(e.errno, e.strerror, path) from None
    except BaseException:
        for obj in (f, raw):
            try:
                if obj is not None:
                    obj.close()
            except (OSError, ValueError):
                pass  # a full disk again while flushing: the part goes anyway
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def write_bytes(path: str, data: bytes, gz: bool | None = None) -> None:
    """*data* as the whole of *path* (see :func:`atomic_file`)."""
    with atomic_file(path, gz) as f:
        f.write(data)
