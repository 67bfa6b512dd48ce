"""The kernel lab's ZFS NAS (`--scenario zfs`): OpenZFS 2.3 on the guest's real kernel, a raidz
of three throttled disks, datasets as OpenZFS, an operator and TrueNAS SCALE make them. One guest
for the module, brought up by `optimize --lab --kernel --scenario zfs` as an operator's first run
would; taken down at the end. Where OpenZFS cannot be had (no contrib or backports reachable),
the module is skipped with lab up's own line."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from nastune.lab.sh import run
from nastune.remote import inventory
from nastune.sites.lab.kernel import KernelLab
from nastune.ssh import Ssh
from tests.lab.conftest import nastune
from tests.tune.conftest import write_plan

pytestmark = pytest.mark.guest  # one guest at a time, beside the namespace lab (scripts/test)

RULES = ("zfs-sync-always", "zfs-xattr-dir", "zfs-atime", "zfs-recordsize")
QUIET = ("zfs-compression-off", "zfs-arc-max", "zfs-dedup-ram")  # OpenZFS 2.3's defaults already do
ARC_MAX = "/sys/module/zfs/parameters/zfs_arc_max"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("the kernel lab needs root")
    directory = tmp_path_factory.mktemp("zfs-lab")
    env = {"NASTUNE_KERNEL_LAB_DIR": str(directory / "lab")}
    only = [arg for rule in (*RULES, *QUIET) for arg in ("--only", rule)]
    # the write alone (what sync=always costs; the read would prove the same zfs set again, at
    # the emulated guest's expense)
    out = str(directory / "out")
    options = ("-w", "seq-write", "--repeats", "2", "--max-pairs", "3", "--size", "8M", "--json", "--out", out)
    argv = ("optimize", "--lab", "--kernel", "--scenario", "zfs", "--yes", "--accept-risk", "durability")
    try:
        done = nastune(directory / "netns", *argv, *only, *options, env=env, timeout=1800, check=False)
        missing = [line for line in done.stderr.splitlines() if "OpenZFS could not be installed" in line]
        if missing:
            pytest.skip(missing[0])
        guest = KernelLab(directory / "lab")
        if done.returncode not in (0, 1) or not guest.inventory_path.exists():
            pytest.fail(f"optimize --scenario zfs exited {done.returncode}:\n{done.stderr[-4000:]}")
        yield guest, done, directory
    finally:
        nastune(directory / "netns", "lab", "down", env=env, check=False)


def _nas(guest: KernelLab) -> Ssh:
    return Ssh(inventory.load(guest.inventory_path).nas)


def _on_nas(guest: KernelLab, *argv: str) -> str:
    return run(_nas(guest).argv(list(argv))).stdout


# The pool's space accounting: statistics that move by themselves as ZFS writes its own metadata
# (a property change is a write too: a CI run saw tank's `used` go from 1.12M to 1.10M across an
# apply and its rollback), not properties a rollback restores
SPACE = {"used", "available", "referenced", "compressratio", "refcompressratio", "written", "logicalused",
         "logicalreferenced", "usedbysnapshots", "usedbydataset", "usedbychildren", "usedbyrefreservation"}  # fmt: skip


def _all(guest: KernelLab) -> str:
    """Every property of every dataset, value and source (its space statistics left out), once
    the pool has written what it holds in memory and freed what the measurements deleted."""
    for _ in range(60):
        _on_nas(guest, "zpool", "sync", "tank")
        if _on_nas(guest, "zpool", "get", "-H", "-p", "-o", "value", "freeing", "tank").strip() == "0":
            break
        time.sleep(1)
    got = _on_nas(guest, "zfs", "get", "-H", "-r", "-o", "name,property,value,source", "all", "tank")
    return "".join(line for line in got.splitlines(keepends=True) if line.split("\t")[1] not in SPACE)


def test_optimize_finds_applies_and_judges_the_zfs_rules(lab):
    """At least four ZFS rules fire on the datasets as shipped, are quiet where OpenZFS 2.3's
    defaults (lz4, xattr=sa, its ARC ceiling) or TrueNAS's options already hold, and optimize
    applies their changes with zfs set and judges them with an interval each."""
    guest, done, directory = lab
    planned = json.loads((directory / "out/plan.json").read_text())["changes"]
    found = {c["rule"] for c in planned}
    assert set(RULES) <= found and not found & set(QUIET), found
    assert not [c for c in planned if c["target"] == "tank/share"]  # TrueNAS's dataset: nothing to do
    assert ("tank/home", "xattr", "dir", "sa") in [(c["target"], c.get("key"), c["current"], c["new"]) for c in planned]
    summary = json.loads(done.stdout)
    if not summary["withheld"]:
        assert _on_nas(guest, "zfs", "get", "-H", "-o", "value,source", "sync", "tank/home").split() == [
            "standard",
            "local",
        ]
    rows = summary["interleaved"]["rows"]
    judged = {(r["workload"], r["target"]) for r in rows} | {
        tuple(m.split(" MB/s")[0].split(" @ ")) for m in summary["interleaved"]["refused"]
    }
    assert judged == {("seq-write", "c1:/mnt/nfs")}
    assert all(len(r["change_ci"]) == 2 and r["verdict"] in ("better", "worse", "~") for r in rows)


def test_a_rollback_leaves_every_property_as_it_was_with_its_source(lab, tmp_path):
    """`zfs get all`, value and source, byte for byte: an inherited or default property comes
    back inherited (`zfs inherit`), not set locally to the same value. Applied and rolled back
    with --lab, which means the kernel lab when it is the one lab up."""
    guest, done, directory = lab
    env = {"NASTUNE_KERNEL_LAB_DIR": str(guest.dir)}
    if not json.loads(done.stdout)["withheld"]:
        nastune(tmp_path, "rollback", "--lab", env=env)  # optimize left its settings applied
    before = _all(guest)
    assert "tank/home\tatime\ton\tdefault" in before and "tank/home\tsync\talways\tlocal" in before
    settings = str(directory / "out/settings.json")
    nastune(tmp_path, "apply", settings, "--lab", "--yes", "--accept-risk", "durability", env=env)
    applied = _all(guest)
    assert "tank/home\tatime\toff\tlocal" in applied and "tank/vm\trecordsize\t64K\tlocal" in applied
    nastune(tmp_path, "rollback", "--lab", env=env)
    assert _all(guest) == before


def test_inspect_reads_the_pool_its_vdevs_each_property_s_source_and_the_arc(lab, tmp_path):
    """--lab means the kernel lab when it is the one lab up (no namespace lab in this test's
    directory), as `lab inventory` does without --kernel."""
    guest, _, _ = lab
    env = {"NASTUNE_KERNEL_LAB_DIR": str(guest.dir)}
    printed = nastune(tmp_path, "lab", "inventory", env=env).stdout
    assert printed == guest.inventory_path.read_text()
    facts = json.loads(nastune(tmp_path, "inspect", "--lab", "--json", env=env).stdout)
    zfs = facts["zfs"]
    (pool,) = zfs["pools"]["value"]
    assert pool["name"] == "tank" and pool["health"] == "ONLINE"
    assert [(v["kind"], v["role"], len(v["devices"])) for v in pool["vdevs"]] == [("raidz1", "data", 3)]
    home = next(d for d in zfs["datasets"]["value"] if d["name"] == "tank/home")
    assert home["sources"]["sync"] == "local" and home["sources"]["atime"] == "default"
    assert zfs["arc"]["value"]["version"].startswith("2.3") and zfs["arc"]["value"]["hits"] is not None
    assert "zfs_txg_timeout" in zfs["parameters"]["value"]
    shown = nastune(guest.dir, "inspect", "--inventory", str(guest.inventory_path)).stdout
    assert "data raidz1 of 3" in shown and "OpenZFS 2.3" in shown


def test_a_persisted_arc_ceiling_is_read_back_after_a_reboot(lab, tmp_path):
    """zfs_arc_max persisted where OpenZFS reads it when the module loads (modprobe.d), not by a
    unit that writes sysfs after the pool imported; one reboot reads it back; rollback takes the
    line away and puts the default back."""
    guest, _, _ = lab
    inv = str(guest.inventory_path)
    ceiling = 512 << 20
    plan = write_plan(tmp_path, [{"knob": "sysfs", "target": ARC_MAX, "new": ceiling}])
    nastune(guest.dir, "apply", str(plan), "--inventory", inv, "--yes", "--persist")
    assert f"options zfs zfs_arc_max={ceiling}" in _on_nas(guest, "cat", "/etc/modprobe.d/zfs.conf")
    assert not _on_nas(guest, "ls", "/etc/systemd/system").count("nastune-reapply")
    logged: list[str] = []
    guest.reboot(log=logged.append)
    assert _on_nas(guest, "cat", ARC_MAX).strip() == str(ceiling)
    nastune(guest.dir, "rollback", "--inventory", inv)
    assert _on_nas(guest, "cat", ARC_MAX).strip() == "0"
    gone = subprocess.run(_nas(guest).argv(["test", "-e", "/etc/modprobe.d/zfs.conf"]), check=False)
    assert gone.returncode != 0  # the file persist made is removed, as it was before
    assert Path(guest.dir).exists()
