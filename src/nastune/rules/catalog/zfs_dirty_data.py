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
