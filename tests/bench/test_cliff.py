"""The write cliff told from a steady write, on per-second courses as a sustained write records
them: a gigabit link's 110 MB/s into a NAS's page cache until its dirty limit fills, then the
disks' 40 MB/s with flush stalls (the sawtooth operators describe), against a NAS whose disks
keep up with the link."""

from __future__ import annotations

from nastune.bench.cliff import course

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
