"""The one way nastune touches a system: files and command output under a root.

A `Root` is bound to a directory. On "/" it reads the live system and runs
commands; on any other directory (a fixture tree, an unpacked snapshot) it
replays the command output stored in the tree under `.nastune/`, never running
anything, because a command run here would describe this machine, not the tree.

Paths are resolved component by component with chroot semantics: an absolute
symbolic link restarts at the root and `..` stops at it, so a link inside an
untrusted tree can never lead outside it. A `Recorder` attached to a live root
copies every file, link, listing, error and command output it sees into a
snapshot tree that a later `Root` replays exactly.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from typing import Any, Protocol, cast

from nastune import commands
from nastune.commands import CommandResult, command_key
from nastune.errors import Failure, UsageError
from nastune.jsonfile import loads


class Recording(Protocol):
    """What a Root tells the one recording what it reads (nastune.recorder.Recorder, for `capture`):
    named here, so the root depends on no recorder and the recorder on the root alone."""

    def file(self, path: str, text: str) -> None: ...
    def directory(self, path: str) -> None: ...
    def present(self, path: str, is_dir: bool) -> None: ...
    def listing(self, path: str, names: list[str]) -> None: ...
    def link(self, path: str, target: str) -> None: ...
    def error(self, path: str, reason: str) -> None: ...
    def command(self, result: CommandResult) -> None: ...


MAX_READ = 16 * 1024 * 1024
MAX_LINKS = 40
MAX_ENTRIES = 100_000  # names in one directory listing
META = ".nastune"
# a tree's hard link can name any file of its file system, outside the root too
HARD_LINKED = "hard-linked (it may be a file outside the root): refused"


class Unavailable(Failure):
    """A path that cannot be read, with the reason a person should see."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def logical(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


class Root:
    """Files and commands of one system, live ("/") or replayed from a tree."""

    def __init__(self, path: str | os.PathLike = "/", recorder: Recording | None = None):
        self.path = os.path.abspath(os.fspath(path))
        self.live = self.path == "/"
        if recorder is not None and not self.live:
            raise UsageError("only a live root can be recorded")
        self.recorder = recorder
        self._dirs: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._errors: dict[str, str] = {}
        self._listings: dict[str, list[str]] = {}
        if not self.live:
            if not os.path.isdir(self.path):
                raise Unavailable(self.path, "root is not a directory")
            self._errors = self._load_meta("errors.json", str)
            self._listings = self._load_meta("listings.json", list)

    def __repr__(self) -> str:
        return f"Root({self.path!r})"

    def _meta_text(self, name: str) -> str | None:
        """A snapshot metadata file, resolved inside the root like any other path (a link
        cannot lead out) and read with the same bounds; None when it is absent."""
        real = self.canonical(f"/{META}/{name}")
        try:
            return self._read_host(self._host(logical(real)), MAX_READ)
        except FileNotFoundError:
            return None
        except OSError as e:
            raise Unavailable(f"{self.path}/{META}/{name}", f"corrupt snapshot metadata: {_reason(e)}") from e

    def _load_meta(self, name: str, value_type: type) -> dict:
        text = self._meta_text(name)
        if text is None:
            return {}
        where = f"{self.path}/{META}/{name}"
        try:
            data = loads(text, where)
        except ValueError as e:
            raise Unavailable(where, f"corrupt snapshot metadata: {e}") from e
        if not isinstance(data, dict):
            raise Unavailable(where, "corrupt snapshot metadata: not a JSON object")
        for key, value in cast(dict[str, Any], data).items():
            if not isinstance(value, value_type) or (
                isinstance(value, list) and not all(isinstance(v, str) for v in value)
            ):
                raise Unavailable(
                    where, f"corrupt snapshot metadata: entry {key[:80]!r} is not a {value_type.__name__}"
                )
            if isinstance(value, list) and len(value) > MAX_ENTRIES:
                raise Unavailable(where, f"entry {key[:80]!r} lists more than {MAX_ENTRIES} names")
        return data

    # -- path resolution -------------------------------------------------
    def _host(self, parts: Sequence[str]) -> str:
        return os.path.join(self.path, *parts)

    def _walk(self, parts: list[str], follow_last: bool) -> tuple[str, ...]:
        """Resolve logical components to canonical ones, never leaving the root."""
        resolved: list[str] = []
        todo = list(reversed(parts))
        links = 0
        missing = False  # once a component is missing, nothing below it can be a link
        while todo:
            part = todo.pop()
            if part in ("", "."):
                continue
            if part == "..":
                if resolved:
                    resolved.pop()
                continue
            resolved.append(part)
            if missing or (not todo and not follow_last):
                continue
            try:
                st = os.lstat(self._host(resolved))
            except OSError:
                missing = True
                continue
            if stat.S_ISLNK(st.st_mode):
                links += 1
                if links > MAX_LINKS:
                    raise Unavailable("/" + "/".join(parts), "too many levels of symbolic links")
                target = os.readlink(self._host(resolved))
                if self.recorder:
                    self.recorder.link("/" + "/".join(resolved), target)
                resolved.pop()
                if target.startswith("/"):
                    resolved.clear()
                todo.extend(reversed(target.split("/")))
        return tuple(resolved)

    def canonical(self, path: str, follow_last: bool = True) -> str:
        """The path inside the root that `path` names once links are followed."""
        parts = logical(path)
        if not parts:
            return "/"
        parent = tuple(parts[:-1])
        base = self._dirs.get(parent)
        if base is None:
            base = self._walk(list(parent), follow_last=True)
            self._dirs[parent] = base
        resolved = self._walk([*base, parts[-1]], follow_last) if follow_last else (*base, parts[-1])
        return "/" + "/".join(resolved)

    def _recorded_error(self, path: str) -> None:
        reason = self._errors.get(path)
        if reason is not None:
            raise Unavailable(path, reason)

    def _fail(self, path: str, reason: str) -> Unavailable:
        if self.recorder:
            self.recorder.error(path, reason)
        return Unavailable(path, reason)

    # -- files -----------------------------------------------------------
    def read(self, path: str, limit: int = MAX_READ) -> str:
        """The text of a regular file (decoded leniently); Unavailable otherwise."""
        self._recorded_error(path)
        real = self.canonical(path)
        try:
            text = self._read_host(self._host(logical(real)), limit)
        except OSError as e:
            raise self._fail(path, _reason(e)) from e
        if self.recorder:
            self.recorder.file(real, text)
        return text

    def _read_host(self, host: str, limit: int) -> str:
        """Read a regular file, bounded; never blocks on a FIFO and never opens a device of a
        tree (a live /proc or /sys file is regular too)."""
        if not self.live:  # refused before it is opened: a tree's file is never even opened then
            seen = os.lstat(host)
            if not stat.S_ISREG(seen.st_mode):
                raise OSError(errno.EINVAL, "not a regular file")
            if seen.st_nlink > 1:
                raise OSError(errno.EPERM, HARD_LINKED)
        fd = os.open(host, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "not a regular file")
            if not self.live and info.st_nlink > 1:  # linked since the lstat above
                raise OSError(errno.EPERM, HARD_LINKED)
            chunks, size = [], 0
            while size <= limit:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if size > limit:
                raise OSError(errno.EFBIG, f"larger than {limit} bytes")
        finally:
            os.close(fd)
        return b"".join(chunks).decode("utf-8", errors="replace")

    def write(self, path: str, text: str) -> None:
        """Write a kernel value. Live, in place (/proc and /sys cannot be replaced by rename);
        in a tree the file is only a file, so it is replaced like a config file."""
        if not self.live:
            try:
                return self.replace(path, text)
            except OSError as e:
                raise Unavailable(path, _reason(e)) from e
        host = self._host(logical(self.canonical(path)))
        try:
            fd = os.open(host, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as e:
            raise Unavailable(path, _reason(e)) from e
        try:
            os.write(fd, text.encode())
        except OSError as e:
            raise Unavailable(path, f"write refused: {e.strerror}") from e
        finally:
            os.close(fd)

    def replace(self, path: str, text: str | None) -> None:
        """Atomically replace a config file (write, fsync, rename), keeping its mode;
        None removes it. A crash leaves the old or the new file, never a mix. The rename
        swaps the name, so a hard link or device at the path is never written through."""
        real = self.canonical(path)
        host = self._host(logical(real))
        if text is None:
            if os.path.lexists(host):
                if os.path.isdir(host) and not os.path.islink(host):
                    raise OSError(errno.EISDIR, f"{path} is a directory")
                os.unlink(host)
            return
        os.makedirs(os.path.dirname(host), exist_ok=True)
        try:
            info = os.lstat(host)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise OSError(errno.EISDIR, f"{path} is a directory")
        mode = info.st_mode & 0o7777 if info is not None and stat.S_ISREG(info.st_mode) else 0o644
        fd, tmp = tempfile.mkstemp(
            prefix=os.path.basename(host) + ".", suffix=".nastune-tmp", dir=os.path.dirname(host)
        )
        try:
            try:
                os.fchmod(fd, mode)
                data = text.encode()
                while data:  # os.write may write less than asked (a nearly full disk)
                    data = data[os.write(fd, data) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, host)
        except BaseException:
            with contextlib.suppress(OSError):  # never leave the temporary copy beside the file
                os.unlink(tmp)
            raise
        dirfd = os.open(os.path.dirname(host), os.O_RDONLY)
        try:
            os.fsync(dirfd)
        finally:
            os.close(dirfd)

    def host_path(self, path: str) -> str:
        """Where a root path lives on this machine (for tools that parse a file, like testparm)."""
        return self._host(logical(self.canonical(path)))

    def listdir(self, path: str) -> list[str]:
        """Sorted names in a directory; Unavailable if it is missing."""
        self._recorded_error(path)
        real = self.canonical(path)
        if real in self._listings:
            return list(self._listings[real])
        try:
            with os.scandir(self._host(logical(real))) as entries:
                names = list(itertools.islice((_text(e.name) for e in entries), MAX_ENTRIES + 1))
        except OSError as e:
            raise self._fail(path, _reason(e)) from e
        if len(names) > MAX_ENTRIES:
            raise self._fail(path, f"more than {MAX_ENTRIES} entries")
        names.sort()
        if self.recorder:
            self.recorder.listing(real, names)
        return names

    def readlink(self, path: str) -> str:
        """The target of a symbolic link, as written in the link."""
        self._recorded_error(path)
        real = self.canonical(path, follow_last=False)
        try:
            target = _text(os.readlink(self._host(logical(real))))
        except OSError as e:
            raise self._fail(path, _reason(e)) from e
        if self.recorder:
            self.recorder.link(real, target)
        return target

    def exists(self, path: str) -> bool:
        if path in self._errors:
            return False
        real = self.canonical(path)
        if real in self._listings:
            return True
        host = self._host(logical(real))
        found = os.path.lexists(host)
        if found and self.recorder:
            self.recorder.present(real, is_dir=os.path.isdir(host))
        return found

    def isdir(self, path: str) -> bool:
        real = self.canonical(path)
        if real in self._listings:
            return True
        found = os.path.isdir(self._host(logical(real)))
        if found and self.recorder:
            self.recorder.directory(real)
        return found

    # -- commands --------------------------------------------------------
    def run(self, argv: Sequence[str], timeout: float = 30.0) -> CommandResult:
        """Run a command on a live root, or replay its recorded output; never raises."""
        argv = tuple(argv)
        if not self.live:
            return self._replay(argv)
        result = commands.run(argv, timeout)
        if self.recorder:
            self.recorder.command(result)
        return result

    def probe(self, key: Sequence[str], read: Callable[[], CommandResult]) -> CommandResult:
        """A reading done in this process rather than by a tool (its result shaped as a command's
        under the name `key`): live, `read()`, recorded like a command; replayed from a tree."""
        if not self.live:
            return self._replay(tuple(key))
        result = read()
        if self.recorder:
            self.recorder.command(result)
        return result

    def _replay(self, argv: tuple[str, ...]) -> CommandResult:
        name = f"commands/{command_key(argv)}"
        where = f"{self.path}/{META}/{name}"
        try:
            text = self._meta_text(name)
        except Unavailable as e:
            return CommandResult(argv, None, error=e.reason)
        if text is None:
            return CommandResult(argv, None, error="not recorded in this snapshot")
        try:
            data = loads(text, where)
            if not isinstance(data, dict):
                raise UsageError("not a JSON object")
            fields = (data.get("returncode"), data.get("stdout", ""), data.get("stderr", ""), data.get("error"))
            if not (
                isinstance(fields[0], int | None)
                and not isinstance(fields[0], bool)
                and isinstance(fields[1], str)
                and isinstance(fields[2], str)
                and isinstance(fields[3], str | None)
            ):
                raise UsageError("returncode, stdout, stderr or error has the wrong type")
        except ValueError as e:
            return CommandResult(argv, None, error=f"corrupt recorded output {where}: {e}")
        return CommandResult(argv, *fields)


def _text(name: str) -> str:
    """A file or link name as text: bytes that are not UTF-8 (which os gives as surrogates, and
    no JSON can hold) shown as U+FFFD, as file contents are."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _reason(e: OSError) -> str:
    if e.errno == errno.ENOENT:
        return "missing"
    return e.strerror or str(e)
