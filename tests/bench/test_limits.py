"""The physical-limit check: throughput above the link's goodput or the device's rate is flagged."""

from __future__ import annotations

from nastune.bench.runner import metrics_of
from nastune.bench.targets import Target, goodput_bytes
from nastune.bench.workloads import WORKLOADS
from nastune.facts.network import htb_class_rate
from nastune.lab import network


def test_goodput_matches_the_seeds_numbers():
    assert round(goodput_bytes(10**9, 1500) / 1e6, 1) == 117.7
    assert round(goodput_bytes(10**9, 9000) / 1e6, 1) == 123.8


def tc_prints(bits: int) -> str:
    """A rate as iproute2's sprint_rate prints it (tc/tc_util.c): divided by 1000 while it is
    a multiple of 1000 or at least a million, the rest cut."""
    units = ["", "K", "M", "G", "T"]
    i = 0
    while i < len(units) - 1 and bits >= 1000 and (bits % 1000 == 0 or bits >= 10**6):
        bits //= 1000
        i += 1
    return f"{bits}{units[i]}bit"


def test_the_lab_s_htb_rate_carries_a_real_ethernet_link_s_goodput():
    """htb counts MTU + 14 bytes a frame, a wire MTU + 38: the lab's rate makes up the difference,
    reads back from tc as it was set, and stands for the same line rate at every MTU."""
    for mtu in (1500, 4000, 9000):
        for line in (10**6, 2 * 10**8, 9 * 10**8, 10**9, 11 * 10**8, 25 * 10**8, 10**10, 4 * 10**10):
            shaped = network.htb_rate(line, mtu)
            assert shaped % 8 == 0  # whole bytes per second, as htb keeps them
            assert htb_class_rate(f"class htb 1:10 root prio 0 rate {tc_prints(shaped)} ceil", "1:10") == shaped
            lab = goodput_bytes(shaped, mtu, overhead=network.HTB_FRAME)
            assert abs(lab / goodput_bytes(line, mtu) - 1) < 1e-3, (mtu, line)
            assert network.line_rate(shaped, mtu) == line
            assert network.line_rate(network.htb_rate(line, 9000 - mtu + 1500), 9000 - mtu + 1500) == line
    assert round(network.htb_rate(10**9, 1500) / 1e6, 1) == 984.4
    assert round(network.htb_rate(10**9, 9000) / 1e6, 1) == 997.3
    assert abs(goodput_bytes(network.htb_rate(10**9, 1500), 1500, overhead=network.HTB_FRAME) / 117.6853e6 - 1) < 1e-5


def test_a_result_above_the_link_is_flagged_as_a_cache_effect():
    smb = Target("smb", "smb://nas/data", host="nas", share="data", link_bps=10**9, mtu=1500)
    flagged = metrics_of(WORKLOADS["seq-read"], {}, smb, [{"MB/s": 450.0}, {"MB/s": 460.0}])["MB/s"]
    assert flagged.limit == goodput_bytes(10**9, 1500) / 1e6
    assert any("a cache was measured, not the NAS" in f for f in flagged.flags)
    honest = metrics_of(WORKLOADS["seq-read"], {}, smb, [{"MB/s": 110.0}, {"MB/s": 111.0}])["MB/s"]
    assert honest.flags == []


def test_each_way_of_the_link_has_its_own_ceiling():
    """The lab after htb_rate on the NAS's side: reads cross 900 Mbit/s, writes still 1 Gbit/s."""
    slow, line = goodput_bytes(9 * 10**8, 1500), goodput_bytes(10**9, 1500)
    iperf3 = Target("iperf3", "iperf3://nas", host="nas", link_bps=9 * 10**8, uplink_bps=10**9, mtu=1500)
    assert (iperf3.limit_for("read"), iperf3.limit_for("write"), iperf3.limit_for("both")) == (slow, line, line)
    assert iperf3.limit_bytes == slow
    assert iperf3.record().uplink_bps == 10**9
    both = metrics_of(WORKLOADS["network"], {}, iperf3, [{"upload MB/s": 114.8, "download MB/s": 103.1}])
    assert (both["upload MB/s"].limit, both["download MB/s"].limit) == (line / 1e6, slow / 1e6)
    assert both["upload MB/s"].flags == []  # measured at 1 Gbit/s: not above a ceiling it does not cross
    writes = metrics_of(WORKLOADS["seq-write"], {}, iperf3, [{"MB/s": 114.8}])["MB/s"]
    assert writes.limit == line / 1e6
    assert writes.flags == []
    same = Target("iperf3", "iperf3://nas", host="nas", link_bps=10**9, mtu=1500)
    assert same.limit_for("read") == same.limit_for("write") == line
    assert same.record().uplink_bps is None


def test_a_local_read_above_the_device_rate_is_flagged():
    local = Target("path", "/srv", share="/srv", extra={"device": "sdb"})
    assert local.device() == "/dev/sdb"
    m = metrics_of(WORKLOADS["seq-read"], {}, local, [{"MB/s": 900.0}], device_rate=200.0)["MB/s"]
    assert m.limit == 200.0
    assert "device's sequential read rate (/dev/sdb)" in m.flags[0]


def test_repeats_that_disagree_are_flagged():
    local = Target("path", "/srv", share="/srv")
    m = metrics_of(WORKLOADS["seq-write"], {}, local, [{"MB/s": 100.0}, {"MB/s": 130.0}, {"MB/s": 101.0}])["MB/s"]
    assert m.flags == ["repeats differ from their median by up to 29%"]
