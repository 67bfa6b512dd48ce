"""Tuning the real lab: a plan with MTU, TCP buffers, Ganesha sizes, Samba aio, a mount option,
GRO and a defragmentation run is applied, verified, and rolled back to the exact original."""

from __future__ import annotations

import json
import subprocess

from nastune.lab import network
from tests.lab.conftest import nastune, sha256, status

WANTED = {"mtu", "ethtool_feature", "ganesha_export", "samba", "mount_option", "xfs_fsr"}
# 900 Mbit/s of Ethernet at MTU 1500: htb counts 1,514 bytes a frame, the wire 1,538 (lab/network.py)
HTB_CHANGE = {"id": 1, "knob": "htb_rate", "target": "lab0", "key": "1:10", "new": 885955000}


def shaped(ns: str = network.NAS_NS) -> str:
    return subprocess.run(["tc", "-n", ns, "class", "show", "dev", "lab0"], capture_output=True, text=True).stdout


def test_plan_apply_verify_rollback_on_the_lab(lab_dir, tmp_path):
    nastune(lab_dir, "lab", "up", "--scenario", "soho")
    plan_file = tmp_path / "plan.json"
    nastune(lab_dir, "plan", "--lab", "--xfs-fragmentation", "--out", str(plan_file))
    plan = json.loads(plan_file.read_text())
    assert plan["lab"] is True
    # labs run side by side (the main job's, the other test worker's): each plans on its own mount only
    mounts = {c["target"] for c in plan["changes"] if c["knob"] in ("mount_option", "xfs_fsr")}
    assert mounts == {str(lab_dir / "mnt")}, mounts
    # keep the lab's own knobs (the vm.* and fs.* sysctls are the whole machine's), without the
    # photos folder's case change, which apply refuses without --accept-risk compatibility
    kept = [c for c in plan["changes"] if c["knob"] in WANTED or c["target"].startswith("net.")]
    plan["changes"] = [c for c in kept if c["rule"] != "smb-case-big-dir"]
    assert WANTED | {"sysctl"} == {c["knob"] for c in plan["changes"]}
    plan_file.write_text(json.dumps(plan))
    configs = {name: sha256(lab_dir / name) for name in ("smb.conf", "ganesha.conf")}
    aged = lab_dir / "mnt" / "share" / "aged" / "aged-0.bin"
    checksum = sha256(aged)

    nastune(lab_dir, "apply", str(plan_file), "--yes")
    checked = nastune(lab_dir, "verify").stdout
    assert "DRIFT" not in checked
    assert checked.count(" ok ") >= len(plan["changes"])
    facts = json.loads(nastune(lab_dir, "inspect", "--lab", "--json", "--area", "network").stdout)
    assert facts["network"]["interfaces"][0]["mtu"]["value"] == 9000
    client_mtu = nastune(lab_dir, "lab", "exec", "client", "--", "cat", "/sys/class/net/lab0/mtu").stdout
    assert client_mtu.strip() == "9000"  # the whole segment agrees
    for ns in (
        network.NAS_NS,
        network.client_ns(1),
    ):  # and is still 1 Gbit/s of Ethernet: htb counts 9,014 of 9,038 bytes a frame
        assert "rate 997344Kbit" in shaped(ns), shaped(ns)
    assert sha256(aged) == checksum  # xfs_fsr moved extents, not data
    assert all(p["ok"] for p in status(lab_dir)), status(lab_dir)

    nastune(lab_dir, "rollback")
    assert {name: sha256(lab_dir / name) for name in configs} == configs
    facts = json.loads(
        nastune(
            lab_dir, "inspect", "--lab", "--json", "--area", "network", "--area", "mounts", "--area", "sysctl"
        ).stdout
    )
    assert facts["network"]["interfaces"][0]["mtu"]["value"] == 1500
    assert "rate 984395Kbit" in shaped(network.NAS_NS)
    assert "rate 984395Kbit" in shaped(network.client_ns(1))
    assert facts["sysctl"]["values"]["net.ipv4.tcp_rmem"]["value"] == "4096 16384 65536"
    mount = next(m for m in facts["mounts"]["mounts"]["value"] if m["mountpoint"] == str(lab_dir / "mnt"))
    assert not {"noatime", "relatime"} & set(mount["options"])
    assert all(p["ok"] for p in status(lab_dir)), status(lab_dir)


def test_the_shaping_rate_is_a_knob_applied_and_rolled_back(lab_dir, tmp_path):
    """htb_rate: what a shaped uplink allows; on the lab, a real 10% change of the link."""
    nastune(lab_dir, "lab", "up", "--scenario", "modern")
    change = HTB_CHANGE
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps({"schema": "nastune.plan/1", "lab": True, "changes": [change]}))

    nastune(lab_dir, "apply", str(plan_file), "--yes")
    assert "rate 885955Kbit" in shaped()
    assert " ok " in nastune(lab_dir, "verify").stdout
    out = tmp_path / "r.json"
    nastune(lab_dir, "bench", "--lab", "--target", "iperf3", "-w", "network", "--repeats", "1", "--out", str(out))
    (result,) = json.loads(out.read_text())["results"]
    assert result["target"]["link_bps"] == 900000000  # the physical limit follows the shaping
    assert result["target"]["uplink_bps"] == 10**9  # of the way it shapes: from the NAS, not toward it
    down, up = (result["metrics"][f"{way} MB/s"] for way in ("download", "upload"))
    assert (round(down["limit"], 1), round(up["limit"], 1)) == (105.9, 117.7)
    assert not any("cache" in flag for flag in up["flags"]), up["flags"]  # the upload passed 105.9 honestly
    nastune(lab_dir, "rollback")
    assert "rate 984395Kbit" in shaped()  # 1 Gbit/s of Ethernet
    bad = {**change, "key": "1:10; reboot"}
    plan_file.write_text(json.dumps({"schema": "nastune.plan/1", "lab": True, "changes": [bad]}))
    refused = nastune(lab_dir, "apply", str(plan_file), "--yes", check=False)
    assert refused.returncode != 0
    assert "is not a class id" in refused.stderr + refused.stdout
