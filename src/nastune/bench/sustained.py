"""sustained-write: a buffered write past the NAS's write-back cache, its course second by second
(bench/cliff.py sums it up: the burst, the sustained rate, the stalls). On a path: the NAS's own
file system, or a client's mount of a share (where the NAS's page cache, or ZFS's dirty data,
decides the course). Its size is `sustained_bytes` (2 GiB by default: past a small NAS's dirty
limit, a fifth of its memory), never more than half the file system's free space."""

from __future__ import annotations

from nastune.bench import cliff
from nastune.bench.drivers import fio
from nastune.bench.params import Params
from nastune.bench.targets import Target
from nastune.bench.workload import Metric, MiB, OnPath, State
from nastune.protocols.client import BenchError, on_client, run

LEAST = 256 * MiB  # a write shorter than this fills no NAS's cache


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
