"""The dirty-data limit against what the disks sustained in a measured write (a sustained-write
run given to diagnose with --profile): a limit the disks take far longer than a few seconds to
write out is the write cliff's cause, and the change sizes it to about five seconds of their
writes; disks that keep up, or no measured run, leave the rule as the RAM's size alone decides."""

from __future__ import annotations

import json

from nastune import rules
from nastune.bench.results import MetricResult, WorkloadResult
from nastune.facts.write_course import WriteCourse
from tests.conftest import ROOTS, cli_json, need
from tests.report.test_report import result_set
from tests.rules import kit
from tests.rules.kit import F, nas, sysctl

SLOW = WriteCourse(where="sustained-write @ c1:/mnt/nfs", sustained_mbs=20.0, burst_mb=310.0, burst_mbs=108.0,
                   worst_mbs=4.8, stalls=3)  # fmt: skip


def _dirty(course: WriteCourse | None, **values):
    facts = sysctl(nas(), **{"vm__dirty_ratio": 20, "vm__dirty_background_ratio": 10, **values})
    facts.write_course = F(course) if course else None
    return [f for f in rules.evaluate(facts) if f.rule == "vm-dirty-writeback"], facts


def test_a_limit_the_disks_take_long_to_write_is_sized_from_their_rate():
    found, facts = _dirty(SLOW)
    (finding,) = found
    memory = need(need(facts.system).memory_bytes.value)
    share = max(1, int(20e6 * 5) * 100 // memory)
    assert [(c.target, c.current, c.new) for c in finding.changes] == [
        ("vm.dirty_ratio", 20, share),
        ("vm.dirty_background_ratio", 10, max(1, share // 2)),
    ]
    assert "20 MB/s they sustained" in finding.message and "fast, then slow" in finding.message
    assert "the disks' sustained write" in [e.fact for e in finding.evidence]


def test_a_limit_in_bytes_is_changed_in_bytes():
    (finding,) = _dirty(SLOW, vm__dirty_bytes=2 << 30, vm__dirty_background_bytes=1 << 30)[0]
    assert [(c.target, c.new) for c in finding.changes] == [
        ("vm.dirty_bytes", 100_000_000),
        ("vm.dirty_background_bytes", 50_000_000),
    ]


def test_disks_that_keep_up_or_no_measured_run_leave_it_to_the_ram_s_size():
    fast = SLOW.model_copy(update={"sustained_mbs": 2000.0})
    assert _dirty(fast)[0] == []  # the limit flushes in well under a second
    assert _dirty(None)[0] == []  # unmeasured, 20% of a small NAS's RAM: as before, nothing to say
    (guessed,) = _dirty(None, vm__dirty_ratio=40)[0]  # unmeasured: the RAM's size decides, as before
    assert guessed.message.startswith("Writers may dirty 40% of RAM") and "sustained" not in guessed.message


def test_diagnose_reads_the_disks_rate_from_a_sustained_write_run(tmp_path):
    run = result_set("before", 1.0)
    course = [110.0, 109.0, 111.0, 30.0, 0.0, 21.0, 20.0, 0.5, 19.0, 20.0]
    metrics = {"sustained MB/s": 20.0, "burst MB": 330.0, "burst MB/s": 110.0, "worst 5 s MB/s": 8.1, "MB/s": 40.0}
    run.results = [
        WorkloadResult(
            workload="sustained-write", target={"url": "c1:/mnt/nfs"}, params={}, started="", seconds=60,
            metrics={k: MetricResult(unit="MB" if k == "burst MB" else "MB/s", values=[v]) for k, v in metrics.items()},
            course=[course],
        )
    ]  # fmt: skip
    profile = tmp_path / "sustained.json"
    profile.write_text(run.model_dump_json(by_alias=True))
    root = str(ROOTS / "small-nas-raid5.tar.gz")
    found = cli_json("diagnose", "--root", root, "--only", "vm-dirty-writeback", "--profile", str(profile), "--json")
    (finding,) = found["findings"]
    assert "the 20 MB/s they sustained (sustained-write @ c1:/mnt/nfs" in finding["message"]
    assert "2 s of stalls" in finding["message"]  # the 0 and the 0.5 of its course
    assert json.dumps(finding).count("measured: sustained-write, 1 repeats") == 1


def _on_zfs(dirty_max: int, course: WriteCourse | None = SLOW):
    facts = kit.zfs({})
    need(facts.zfs).parameters = F(
        {"zfs_dirty_data_max": dirty_max, "zfs_txg_timeout": 5}, "/sys/module/zfs/parameters"
    )
    mounts = need(need(facts.mounts).mounts.value)
    for mount in mounts:  # each share a dataset of its own, as on a ZFS NAS
        if mount.mountpoint in ("/srv/data", "/srv/backup"):
            mount.device, mount.fstype = f"tank/{mount.mountpoint[5:]}", "zfs"
    facts = sysctl(facts, vm__dirty_ratio=20, vm__dirty_background_ratio=10)
    facts.write_course = F(course) if course else None
    found = rules.evaluate(facts)
    return [f for f in found if f.rule == "zfs-dirty-data"], [f for f in found if f.rule == "vm-dirty-writeback"]


def test_on_zfs_its_own_dirty_limit_is_sized_from_the_pool_s_rate_not_the_page_cache_s():
    zfs, vm = _on_zfs(4 << 30)  # 4 GiB: 215 s of a pool that sustains 20 MB/s
    (finding,) = zfs
    assert [(c.knob, c.target, c.current, c.new) for c in finding.changes] == [
        ("sysfs", "/sys/module/zfs/parameters/zfs_dirty_data_max", 4 << 30, 100_000_000)
    ]
    assert "215 s to write at the 20 MB/s it sustained" in finding.message and "fast, then slow" in finding.message
    assert vm == []  # ZFS writes bypass vm.dirty_*: changing them would prove nothing
    assert _on_zfs(150 << 20)[0] == []  # 8 s of the pool's writes: within what it flushes smoothly
    assert _on_zfs(4 << 30, None)[0] == []  # no measured run: nothing tells the pool's rate
