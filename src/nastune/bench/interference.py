"""What else used the machine during a repeat: the CPU of processes outside the measured path
(not nastune and its client tools, not the file servers and their children, not kernel threads),
and the time the hypervisor stole. A repeat that a backup, a build or a neighbour disturbed is
flagged instead of being counted as the effect of a setting."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import psutil

OTHER_CORES = 0.25  # a quarter of a core used elsewhere during a repeat disturbs it
STEAL = 0.05  # 5% of the CPU time stolen by the hypervisor likewise


def _measured(servers: list[int]) -> set[int]:
    """nastune, its children (the client tools) and the servers with theirs."""
    pids = {os.getpid()}
    for root in [os.getpid(), *servers]:
        try:
            pids |= {root} | {c.pid for c in psutil.Process(root).children(recursive=True)}
        except psutil.Error:
            continue
    return pids


def _cpu(skip: set[int]) -> dict[int, float]:
    out = {}
    for proc in psutil.process_iter(["pid", "ppid", "cpu_times"]):
        info = proc.info
        if info["pid"] in skip or info["pid"] == 2 or info["ppid"] == 2 or info["cpu_times"] is None:
            continue  # measured, or a kernel thread (whose I/O work may be ours)
        out[info["pid"]] = info["cpu_times"].user + info["cpu_times"].system
    return out


@dataclass
class Meter:
    servers: Callable[[], list[int]] = list  # the file servers' pids now (a restart changes them)
    _start: float = 0.0
    _cpu0: dict[int, float] = field(default_factory=dict)
    _steal0: float = 0.0

    def start(self) -> None:
        self._cpu0 = _cpu(_measured(self.servers()))
        self._steal0 = getattr(psutil.cpu_times(), "steal", 0.0)
        self._start = time.monotonic()

    def stop(self) -> dict[str, float]:
        """Other load during the repeat: cores used elsewhere, stolen share, load average."""
        wall = max(time.monotonic() - self._start, 1e-3)
        now = _cpu(_measured(self.servers()))
        used = sum(max(0.0, t - self._cpu0.get(pid, 0.0)) for pid, t in now.items())  # new: all of it
        steal = (getattr(psutil.cpu_times(), "steal", 0.0) - self._steal0) / (wall * (psutil.cpu_count() or 1))
        return {
            "other_cpu_s": round(used, 3),
            "other_cores": round(used / wall, 3),
            "steal": round(max(steal, 0.0), 3),
            "load": os.getloadavg()[0],
        }


def disturbed(sample: dict[str, float]) -> str | None:
    """Why a repeat does not measure the NAS alone, or None."""
    if sample["other_cores"] > OTHER_CORES:
        return f"other processes used {sample['other_cores']:.2f} cores"
    if sample["steal"] > STEAL:
        return f"the hypervisor stole {sample['steal']:.0%} of the CPU"
    return None
