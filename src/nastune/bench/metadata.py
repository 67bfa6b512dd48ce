"""The metadata workloads: many small files created, read and deleted, and a big directory listed
and searched, over each protocol's own client (the operations, not the bytes, set their pace)."""

from __future__ import annotations

import uuid
from pathlib import Path
from types import ModuleType

from nastune.bench.drivers import bigdir, fio, smallfiles
from nastune.bench.params import Params
from nastune.bench.targets import Target
from nastune.bench.workload_base import KiB, Metric, OnPath, State, Workload, scratch_name
from nastune.protocols import PROTOCOLS
from nastune.protocols.client import BenchError, script
from nastune.sources import GANESHA_LISTING, GAZETTE, MINET_ZFS


def on_path(target: Target, driver: ModuleType, request: dict, what: str) -> dict:
    """A path workload's operation (`driver.main(request)`): here, or on the client whose mount
    the path is, as a program of the standard library only."""
    if fio.elsewhere(target):
        return script(target, Path(str(driver.__file__)), request, what)
    return driver.main(request)


class SmallFiles(Workload):
    name, title = "small-files", "Small files: create, stat, read, delete"
    doc = (
        "Create (with 4 KiB of data), stat, read and delete many small files, one operation at a time, as "
        "bonnie++ does: operations per second and the 99th percentile latency of each phase."
    )
    kinds = tuple(name for name, p in PROTOCOLS.items() if p.can("small_files"))
    moves = "metadata"  # 4 KiB a file: creating, finding and removing files is the work
    source = f"{GAZETTE} (bonnie++); {MINET_ZFS} (ioping for small files)"
    PHASES = ("create", "stat", "read", "delete")

    def metrics(self, params: Params) -> dict[str, Metric]:
        out = {}
        for phase in self.PHASES:
            out[f"{phase} ops/s"] = Metric("ops/s")
            out[f"{phase} latency p99"] = Metric("us", False)
        return out

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        phases = self.phases(target, params["files"], 4 * KiB)
        out = {}
        for phase in self.PHASES:
            us = phases[phase]
            out[f"{phase} ops/s"] = len(us) / (sum(us) / 1e6)
            out[f"{phase} latency p99"] = sorted(us)[int(0.99 * (len(us) - 1))]
        return out

    def phases(self, target: Target, count: int, size: int) -> dict[str, list[float]]:
        """Each phase's microseconds per operation, for `count` files of `size` bytes."""
        return PROTOCOLS[target.kind].small_files(target, scratch_name("small"), count, size)


class SmallFilesOnPath(OnPath, SmallFiles):
    """small-files on a path: the standard library's calls, here or on the client whose mount it is."""

    def phases(self, target: Target, count: int, size: int) -> dict[str, list[float]]:
        request = {"dir": str(fio.scratch(target)), "count": count, "size": size}
        return on_path(target, smallfiles, request, "small files")


class BigDirectory(Workload):
    name, title = "big-dir", "A big directory: listed with attributes, a missing name looked up"
    doc = (
        "List a directory of many empty files (default 5,000) with their attributes, as `ls -l`, a "
        "file manager or a backup tool does, and look up names it does not hold (a full scan on a "
        "server matching names without regard to case): entries listed per second, a miss's latency."
    )
    kinds = tuple(name for name, p in PROTOCOLS.items() if p.can("list_dir"))
    moves = "metadata"  # empty files: the directory's blocks and the inodes are all it reads
    source = f"{GANESHA_LISTING}; smb.conf(5) (case sensitive)"
    MISSES = 50

    def metrics(self, params: Params) -> dict[str, Metric]:
        return {"list entries/s": Metric("entries/s"), "miss latency": Metric("us", False)}

    def setup(self, target: Target, params: Params) -> State:
        name = f"nastune-dir-{uuid.uuid4().hex[:8]}"
        state = State(name=name)  # kept before it is made: teardown removes a directory made in part
        self.make(target, name, params["dir_files"])
        return state

    def once(self, target: Target, params: Params, state: State) -> dict[str, float]:
        count = params["dir_files"]
        got = self.listing(target, state.name)
        if got.get("entries", count) < count:
            raise BenchError(f"big-dir{target.on}: the directory listed {got['entries']:.0f} of its {count} files")
        return {"list entries/s": count / max(got["list_us"], 1.0) * 1e6, "miss latency": got["miss_us"]}

    def teardown(self, target: Target, params: Params, state: State) -> None:
        if state.name:
            PROTOCOLS[target.kind].drop_dir(target, state.name, params["dir_files"])
            state.name = ""

    def make(self, target: Target, name: str, count: int) -> None:
        PROTOCOLS[target.kind].make_dir(target, name, count)

    def listing(self, target: Target, name: str) -> dict:
        """Microseconds to list it, how many entries it held, a missing name's median microseconds."""
        return PROTOCOLS[target.kind].list_dir(target, name, self.MISSES)


class BigDirectoryOnPath(OnPath, BigDirectory):
    """big-dir on a path, here or on the client whose mount it is (its scratch directory, and the
    big directory in it, removed after)."""

    def make(self, target: Target, name: str, count: int) -> None:
        on_path(target, bigdir, {"op": "make", "dir": str(fio.scratch(target) / name), "count": count}, "mkdir")

    def listing(self, target: Target, name: str) -> dict:
        # a client's mount: its own caches dropped first, as the runner drops the server's
        request = {"op": "list", "dir": str(fio.scratch(target) / name), "misses": self.MISSES}
        return on_path(target, bigdir, {**request, "forget": fio.elsewhere(target)}, "listing")
