"""# zfs-dirty-data: ZFS dirty data limit far above what the pool writes in seconds

## Problem
ZFS does not buffer writes in the page cache, so `vm.dirty_ratio` does not govern them: it
gathers them in memory up to `zfs_dirty_data_max` (10% of RAM by default, up to 4 GiB) and
writes them out as transaction groups, every `zfs_txg_timeout` seconds (5) or sooner when enough
is dirty. Past 60% of the limit it delays each write, and at the limit it halts them until a
group is written. A limit that the pool takes far longer than a few seconds to write lets a
client's copy run at the link's rate until memory is full, then crawl or stop while
gigabytes are written: "fast, then slow".

## Detection
A measured sustained write (a `sustained-write` run of `bench` or `optimize`, given with
`--profile`) whose rate after the burst, against `zfs_dirty_data_max`
(/sys/module/zfs/parameters), means more than 10 s of the pool's writes, on a NAS whose shared
data lies on ZFS datasets. Without a measured run the rule says nothing: nothing in /proc or /sys
tells how fast the pool writes.

## Fix
`sysfs` /sys/module/zfs/parameters/zfs_dirty_data_max = about 5 s of the measured rate (at
least 64 MiB); `--persist` keeps it as `options zfs zfs_dirty_data_max=N` in
/etc/modprobe.d/zfs.conf, where OpenZFS reads it when the module loads.

## Trade-off
Less absorbed at the link's rate: a burst that fitted in memory waits for the pool sooner.
Asynchronous data not yet written is lost on a power failure either way; sync writes are not
affected.

## Source
OpenZFS documentation, "Module Parameters" (zfs_dirty_data_max, zfs_dirty_data_max_percent,
zfs_delay_min_dirty_percent, zfs_txg_timeout) and "ZFS Transaction Delay",
https://openzfs.github.io/openzfs-docs/Performance%20and%20Tuning/Module%20Parameters.html.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.catalog.vm_dirty_writeback import BUFFER_S, FLUSH_S
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import human, present, served_datasets

PARAMETER = "/sys/module/zfs/parameters/zfs_dirty_data_max"
FLOOR = 64 << 20  # below this a transaction group holds too little to write in large, ordered I/O


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    zfs = present(facts.zfs)
    measured = facts.write_course.known_value if facts.write_course else None
    parameters = zfs.parameters.value if zfs.parameters.known else None
    limit = (parameters or {}).get("zfs_dirty_data_max")
    if measured is None or measured.sustained_mbs <= 0 or not limit or not served_datasets(facts):
        return
    rate = measured.sustained_mbs * 1e6
    wanted = max(FLOOR, int(rate * BUFFER_S))
    if limit / rate <= FLUSH_S or wanted >= limit:
        return
    timeout = (parameters or {}).get("zfs_txg_timeout")
    yield rule.finding(
        target="zfs_dirty_data_max",
        impact=15,
        message=f"ZFS lets writers dirty {human(limit)} before it halts them, which the pool takes "
        f"{limit / rate:.0f} s to write at the {measured.sustained_mbs:.0f} MB/s it sustained ({measured.said()}): "
        f"fast, then slow. A limit of about {BUFFER_S} s of the pool's "
        f"writes ({human(wanted)}) throttles the writers smoothly from the start instead.",
        evidence=[
            Evidence(fact="zfs_dirty_data_max", value=limit, source=zfs.parameters.source),
            Evidence(fact="zfs_txg_timeout (s)", value=timeout, source=zfs.parameters.source),
            Evidence.of("the pool's sustained write", present(facts.write_course)),
        ],
        changes=[Change(knob="sysfs", target=PARAMETER, current=limit, new=wanted)],
    )


RULE = Rule(
    id="zfs-dirty-data",
    title="ZFS dirty data limit far above what the pool writes in seconds",
    area="zfs",
    severity=Severity.medium,
    check=check,
    needs=("zfs",),
    path="write",
    gain="Writes at the pool's own rate from the first second instead of a burst at the link's rate "
    "followed by seconds at a standstill while transaction groups of gigabytes are written out.",
    tradeoff="Less data absorbed at the link's rate: a short burst that fitted in memory now waits for "
    "the pool sooner. Data not yet written is lost on power failure either way (sync writes excepted).",
    source='OpenZFS documentation, "Module Parameters: zfs_dirty_data_max, zfs_txg_timeout" and '
    '"ZFS Transaction Delay", https://openzfs.github.io/openzfs-docs/Performance%20and%20Tuning/'
    "Module%20Parameters.html",
)
