"""The named workloads. Each says which targets it runs on, and measures one repeat at a time;
the runner adds warm-up, repeats, cache drops, profiling and the physical-limit check."""

from __future__ import annotations

import statistics

from nastune.bench.drivers import fio, iperf3, membw, transfer
from nastune.bench.metadata import BigDirectory, BigDirectoryOnPath, SmallFiles, SmallFilesOnPath
from nastune.bench.params import Params
from nastune.bench.sustained import SustainedUpload, SustainedWrite
from nastune.bench.targets import Target
from nastune.bench.workload_base import (
    ByKind,
    KiB,
    Metric,
    MiB,
    OnPath,
    State,
    Workload,
    drop_source,
    drop_uploads,
    long_enough,
    rate,
    scratch_name,
    source_file,
)
from nastune.facts.context import digits
from nastune.protocols import PROTOCOLS
from nastune.protocols.client import BenchError
from nastune.root import Root, Unavailable
from nastune.sources import GAZETTE, GOODPUT, MINET_NFS, MINET_ZFS, QUMULO


class SeqWrite(Workload):
    name, title = "seq-write", "Large sequential write of one file"
    path = "write"
    doc = (
        "Send one large file (default 1 GiB) through the protocol's own client (smbclient, libnfs "
        "nfs-cp, curl) or write it with fio (direct I/O) on a path: the number the Linux Gazette and "
        "MiNET studies report."
    )
    kinds, source = tuple(PROTOCOLS), f"{GAZETTE} (IOzone, NetBench); {MINET_NFS} (dd, rsync)"

    def metrics(self, params: Params) -> dict[str, Metric]:
        return {"MB/s": Metric("MB/s", True, throughput=True)}

    def setup(self, target: Target, params: Params) -> State:
        return State(source=source_file(target, params["size"]))

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        # every name stays pending until deleted: teardown removes what an interrupted or a
        # failed (and retried) upload left behind
        name = scratch_name("write")
        state.pending.append(name)
        span = transfer.upload(target, state.source, name)
        transfer.remove(target, name)
        state.pending.remove(name)
        return rate(params["size"], span)

    def teardown(self, target: Target, params: Params, state: State) -> None:
        drop_uploads(target, state)


class SeqWriteFio(OnPath, SeqWrite):
    """seq-write on a path: fio, direct I/O."""

    def setup(self, target: Target, params: Params) -> State:
        return State()

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        size = params["size"]
        got = fio.run_jobs(target, [fio.Job("seqwrite", "write", MiB, size, long_enough(target, size))])
        return {"MB/s": got["seqwrite"]["MB/s"]}


class SeqRead(SeqWrite):
    name, title = "seq-read", "Large sequential read of one file"
    path = "read"
    doc = "Fetch one large file (default 1 GiB) through the protocol's client into /dev/null, or read it with fio."

    def setup(self, target: Target, params: Params) -> State:
        src = source_file(target, params["size"])
        name = scratch_name("read")
        try:
            transfer.upload(target, src, name)
        finally:
            drop_source(target, src)
        return State(name=name)

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        return rate(params["size"], transfer.download(target, state.name))

    def teardown(self, target: Target, params: Params, state: State) -> None:
        if state.name:
            transfer.remove(target, state.name)


class SeqReadFio(OnPath, SeqRead):
    """seq-read on a path: fio, direct I/O, of a file it wrote first."""

    device_bound = True

    def setup(self, target: Target, params: Params) -> State:
        fio.run_jobs(target, [fio.Job("seqread", "write", MiB, params["size"])])
        return State()

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        size = params["size"]
        got = fio.run_jobs(target, [fio.Job("seqread", "read", MiB, size, long_enough(target, size))])
        return {"MB/s": got["seqread"]["MB/s"]}


class AgedRead(Workload):
    name, title = "aged-read", "Read of the aged (fragmented) data set"
    path = "read"
    doc = (
        "Fetch the files of a NAS that was written by many slow clients for months (the lab's aged data set) "
        "through each protocol: what fragmentation and its repair (xfs_fsr) do to reads."
    )
    kinds, source = tuple(PROTOCOLS), f"{GAZETTE}, sections 2.6-2.7 (99% fragmented: -37%; xfs_fsr: +37%)"
    # each repeat reads another file of the set from dropped caches, in a new client process:
    # nothing a warm-up would warm reaches a repeat
    warm_up = False

    def metrics(self, params: Params) -> dict[str, Metric]:
        return {"MB/s": Metric("MB/s", True, throughput=True)}

    def setup(self, target: Target, params: Params) -> State:
        files = target.extra.get("aged", [])
        if not files:
            raise BenchError(f"{target.url}: no aged data set here (a lab scenario with [storage.aging] has one)")
        return State(files=files)

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        name, size = state.files[state.next % len(state.files)]
        state.next += 1
        return rate(size, transfer.download(target, name, from_root=True))


IOZONE_OPS = (
    ("write", "write"),
    ("rewrite", "write"),
    ("read", "read"),
    ("reread", "read"),
    ("random-read", "randread"),
    ("random-write", "randwrite"),
)


def _size(n: int) -> str:
    return f"{n // MiB}M" if n >= MiB else f"{n // KiB}K"


class Iozone(OnPath):
    name, title = "iozone", "IOzone-style matrix: file size x record size"
    view = "iozone"
    doc = (
        "Write, rewrite, read, reread, random read and random write for every file size and record size "
        "(IOzone's auto mode reduced to minutes), with fio and direct I/O: throughput and latency per cell."
    )
    source = f"{MINET_ZFS} (iozone auto mode, latency vs file size per record size)"

    def cells(self, params: Params) -> list[tuple[int, int]]:
        return [(f, r) for f in params["file_sizes"] for r in params["record_sizes"] if r <= f]

    def metrics(self, params: Params) -> dict[str, Metric]:
        out = {}
        for f, r in self.cells(params):
            for op, _ in IOZONE_OPS:
                out[f"{op} {_size(f)} rec {_size(r)} MB/s"] = Metric("MB/s")
                out[f"{op} {_size(f)} rec {_size(r)} latency"] = Metric("us", False)
        return out

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        jobs = []
        for f, r in self.cells(params):
            for op, rw in IOZONE_OPS:
                # fio times bandwidth in milliseconds: small files loop until 16 MiB have moved
                loops = {"loops": str(max(1, 16 * MiB // f))}
                jobs.append(fio.Job(f"c{_size(f)}{_size(r)}-{op}", rw, r, f, loops, file=f"c{_size(f)}{_size(r)}"))
        got = fio.run_jobs(target, jobs)
        out = {}
        for f, r in self.cells(params):
            for op, _ in IOZONE_OPS:
                cell = got[f"c{_size(f)}{_size(r)}-{op}"]
                out[f"{op} {_size(f)} rec {_size(r)} MB/s"] = cell["MB/s"]
                out[f"{op} {_size(f)} rec {_size(r)} latency"] = cell["lat_us_mean"]
        return out


class SyncWrite(Workload):
    name, title = "sync-write", "Synchronous versus buffered writes"
    path = "write"
    doc = (
        "Per-write latency with an fsync (an NFS COMMIT) after every write versus buffered writes, for small "
        "(4 KiB) and large (1 MiB) records: through libnfs for NFS, fio on a path."
    )
    kinds = tuple(name for name, p in PROTOCOLS.items() if p.can("write_latency"))
    source = f"{MINET_ZFS} (sync raised latency 10x for large files, 20x for small ones)"
    RECORDS = ((4 * KiB, "4K", 256), (MiB, "1M", 16))

    def metrics(self, params: Params) -> dict[str, Metric]:
        out = {}
        for _, label, _ in self.RECORDS:
            for mode in ("sync", "async"):
                out[f"{mode} {label} latency p50"] = Metric("us", False)
                out[f"{mode} {label} latency p99"] = Metric("us", False)
            out[f"sync/async {label} ratio"] = Metric("x", False)
        return out

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        out = {}
        for record, label, count in self.RECORDS:
            for mode in ("sync", "async"):
                p50, p99 = self.latency(target, record, label, count, mode == "sync")
                out[f"{mode} {label} latency p50"], out[f"{mode} {label} latency p99"] = p50, p99
            out[f"sync/async {label} ratio"] = out[f"sync {label} latency p50"] / max(
                out[f"async {label} latency p50"], 1e-3
            )
        return out

    def latency(self, target: Target, record: int, label: str, count: int, sync: bool) -> tuple[float, float]:
        """The median and 99th percentile microseconds of `count` writes of `record` bytes."""
        us = PROTOCOLS[target.kind].write_latency(target, scratch_name("sync"), record, count, sync)
        return statistics.median(us), sorted(us)[int(0.99 * (len(us) - 1))]


class SyncWriteFio(OnPath, SyncWrite):
    """sync-write on a path: fio's buffered writes, with an fsync after each where synchronous."""

    def latency(self, target: Target, record: int, label: str, count: int, sync: bool) -> tuple[float, float]:
        mode = "sync" if sync else "async"
        job = fio.Job(f"{mode}{label}", "write", record, record * count, {"fsync": "1"} if sync else {})
        got = fio.run_jobs(target, [job], direct=False)[f"{mode}{label}"]
        # a synchronous write costs the write and the fsync after it
        return got["lat_us_p50"] + got["sync_us_p50"], got["lat_us_p99"] + got["sync_us_p99"]


class Latency(OnPath):
    name, title = "latency", "Per-request latency (ioping-like)"
    path = "read"
    doc = "4 KiB random reads one at a time with direct I/O: the latency a single request sees, in percentiles."
    source = f"{MINET_ZFS} (ioping)"

    def metrics(self, params: Params) -> dict[str, Metric]:
        return {"latency p50": Metric("us", False), "latency p99": Metric("us", False), "iops": Metric("iops")}

    def setup(self, target: Target, params: Params) -> State:
        fio.run_jobs(target, [fio.Job("lat", "write", MiB, 64 * MiB)])
        return State()

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        got = fio.run_jobs(
            target, [fio.Job("lat", "randread", 4 * KiB, 64 * MiB, {"runtime": "2", "time_based": "1"})]
        )["lat"]
        return {"latency p50": got["lat_us_p50"], "latency p99": got["lat_us_p99"], "iops": got["iops"]}


class Network(Workload):
    name, title = "network", "TCP throughput between client and server (iperf3)"
    doc = "iperf3 from the client to the server and back, compared with the link's physical goodput."
    kinds, source = ("iperf3",), GOODPUT
    files = False

    def metrics(self, params: Params) -> dict[str, Metric]:
        up, down = Metric("MB/s", throughput=True, path="write"), Metric("MB/s", throughput=True, path="read")
        return {"upload MB/s": up, "download MB/s": down}

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        up = iperf3.throughput(target, params["seconds"], size=params.get("iperf_bytes"))
        down = iperf3.throughput(target, params["seconds"], reverse=True, size=params.get("iperf_bytes"))
        return {"upload MB/s": up["MB/s"], "download MB/s": down["MB/s"]}


class NumaBandwidth(Workload):
    name, title = "numa-bandwidth", "Memory read bandwidth between NUMA nodes"
    view = "heatmap"
    doc = (
        "For every pair (CPU node, memory node), a process pinned with numactl reads a buffer bound to that "
        "node: the matrix Qumulo measured with Intel MLC. One node gives a 1x1 matrix."
    )
    kinds, source = ("system",), f"{QUMULO} (MLC matrix; snoop mode)"
    files = False

    def nodes(self) -> list[int]:
        try:
            names = Root().listdir("/sys/devices/system/node")
        except Unavailable:
            names = []
        return sorted(int(n[4:]) for n in names if n.startswith("node") and digits(n[4:])) or [0]

    def metrics(self, params: Params) -> dict[str, Metric]:
        return {f"node{i}->node{j} GB/s": Metric("GB/s") for i in self.nodes() for j in self.nodes()}

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        nodes = self.nodes()
        m = membw.matrix(nodes, params["buffer_mib"])
        return {f"node{i}->node{j} GB/s": m[a][b] for a, i in enumerate(nodes) for b, j in enumerate(nodes)}


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        ByKind(SeqWrite(), SeqWriteFio()),
        ByKind(SeqRead(), SeqReadFio()),
        AgedRead(),
        Iozone(),
        ByKind(SyncWriteFio(), SyncWrite()),
        ByKind(SmallFilesOnPath(), SmallFiles()),
        ByKind(BigDirectoryOnPath(), BigDirectory()),
        Latency(),
        Network(),
        NumaBandwidth(),
        ByKind(SustainedWrite(), SustainedUpload()),
    )
}
