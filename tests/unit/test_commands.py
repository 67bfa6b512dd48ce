"""The command runner: a timed-out or interrupted command is killed with everything it started,
so that no tool (smbclient under the bash that times it) outlives it and keeps writing."""

from __future__ import annotations

import time
from pathlib import Path

from nastune import commands


def gone(pid: int, seconds: float = 5.0) -> bool:
    """The process has ended (reaped, or a zombie waiting for its new parent)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_a_timeout_kills_the_commands_children_too(tmp_path):
    pidfile = tmp_path / "pid"
    result = commands.run(["bash", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], timeout=1)
    assert result.error == "no result after 1 s"
    assert gone(int(pidfile.read_text()))


def test_a_command_that_ends_leaves_its_detached_children_alone(tmp_path):
    """The group is killed only when nastune gives up on the command, not after it ends."""
    pidfile = tmp_path / "pid"
    result = commands.run(["bash", "-c", f"sleep 3 >/dev/null 2>&1 & echo $! > {pidfile}"], timeout=10)
    assert result.ok
    assert not gone(int(pidfile.read_text()), seconds=0.5)
