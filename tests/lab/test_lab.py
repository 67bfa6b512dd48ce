"""The lab for real: each scenario up, files through SMB, NFSv3 and FTP checked on the nas side,
the shaping measured, and nothing left after down, also when `up` is killed part-way."""

from __future__ import annotations

import json
import os
import signal

import pytest

from nastune.bench.targets import goodput_bytes
from nastune.lab import network, scenario
from tests.lab.conftest import iperf3_from, leftovers, nastune, sha256, status

SIZE = 16 << 20


@pytest.mark.parametrize("scenario", ["soho", "modern"])
def test_scenario_serves_files_over_every_protocol_within_the_shaped_rate(lab_dir, tmp_path, scenario):
    nastune(lab_dir, "lab", "up", "--scenario", scenario)
    assert all(p["ok"] for p in status(lab_dir)), status(lab_dir)
    source = tmp_path / "payload.bin"
    source.write_bytes(os.urandom(SIZE))
    share, logins = lab_dir / "mnt" / "share", lab_dir / "credentials"
    client = lambda *argv, check=True: nastune(lab_dir, "lab", "exec", "client", "--", *argv, check=check)
    # its shares need a login, as a NAS's do: a guest and an anonymous user are refused
    guest = client("smbclient", "-N", "//10.77.0.1/data", "-c", "ls", check=False)
    assert "NT_STATUS_ACCESS_DENIED" in guest.stdout + guest.stderr
    assert "(67) Access denied: 530" in client("curl", "-sS", "ftp://10.77.0.1/pub/", check=False).stderr
    client("smbclient", "-A", str(logins / "smb"), "//10.77.0.1/data", "-c", f"put {source} via-smb.bin")
    client("nfs-cp", str(source), "nfs://10.77.0.1/data/via-nfs.bin")
    client("curl", "-sS", "--netrc-file", str(logins / "ftp"), "-T", str(source), "ftp://10.77.0.1/pub/via-ftp.bin")
    want = sha256(source)
    assert sha256(share / "via-smb.bin") == want
    assert sha256(share / "via-nfs.bin") == want
    assert sha256(share / "pub" / "via-ftp.bin") == want

    # both ends shaped to GbE's line rate; what passes never exceeds what a real GbE link carries,
    # 941.5 Mbit/s of TCP payload at MTU 1500 (goodput_bytes: htb without Ethernet's framing let
    # 956.8 through). How far below it depends on this machine's other load: no bound for that
    assert [network.qdisc_rate(ns) for ns in (network.NAS_NS, network.client_ns(1))] == [10**9, 10**9]
    rate = iperf3_from(lab_dir, "client")["end"]["sum_received"]["bits_per_second"]
    assert rate <= goodput_bytes(10**9, 1500) * 8 * 1.005, f"{rate / 1e9:.4f} Gbit/s of TCP through 1 GbE"

    nastune(lab_dir, "lab", "down")
    assert leftovers(lab_dir) == []


def test_up_twice_is_harmless_and_inspect_sees_the_lab(lab_dir):
    nastune(lab_dir, "lab", "up", "--scenario", "modern")
    again = nastune(lab_dir, "lab", "up", "--scenario", "modern")
    assert "already up" in again.stdout
    other = lab_dir.parent / "other"
    refused = nastune(other, "lab", "up", "--scenario", "modern", check=False)
    assert refused.returncode == 2
    assert f"another lab is up in {lab_dir}" in refused.stderr
    assert not other.exists()
    facts = json.loads(
        nastune(lab_dir, "inspect", "--lab", "--json", "--area", "network", "--area", "nfs", "--area", "smb").stdout
    )
    assert [i["name"] for i in facts["network"]["interfaces"]] == ["lab0", "lo"]
    assert facts["nfs_server"]["ganesha_running"] is True
    assert facts["nfs_server"]["ganesha"]["value"]["exports"][0]["path"] == str(lab_dir / "mnt" / "share")
    assert facts["smb"]["running"] is True
    assert facts["smb"]["config"]["value"]["resolved"] is True


def test_a_lab_of_another_prefix_runs_beside_the_suites(lab_dir):
    """The main job's lab and the suite's run at once: a third prefix stands for the operator's
    here, so that the test never touches a lab someone really has up."""
    theirs, env = lab_dir.parent / "operators", {"NASTUNE_LAB_PREFIX": "nu"}
    nastune(theirs, "lab", "up", "--scenario", "modern", env=env)
    try:
        nastune(lab_dir, "lab", "up", "--scenario", "modern")
        assert all(p["ok"] for p in status(lab_dir)), status(lab_dir)
        nastune(lab_dir, "lab", "down")
        parts = json.loads(nastune(theirs, "lab", "status", "--json", env=env).stdout)["parts"]
        assert all(p["ok"] for p in parts), parts  # its namespaces, links, servers and ssh untouched
    finally:
        nastune(theirs, "lab", "down", env=env, check=False)
    assert not {"nu-nas", "nu-c1"} & network.existing_namespaces()


def test_soho_is_the_factory_state_the_rules_find(lab_dir):
    nastune(lab_dir, "lab", "up", "--scenario", "soho")
    findings = json.loads(nastune(lab_dir, "diagnose", "--lab", "--json", "--xfs-fragmentation").stdout)["findings"]
    rules = {f["rule"] for f in findings}
    assert {
        "ganesha-io-size-small",
        "smb-aio-off",
        "mount-atime",
        "tcp-buffers-below-bdp",
        "xfs-fragmentation",
        "mtu-jumbo-frames",
        "smb-case-big-dir",  # the photos folder of 10,000 files, names matched without case
    } <= rules
    frag = next(f for f in findings if f["rule"] == "xfs-fragmentation")
    assert frag["evidence"][0]["value"]["percent"] > 90


@pytest.mark.parametrize("step", ["network", "storage", "cgroups", "smbd", "ganesha"])
def test_down_after_up_killed_leaves_nothing(lab_dir, step):
    killed = nastune(lab_dir, "lab", "up", "--scenario", "soho", check=False, env={"NASTUNE_KILL_AT": f"lab:{step}"})
    assert killed.returncode == -signal.SIGKILL
    assert leftovers(lab_dir) != []  # something was made before the kill
    assert network.owner(network.NAS_NS) == lab_dir  # found from its namespace, for a later run
    nastune(lab_dir, "lab", "down")
    assert leftovers(lab_dir) == []


def test_bad_scenario_file_names_the_file_and_field(lab_dir, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[network]\nrate = "fast"\n')
    proc = nastune(lab_dir, "lab", "up", "--scenario", str(bad), check=False)
    assert proc.returncode == 2
    assert f"{bad}: field network.rate" in proc.stderr
    bad.write_text('[storage]\nexternal_log = true\nlog_size = "32M"\n')
    proc = nastune(lab_dir, "lab", "up", "--scenario", str(bad), check=False)
    assert proc.returncode == 2
    assert "field storage.log_size" in proc.stderr
    assert "at least 64M" in proc.stderr
    proc = nastune(lab_dir, "lab", "up", "--scenario", "nosuch", check=False)
    assert proc.returncode == 2
    built_in = sorted(f.stem for f in scenario.HERE.glob("*.toml"))
    assert f"no scenario 'nosuch'; built in: {', '.join(built_in)}; or give a .toml file" in proc.stderr
    assert "soho" in proc.stderr
    assert leftovers(lab_dir) == []


def test_exec_without_a_lab_is_a_clear_error(lab_dir):
    """A host the lab has, while it is down, is named as not up (not as missing from the list that
    names it); a host it never has is named as unknown."""
    proc = nastune(lab_dir, "lab", "exec", "client", "--", "true", check=False)
    assert proc.returncode == 2
    assert "the lab's client is not up" in proc.stderr and "`nastune lab up` first" in proc.stderr
    unknown = nastune(lab_dir, "lab", "exec", "printer", "--", "true", check=False)
    assert unknown.returncode == 2 and "no lab host 'printer': the hosts are nas, client" in unknown.stderr


def test_a_foreign_namespace_with_the_lab_name_is_refused_not_touched(lab_dir):
    import subprocess

    ns = network.client_ns(1)
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        proc = nastune(lab_dir, "lab", "up", "--scenario", "modern", check=False)
        assert proc.returncode == 2
        assert f"network namespace {ns} already exists and is not a lab's" in proc.stderr
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=True)


def test_custom_scenario_with_two_clients_a_bridge_and_an_external_log(lab_dir, tmp_path):
    scenario = tmp_path / "branch-office.toml"
    scenario.write_text(
        'clients = 2\n[network]\nrate = "500mbit"\nmtu = 9000\n'
        '[storage]\nsize = "1G"\nexternal_log = true\nlog_size = "64M"\nmount_options = ["noatime"]\n'
    )
    nastune(lab_dir, "lab", "up", "--scenario", str(scenario))
    assert all(p["ok"] for p in status(lab_dir)), status(lab_dir)
    source = tmp_path / "payload.bin"
    source.write_bytes(os.urandom(4 << 20))
    for host in ("client", "client2"):
        nastune(
            lab_dir,
            "lab",
            "exec",
            host,
            "--",
            "smbclient",
            "-A",
            str(lab_dir / "credentials" / "smb"),
            "//10.77.0.1/data",
            "-c",
            f"put {source} from-{host}.bin",
        )
        assert sha256(lab_dir / "mnt" / "share" / f"from-{host}.bin") == sha256(source)
    facts = json.loads(nastune(lab_dir, "inspect", "--lab", "--json", "--area", "mounts", "--area", "network").stdout)
    xfs = facts["mounts"]["xfs"][str(lab_dir / "mnt")]["value"]
    assert xfs["log"] == "external"
    assert xfs["log_bytes"] == 64 << 20
    assert facts["network"]["interfaces"][0]["mtu"]["value"] == 9000
    shaped = [network.qdisc_rate(network.NAS_NS), network.qdisc_rate(network.client_ns(2))]
    assert shaped + [network.qdisc_rate(network.SWITCH_NS, port) for port in ("p0", "p1", "p2")] == [500 * 10**6] * 5
    rate = iperf3_from(lab_dir, "client2")["end"]["sum_received"]["bits_per_second"]
    assert rate <= goodput_bytes(500 * 10**6, 9000) * 8 * 1.005  # through the bridge, at most the link
    nastune(lab_dir, "lab", "down")
    assert leftovers(lab_dir) == []


def test_reset_brings_the_scenario_state_back(lab_dir):
    nastune(lab_dir, "lab", "up", "--scenario", "modern")
    conf = lab_dir / "smb.conf"
    original = sha256(conf)
    conf.write_text(conf.read_text().replace("[data]", "[data]\n   read only = yes"))
    (lab_dir / "mnt" / "share" / "stray.txt").write_text("left by a user")
    nastune(lab_dir, "lab", "reset")
    assert sha256(conf) == original
    assert not (lab_dir / "mnt" / "share" / "stray.txt").exists()
    assert all(p["ok"] for p in status(lab_dir)), status(lab_dir)
