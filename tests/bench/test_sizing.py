"""Transfers sized by the link they cross: about half a second at its goodput, as a power of two of
MiB, bounded; an explicit size is kept; a target with no known link gets bench's default; and the
optimize flow takes the one-off actions' after-measurement from the interleaved run's A."""

from __future__ import annotations

from nastune.bench.results import ResultSet
from nastune.bench.sizing import FALLBACK, MiB, sized, transfer_size
from nastune.bench.targets import Target
from nastune.bench.workload_base import State


def _smb(link_bps: int | None, mtu: int | None = 1500) -> Target:
    return Target("smb", "smb://10.77.0.1/data", host="10.77.0.1", share="data", link_bps=link_bps, mtu=mtu)


def test_half_a_second_at_the_goodput_in_powers_of_two():
    assert transfer_size([_smb(10**9)]) == 64 * MiB  # 117.7 MB/s: 56 MiB, nearest 64
    assert transfer_size([_smb(10**10)]) == 512 * MiB  # 1.18 GB/s: 561 MiB, nearest 512
    assert transfer_size([_smb(10**8)]) == 32 * MiB  # 11.8 MB/s: the smallest size
    assert transfer_size([_smb(10**11, 9000)]) == 4 << 30  # 100 Gbit/s: the largest
    assert transfer_size([_smb(10**8), _smb(10**9)]) == 64 * MiB  # the fastest link decides
    assert transfer_size([_smb(None), Target("path", "/srv", share="/srv")]) is None


def test_an_explicit_size_is_kept_and_auto_is_said():
    said: list[str] = []
    assert sized({"size": 5 * MiB}, [_smb(10**9)], said.append) == {"size": 5 * MiB}
    assert not said
    auto = sized({"files": 3, "seconds": 3}, [_smb(10**9)], said.append)
    assert auto == {"size": 64 * MiB, "files": 3, "seconds": 3, "iperf_bytes": 64 * MiB}  # iperf3 as long as a transfer
    assert said == ["transfers: 64 MiB each, 0.6 s at the link's goodput of 117.7 MB/s"]
    assert sized({}, [Target("path", "/srv", share="/srv")], said.append) == {"size": FALLBACK}
    assert "no link of known speed" in said[-1]


def test_the_one_off_actions_after_measurement_is_the_interleaved_a(tmp_path):
    from nastune.jobs.optimize import _after

    a = ResultSet.model_validate(
        {
            "created": "2026-11-24T10:00:00",
            "label": "A",
            "provenance": {"nastune": "0", "kernel": "6.1", "command": [], "tools": {}},
            "results": [
                {
                    "workload": name,
                    "target": {"kind": "smb", "url": "smb://h/s"},
                    "params": {},
                    "metrics": {},
                    "started": "2026-11-24T10:00:00",
                    "seconds": 1.0,
                }
                for name in ("aged-read", "seq-write")
            ],
        }
    )
    after = _after(a, ["aged-read"], tmp_path / "after.json")
    assert after.label == "after"
    assert [r.workload for r in after.results] == ["aged-read"]
    assert ResultSet.model_validate_json((tmp_path / "after.json").read_text()) == after
    assert a.label == "A"
    assert len(a.results) == 2  # A itself is left as it was


def test_fio_loops_a_small_file_on_a_local_disk_but_not_through_a_network_mount(monkeypatch):
    from nastune.bench import workloads
    from nastune.bench.drivers import fio

    jobs: list[fio.Job] = []

    def run_jobs(target: Target, js: list[fio.Job], direct: bool = True) -> dict:
        jobs.extend(js)
        return {"seqwrite": {"MB/s": 1.0}}

    monkeypatch.setattr(fio, "run_jobs", run_jobs)
    local = Target("path", "/srv", share="/srv")
    mount = Target("path", "/mnt/nas", share="/mnt/nas", via_network=True, link_bps=10**9, mtu=1500)
    for target in (local, mount):
        workloads.WORKLOADS["seq-write"].once(target, {"size": 8 * MiB}, State())
    assert [j.extra for j in jobs] == [{"loops": "64"}, {}]  # 512 MiB on the disk; 8 MiB through the link
