"""Fragmentation of a mounted file system read without freezing it: the extent count of a bounded
sample of its regular files, asked of the kernel file by file (FIEMAP with no room for extents:
only their number), as `filefrag` does. A reading that never stops the file system's writers and
never writes: files are opened read-only, without following links, without updating their access
times, and the walk stays on the one file system. Its result is recorded in a snapshot like a
command's output (Root.probe), so a tree replays it."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import struct
import time
from collections import deque

from nastune.commands import CommandResult

FS_IOC_FIEMAP = 0xC020660B
FIEMAP = struct.Struct("=QQLLLL")  # fm_start, fm_length, fm_flags, fm_mapped_extents, fm_extent_count, reserved
MAX_EXTENT = 8 << 30  # XFS's longest extent (2^21 blocks of 4 KiB): a larger file needs more than one
FILES, SECONDS = 2000, 10.0


def key(mountpoint: str, files: int = FILES) -> tuple[str, ...]:
    """The name the sample is recorded under in a snapshot."""
    return ("fiemap-sample", "--files", str(files), mountpoint)


def extents(fd: int) -> int:
    """The number of extents of an open file (FIEMAP with fm_extent_count 0)."""
    request = bytearray(FIEMAP.pack(0, 0xFFFFFFFFFFFFFFFF, 0, 0, 0, 0))
    fcntl.ioctl(fd, FS_IOC_FIEMAP, request)
    return FIEMAP.unpack(request)[3]


def sample(mountpoint: str, files: int = FILES, seconds: float = SECONDS) -> CommandResult:
    """Walk `mountpoint` breadth first (so every directory near the top is seen), count the extents
    of up to `files` regular files within `seconds`; stdout is JSON: files, extents, ideal
    (one per file, more for files longer than an extent can be) and how long it took."""
    argv, start = key(mountpoint, files), time.monotonic()
    try:
        device = os.lstat(mountpoint).st_dev
    except OSError as e:
        return CommandResult(argv, None, error=f"{mountpoint}: {e.strerror}")
    counted: dict[str, float] = {"files": 0, "extents": 0, "ideal": 0, "skipped": 0}
    todo = deque([mountpoint])
    while todo and counted["files"] < files and time.monotonic() - start < seconds:
        for entry in _entries(todo.popleft()):
            info = entry.stat(follow_symlinks=False)
            if info.st_dev != device:
                continue  # another file system mounted below
            if stat.S_ISDIR(info.st_mode):
                todo.append(entry.path)
            elif stat.S_ISREG(info.st_mode) and counted["files"] < files:
                _count(entry.path, info.st_size, counted)
    counted["seconds"] = round(time.monotonic() - start, 3)
    return CommandResult(argv, 0, json.dumps(counted))


def _entries(directory: str) -> list[os.DirEntry]:
    try:
        with os.scandir(directory) as found:
            return sorted(found, key=lambda e: e.name)
    except OSError:
        return []


def _count(path: str, size: int, counted: dict[str, float]) -> None:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOATIME", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno != errno.EPERM:  # O_NOATIME on a file another user owns: open it plainly
            counted["skipped"] += 1
            return
        fd = os.open(path, flags & ~getattr(os, "O_NOATIME", 0))
    try:
        found = extents(fd)
    except OSError:
        counted["skipped"] += 1
        return
    finally:
        os.close(fd)
    if found:  # an empty file, or one whose data lives in its inode, has none
        counted["files"] += 1
        counted["extents"] += found
        counted["ideal"] += max(1, -(-size // MAX_EXTENT))
