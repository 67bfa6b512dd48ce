"""One lock per system, so that two nastune processes never apply, roll back, optimize or
autotune the same system at once. It is an flock on a file under the system's root: the kernel
drops it when its holder dies, so a killed nastune never leaves the system locked. The holder
writes who it is into the file, which is what the second process shows."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import sys
import time
from collections.abc import Iterator

from nastune.root import Unavailable
from nastune.tune.system import System, TuneError

PATH = "/var/lib/nastune/lock"
# apply and rollback wait this long for another nastune's command to end (an interleaved switch
# of another run holds the lock for seconds) before they refuse
COMMAND_WAIT = 30.0
_held: set[str] = set()  # the lock files this process holds: the engine asks (require), never takes


def _holder(fd: int) -> str:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
        return (
            f"pid {data['pid']} (`{data['command']}`, {data['what']}) since "
            f"{time.strftime('%H:%M:%S', time.localtime(data['since']))}"
        )
    except (ValueError, KeyError, TypeError, OSError):
        return "another process"


def _path(system: System) -> str:
    try:
        return system.root.host_path(PATH)
    except Unavailable as e:
        raise TuneError(f"{PATH}: cannot open the lock: {e.reason}") from e


def forget() -> None:
    """In a forked child that closed its parent's descriptors: it holds none of their locks."""
    _held.clear()


def require(system: System) -> None:
    """The tuning engine's check that its caller holds the system's lock (a bug otherwise)."""
    if _path(system) not in _held:
        raise RuntimeError(f"{system.name}: changed without holding {PATH}")


@contextlib.contextmanager
def hold(system: System, what: str, wait: float = 0.0) -> Iterator[None]:
    """Hold the system's lock for `what`: taken once, by the workflow that changes the system
    (apply, rollback, optimize, ab, autotune, persist, the watchdog's revert)."""
    path = _path(system)
    if path in _held:
        raise RuntimeError(f"{PATH} is already held by this process: a workflow takes it once")
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
    except OSError as e:
        raise TuneError(f"{PATH}: cannot open the lock: {e.strerror}") from e
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:  # a hard link could name any file: never write it
            raise TuneError(f"{PATH}: the lock is not a plain file of its own (a link or a special file): refused")
        deadline, said = time.monotonic() + wait, False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise TuneError(
                        f"another nastune is changing this system: {_holder(fd)} holds {PATH}; wait for it to finish"
                    ) from None
                if not said:
                    print(f"waiting up to {wait:.0f} s for {_holder(fd)}, which holds {PATH}", file=sys.stderr)
                    said = True
                time.sleep(0.2)
        with contextlib.suppress(OSError):  # who holds it is for a person to read; a full disk refuses it
            os.ftruncate(fd, 0)
            os.pwrite(
                fd,
                json.dumps(
                    {
                        "pid": os.getpid(),
                        "command": " ".join(["nastune", *sys.argv[1:]])[:300],
                        "what": what,
                        "since": time.time(),
                    }
                ).encode(),
                0,
            )
        _held.add(path)
        try:
            yield
        finally:
            _held.discard(path)
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
    finally:
        os.close(fd)
