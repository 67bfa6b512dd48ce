"""sustained-write: a buffered write past the NAS's write-back cache, its course second by second
(bench/cliff.py sums it up: the burst, the sustained rate, the stalls). On a path: the NAS's own
file system, or a client's mount of a share (where the NAS's page cache, or ZFS's dirty data,
decides the course), its rate read from fio's status each second. Through a protocol's own
client (smbclient, libnfs's nfs-cp): one upload, its rate read from the client's sent bytes
each second. Its size is `sustained_bytes`: three times the NAS's write-back limit where its
facts are known (optimize: `past_cache`), else 2 GiB (past a small NAS's dirty limit, a fifth of
its memory); never more than half the free space of the share (as its server tells the client)
or of the client's disk that holds the file sent. FTP has no command that tells a share's free
space (vsftpd answers none), so it is not written to blind: a client's mount measures there."""

from __future__ import annotations

from collections.abc import Callable

from nastune.bench import cliff
from nastune.bench.drivers import fio, transfer
from nastune.bench.params import Params
from nastune.bench.targets import Target
from nastune.bench.workload_base import (
    SOURCE_DIR,
    Metric,
    MiB,
    OnPath,
    State,
    Workload,
    drop_uploads,
    scratch_name,
    source_file,
)
from nastune.facts import Facts
from nastune.protocols import PROTOCOLS
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


def free_bytes(target: Target, path: str, on_the_client: bool = False) -> int:
    """The free space of the file system `path` is on: here, or on the target's client (a path's
    where it is elsewhere, an upload's always)."""
    argv = ["df", "-B1", "--output=avail", "--", path]
    elsewhere = on_the_client or fio.elsewhere(target)
    out = on_client(target, argv, "df").stdout if elsewhere else run(argv, what="df")[0]
    numbers = [line.strip() for line in out.splitlines() if line.strip().isdigit()]
    if not numbers:
        raise BenchError(f"sustained-write{target.on}: df gave no free space for {path}")
    return int(numbers[-1])


def sized(target: Target, params: Params, *free: int) -> int:
    """`sustained_bytes`, at most half of each free space, in whole MiB; BenchError under LEAST."""
    size = min(params.get("sustained_bytes", 2 << 30), *(f // 2 for f in free)) // MiB * MiB
    if size < LEAST:
        raise BenchError(f"sustained-write{target.on}: under {LEAST >> 20} MiB free to write half of")
    return size


def summed(rates: list[float], size: int, seconds: float, state: State) -> dict[str, float]:
    """One repeat's metrics from its course (kept in `state` for the report's curve)."""
    found = cliff.course(rates)
    state.course.append([round(r, 1) for r in rates])
    said = {
        "MB/s": size / 1e6 / max(seconds, 1e-3),
        "burst MB": found.burst_mb,
        "burst MB/s": found.burst_rate,
        "sustained MB/s": found.sustained_rate,
        "worst 5 s MB/s": found.worst,
    }
    return {k: max(v, cliff.FLOOR) for k, v in said.items()}  # a second with nothing written reads the floor


class SustainedWrite(OnPath):
    name, title = "sustained-write", "A write past the write-back cache, second by second"
    doc = (
        "A buffered write of sustained_bytes (2 GiB by default), fsynced at its end, its rate read every "
        "second: the burst the write-back cache takes, the rate the disks sustain after it, and the stalls "
        "between (the write cliff: 'fast, then slow'). On a path with fio; over SMB and NFS as one upload "
        "through smbclient or nfs-cp, read from the client's sent bytes."
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
        size = sized(target, params, free_bytes(target, target.share or "/"))
        rates = fio.course(target, fio.Job("sustained", "write", MiB, size, {"end_fsync": "1"}))
        return summed(rates, size, len(rates), state)


class SustainedUpload(Workload):
    """sustained-write through a protocol's own client: the upload seq-write times, its course
    read from what the client sent each second."""

    kinds = tuple(name for name, p in PROTOCOLS.items() if p.can("free"))
    path, warm_up = "write", False
    metrics = SustainedWrite.metrics

    def setup(self, target: Target, params: Params) -> State:
        state = State(size=sized(target, params, transfer.free(target), free_bytes(target, SOURCE_DIR, True)))
        state.source = source_file(target, state.size)
        return state

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        name, sent = scratch_name("sustained"), list[tuple[float, int]]()
        state.pending.append(name)
        start, end = transfer.upload(target, state.source, name, sent)
        transfer.remove(target, name)
        state.pending.remove(name)
        rates = cliff.sent_rates(sent, state.size)
        if len(rates) < 2:
            raise BenchError(f"sustained-write{target.on}: the upload took {end - start:.1f} s, too short for a course")
        return summed(rates, state.size, end - start, state)

    def teardown(self, target: Target, params: Params, state: State) -> None:
        drop_uploads(target, state)
