"""The write cliff told from a steady write, on per-second courses as a sustained write records
them: a gigabit link's 110 MB/s into a NAS's page cache until its dirty limit fills, then the
disks' 40 MB/s with flush stalls (the sawtooth operators describe), against a NAS whose disks
keep up with the link; and how long a sustained write must be to get past the NAS's limit."""

from __future__ import annotations

from nastune.bench import sustained
from nastune.bench.cliff import course, sent_rates
from nastune.bench.params import DEFAULTS
from nastune.bench.workload_base import MiB
from tests.conftest import need
from tests.rules.kit import F, nas, sysctl, zfs

CLIFF = [112.0, 111.0, 110.0, 112.0, 109.0, 111.0, 38.0, 41.0, 0.0, 0.0, 62.0, 40.0, 39.0, 0.5, 44.0, 40.0]
STEADY = [108.0, 110.0, 109.0, 111.0, 110.0, 108.0, 109.0, 112.0, 110.0, 109.0, 110.0, 111.0]


def test_a_burst_then_the_disks_rate_with_stalls_is_a_cliff():
    found = course(CLIFF)
    assert found.cliff
    assert found.burst_mb == 665.0 and found.burst_rate == 110.8  # six seconds at the link's rate
    assert found.sustained_rate == 39.5 and found.stalls == 3  # the zero seconds and the 0.5
    assert found.worst == 28.2  # 38, 41, 0, 0, 62: a stretch with the stalls in it


def test_a_write_the_disks_keep_up_with_is_no_cliff():
    found = course(STEADY)
    assert not found.cliff and found.stalls == 0 and found.worst > 100
    assert found.sustained_rate >= 108.0


def test_no_course_says_nothing():
    assert course([]).seconds == 0 and not course([]).cliff


def test_a_sustained_write_is_sized_three_times_past_the_nas_s_write_back_limit():
    """From the NAS's facts: 3 x its page cache's limit (dirty_ratio of its memory, or dirty_bytes),
    or ZFS's zfs_dirty_data_max where that is larger; the default where neither is known or the
    workload is not measured."""
    said: list[str] = []
    facts = sysctl(nas(), vm__dirty_ratio=20)
    memory = need(need(facts.system).memory_bytes.value)
    sized = sustained.past_cache(["sustained-write"], DEFAULTS, facts, said.append)
    assert sized["sustained_bytes"] == 3 * (memory * 20 // 100) // MiB * MiB and "3 times" in said[0]
    bytes_set = sysctl(nas(), vm__dirty_bytes=100 << 20)
    assert sustained.past_cache(["sustained-write"], DEFAULTS, bytes_set, said.append)["sustained_bytes"] == 300 << 20
    on_zfs = zfs({})
    need(on_zfs.zfs).parameters = F({"zfs_dirty_data_max": 4 << 30}, "/sys/module/zfs/parameters")
    assert sustained.past_cache(["sustained-write"], DEFAULTS, on_zfs, said.append)["sustained_bytes"] == 12 << 30
    assert sustained.past_cache(["seq-write"], DEFAULTS, facts, said.append) is DEFAULTS
    assert len(said) == 3


def _sent(rates: list[float], overhead: float = 1.05, start: int = 7_000_000) -> list[tuple[float, int]]:
    """What the client's bytes sent read each second while it uploaded at `rates` (MB/s), the
    protocol's headers adding `overhead`."""
    samples, total = [(100.0, start)], float(start)
    for second, rate in enumerate(rates, start=1):
        total += rate * 1e6 * overhead
        samples.append((100.0 + second, int(total)))
    return samples


def test_an_upload_s_course_comes_from_the_client_s_sent_bytes_without_its_headers():
    size = int(sum(CLIFF) * 1e6)
    rates = sent_rates(_sent(CLIFF), size)
    assert [round(r, 1) for r in rates] == CLIFF  # each second's share of the file, not of the wire
    assert course(rates).cliff and not course(sent_rates(_sent(STEADY), int(sum(STEADY) * 1e6))).cliff


def test_the_last_part_of_a_second_joins_the_second_before_it():
    sent = [*_sent([100.0, 100.0], overhead=1.0), (102.3, 7_000_000 + 230_000_000)]
    assert [round(r) for r in sent_rates(sent, 230_000_000)] == [100, 100]  # 30 MB in 0.3 s: 130 in 1.3 s
    late = [*sent[:-1], (102.6, 7_000_000 + 230_000_000)]
    assert [round(r, 1) for r in sent_rates(late, 230_000_000)] == [100.0, 81.3]  # 130 MB in 1.6 s, never more
    jittered = [(100.0, 0), (100.6, 60_000_000), (101.9, 190_000_000), (102.5, 250_000_000)]
    assert [round(r) for r in sent_rates(jittered, 250_000_000)] == [100, 100]  # read between the reads
    assert sent_rates([(1.0, 5), (2.0, 5)], 1) == []  # nothing sent: no course to read
