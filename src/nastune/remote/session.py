"""Sessions: a nastune that stays up on a host while the coordinator works (`nastune serve` there,
over one SSH session), so that each of its commands (apply, rollback, confirm, inspect) is a
fork of a process that has imported nastune rather than a new Python importing it again. An
interleaved run and its screening switch the NAS and a client a hundred times or more; each new
process spent about half a second importing here, seconds in an emulated guest
(bench/results/sessions.json). A host whose nastune has no `serve` (an older release) gets one
SSH session per command, as before."""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import selectors
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence

from nastune.commands import CommandResult

log = logging.getLogger(__name__)
HELLO_SECONDS = 120  # nastune's imports in an emulated guest on a busy machine
UNREACHABLE = 255  # ssh's own failure: the host may answer later


class Ended(Exception):
    """The session's process ended, or sent what is not a line of JSON."""


class Session:
    """One `nastune serve` reached by `argv`, asked one command at a time."""

    def __init__(self, argv: Sequence[str]):
        self.argv = tuple(argv)
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115 (closed with the session)
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errors,
            env={**os.environ, "LC_ALL": "C", "LANG": "C"},
            start_new_session=True,  # an interrupt of the coordinator ends it by close(), not mid-reply
        )
        self._buffer = b""
        self._lock = threading.Lock()

    def ready(self) -> bool:
        """Whether it answered as a session does; False (and closed) when it did not."""
        try:
            ready = self._line(time.monotonic() + HELLO_SECONDS).get("serve") == 1
        except Ended:
            ready = False
        if not ready:
            self.close()
        return ready

    def alive(self) -> bool:
        return self.proc.poll() is None

    def call(self, args: Sequence[str], input: str | None, timeout: float, shown: Sequence[str]) -> CommandResult:
        """`nastune ARGS` on the host, reported as commands.run reports `shown` (the command as it
        would have run on its own); never raises but for an interrupt, which closes the session."""
        argv = tuple(shown)
        started = time.monotonic()
        with self._lock:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(json.dumps({"args": list(args), "input": input}).encode() + b"\n")
                self.proc.stdin.flush()
                reply = self._line(started + timeout)
            except TimeoutError:
                self.close(hung=True)
                return CommandResult(argv, None, error=f"no result after {timeout:g} s")
            except (Ended, OSError):
                said = self._said()
                self.close()
                return CommandResult(argv, None, error=f"the session with nastune there ended ({said})")
            except BaseException:
                self.close()
                raise
        log.debug("%.3f s, exit %s (session): %s", time.monotonic() - started, reply.get("rc"), " ".join(argv))
        return CommandResult(argv, int(reply.get("rc", 1)), str(reply.get("stdout", "")), str(reply.get("stderr", "")))

    def _line(self, deadline: float) -> dict:
        """The next line it sends, as JSON; TimeoutError after `deadline`, Ended at its end."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as waiting:
            waiting.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not waiting.select(left):
                    raise TimeoutError
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise Ended
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            found = json.loads(line)
        except ValueError:
            raise Ended from None
        if not isinstance(found, dict):
            raise Ended
        return found

    def _said(self) -> str:
        """The last line the session's process wrote to its standard error (ssh's reason)."""
        self._errors.seek(0)
        lines = self._errors.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else f"exit {self.proc.poll()}"

    def close(self, hung: bool = False) -> None:
        """End it: at the end of its input, or (`hung`, or not ended within seconds) killed."""
        if self.proc.stdin and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()  # the host's nastune serve ends at the end of its input
            except OSError:
                pass
        try:
            self.proc.wait(0 if hung else 5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):  # its whole group: ssh and what it runs here
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        self._errors.close()


_OPEN: dict[tuple[str, ...], Session] = {}
_WITHOUT: set[tuple[str, ...]] = set()  # hosts whose nastune has no serve: a command per SSH session
_REGISTRY = threading.Lock()


def run(
    argv: Sequence[str], args: Sequence[str], timeout: float, input: str | None, shown: Sequence[str]
) -> CommandResult | None:
    """`nastune ARGS` through the session that `argv` (`nastune serve` on a host) opens, opened
    on first use and reported as `shown`; None when there is none to be had: the caller runs
    the command on its own."""
    key = tuple(argv)
    with _REGISTRY:  # one session per host, whichever thread asks first
        if key in _WITHOUT:
            return None
        session = _OPEN.get(key)
        if session is None or not session.alive():
            if session is not None:  # ended since its last command (its connection closed)
                session.close()
            session = Session(key)
            if not session.ready():
                if session.proc.returncode != UNREACHABLE:  # its nastune does not serve (exit 2: no such command)
                    _WITHOUT.add(key)
                return None
            _OPEN[key] = session
    result = session.call(args, input, timeout, shown)
    if not session.alive():
        with _REGISTRY:
            if _OPEN.get(key) is session:
                del _OPEN[key]
    return result


def close(argv: Sequence[str]) -> None:
    """End the session `argv` opened (its connection is about to be closed or replaced)."""
    with _REGISTRY:
        session = _OPEN.pop(tuple(argv), None)
    if session is not None:
        session.close()


@atexit.register
def close_all() -> None:
    for key in list(_OPEN):
        close(key)
