"""Fault injection for tests: NASTUNE_KILL_AT=POINT kills the process at that point with
SIGKILL, as a power cut or an operator's kill -9 would; NASTUNE_PAUSE_AT=POINT:SECONDS holds it
there (to let a second process meet it, as two operators would). Points are named where they are
placed (lab:network, apply:2:written, ...)."""

from __future__ import annotations

import os
import signal
import time


def checkpoint(point: str) -> None:
    if os.environ.get("NASTUNE_KILL_AT") == point:
        os.kill(os.getpid(), signal.SIGKILL)
    where, _, seconds = os.environ.get("NASTUNE_PAUSE_AT", "").rpartition(":")
    if where == point:
        time.sleep(float(seconds))
