"""Confirm-or-revert: after `apply` makes network changes on a live system, a detached process
rolls its journal back unless `nastune confirm` records a confirmation first, so that a change
that cuts the operator off (a wrong MTU, an offload the NIC mishandles) undoes itself. It is a
forked child of the apply, holding the very System the apply used (the lab's restarts its own
servers), in a session of its own so that a closed SSH session does not end it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from nastune.tune import lock
from nastune.tune.journal import Journal
from nastune.tune.rollback import WATCHDOG_WAIT, Report, rollback
from nastune.tune.system import TuneError


def revert_unless_confirmed(
    journal: Journal, after: float, log: Callable[[str], None] = lambda m: None
) -> Report | None:
    """Wait `after` seconds, then roll `journal` back unless it was confirmed (None then)."""
    time.sleep(after)
    if journal.has("confirm"):
        return None
    with lock.hold(journal.system, "revert", wait=WATCHDOG_WAIT):
        return rollback(journal, journal.system, log=log)


def confirm(journal: Journal) -> bool:
    """Record the confirmation that keeps `journal`'s changes (its watchdog, if one is armed,
    then reverts nothing); False when it changes nothing: already confirmed, or no change of it
    is still applied. TuneError when its watchdog has already rolled them back: too late."""
    contents = journal.read()
    if any(e.get("type") == "confirm" for e in contents.extra):
        return False
    if not contents.outstanding:
        if any(e.get("type") == "watchdog" for e in contents.extra):
            raise TuneError(f"{journal.path}: too late, its watchdog already rolled the changes back; apply again")
        return False
    journal.record({"type": "confirm", "at": time.time()})
    return True


def start(journal: Journal, after: float) -> None:
    """Run revert_unless_confirmed in a detached grandchild (double fork: never a zombie of the
    caller), with no terminal, no inherited descriptors (the apply's lock among them) and its own
    session."""
    child = os.fork()
    if child:
        os.waitpid(child, 0)
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        lock.forget()  # its caller's lock went with the descriptors: it takes the lock itself
        revert_unless_confirmed(journal, after)
    finally:
        os._exit(0)
