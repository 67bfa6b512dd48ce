"""A pool's layout as `zpool status -P -L` prints it, read off OpenZFS 2.3 in the kernel lab's
guest (a raidz of three disks; a log device added), and with the other roles a small NAS has."""

from __future__ import annotations

from nastune.facts import zfs

STATUS = """  pool: tank
 state: ONLINE
config:

\tNAME           STATE     READ WRITE CKSUM
\ttank           ONLINE       0     0     0
\t  raidz1-0     ONLINE       0     0     0
\t    /dev/vdb1  ONLINE       0     0     0
\t    /dev/vdc1  ONLINE       0     0     0
\t    /dev/vdd1  ONLINE       0     0     0
\tlogs\t
\t  /dev/vde1    ONLINE       0     0     0

errors: No known data errors

  pool: fast
 state: DEGRADED
config:

\tNAME           STATE     READ WRITE CKSUM
\tfast           DEGRADED     0     0     0
\t  mirror-0     DEGRADED     0     0     0
\t    /dev/sda1  ONLINE       0     0     0
\t    /dev/sdb1  FAULTED      3     0     0  too many errors
\tspecial\t
\t  mirror-1     ONLINE       0     0     0
\t    /dev/nvme0n1p1  ONLINE       0     0     0
\t    /dev/nvme1n1p1  ONLINE       0     0     0
\tcache
\t  /dev/nvme2n1p1  ONLINE       0     0     0
"""


def test_each_pools_top_level_vdevs_with_their_role_and_devices():
    found = zfs.status(STATUS)
    assert [(v.kind, v.role, v.devices, v.state) for v in found["tank"]] == [
        ("raidz1", "data", ["/dev/vdb1", "/dev/vdc1", "/dev/vdd1"], "ONLINE"),
        ("disk", "log", ["/dev/vde1"], "ONLINE"),
    ]
    assert [(v.kind, v.role, len(v.devices), v.state) for v in found["fast"]] == [
        ("mirror", "data", 2, "DEGRADED"),
        ("mirror", "special", 2, "ONLINE"),
        ("disk", "cache", 1, "ONLINE"),
    ]


def test_versions_compare_by_major_and_minor():
    assert zfs.at_least("2.3.2-2~bpo12+2", 2, 3)
    assert zfs.at_least("2.2.0", 2, 2) and not zfs.at_least("2.1.11-1", 2, 2)
    assert not zfs.at_least(None, 2, 2) and not zfs.at_least("unknown", 0, 0)


def test_arc_hit_rate_from_its_counters():
    arc = zfs.arcstats("x\nname type data\nhits 4 90\nmisses 4 10\nsize 4 5\nc_max 4 6\n")
    assert arc.hit_rate == 0.9
    assert zfs.arcstats("x\nname type data\nsize 4 5\nc_max 4 6\n").hit_rate is None
