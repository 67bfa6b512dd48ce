"""The one way nastune runs a program: an argument vector (never a shell string), the C locale,
no terminal input, a timeout, and a result that says why a command did not run (a missing
tool names its Debian package) instead of raising. The lab, the bench drivers and the tuning
engine raise their own errors from it; the Root records and replays it."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

from nastune.packages import install_hint

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CommandResult:
    argv: tuple[str, ...]
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    error: str | None = None  # why it did not run (missing tool, not recorded, timeout)

    @property
    def ok(self) -> bool:
        return self.error is None and self.returncode == 0

    @property
    def source(self) -> str:
        return "command: " + " ".join(self.argv)

    @property
    def reason(self) -> str:
        """Why this result carries no usable output, in one line."""
        if self.error:
            return self.error
        detail = (self.stderr.strip() or self.stdout.strip()).splitlines()
        return f"exit {self.returncode}" + (f": {detail[-1]}" if detail else "")

    def tail(self, lines: int = 6) -> str:
        """The output a person needs to see why it failed: tools print the cause first or last."""
        found = (self.stderr.strip() or self.stdout.strip()).splitlines()
        if len(found) <= lines:
            shown = found
        elif lines < 4:
            shown = found[-lines:]
        else:
            shown = found[:2] + ["..."] + found[-(lines - 3) :]
        return " | ".join(shown)

    def failure(self) -> str:
        """`argv failed (exit N): output`, or why it did not run."""
        if self.error:
            return f"{' '.join(self.argv)}: {self.error}"
        return f"{' '.join(self.argv)} failed (exit {self.returncode}): {self.tail()}"


def command_key(argv: Sequence[str]) -> str:
    """A file name for a command's recorded output: readable, and unique by hash."""
    slug = re.sub(r"[^A-Za-z0-9.]+", "_", " ".join(argv)).strip("_")[:80]
    digest = hashlib.sha256(json.dumps(list(argv)).encode()).hexdigest()[:12]
    return f"{slug}-{digest}.json"


def start(
    argv: Sequence[str],
    stdout: int | IO[Any] = subprocess.DEVNULL,
    env: dict[str, str] | None = None,
    errors: bool = False,
    text: bool = True,
) -> subprocess.Popen:
    """Start a program that runs on (a lab's server, a NAS's sample stream) in its own session,
    with no input; its output to `stdout` (a file, or PIPE for text lines, or bytes without
    `text`), its errors with it when that is a file or `errors` asks for them. OSError when it
    cannot start."""
    merged = errors or stdout not in (subprocess.PIPE, subprocess.DEVNULL)
    return subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.STDOUT if merged else subprocess.DEVNULL,
        text=text and stdout == subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, **(env or {})},
    )


def stop(proc: subprocess.Popen) -> None:
    """Kill a started program and everything in its session (a `timeout` and the tool under it)."""
    _kill_group(proc)


def run(
    argv: Sequence[str], timeout: float = 30.0, input: str | None = None, env: dict[str, str] | None = None
) -> CommandResult:
    """Run `argv`; never raises. `env` adds to (or overrides) the C locale's environment."""
    argv = tuple(argv)
    if shutil.which(argv[0]) is None:
        return CommandResult(argv, None, error=f"{argv[0]} not found ({install_hint(argv[0])})")
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", **(env or {})}
    try:
        # its own process group, killed whole: a tool's children (smbclient under the bash that
        # times it) must not outlive a timeout or an interrupt and keep writing to a share
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            env=env,
            start_new_session=True,
        )
    except OSError as e:
        return CommandResult(argv, None, error=e.strerror or str(e))
    started = time.monotonic()
    try:
        stdout, stderr = proc.communicate(input, timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return CommandResult(argv, None, error=f"no result after {timeout:g} s")
    except BaseException:
        _kill_group(proc)
        raise
    log.debug("%.3f s, exit %s: %s", time.monotonic() - started, proc.returncode, " ".join(argv))
    return CommandResult(argv, proc.returncode, stdout, stderr)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the whole group has exited
    proc.communicate()
