"""What a workload is: its metrics, its setup, one timed repeat and its teardown, and the helpers
the transfer workloads share (an incompressible source file on the client, a rate from a span)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from nastune.bench.drivers import fio, transfer
from nastune.bench.params import Params
from nastune.bench.targets import Target
from nastune.errors import UsageError
from nastune.protocols.client import BenchError, on_client

KiB, MiB = 1 << 10, 1 << 20
SOURCE_DIR = "/var/tmp"  # where the files an upload sends are made on the client


@dataclass
class State:
    """What a workload keeps between its setup, its repeats and its teardown. A teardown removes
    what the set-up made even in part, so each name is kept before what it names is made."""

    source: str = ""  # a file of random bytes on the client that uploads send (seq-write)
    pending: list[str] = field(default_factory=list)  # files uploaded and not yet removed
    name: str = ""  # what repeats read on the share: seq-read's file, big-dir's directory
    files: list[tuple[str, int]] = field(default_factory=list)  # the aged data set: (path, bytes)
    next: int = 0  # the aged file the next repeat reads
    parts: list[State] = field(default_factory=list)  # clients run together: each one's own
    course: list[list[float]] = field(default_factory=list)  # a sustained write's MB/s each second, per repeat
    size: int = 0  # bytes of each repeat's file, where the set-up sized it (sustained-write's upload)


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
    moves = "data"  # file data, or "metadata" (names, attributes): which rules may act on it

    def runs_on(self, target: Target) -> bool:
        return target.kind in self.kinds

    def metrics(self, params: Params) -> dict[str, Metric]:
        raise NotImplementedError

    def setup(self, target: Target, params: Params) -> State:
        return State()

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        raise NotImplementedError

    def teardown(self, target: Target, params: Params, state: State) -> None:
        return None


class OnPath(Workload):
    """A workload's measure of a path (a local file system, or a client's mount of a share): fio
    or a driver of the standard library there, in nastune's scratch directory, removed after."""

    kinds: tuple[str, ...] = ("path",)

    def teardown(self, target: Target, params: Params, state: State) -> None:
        fio.cleanup(target)


class ByKind(Workload):
    """One workload measured by a class per kind of target (through a protocol's own client, or
    on a path): its kinds are the parts' together, and the first part names and describes it and
    gives the metrics, which every part measures."""

    def __init__(self, *parts: Workload):
        first, self.parts = parts[0], parts
        self.name, self.title, self.doc, self.source = first.name, first.title, first.doc, first.source
        self.view, self.path, self.files, self.warm_up = first.view, first.path, first.files, first.warm_up
        self.device_bound = any(p.device_bound for p in parts)
        self.kinds = tuple(kind for p in parts for kind in p.kinds)

    def part(self, target: Target) -> Workload:
        found = next((p for p in self.parts if p.runs_on(target)), None)
        if found is None:
            raise UsageError(f"workload {self.name} runs on {', '.join(self.kinds)} targets, not on {target.url}")
        return found

    def metrics(self, params: Params) -> dict[str, Metric]:
        return self.parts[0].metrics(params)

    def setup(self, target: Target, params: Params) -> State:
        return self.part(target).setup(target, params)

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        return self.part(target).once(target, params, state)

    def teardown(self, target: Target, params: Params, state: State) -> None:
        self.part(target).teardown(target, params, state)


def scratch_name(tag: str) -> str:
    return f"nastune-{tag}-{uuid.uuid4().hex[:8]}.bin"


def source_file(target: Target, size: int) -> str:
    """A file of random bytes on the target's client (incompressible, so no layer can shrink
    the transfer), written by dd there: a remote client needs nothing of nastune."""
    path = f"{SOURCE_DIR}/nastune-src-{uuid.uuid4().hex[:8]}"
    argv = ["dd", "if=/dev/urandom", f"of={path}", "bs=1M", f"count={max(1, size // MiB)}", "iflag=fullblock"]
    on_client(target, [*argv, "status=none"], "dd")
    return path


def drop_source(target: Target, path: str) -> None:
    on_client(target, ["rm", "-f", "--", path], "rm")


def drop_uploads(target: Target, state: State) -> None:
    """The source file on the client and every upload not yet removed from the share: what an
    interrupted or a failed (and retried) repeat left behind."""
    if state.source:
        drop_source(target, state.source)
        state.source = ""
    pending, state.pending = state.pending, []
    for name in pending:
        try:
            transfer.remove(target, name)
        except BenchError:
            pass  # the interrupted upload had not created it


def rate(size: int, span: tuple[float, float]) -> dict[str, float]:
    """MB/s of one transfer, with its span on the client's clock (for clients run together)."""
    start, end = span
    return {"MB/s": size / max(end - start, 1e-6) / 1e6, "_start": start, "_end": end}


def long_enough(target: Target, size: int) -> dict[str, str]:
    """fio loops over a small file on a local disk until 512 MiB have moved: at GB/s it would
    otherwise finish in milliseconds, and timing noise would be the result. On a network mount
    the link sets the pace, and the size is chosen for it (`--size auto`), as for the protocols'
    own clients (512 MiB from each of three clients took 16 s on one 1 Gbit/s link)."""
    return {} if target.via_network else {"loops": str(max(1, 512 * MiB // size))}
