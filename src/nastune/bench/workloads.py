"""The named workloads. Each says which targets it runs on, and measures one repeat at a time;
the runner adds warm-up, repeats, cache drops, profiling and the physical-limit check."""

from __future__ import annotations

import statistics
import uuid
from dataclasses import dataclass
from typing import Any

from nastune.bench.drivers import bigdir, fio, iperf3, membw, smallfiles, transfer
from nastune.bench.params import Params
from nastune.bench.targets import Target
from nastune.facts.context import digits
from nastune.protocols import PROTOCOLS
from nastune.protocols.client import BenchError, on_client
from nastune.root import Root, Unavailable
from nastune.sources import GANESHA_LISTING, GAZETTE, GOODPUT, MINET_NFS, MINET_ZFS, QUMULO

KiB, MiB = 1 << 10, 1 << 20
State = dict[str, Any]  # what a workload keeps between its setup, repeats and teardown


@dataclass
class Metric:
    unit: str
    higher_is_better: bool = True
    throughput: bool = False  # compared with the link's goodput
    path: str = ""  # read or write, where it is not its workload's path (which way it crosses the link)


class Workload:
    name = ""
    title = ""
    doc = ""
    kinds: tuple[str, ...] = ()
    source = ""
    # how the report draws it: "bars" (median per run with intervals and the link's goodput),
    # "iozone" (latency against file size per record size), "heatmap" (a node x node matrix)
    view = "bars"
    device_bound = False  # a local sequential read: also bounded by the device's own read rate
    files = True  # it moves file data: the NAS's caches are dropped before each repeat
    warm_up = True  # one untimed transfer first: connections, metadata, allocation
    path = "both"  # read, write or both: which rules attribution may name for what limited it

    def runs_on(self, target: Target) -> bool:
        return target.kind in self.kinds

    def metrics(self, params: Params) -> dict[str, Metric]:
        raise NotImplementedError

    def setup(self, target: Target, params: Params) -> State:
        return {}

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        raise NotImplementedError

    def teardown(self, target: Target, params: Params, state: State) -> None:
        if target.kind == "path":
            fio.cleanup(target)


def _name(tag: str) -> str:
    return f"nastune-{tag}-{uuid.uuid4().hex[:8]}.bin"


def _source(target: Target, size: int) -> str:
    """A file of random bytes on the target's client (incompressible, so no layer can shrink
    the transfer), written by dd there: a remote client needs nothing of nastune."""
    path = f"/var/tmp/nastune-src-{uuid.uuid4().hex[:8]}"
    argv = ["dd", "if=/dev/urandom", f"of={path}", "bs=1M", f"count={max(1, size // MiB)}", "iflag=fullblock"]
    on_client(target, [*argv, "status=none"], "dd")
    return path


def _drop_source(target: Target, path: str) -> None:
    on_client(target, ["rm", "-f", "--", path], "rm")


def _rate(size: int, span: tuple[float, float]) -> dict[str, float]:
    """MB/s of one transfer, with its span on the client's clock (for clients run together)."""
    start, end = span
    return {"MB/s": size / max(end - start, 1e-6) / 1e6, "_start": start, "_end": end}


def _long_enough(target: Target, size: int) -> dict[str, str]:
    """fio loops over a small file on a local disk until 512 MiB have moved: at GB/s it would
    otherwise finish in milliseconds, and timing noise would be the result. On a network mount
    the link sets the pace, and the size is chosen for it (`--size auto`), as for the protocols'
    own clients (512 MiB from each of three clients took 16 s on one 1 Gbit/s link)."""
    return {} if target.via_network else {"loops": str(max(1, 512 * MiB // size))}


class SeqWrite(Workload):
    name, title = "seq-write", "Large sequential write of one file"
    path = "write"
    doc = (
        "Send one large file (default 1 GiB) through the protocol's own client (smbclient, libnfs "
        "nfs-cp, curl) or write it with fio (direct I/O) on a path: the number the Linux Gazette and "
        "MiNET studies report."
    )
    kinds, source = (*PROTOCOLS, "path"), f"{GAZETTE} (IOzone, NetBench); {MINET_NFS} (dd, rsync)"

    def metrics(self, params: Params) -> dict[str, Metric]:
        return {"MB/s": Metric("MB/s", True, throughput=True)}

    def setup(self, target: Target, params: Params) -> State:
        return {} if target.kind == "path" else {"src": _source(target, params["size"])}

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        size = params["size"]
        if target.kind == "path":
            got = fio.run_jobs(target, [fio.Job("seqwrite", "write", MiB, size, _long_enough(target, size))])
            return {"MB/s": got["seqwrite"]["MB/s"]}
        # every name stays pending until deleted: teardown removes what an interrupted or a
        # failed (and retried) upload left behind
        name = _name("write")
        state.setdefault("pending", []).append(name)
        span = transfer.upload(target, state["src"], name)
        transfer.remove(target, name)
        state["pending"].remove(name)
        return _rate(size, span)

    def teardown(self, target: Target, params: Params, state: State) -> None:
        if "src" in state:
            _drop_source(target, state.pop("src"))
        for name in state.pop("pending", []):
            try:
                transfer.remove(target, name)
            except BenchError:
                pass  # the interrupted upload had not created it
        super().teardown(target, params, state)


class SeqRead(SeqWrite):
    name, title = "seq-read", "Large sequential read of one file"
    device_bound = True
    path = "read"
    doc = "Fetch one large file (default 1 GiB) through the protocol's client into /dev/null, or read it with fio."

    def setup(self, target: Target, params: Params) -> State:
        if target.kind == "path":
            fio.run_jobs(target, [fio.Job("seqread", "write", MiB, params["size"])])
            return {}
        src = _source(target, params["size"])
        name = _name("read")
        try:
            transfer.upload(target, src, name)
        finally:
            _drop_source(target, src)
        return {"name": name}

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        if target.kind == "path":
            size = params["size"]
            got = fio.run_jobs(target, [fio.Job("seqread", "read", MiB, size, _long_enough(target, size))])
            return {"MB/s": got["seqread"]["MB/s"]}
        return _rate(params["size"], transfer.download(target, state["name"]))

    def teardown(self, target: Target, params: Params, state: State) -> None:
        if "name" in state:
            transfer.remove(target, state["name"])
        super().teardown(target, params, state)


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
        return {"files": files, "next": 0}

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        name, size = state["files"][state["next"] % len(state["files"])]
        state["next"] += 1
        return _rate(size, transfer.download(target, name, from_root=True))


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


class Iozone(Workload):
    name, title = "iozone", "IOzone-style matrix: file size x record size"
    view = "iozone"
    doc = (
        "Write, rewrite, read, reread, random read and random write for every file size and record size "
        "(IOzone's auto mode reduced to minutes), with fio and direct I/O: throughput and latency per cell."
    )
    kinds, source = ("path",), f"{MINET_ZFS} (iozone auto mode, latency vs file size per record size)"

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
    kinds = ("path", *(name for name, p in PROTOCOLS.items() if p.can("write_latency")))
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
                if target.kind in PROTOCOLS:
                    us = PROTOCOLS[target.kind].write_latency(target, _name("sync"), record, count, mode == "sync")
                    p50, p99 = statistics.median(us), sorted(us)[int(0.99 * (len(us) - 1))]
                else:
                    extra = {"fsync": "1"} if mode == "sync" else {}
                    job = fio.Job(f"{mode}{label}", "write", record, record * count, extra)
                    got = fio.run_jobs(target, [job], direct=False)[f"{mode}{label}"]
                    # a synchronous write costs the write and the fsync after it
                    p50, p99 = got["lat_us_p50"] + got["sync_us_p50"], got["lat_us_p99"] + got["sync_us_p99"]
                out[f"{mode} {label} latency p50"], out[f"{mode} {label} latency p99"] = p50, p99
            out[f"sync/async {label} ratio"] = out[f"sync {label} latency p50"] / max(
                out[f"async {label} latency p50"], 1e-3
            )
        return out


class SmallFiles(Workload):
    name, title = "small-files", "Small files: create, stat, read, delete"
    doc = (
        "Create (with 4 KiB of data), stat, read and delete many small files, one operation at a time, as "
        "bonnie++ does: operations per second and the 99th percentile latency of each phase."
    )
    kinds = ("path", *(name for name, p in PROTOCOLS.items() if p.can("small_files")))
    source = f"{GAZETTE} (bonnie++); {MINET_ZFS} (ioping for small files)"
    PHASES = ("create", "stat", "read", "delete")

    def metrics(self, params: Params) -> dict[str, Metric]:
        out = {}
        for phase in self.PHASES:
            out[f"{phase} ops/s"] = Metric("ops/s")
            out[f"{phase} latency p99"] = Metric("us", False)
        return out

    def runs_on(self, target: Target) -> bool:
        return target.kind in self.kinds and not (target.kind == "path" and target.ssh is not None)

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        count, size = params["files"], 4 * KiB
        if not self.runs_on(target):
            raise BenchError(f"small-files on a client's mount{target.on} needs nastune there: measure it over nfs")
        if target.kind in PROTOCOLS:
            phases = PROTOCOLS[target.kind].small_files(target, _name("small"), count, size)
        else:
            phases = smallfiles.small_files(fio.scratch(target), count, size)
        out = {}
        for phase in self.PHASES:
            us = phases[phase]
            out[f"{phase} ops/s"] = len(us) / (sum(us) / 1e6)
            out[f"{phase} latency p99"] = sorted(us)[int(0.99 * (len(us) - 1))]
        return out


class BigDirectory(Workload):
    name, title = "big-dir", "A big directory: listed with attributes, a missing name looked up"
    doc = (
        "List a directory of many empty files (default 5,000) with their attributes, as `ls -l`, a "
        "file manager or a backup tool does, and look up names it does not hold (a full scan on a "
        "server matching names without regard to case): entries listed per second, a miss's latency."
    )
    kinds = ("path", *(name for name, p in PROTOCOLS.items() if p.can("list_dir")))
    source = f"{GANESHA_LISTING}; smb.conf(5) (case sensitive)"
    MISSES = 50

    def metrics(self, params: Params) -> dict[str, Metric]:
        return {"list entries/s": Metric("entries/s"), "miss latency": Metric("us", False)}

    def runs_on(self, target: Target) -> bool:
        return target.kind in self.kinds and not (target.kind == "path" and target.ssh is not None)

    def setup(self, target: Target, params: Params) -> State:
        if not self.runs_on(target):
            raise BenchError(f"big-dir on a client's mount{target.on} needs nastune there: measure it over nfs")
        name, count = f"nastune-dir-{uuid.uuid4().hex[:8]}", params["dir_files"]
        state = {"dir": name}  # kept before it is made: teardown removes a directory made in part
        if target.kind in PROTOCOLS:
            PROTOCOLS[target.kind].make_dir(target, name, count)
        else:
            bigdir.make(fio.scratch(target) / name, count)
        return state

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        count = params["dir_files"]
        if target.kind in PROTOCOLS:
            got = PROTOCOLS[target.kind].list_dir(target, state["dir"], self.MISSES)
        else:
            got = bigdir.listing(fio.scratch(target) / state["dir"], self.MISSES)
        if got.get("entries", count) < count:
            raise BenchError(f"big-dir{target.on}: the directory listed {got['entries']:.0f} of its {count} files")
        return {"list entries/s": count / max(got["list_us"], 1.0) * 1e6, "miss latency": got["miss_us"]}

    def teardown(self, target: Target, params: Params, state: State) -> None:
        if "dir" not in state:
            return
        if target.kind in PROTOCOLS:
            PROTOCOLS[target.kind].drop_dir(target, state.pop("dir"), params["dir_files"])
        else:
            bigdir.drop(fio.scratch(target) / state.pop("dir"))


class Latency(Workload):
    name, title = "latency", "Per-request latency (ioping-like)"
    path = "read"
    doc = "4 KiB random reads one at a time with direct I/O: the latency a single request sees, in percentiles."
    kinds, source = ("path",), f"{MINET_ZFS} (ioping)"

    def metrics(self, params: Params) -> dict[str, Metric]:
        return {"latency p50": Metric("us", False), "latency p99": Metric("us", False), "iops": Metric("iops")}

    def setup(self, target: Target, params: Params) -> State:
        fio.run_jobs(target, [fio.Job("lat", "write", MiB, 64 * MiB)])
        return {}

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
        up = iperf3.throughput(target, params["seconds"])
        down = iperf3.throughput(target, params["seconds"], reverse=True)
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
        SeqWrite(),
        SeqRead(),
        AgedRead(),
        Iozone(),
        SyncWrite(),
        SmallFiles(),
        BigDirectory(),
        Latency(),
        Network(),
        NumaBandwidth(),
    )
}
