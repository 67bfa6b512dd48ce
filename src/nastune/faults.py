"""Fault injection for tests: NASTUNE_KILL_AT=POINT kills the process at that point with
SIGKILL, as a power cut or an operator's kill -9 would; NASTUNE_PAUSE_AT=POINT:SECONDS holds it
there (to let a second process meet it, as two operators would), or until the file
NASTUNE_RESUME_FILE names exists, so a test on a busy machine need not guess a time (it says
"paused at POINT" on stderr when it begins); NASTUNE_FILL_AT=POINT:DIR fills
the file system of DIR there, as another program filling the disk would (the filler file stays,
for the test to remove); NASTUNE_RAISE_AT=POINT raises a ValueError there, as a bug in nastune
would. Points are named where they are placed (lab:network, apply:2:written, ...)."""

from __future__ import annotations

import os
import signal
import sys
import time


def checkpoint(point: str) -> None:
    if os.environ.get("NASTUNE_RAISE_AT") == point:
        raise ValueError(f"not enough values to unpack (injected at {point})")
    if os.environ.get("NASTUNE_KILL_AT") == point:
        os.kill(os.getpid(), signal.SIGKILL)
    where, _, seconds = os.environ.get("NASTUNE_PAUSE_AT", "").rpartition(":")
    if where == point:
        print(f"paused at {point}", file=sys.stderr, flush=True)
        _pause(float(seconds), os.environ.get("NASTUNE_RESUME_FILE"))
    at, _, directory = os.environ.get("NASTUNE_FILL_AT", "").partition(":")
    if at == point and directory:
        _fill(directory)


def _pause(seconds: float, resume: str | None) -> None:
    ends = time.monotonic() + seconds
    while time.monotonic() < ends and not (resume and os.path.exists(resume)):
        time.sleep(0.05)


def _fill(directory: str) -> None:
    fd = os.open(os.path.join(directory, ".nastune-fill"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (1 << 16, 1):  # large blocks until one fails, then the last bytes one at a time
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError:  # ENOSPC
                continue
    finally:
        os.close(fd)
