"""A kernel module's parameter persisted where the module reads it at load (modprobe.d): changed
in the file that sets it already, else added to the module's own file; nothing else touched."""

from __future__ import annotations

from nastune.tune import modprobe

ZFS_CONF = "# ARC for a 16 GiB NAS\noptions zfs zfs_arc_max=8589934592 zfs_txg_timeout=10  # flush\noptions spl x=1\n"


def test_the_line_that_sets_it_is_changed_in_place():
    got = modprobe.with_option(ZFS_CONF, "zfs", "zfs_arc_max", 4294967296)
    assert got.splitlines() == [
        "# ARC for a 16 GiB NAS",
        "options zfs zfs_arc_max=4294967296 zfs_txg_timeout=10 # flush",
        "options spl x=1",
    ]
    assert modprobe.sets(got, "zfs", "zfs_txg_timeout") and not modprobe.sets(got, "spl", "zfs_arc_max")


def test_a_parameter_no_line_sets_is_added_at_the_end():
    assert modprobe.with_option("options zfs zfs_txg_timeout=10", "zfs", "zfs_arc_max", 1) == (
        "options zfs zfs_txg_timeout=10\noptions zfs zfs_arc_max=1\n"
    )
    assert modprobe.with_option("", "zfs", "zfs_arc_max", 1) == "options zfs zfs_arc_max=1\n"
    assert not modprobe.sets("# options zfs zfs_arc_max=1\n", "zfs", "zfs_arc_max")  # a comment sets nothing
