"""Real clients: the lab's client namespaces reached over SSH from their inventory, exactly as
real client machines are; several at once, fairness, scaling, fio's client/server mode, and
the faults: a hostile share name, a dead client. One lab for the module, one scenario per test,
in this order (the last kills a client)."""

from __future__ import annotations

import json
import statistics
import subprocess

import pytest

from nastune.lab import network
from nastune.remote import inventory
from nastune.ssh import Ssh
from tests.lab.conftest import nastune


@pytest.fixture(scope="module")
def lab3(module_lab_dir):
    nastune(module_lab_dir, "lab", "up", "--scenario", "modern", "--clients", "3")
    return module_lab_dir


def bench_args(out) -> tuple[str, ...]:
    return ("--lab", "--clients", "all", "--size", "24M", "--repeats", "1", "--out", str(out))


def inventory_text(lab3) -> str:
    return nastune(lab3, "lab", "inventory").stdout


def med(metric: dict) -> float:
    return statistics.median(metric["values"])


def results(path) -> list[dict]:
    return json.loads(path.read_text())["results"]


def test_three_clients_answer_over_ssh_as_the_inventory_names_them(lab3):
    status = json.loads(nastune(lab3, "lab", "status", "--json").stdout)["parts"]
    assert {p["part"] for p in status if p["ok"]} >= {"ssh to c1", "ssh to c2", "ssh to c3"}
    inv = inventory.parse(inventory_text(lab3), "lab")
    assert [c.name for c in inv.clients] == ["c1", "c2", "c3"]
    assert inv.nas.data_address == network.NAS_IP
    for host in (inv.nas, *inv.clients):
        # a bash one level below the login shell prints that shell's level: 2, so it read no ~/.bashrc
        probe = Ssh(host).argv(["bash", "-c", "echo $SHLVL; :"])
        assert subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip() == "2", host.name


def test_smb_and_nfs_from_all_three_at_once(lab3, tmp_path):
    out = tmp_path / "together.json"
    args = bench_args(out)
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


def test_scaling_over_one_two_then_three_clients(lab3, tmp_path):
    out = tmp_path / "scaling.json"
    nastune(lab3, "bench", *bench_args(out), "--target", "nfs", "-w", "seq-write", "--scaling")
    assert [r["target"].get("client") for r in results(out)] == ["c1", "c1,c2", "c1,c2,c3"]


def test_fio_s_client_server_mode_on_each_client_s_own_mount(lab3, tmp_path):
    """smbnetfs, a FUSE mount: 8M is enough to see it."""
    out = tmp_path / "mount.json"
    nastune(
        lab3, "bench", *[a if a != "24M" else "8M" for a in bench_args(out)], "--target", "mount", "-w", "seq-write"
    )
    (r,) = results(out)
    assert med(r["metrics"]["MB/s @c3"]) > 0
    assert med(r["metrics"]["fairness"]) > 0


def test_stress_measures_from_c1_idle_then_loaded_by_the_others(lab3, tmp_path):
    out = tmp_path / "stress.json"
    shown = nastune(lab3, "bench", *bench_args(out), "--target", "nfs", "-w", "sync-write", "--stress").stdout
    loaded = json.loads(out.read_text())
    assert loaded["label"].startswith("loaded by c2 ")
    assert "; c3 " in loaded["label"]
    assert results(out.with_name(out.stem + ".idle.json"))[0]["target"]["client"] == "c1"
    assert "times worse" in shown
    assert "sync 4K latency p99" in shown


def test_a_share_name_that_is_shell_syntax_is_refused_when_the_inventory_is_read(lab3, tmp_path):
    flag, out = tmp_path / "pwned", tmp_path / "hostile.json"
    hostile = tmp_path / "hostile.ini"
    hostile.write_text(inventory_text(lab3).replace("nastune_smb_share=data", f"nastune_smb_share='data;touch {flag}'"))
    bench = ("--clients", "c2", "--target", "smb", "-w", "seq-write", "--size", "8M", "--repeats", "1")
    proc = nastune(lab3, "bench", "--inventory", str(hostile), *bench, "--out", str(out), check=False)
    assert proc.returncode == 2
    assert "nastune_smb_share" in proc.stderr
    assert not flag.exists()


def test_the_aged_read_set_through_each_client_tool(lab3, tmp_path):
    """A name with spaces is one name to smbclient, curl and nfs-cp; a file that is not there is
    an error naming it and the client, never 0 MB/s."""
    text, out = inventory_text(lab3), tmp_path / "aged.json"
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


def test_a_dead_client_is_named(lab3, tmp_path):
    """Everything in its namespace killed (the module's last test: the lab goes down after it)."""
    pids = subprocess.run(["ip", "netns", "pids", network.client_ns(3)], capture_output=True, text=True).stdout
    subprocess.run(["kill", "-9", *pids.split()], check=False)
    subprocess.run(["ip", "-n", network.client_ns(3), "link", "set", "mgmt0", "down"], check=True)
    proc = nastune(
        lab3, "bench", *bench_args(tmp_path / "dead.json"), "--target", "smb", "-w", "seq-write", check=False
    )
    assert proc.returncode != 0
    assert "c3" in proc.stderr
    assert "Traceback" not in proc.stderr
