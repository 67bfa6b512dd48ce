"""Caches are dropped before each repeat of a workload that moves file data, and never before
one that does not (iperf3's network, memory bandwidth): a drop costs a sync and two round trips
to the NAS, for nothing there."""

from __future__ import annotations

from pathlib import Path

from nastune.bench import runner
from nastune.bench.targets import Target
from nastune.bench.workloads import WORKLOADS, Metric, Workload
from nastune.sites.live import LiveSite


class Counting(LiveSite):
    drops = 0

    def drop_caches(self) -> None:
        self.drops += 1


class Still(Workload):
    name = "still"
    kinds = ("path",)

    def metrics(self, params):
        return {"MB/s": Metric("MB/s")}

    def once(self, target, params, state):
        return {"MB/s": 1.0}


def _drops(files: bool, tmp_path: Path) -> int:
    workload = Still()
    workload.files = files
    site = Counting(str(tmp_path), "/")
    target = Target("path", str(tmp_path), share=str(tmp_path))
    runner.run([(workload, target)], {}, 3, tmp_path / "r.json", site, profile=False)
    return site.drops


def test_a_file_workload_drops_the_caches_before_each_repeat_and_a_network_one_never(tmp_path):
    assert _drops(True, tmp_path) == 3
    assert _drops(False, tmp_path) == 0
    assert not WORKLOADS["network"].files
    assert not WORKLOADS["numa-bandwidth"].files
    assert all(w.files for name, w in WORKLOADS.items() if name not in ("network", "numa-bandwidth"))
