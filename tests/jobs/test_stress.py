"""Stress: how many times worse each metric is under load, in the direction that is worse."""

from __future__ import annotations

import pytest

from nastune.bench.results import MetricResult, Provenance, ResultSet, WorkloadResult
from nastune.bench.targets import Target
from nastune.jobs.stress import MIX, Loader, degradation
from nastune.remote.inventory import Host
from nastune.ssh import Ssh


def run(mbs: list[float], p99: list[float]) -> ResultSet:
    return ResultSet(
        created="2026-11-22T00:00:00+00:00",
        provenance=Provenance(nastune="0", kernel="6.1.0", command=[], tools={}),
        results=[
            WorkloadResult(
                workload="sync-write",
                target={"url": "nfs://nas/data"},
                params={},
                started="",
                seconds=1,
                metrics={
                    "MB/s": MetricResult(unit="MB/s", values=mbs),
                    "p99": MetricResult(unit="us", higher_is_better=False, values=p99),
                },
            )
        ],
    )


def test_throughput_and_latency_are_both_worse_above_one():
    rows = degradation(run([100, 100, 100], [50, 50, 50]), run([25, 25, 25], [500, 500, 500]))
    worse = {r["metric"]: r["worse"] for r in rows}
    assert worse == {"MB/s": pytest.approx(4.0), "p99": pytest.approx(10.0)}
    better = degradation(run([100] * 3, [50] * 3), run([200] * 3, [25] * 3))
    assert {r["metric"]: r["worse"] for r in better} == {"MB/s": 0.5, "p99": 0.5}


def test_a_metric_missing_under_load_is_left_out_not_invented():
    loaded = run([25] * 3, [500] * 3)
    del loaded.results[0].metrics["p99"]
    assert [r["metric"] for r in degradation(run([100] * 3, [50] * 3), loaded)] == ["MB/s"]


@pytest.mark.parametrize(
    "target, mix",
    [
        (Target("nfs", "nfs://nas/data"), list(MIX)),
        (Target("smb", "smb://nas/data"), ["seq-write", "seq-read"]),
        (Target("path", "/mnt/nas", share="/mnt/nas"), list(MIX)),
        (Target("path", "c2:/mnt/nas", share="/mnt/nas", ssh=Ssh(Host(name="c2", address="c2"))), list(MIX)),
    ],
)
def test_the_load_mix_is_what_each_client_can_do_there(target, mix):
    assert [w.name for w in Loader(target, seed=0).mix()] == list(mix)
