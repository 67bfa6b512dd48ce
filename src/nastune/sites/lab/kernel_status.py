"""What `lab status --kernel` shows of the guest lab, each part with the check that proves it:
the guest, SSH to its NAS and client, kernel nfsd, Samba and vsftpd serving, the client's kernel
mounts, the NUMA nodes and the NAS NIC's interrupt vectors with the CPUs that serve them."""

from __future__ import annotations

from pathlib import Path

from nastune.lab import procs
from nastune.lab.sh import run
from nastune.lab.state import Process, State
from nastune.remote import inventory
from nastune.ssh import Ssh


def parts(st: State, hosts_file: Path, services: dict[str, str]) -> list[dict]:
    """`services`: the guest's file servers' systemd units, each with what it is."""
    if not st.exists:
        return [{"part": "kernel lab", "ok": False, "check": f"no state file at {st.path}"}]
    found = []
    for qemu in st.of(Process):
        how = "KVM" if "-enable-kvm" in qemu.argv else "software emulation (TCG)"
        found.append({"part": f"guest ({how})", "ok": procs.alive(qemu), "check": f"qemu pid {qemu.pid}"})
    if not (st.up and hosts_file.exists()):
        return found
    hosts = inventory.load(hosts_file)
    nas, client = Ssh(hosts.nas), Ssh(hosts.clients[0])
    for ssh, role in ((nas, "NAS"), (client, "client")):
        why = ssh.check(20, role=role)
        found.append({"part": f"ssh to {role}", "ok": why is None, "check": why or f"ssh {ssh.host.address}"})
        if why:
            return found
    return found + servers(nas, services) + numa(nas) + vectors(nas) + mounts(client)


def _out(ssh: Ssh, argv: list[str]) -> str:
    return run(ssh.argv(argv), check=False, timeout=60).stdout


def servers(nas: Ssh, services: dict[str, str]) -> list[dict]:
    states = _out(nas, ["systemctl", "is-active", *services]).split()
    threads = _out(nas, ["cat", "/proc/fs/nfsd/threads"]).strip()
    found = [
        {"part": f"{what} serving", "ok": state == "active", "check": f"systemctl is-active {unit}: {state}"}
        for (unit, what), state in zip(services.items(), states + [""] * len(services), strict=False)
    ]
    found.append(
        {
            "part": "kernel nfsd threads",
            "ok": threads.isdigit() and int(threads) > 0,
            "check": f"/proc/fs/nfsd/threads: {threads or 'unreadable'}",
        }
    )
    return found


def numa(nas: Ssh) -> list[dict]:
    online = _out(nas, ["cat", "/sys/devices/system/node/online"]).strip()
    return [{"part": "NUMA nodes", "ok": online == "0-1", "check": f"/sys/devices/system/node/online: {online}"}]


def vectors(nas: Ssh) -> list[dict]:
    """The interrupt vectors of the NAS NIC (its virtio device's lines in /proc/interrupts)."""
    device = _out(nas, ["readlink", "-f", "/sys/class/net/eth0/device"]).strip().rsplit("/", 1)[-1]
    lines = [ln.split() for ln in _out(nas, ["cat", "/proc/interrupts"]).splitlines()]
    mine = [(f[0].rstrip(":"), f[-1]) for f in lines if f and f[-1].startswith(f"{device}-")]
    found = []
    for irq, name in mine:
        cpus = _out(nas, ["cat", f"/proc/irq/{irq}/smp_affinity_list"]).strip()
        found.append({"part": f"NIC vector {name}", "ok": bool(cpus), "check": f"irq {irq} on cpus {cpus}"})
    return found or [{"part": "NIC vectors", "ok": False, "check": f"no {device}- line in /proc/interrupts"}]


def mounts(client: Ssh) -> list[dict]:
    out = _out(client, ["findmnt", "-rn", "-t", "nfs,nfs4,cifs", "-o", "TARGET,FSTYPE,OPTIONS"])
    found = [
        {"part": f"client mount {target}", "ok": True, "check": f"{kind} {options}"}
        for target, kind, options in (line.split(" ", 2) for line in out.splitlines() if line.count(" ") >= 2)
    ]
    return found or [{"part": "client mounts", "ok": False, "check": "findmnt: no nfs or cifs mount"}]
