"""Golden tests: the real CLI on each fixture system, compared with its recorded JSON.

NASTUNE_UPDATE_GOLDEN=1 rewrites the golden files after an intended change."""

from __future__ import annotations

import pytest

from tests.conftest import ROOTS, assert_golden, cli_json, run_cli
from tests.report.test_report import result_set

# debian12-vm, lab-soho, lab-modern and zfs-kernel-lab are captured from real machines (`nastune
# capture`; the lab's nas host captured inside its namespace; the kernel lab's ZFS guest, OpenZFS 2.3,
# as `lab up --kernel --scenario zfs` makes it); the others are hand-made (tests/fixtures/make_roots.py).
SYSTEMS = [
    "debian12-vm",
    "lab-soho",
    "lab-modern",
    "two-socket-numa",
    "small-nas-raid5",
    "nfs-client-small-rsize",
    "zfs-vm-store",
    "zfs-kernel-lab",
]


@pytest.mark.parametrize("system", SYSTEMS)
def test_inspect_json_matches_golden(system):
    assert_golden(f"inspect-{system}", cli_json("inspect", "--root", str(ROOTS / f"{system}.tar.gz"), "--json"))


@pytest.mark.parametrize("system", SYSTEMS)
def test_inspect_tables_render(system):
    out = run_cli("inspect", "--root", str(ROOTS / f"{system}.tar.gz")).stdout
    assert "System" in out
    assert "Kernel tunables" in out


def test_two_socket_story_is_visible_in_the_facts():
    facts = cli_json(
        "inspect", "--root", str(ROOTS / "two-socket-numa.tar.gz"), "--json", "--area", "network", "--area", "system"
    )
    nic = next(i for i in facts["network"]["interfaces"] if i["name"] == "ens1f0")
    assert nic["numa_node"]["value"] == 1
    assert nic["local_cpus"]["value"] == list(range(8, 16))
    assert {tuple(irq["affinity"]["value"]) for irq in nic["irqs"]} == {tuple(range(8))}
    assert facts["system"]["irqbalance_running"]["value"] is False
    assert [n["cpus"]["value"] for n in facts["system"]["numa_nodes"]] == [list(range(8)), list(range(8, 16))]


def test_small_nas_story_is_visible_in_the_facts():
    facts = cli_json("inspect", "--root", str(ROOTS / "small-nas-raid5.tar.gz"), "--json")
    md = {a["name"]: a for a in facts["md"]["arrays"]}
    assert md["md0"]["sysfs"]["stripe_cache_size"]["value"] == "256"
    assert md["md1"]["degraded"] is True
    assert md["md1"]["sync_action"] == "recovery"
    assert facts["kernel_log"]["page_allocation_failures"] == {"value": 2, "source": "/var/log/kern.log"}
    smb = facts["smb"]["config"]["value"]
    assert smb["resolved"] is False
    assert smb["globals"]["aio read size"] == "0"
    assert [e["path"] for e in facts["nfs_server"]["exports"]["value"]] == ["/srv/data", "/srv/backup"]
    assert facts["nfs_server"]["nfsd_threads"]["value"] == 8


def test_nfs_client_story_is_visible_in_the_facts():
    facts = cli_json("inspect", "--root", str(ROOTS / "nfs-client-small-rsize.tar.gz"), "--json", "--area", "nfs")
    mount = facts["nfs_client"]["mounts"]["value"][0]
    assert (mount["version"], mount["rsize"], mount["wsize"], mount["proto"]) == ("3", 8192, 8192, "tcp")
    assert mount["ops"]["WRITE"]["ops"] == 655360


def test_bad_root_is_a_clear_error():
    proc = run_cli("inspect", "--root", "/nonexistent/root", check=False)
    assert proc.returncode == 2
    assert "/nonexistent/root: no such directory or snapshot archive" in proc.stderr
    proc = run_cli("inspect", "--area", "disks", check=False)
    assert proc.returncode == 2
    assert "unknown area 'disks'" in proc.stderr


def test_corrupt_snapshot_archive_is_a_clear_error(tmp_path):
    bad = tmp_path / "snap.tar.gz"
    bad.write_bytes(b"\x1f\x8b not really gzip")
    proc = run_cli("inspect", "--root", str(bad), check=False)
    assert proc.returncode == 2
    assert "not a snapshot archive: give a directory or a .tar.gz" in proc.stderr
    assert "method gz" not in proc.stderr
    assert "ReadError" not in proc.stderr  # tarfile's internals stay inside


def test_a_json_file_given_for_a_snapshot_or_for_facts_is_named_for_what_it_is(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text('{"schema": "nastune.plan/1", "lab": true, "changes": []}')
    proc = run_cli("diagnose", "--root", str(plan), check=False)
    assert proc.returncode == 2
    assert "(it is a nastune.plan/1 file)" in proc.stderr
    result = tmp_path / "results.json"
    result_set("before", 1.0).save(result)
    for option in ("--facts", "--findings"):
        proc = run_cli("report", str(result), option, str(plan), "--out", str(tmp_path / "r.html"), check=False)
        assert proc.returncode == 2, (option, proc.stderr)
        assert "it is a nastune.plan/1 file" in proc.stderr, (option, proc.stderr)
        assert not (tmp_path / "r.html").exists()
