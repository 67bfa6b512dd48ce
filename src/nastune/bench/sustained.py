"""sustained-write: a buffered write past the NAS's write-back cache, its course second by second
(bench/cliff.py sums it up: the burst, the sustained rate, the stalls). On a path: the NAS's own
file system, or a client's mount of a share (where the NAS's page cache, or ZFS's dirty data,
decides the course). Its size is `sustained_bytes`: three times the NAS's write-back limit where
its facts are known (optimize: `past_cache`), else 2 GiB (past a small NAS's dirty limit, a fifth
of its memory); never more than half the file system's free space."""

from __future__ import annotations

from collections.abc import Callable

from nastune.bench import cliff
from nastune.bench.drivers import fio
from nastune.bench.params import Params
from nastune.bench.targets import Target
from nastune.bench.workload_base import Metric, MiB, OnPath, State
from nastune.facts import Facts
from nastune.protocols.client import BenchError, on_client, run

LEAST = 256 * MiB  # a write shorter than this fills no NAS's cache
PAST = 3  # times the write-back limit: the first third fills the cache, the rest shows what the disks take


def past_cache(workloads: list[str], params: Params, facts: Facts, log: Callable[[str], None]) -> Params:
    """The params with `sustained_bytes` sized past the NAS's write-back limit where sustained-write
    is measured: the page cache's (vm.dirty_bytes, or dirty_ratio of its memory) or ZFS's
    (zfs_dirty_data_max), the larger. Unchanged where neither limit can be read."""
    sysctl, system, zfs = facts.sysctl, facts.system, facts.zfs
    memory = system.memory_bytes.value if system and system.memory_bytes.known else None
    dirty = (sysctl.int("vm.dirty_bytes") or 0) if sysctl else 0
    ratio = sysctl.int("vm.dirty_ratio") if sysctl else None
    limits = [dirty or (memory * ratio // 100 if memory and ratio else 0)]
    limits.append((zfs.parameters.value or {}).get("zfs_dirty_data_max", 0) if zfs and zfs.parameters.known else 0)
    if "sustained-write" not in workloads or not max(limits):
        return params
    size = max(LEAST, PAST * max(limits)) // MiB * MiB
    log(f"measure: sustained-write writes {size >> 20} MiB a repeat, {PAST} times the NAS's write-back limit")
    return {**params, "sustained_bytes": size}


def free_bytes(target: Target) -> int:
    """The free space of the file system the path is on, here or on the client whose mount it is."""
    argv = ["df", "-B1", "--output=avail", "--", target.share or "/"]
    out = on_client(target, argv, "df").stdout if fio.elsewhere(target) else run(argv, what="df")[0]
    numbers = [line.strip() for line in out.splitlines() if line.strip().isdigit()]
    if not numbers:
        raise BenchError(f"sustained-write{target.on}: df gave no free space for {target.share}")
    return int(numbers[-1])


class SustainedWrite(OnPath):
    name, title = "sustained-write", "A write past the write-back cache, second by second"
    doc = (
        "A buffered write of sustained_bytes (2 GiB by default), fsynced at its end, its rate read every "
        "second: the burst the write-back cache takes, the rate the disks sustain after it, and the stalls "
        "between (the write cliff: 'fast, then slow')."
    )
    source = "Documentation/admin-guide/sysctl/vm.rst (dirty_ratio, dirty_bytes), kernel.org"
    path = "write"
    warm_up = False  # a warm-up would only fill the cache the repeat must start empty

    def metrics(self, params: Params) -> dict[str, Metric]:
        return {
            "MB/s": Metric("MB/s", throughput=True),
            "burst MB": Metric("MB"),
            "burst MB/s": Metric("MB/s"),
            "sustained MB/s": Metric("MB/s"),
            "worst 5 s MB/s": Metric("MB/s"),  # a stall's mark: the slowest stretch after the burst
        }

    def setup(self, target: Target, params: Params) -> State:
        return State()

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        size = min(params.get("sustained_bytes", 2 << 30), free_bytes(target) // 2) // MiB * MiB
        if size < LEAST:
            raise BenchError(f"sustained-write{target.on}: under {LEAST >> 20} MiB free to write half of")
        rates = fio.course(target, fio.Job("sustained", "write", MiB, size, {"end_fsync": "1"}))
        found = cliff.course(rates)
        state.course.append([round(r, 1) for r in rates])
        said = {
            "MB/s": size / 1e6 / max(len(rates), 1),
            "burst MB": found.burst_mb,
            "burst MB/s": found.burst_rate,
            "sustained MB/s": found.sustained_rate,
            "worst 5 s MB/s": found.worst,
        }
        return {k: max(v, cliff.FLOOR) for k, v in said.items()}  # a second with nothing written reads the floor
