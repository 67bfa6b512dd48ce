"""A ZFS scenario is data that reaches a shell script the guest runs at its first boot (zpool and
zfs create): every name and property is refused unless it is one word of safe characters, and the
script the seed writes makes the pool and datasets as the scenario says."""

from __future__ import annotations

import pytest

from nastune.errors import UsageError
from nastune.lab import scenario
from nastune.lab.guest import seed


def _zfs(**zfs) -> dict:
    return {"zfs": {"datasets": [{"name": "home", "data": True}], **zfs}}


@pytest.mark.parametrize(
    "storage",
    [
        _zfs(pool="tank; reboot"),
        _zfs(properties={"atime": "off\nzpool destroy tank"}),
        _zfs(datasets=[{"name": "home", "data": True, "properties": {"sync": "always $(id)"}}]),
        _zfs(datasets=[{"name": "../etc", "data": True}]),
        _zfs(datasets=[{"name": "a"}, {"name": "b"}]),  # no measured share
        _zfs(disk_size="lots"),
    ],
)
def test_a_hostile_or_broken_zfs_scenario_is_refused_naming_the_field(storage):
    with pytest.raises(UsageError, match="zfs"):
        scenario.load("zfs", storage=storage)


def test_the_first_boot_makes_the_pool_and_datasets_as_the_scenario_says():
    built = seed.storage(scenario.load("zfs"), "nastune").splitlines()
    assert built[2] == (
        "zpool create -f -o ashift=12 tank raidz /dev/disk/by-id/virtio-nastune-d0 "
        "/dev/disk/by-id/virtio-nastune-d1 /dev/disk/by-id/virtio-nastune-d2"
    )
    assert "zfs create -o sync=always -o xattr=dir -o mountpoint=/srv/data tank/home" in built
    assert "chown nastune /tank/media" in built and "mount -a -t xfs" not in built
    assert seed.storage(scenario.load("kernel"), "nastune").splitlines()[0] == "mount -a -t xfs"


def test_a_site_s_tuned_profile_is_seeded_active_and_refused_when_hostile():
    """TuneD's profile and sysctls reach files the guest copies in and a shell script reads."""
    files = seed.tuned(scenario.load("kernel").guest.tuned)
    assert files["root/etc/tuned/site-nas/tuned.conf"].endswith("[sysctl]\nnet.ipv4.tcp_notsent_lowat=16384\n")
    assert (files["root/etc/tuned/active_profile"], files["tuned"]) == ("site-nas\n", "0")
    assert seed.tuned(scenario.load("kernel-cliff").guest.tuned) == {}  # TuneD installed, not running
    for hostile in ({"profile": "../etc"}, {"sysctl": {"kernel.x\n[main]": 1}}, {"sysctl": {"vm.x": "1; reboot"}}):
        with pytest.raises(UsageError, match="tuned"):
            scenario.load("kernel", guest={"tuned": hostile})
