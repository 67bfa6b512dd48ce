"""Running the lab's tools: argv lists only (never a shell), clear errors that name
the command, its output, and the Debian package of a missing tool; and HOST, the one root of the
lab's own reads of /proc and /sys (the lab is this host)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence

from nastune import commands
from nastune.commands import CommandResult
from nastune.errors import Failure
from nastune.packages import PACKAGES
from nastune.root import Root

HOST = Root("/")


class LabError(Failure):
    """A lab step failed; the message says which and why."""


def need(*tools: str) -> None:
    """Fail with the apt packages to install when any of `tools` is missing."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        packages = sorted({PACKAGES.get(t, t) for t in missing})
        raise LabError(
            f"missing {', '.join(missing)}: install with apt-get install {' '.join(packages)} "
            "(in a checkout, ./scripts/setup --lab installs all the lab needs)"
        )


def run(argv: Sequence[str], check: bool = True, timeout: float = 120, input: str | None = None) -> CommandResult:
    """Run a command; on failure raise LabError with the command and the tail of its output."""
    result = commands.run(argv, timeout, input)
    if result.error and result.returncode is None and "not found" in result.error:
        need(argv[0])
    if result.error or (check and result.returncode != 0):
        raise LabError(result.failure())
    return result


def in_ns(ns: str, argv: Sequence[str]) -> list[str]:
    return ["ip", "netns", "exec", ns, *argv]
