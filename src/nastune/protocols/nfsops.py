"""NFS operations through libnfs (ctypes on libnfs.so.13): per-operation latency of sync and
buffered writes, small-file metadata, and unlink, with no kernel NFS client. Debian 12 has no
nfs-rm and its fio lacks the nfs engine, so this small driver fills exactly that gap.

This file is also the program the client runs: its source goes to `python3 - JSON` on the
client (in the lab's namespace or over SSH) and imports nothing but the standard library, so a
client needs python3 and libnfs13, not nastune. It prints JSON."""

from __future__ import annotations

import ctypes
import json
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for the type checker only: this file runs alone with the standard library
    from nastune.protocols.client import Target

O_WRONLY, O_CREAT, O_TRUNC, O_SYNC = os.O_WRONLY, os.O_CREAT, os.O_TRUNC, os.O_SYNC


class NfsError(Exception):
    pass


class Nfs:
    def __init__(self, server: str, export: str):
        self.lib = ctypes.CDLL("libnfs.so.13")
        self.lib.nfs_init_context.restype = ctypes.c_void_p
        self.lib.nfs_get_error.restype = ctypes.c_char_p
        for name in (
            "nfs_mount",
            "nfs_creat",
            "nfs_open",
            "nfs_pwrite",
            "nfs_pread",
            "nfs_fsync",
            "nfs_close",
            "nfs_unlink",
            "nfs_stat64",
            "nfs_statvfs64",
            "nfs_mkdir",
            "nfs_rmdir",
            "nfs_opendir",
            "nfs_readdir",
            "nfs_closedir",
            "nfs_destroy_context",
            "nfs_get_error",
        ):
            getattr(self.lib, name).argtypes = None
        self.lib.nfs_readdir.restype = ctypes.c_void_p  # the next entry, NULL at the end
        self.ctx = ctypes.c_void_p(self.lib.nfs_init_context())
        if not self.ctx:
            raise NfsError("libnfs: cannot create a context")
        self._check(self.lib.nfs_mount(self.ctx, server.encode(), ("/" + export.strip("/")).encode()), "mount")

    def _check(self, rc: int, what: str) -> int:
        if rc < 0:
            raise NfsError(f"libnfs {what}: {self.lib.nfs_get_error(self.ctx).decode(errors='replace')}")
        return rc

    def open(self, name: str, flags: int) -> ctypes.c_void_p:
        fh = ctypes.c_void_p()
        path = ("/" + name).encode()
        if flags & O_CREAT:
            self._check(self.lib.nfs_creat(self.ctx, path, 0o644, ctypes.byref(fh)), f"creat {name}")
        else:
            self._check(self.lib.nfs_open(self.ctx, path, flags, ctypes.byref(fh)), f"open {name}")
        return fh

    def pwrite(self, fh: ctypes.c_void_p, offset: int, data: bytes) -> None:
        self._check(
            self.lib.nfs_pwrite(self.ctx, fh, ctypes.c_uint64(offset), ctypes.c_uint64(len(data)), data), "pwrite"
        )

    def pread(self, fh: ctypes.c_void_p, offset: int, size: int) -> int:
        buf = ctypes.create_string_buffer(size)
        return self._check(
            self.lib.nfs_pread(self.ctx, fh, ctypes.c_uint64(offset), ctypes.c_uint64(size), buf), "pread"
        )

    def fsync(self, fh: ctypes.c_void_p) -> None:
        self._check(self.lib.nfs_fsync(self.ctx, fh), "fsync")

    def close(self, fh: ctypes.c_void_p) -> None:
        self._check(self.lib.nfs_close(self.ctx, fh), "close")

    def unlink(self, name: str) -> None:
        self._check(self.lib.nfs_unlink(self.ctx, ("/" + name).encode()), f"unlink {name}")

    def stat(self, name: str) -> None:
        buf = ctypes.create_string_buffer(256)
        self._check(self.lib.nfs_stat64(self.ctx, ("/" + name).encode(), buf), f"stat {name}")

    def mkdir(self, name: str) -> None:
        self._check(self.lib.nfs_mkdir(self.ctx, ("/" + name).encode()), f"mkdir {name}")

    def rmdir(self, name: str) -> None:
        self._check(self.lib.nfs_rmdir(self.ctx, ("/" + name).encode()), f"rmdir {name}")

    def free(self) -> int:
        """The export's bytes available to this client (FSSTAT's abytes, as libnfs's statvfs64
        gives them: eleven 64-bit fields, f_bavail the fifth, f_frsize the second)."""
        fields = (ctypes.c_uint64 * 11)()
        self._check(self.lib.nfs_statvfs64(self.ctx, b"/", fields), "statvfs")
        return int(fields[4] * (fields[1] or fields[0]))

    def count(self, name: str) -> int:
        """The entries of a directory, read as `ls -l` reads them (libnfs's opendir is one
        READDIRPLUS pass: names with their attributes)."""
        handle = ctypes.c_void_p()
        self._check(self.lib.nfs_opendir(self.ctx, ("/" + name).encode(), ctypes.byref(handle)), f"opendir {name}")
        entries = 0
        while self.lib.nfs_readdir(self.ctx, handle):
            entries += 1
        self.lib.nfs_closedir(self.ctx, handle)
        return entries

    def __del__(self) -> None:
        if getattr(self, "ctx", None):
            self.lib.nfs_destroy_context(self.ctx)


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e6


def write_latency(nfs: Nfs, name: str, record: int, count: int, sync: bool) -> list[float]:
    """Microseconds per write of `record` bytes, each followed by fsync (a COMMIT) when `sync`."""
    data = os.urandom(record)
    fh = nfs.open(name, O_WRONLY | O_CREAT | O_TRUNC)
    times = []
    for i in range(count):
        times.append(_timed(partial(_write_once, nfs, fh, i * record, data, sync)))
    nfs.close(fh)
    nfs.unlink(name)
    return times


def _write_once(nfs: Nfs, fh: ctypes.c_void_p, offset: int, data: bytes, sync: bool) -> None:
    nfs.pwrite(fh, offset, data)
    if sync:
        nfs.fsync(fh)


def small_files(nfs: Nfs, prefix: str, count: int, size: int) -> dict[str, list[float]]:
    """Microseconds per create+write, stat, read and delete of `count` small files."""
    data = os.urandom(size)
    names = [f"{prefix}-{i}" for i in range(count)]
    phases: dict[str, list[float]] = {"create": [], "stat": [], "read": [], "delete": []}

    def create(n: str) -> None:
        fh = nfs.open(n, O_WRONLY | O_CREAT | O_TRUNC)
        nfs.pwrite(fh, 0, data)
        nfs.close(fh)

    def read(n: str) -> None:
        fh = nfs.open(n, os.O_RDONLY)
        nfs.pread(fh, 0, size)
        nfs.close(fh)

    for phase, fn in (("create", create), ("stat", nfs.stat), ("read", read), ("delete", nfs.unlink)):
        for n in names:
            phases[phase].append(_timed(partial(fn, n)))
    return phases


def make_dir(nfs: Nfs, name: str, count: int) -> dict:
    """A directory of `count` empty files."""
    nfs.mkdir(name)
    for i in range(count):
        nfs.close(nfs.open(f"{name}/f-{i}", O_WRONLY | O_CREAT | O_TRUNC))
    return {}


def list_dir(nfs: Nfs, name: str, misses: int) -> dict:
    """Microseconds to list the directory with its entries' attributes, how many it held, and
    the median microseconds of a lookup of a name it does not hold."""
    start = time.perf_counter()
    entries = nfs.count(name)
    listed = (time.perf_counter() - start) * 1e6
    missed = []
    for i in range(misses):
        start = time.perf_counter()
        try:
            nfs.stat(f"{name}/missing-{i}")
        except NfsError:
            pass  # not there, as asked
        missed.append((time.perf_counter() - start) * 1e6)
    return {"entries": entries, "list_us": listed, "miss_us": sorted(missed)[len(missed) // 2]}


def drop_dir(nfs: Nfs, name: str, count: int) -> dict:
    for i in range(count):
        try:
            nfs.unlink(f"{name}/f-{i}")
        except NfsError:
            pass  # a directory made only in part
    nfs.rmdir(name)
    return {}


def main(request: dict) -> dict:
    nfs = Nfs(request["server"], request["export"])
    op = request["op"]
    if op == "unlink":
        nfs.unlink(request["name"])
        return {}
    if op == "write-latency":
        return {"us": write_latency(nfs, request["name"], request["record"], request["count"], request["sync"])}
    if op == "small-files":
        return small_files(nfs, request["name"], request["count"], request["size"])
    if op == "make-dir":
        return make_dir(nfs, request["name"], request["count"])
    if op == "list-dir":
        return list_dir(nfs, request["name"], request["misses"])
    if op == "drop-dir":
        return drop_dir(nfs, request["name"], request["count"])
    if op == "free":
        return {"bytes": nfs.free()}
    raise NfsError(f"unknown op {op!r}")


def remote(target: Target, request: dict) -> dict:
    """Run one request on the target's client; its JSON answer."""
    from pathlib import Path  # lazy: this file runs alone on the client, with the standard library only

    from nastune.protocols.client import script  # lazy: likewise

    request = {"server": target.host, "export": target.share, **request}
    return script(target, Path(__file__), request, f"libnfs {request['op']}")


if __name__ == "__main__":
    try:
        print(json.dumps(main(json.loads(sys.argv[1]))))
    except NfsError as e:
        print(str(e), file=sys.stderr)
        sys.exit(1)
