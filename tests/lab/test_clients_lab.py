"""Real clients: the lab's client namespaces reached over SSH from their inventory, exactly as
real client machines are; several at once, fairness, scaling, fio's client/server mode, and
the faults: a hostile share name, a dead client."""

from __future__ import annotations

import json
import statistics
import subprocess

import pytest

from nastune.lab import network
from nastune.remote import inventory
from tests.lab.conftest import nastune


@pytest.fixture
def lab3(lab_dir):
    nastune(lab_dir, "lab", "up", "--scenario", "modern", "--clients", "3")
    return lab_dir


def med(metric: dict) -> float:
    return statistics.median(metric["values"])


def results(path) -> list[dict]:
    return json.loads(path.read_text())["results"]


def test_three_clients_over_ssh_together_scaling_and_faults(lab3, tmp_path):
    status = json.loads(nastune(lab3, "lab", "status", "--json").stdout)["parts"]
    assert {p["part"] for p in status if p["ok"]} >= {"ssh to c1", "ssh to c2", "ssh to c3"}
    text = nastune(lab3, "lab", "inventory").stdout
    inv = inventory.parse(text, "lab")
    assert [c.name for c in inv.clients] == ["c1", "c2", "c3"]
    assert inv.nas.data_address == network.NAS_IP

    # SMB and NFS writes and reads from all three at once
    out = tmp_path / "together.json"
    args = ("--lab", "--clients", "all", "--size", "24M", "--repeats", "1", "--out", str(out))
    for target in ("smb", "nfs"):
        nastune(lab3, "bench", *args, "--target", target, "-w", "seq-write", "-w", "seq-read")
        for r in results(out):
            assert r["target"]["client"] == "c1,c2,c3"
            assert not r["error"]
            m = r["metrics"]
            assert {"MB/s @c1", "MB/s @c2", "MB/s @c3", "fairness"} <= set(m)
            assert 1 / 3 <= med(m["fairness"]) <= 1.0
            assert med(m["MB/s"]) <= m["MB/s"]["limit"] * 1.01  # the NAS's one link carries them all
            assert not [f for f in m["MB/s"]["flags"] if "above" in f]
            assert all(med(m[f"MB/s @c{i}"]) > 0 for i in (1, 2, 3))

    # scaling: 1, 2, then all 3 clients
    nastune(lab3, "bench", *args, "--target", "nfs", "-w", "seq-write", "--scaling")
    assert [r["target"].get("client") for r in results(out)] == ["c1", "c1,c2", "c1,c2,c3"]

    # fio's client/server mode on each client's own smbnetfs mount (FUSE: 8M is enough to see it)
    nastune(lab3, "bench", *[a if a != "24M" else "8M" for a in args], "--target", "mount", "-w", "seq-write")
    (r,) = results(out)
    assert med(r["metrics"]["MB/s @c3"]) > 0
    assert med(r["metrics"]["fairness"]) > 0

    # stress: c1 measures on the idle NAS, then while c2 and c3 load it
    shown = nastune(lab3, "bench", *args, "--target", "nfs", "-w", "sync-write", "--stress").stdout
    loaded = json.loads(out.read_text())
    assert loaded["label"].startswith("loaded by c2 ")
    assert "; c3 " in loaded["label"]
    assert results(out.with_name(out.stem + ".idle.json"))[0]["target"]["client"] == "c1"
    assert "times worse" in shown
    assert "sync 4K latency p99" in shown

    # a share name that is shell syntax, or smbclient's, is refused when the inventory is read
    flag = tmp_path / "pwned"
    hostile = tmp_path / "hostile.ini"
    hostile.write_text(text.replace("nastune_smb_share=data", f"nastune_smb_share='data;touch {flag}'"))
    bench = ("--clients", "c2", "--target", "smb", "-w", "seq-write", "--size", "8M", "--repeats", "1")
    proc = nastune(lab3, "bench", "--inventory", str(hostile), *bench, "--out", str(out), check=False)
    assert proc.returncode == 2
    assert "nastune_smb_share" in proc.stderr
    assert not flag.exists()

    # the aged-read set through each real client tool: a name with spaces is one name to smbclient,
    # curl and nfs-cp; a file that is not there is an error naming it and the client, never 0 MB/s
    share = lab3 / "mnt" / "share"
    (share / "old files").mkdir()
    (share / "old files" / "a b.bin").write_bytes(b"x" * (1 << 20))
    before = sorted(p.name for p in share.rglob("*"))
    for read_set, good in (("old files/a b.bin:1048576", True), ("old files/gone.bin:1048576", False)):
        listed = tmp_path / "read-set.ini"
        listed.write_text(text.replace("[nas]\nnas ", f"[nas]\nnas nastune_read_set='{read_set}' "))
        for target in ("smb", "nfs", "ftp"):
            read = ("--clients", "c1", "--target", target, "-w", "aged-read", "--repeats", "1", "--out", str(out))
            proc = nastune(lab3, "bench", "--inventory", str(listed), *read, check=False)
            if good:
                assert proc.returncode == 0, proc.stderr
                assert med(results(out)[0]["metrics"]["MB/s"]) > 0
            else:
                assert proc.returncode != 0, (target, proc.stdout)
                assert "gone.bin" in proc.stdout + proc.stderr, proc.stderr
                assert "c1" in proc.stdout + proc.stderr, proc.stderr
    assert sorted(p.name for p in share.rglob("*")) == before  # nothing written by a second command

    # a dead client: everything in its namespace killed; the run names it
    pids = subprocess.run(["ip", "netns", "pids", network.client_ns(3)], capture_output=True, text=True).stdout
    subprocess.run(["kill", "-9", *pids.split()], check=False)
    subprocess.run(["ip", "-n", network.client_ns(3), "link", "set", "mgmt0", "down"], check=True)
    proc = nastune(lab3, "bench", *args, "--target", "smb", "-w", "seq-write", check=False)
    assert proc.returncode != 0
    assert "c3" in proc.stderr
    assert "Traceback" not in proc.stderr
