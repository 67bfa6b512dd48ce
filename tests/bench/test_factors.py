"""Every attribution factor has a positive case (the evidence it exists for, named first) and a
negative one (the same kind of evidence below its threshold, or spread out: not named). A new
factor without both fails here. The profiles are shaped as bench.usage summarizes a run; the
positive ones carry the numbers the lab's limit-* scenarios and soho's aged read recorded."""

from __future__ import annotations

import pytest

from nastune.bench import limits
from nastune.bench.usage import ProfileSummary

GOODPUT = 117.7e6
LINK: ProfileSummary = {"net": {"veth0": {"rx_MBps": 0.5, "tx_MBps": 116.0}}, "timeline": []}
CASES: dict[str, tuple[ProfileSummary, ProfileSummary]] = {
    "smb-protection": (
        {"daemon_cores": {"smbd": 0.45}, "smb_protection": "sign", "cgroups": {"/lab": {
            "quota_cpus": 0.5, "throttled_percent": 88.0, "throttled_s": 6.0, "holds": "smbd,ganesha.nfsd"}}},
        {"daemon_cores": {"smbd": 0.45}, "cgroups": {"/lab": {  # the same run without signing: the quota's
            "quota_cpus": 0.5, "throttled_percent": 88.0, "throttled_s": 6.0, "holds": "smbd,ganesha.nfsd"}}},
    ),
    "cpu-quota": (
        {"daemon_cores": {"smbd": 0.38}, "cgroups": {"/lab": {"quota_cpus": 0.5, "throttled_percent": 77.0,
                                                               "throttled_s": 9.1, "holds": "smbd"}}},
        {"daemon_cores": {"smbd": 0.01}, "cgroups": {"/lab": {"quota_cpus": 0.5, "throttled_percent": 0.0,
                                                               "throttled_s": 0.0, "holds": "smbd"}}},
    ),
    "serving-thread": (
        {"threads": [{"name": "smbd", "tid": 812, "core_percent": 97.0}]},
        {"threads": [{"name": "smbd", "tid": 812, "core_percent": 40.0}]},
    ),
    "softirq-one-cpu": (
        {"cpus": {"cpu0": {"softirq": 85.0}, "cpu1": {"softirq": 3.0}}, "softirqs_per_s": {"NET_RX": [90000.0]}},
        {"cpus": {"cpu0": {"softirq": 85.0}, "cpu1": {"softirq": 80.0}}},  # spread over both cores
    ),
    "link": (LINK, {"net": {"veth0": {"rx_MBps": 0.5, "tx_MBps": 40.0}}, "timeline": []}),
    "disk": (
        {"disks": {"loop0": {"read_iops": 142.0, "read_iops_limit": 150, "write_iops": 0.0, "await_ms": 6.7,
                             "queue": 0.9, "util_percent": 96.0}}},
        {"disks": {"loop0": {"read_iops": 20.0, "read_iops_limit": 150, "write_iops": 0.0, "await_ms": 0.4,
                             "queue": 0.0, "util_percent": 12.0}}},
    ),
    "tcp-window": (
        {"tcp": {"sends": True, "sndbuf_limited_percent": 56.0, "rwnd_limited_percent": 0.0}},
        {"tcp": {"sends": True, "sndbuf_limited_percent": 4.0, "rwnd_limited_percent": 2.0}},
    ),
    "rpc-size": (
        {"tcp": {"port": 2049, "sends": True, "bytes_per_request": 10240}},
        {"tcp": {"port": 2049, "sends": True, "bytes_per_request": 1048576}},
    ),
    "cpu": (
        {"cpus": {"cpu0": {"user": 97.0, "idle": 1.0, "iowait": 0.0}}, "pressure_percent": {"cpu": 40.0}},
        {"cpus": {"cpu0": {"user": 30.0, "idle": 70.0, "iowait": 0.0}}},
    ),
    "io-stall": ({"pressure_percent": {"io": 54.0}}, {"pressure_percent": {"io": 5.0}}),
}  # fmt: skip


def test_every_factor_has_a_positive_and_a_negative_case():
    assert set(CASES) == set(limits.FACTORS)


@pytest.mark.parametrize("name", sorted(limits.FACTORS))
def test_the_factor_is_named_first_on_its_evidence_and_not_below_it(name):
    positive, negative = CASES[name]
    found = limits.rank(positive, GOODPUT)
    assert found, found
    assert found[0].factor == name, found
    assert name not in {limit.factor for limit in limits.rank(negative, GOODPUT)}
