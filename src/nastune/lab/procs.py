"""Processes and cgroups of the lab: started with their PID and start time recorded, so
that teardown kills exactly them (a reused PID is never mistaken for one of ours)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from nastune import commands
from nastune.lab import network
from nastune.lab.sh import HOST, LabError, in_ns, run
from nastune.lab.state import Cgroup, Process, State
from nastune.root import Unavailable
from nastune.units import size_bytes

if TYPE_CHECKING:
    from nastune.lab.scenario import Limits

CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("cpu", "memory", "blkio")


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, or None if it is gone or a zombie."""
    try:
        stat = HOST.read(f"/proc/{pid}/stat")
    except Unavailable:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] == "Z" else int(fields[19])


def alive(entry: Process) -> bool:
    """The recorded process still runs (its pid not reused by another)."""
    return entry.pid is not None and start_time(entry.pid) == entry.start


def spawn(
    state: State, name: str, argv: list[str], log: Path, cgroups: Sequence[str] = (), env: dict[str, str] | None = None
) -> Process:
    """Start a daemon in its own session, record it, and put it in the lab's cgroups."""
    entry = state.add(Process(name=name, argv=argv, log=str(log), env=env))
    with open(log, "ab") as out:
        proc = commands.start(argv, stdout=out, env=env)
    started = None
    for _ in range(50):  # the start time is readable once the kernel has the process
        started = start_time(proc.pid)
        if started is not None:
            break
        time.sleep(0.01)
    entry.pid, entry.start = proc.pid, started
    state.save()
    for group in cgroups:
        try:
            (Path(group) / "cgroup.procs").write_text(str(proc.pid))
        except OSError as e:
            raise LabError(f"cannot put {name} (pid {proc.pid}) in {group}: {e.strerror}") from e
    return entry


def kill(pids: list[int], grace: float = 3.0) -> None:
    """SIGTERM, then SIGKILL whatever is still there after `grace` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(start_time(p) is not None for p in pids):
            time.sleep(0.05)
        pids = [p for p in pids if start_time(p) is not None]
        if not pids:
            return


def namespace_pids(ns: str) -> list[int]:
    proc = run(["ip", "netns", "pids", ns], check=False)
    return [int(p) for p in proc.stdout.split() if p.isdigit()]


def make_cgroups(state: State, name: str, limits: Limits, device: str | None) -> list[str]:
    """cgroup (v1) directories for the servers with the scenario's CPU, memory and block I/O limits."""
    made = []
    wanted = {
        "cpu": limits.cpus is not None,
        "memory": limits.memory is not None,
        "blkio": any(v is not None for v in (limits.read_bps, limits.write_bps, limits.read_iops, limits.write_iops))
        and device is not None,
    }
    for controller in CONTROLLERS:
        if not wanted[controller]:
            continue
        base = CGROUP_ROOT / controller
        if not base.is_dir():
            raise LabError(f"the {controller} cgroup controller is not mounted at {base}: limits need cgroup v1")
        path = base / name
        state.add(Cgroup(path=str(path)))
        path.mkdir(exist_ok=True)
        made.append(str(path))
        if controller == "cpu" and limits.cpus is not None:
            period = int((path / "cpu.cfs_period_us").read_text())
            (path / "cpu.cfs_quota_us").write_text(str(int(limits.cpus * period)))
        elif controller == "memory" and limits.memory is not None:
            (path / "memory.limit_in_bytes").write_text(str(size_bytes(limits.memory)))
        elif controller == "blkio" and device is not None:
            devnum = os.stat(device).st_rdev
            majmin = f"{os.major(devnum)}:{os.minor(devnum)}"
            for key, value in (
                ("read_bps_device", limits.read_bps),
                ("write_bps_device", limits.write_bps),
                ("read_iops_device", limits.read_iops),
                ("write_iops_device", limits.write_iops),
            ):
                if value is not None:
                    amount = size_bytes(value) if isinstance(value, str) else value
                    (path / f"blkio.throttle.{key}").write_text(f"{majmin} {amount}")
    return made


def remove_cgroup(path: str) -> None:
    p = Path(path)
    if not p.exists():
        return
    procs = [int(x) for x in (p / "cgroup.procs").read_text().split()] if (p / "cgroup.procs").exists() else []
    kill(procs)
    for _ in range(50):
        try:
            p.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.1)
    raise LabError(f"cannot remove cgroup {path}: still busy")


def write_file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def wait_for(name: str, entry: Process, check: Callable[[], bool], timeout: float = 30) -> None:
    """Wait until a real client check passes; a server that died shows the tail of its log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(entry):
            raise LabError(f"{name} exited during start-up; its log ({entry.log}) ends with:\n" + tail_of(entry.log))
        if check():
            return
        time.sleep(0.3)
    raise LabError(
        f"{name} did not answer within {timeout:g} s; its log ({entry.log}) ends with:\n" + tail_of(entry.log)
    )


def tail_of(path: str, lines: int = 8) -> str:
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def client_ok(argv: list[str], input: str | None = None, ns: str | None = None) -> bool:
    """Whether a client tool's `argv` (with `input`, a login) succeeds from client `ns` (the first by default)."""
    return run(in_ns(ns or network.client_ns(1), argv), check=False, timeout=20, input=input).returncode == 0


def private_mounts(state: State, name: str, logs: Path) -> list[str]:
    """A mount namespace of the NAS's own, held open by a sleeping process (recorded as `name`):
    what a server sees there (a /run, a PAM configuration) stays out of this host's. Returns
    the argv prefix that enters it and the NAS's network namespace."""
    holder = spawn(
        state,
        name,
        in_ns(network.NAS_NS, ["unshare", "-m", "--propagation", "private", "--", "sleep", "infinity"]),
        logs / f"{name}.out",
    )
    enter = ["nsenter", "-t", str(holder.pid), "-m", "-n"]
    for _ in range(50):  # the namespace exists once unshare has exec'd sleep
        if os.path.realpath(f"/proc/{holder.pid}/exe").endswith("/sleep"):
            break
        time.sleep(0.02)
    return enter
