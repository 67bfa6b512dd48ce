"""The physical-limit check: throughput above the link's goodput or the device's rate is flagged."""

from __future__ import annotations

from nastune.bench.runner import metrics_of
from nastune.bench.targets import Target, goodput_bytes
from nastune.bench.workloads import WORKLOADS


def test_goodput_matches_the_seeds_numbers():
    assert round(goodput_bytes(10**9, 1500) / 1e6, 1) == 117.7
    assert round(goodput_bytes(10**9, 9000) / 1e6, 1) == 123.8
    assert round(goodput_bytes(10**9, 1500, overhead=14) / 1e6, 1) == 119.6  # htb on veth


def test_a_result_above_the_link_is_flagged_as_a_cache_effect():
    smb = Target("smb", "smb://nas/data", host="nas", share="data", link_bps=10**9, mtu=1500)
    flagged = metrics_of(WORKLOADS["seq-read"], {}, smb, [{"MB/s": 450.0}, {"MB/s": 460.0}])["MB/s"]
    assert flagged.limit == goodput_bytes(10**9, 1500) / 1e6
    assert any("a cache was measured, not the NAS" in f for f in flagged.flags)
    honest = metrics_of(WORKLOADS["seq-read"], {}, smb, [{"MB/s": 110.0}, {"MB/s": 111.0}])["MB/s"]
    assert honest.flags == []


def test_a_local_read_above_the_device_rate_is_flagged():
    local = Target("path", "/srv", share="/srv", extra={"device": "sdb"})
    assert local.device() == "/dev/sdb"
    m = metrics_of(WORKLOADS["seq-read"], {}, local, [{"MB/s": 900.0}], device_rate=200.0)["MB/s"]
    assert m.limit == 200.0 and "device's sequential read rate (/dev/sdb)" in m.flags[0]


def test_repeats_that_disagree_are_flagged():
    local = Target("path", "/srv", share="/srv")
    m = metrics_of(WORKLOADS["seq-write"], {}, local, [{"MB/s": 100.0}, {"MB/s": 130.0}, {"MB/s": 101.0}])["MB/s"]
    assert m.flags == ["repeats differ from their median by up to 29%"]
