"""Where a benchmark's I/O goes: a path (local or a mounted share), smb://, nfs:// (libnfs, no
kernel client), ftp://, or an iperf3 peer; and, for the lab, its targets seen from a client."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlparse

from nastune.facts.mounts import parse_mounts
from nastune.packages import PACKAGES
from nastune.protocols import PROTOCOLS
from nastune.remote.inventory import Host, Inventory
from nastune.remote.ssh import Ssh, missing_tools
from nastune.root import Root

TCP_OVERHEAD = 52  # IP + TCP headers with timestamps
ETHERNET_OVERHEAD = 38  # Ethernet header, FCS, preamble, inter-frame gap: what a real wire carries
HTB_OVERHEAD = 14  # htb on a veth counts only the Ethernet header of each frame


def goodput_bytes(link_bps: int, mtu: int, overhead: int = ETHERNET_OVERHEAD) -> float:
    """TCP payload bytes/s a link can carry: 117.7 MB/s for 1 GbE at MTU 1500, 123.8 at 9000;
    119.6 MB/s through the lab's htb-shaped 1 Gbit veth at MTU 1500."""
    return link_bps / 8 * (mtu - TCP_OVERHEAD) / (mtu + overhead)


KINDS = ("path", "smb", "nfs", "ftp", "iperf3", "system")  # system: this host itself (memory bandwidth)


@dataclass
class Target:
    kind: str  # one of KINDS
    url: str
    host: str | None = None
    share: str | None = None  # smb share, nfs export, ftp directory, or the local path
    client_ns: str | None = None  # run client tools in this namespace (the lab's client)
    ssh: Ssh | None = None  # or on this client over SSH
    client_name: str | None = None  # the client host, as the inventory names it
    server_pid: int | None = None  # a server process, for its network namespace's counters
    link_bps: int | None = None
    mtu: int | None = None
    overhead: int = ETHERNET_OVERHEAD  # per-frame bytes the link's rate also carries
    via_network: bool = False  # a path on a network file system mount (its I/O crosses the link)
    extra: dict = field(default_factory=dict)

    @property
    def crosses_network(self) -> bool:
        return self.kind in ("smb", "nfs", "ftp", "iperf3") or self.via_network

    @property
    def limit_bytes(self) -> float | None:
        """The physical ceiling of a throughput through this target, if known."""
        if self.crosses_network and self.link_bps and self.mtu:
            return goodput_bytes(self.link_bps, self.mtu, self.overhead)
        return None

    def device(self) -> str | None:
        """The block device under a local path (from /proc/mounts), e.g. /dev/loop0."""
        if self.kind != "path" or self.via_network:
            return None
        if self.extra.get("device"):
            return "/dev/" + self.extra["device"]
        best: tuple[str, str | None] = ("", None)
        share = self.share or "/"
        for mount in parse_mounts(Root("/").read("/proc/self/mounts")):
            dev, mountpoint = mount.device, mount.mountpoint
            inside = share == mountpoint or share.startswith(mountpoint.rstrip("/") + "/")
            if inside and dev.startswith("/dev/") and len(mountpoint) > len(best[0]):
                best = (mountpoint, dev)
        return best[1]

    def client(self, argv: list[str]) -> list[str]:
        """The local command that runs a client tool where this target's client is."""
        if self.ssh:
            return self.ssh.argv(argv)
        return (["ip", "netns", "exec", self.client_ns] if self.client_ns else []) + argv

    @property
    def on(self) -> str:
        """` on HOST` for messages, when the client is not this machine."""
        return f" on {self.client_name}" if self.client_name else ""

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "url": self.url,
            **({"client": self.client_name} if self.client_name else {}),
            "link_bps": self.link_bps,
            "mtu": self.mtu,
            "overhead": self.overhead,
        }


def parse(spec: str) -> Target:
    """A target from a URL or a path; errors say what forms are accepted."""
    if spec.startswith("/"):
        return Target("path", spec, share=spec)
    url = urlparse(spec)
    if url.scheme in PROTOCOLS and url.hostname and url.path.strip("/"):
        return Target(url.scheme, spec, host=url.hostname, share=url.path.strip("/"))
    if url.scheme == "iperf3" and url.hostname:
        return Target("iperf3", spec, host=url.hostname)
    raise ValueError(
        f"target {spec!r}: use an absolute path, smb://HOST/SHARE, nfs://HOST/EXPORT, ftp://HOST/DIR or iperf3://HOST"
    )


def lab_targets() -> dict[str, Target]:
    """The running lab's targets, used from its first client; the link's rate and MTU as they are."""
    from nastune.lab import network
    from nastune.lab.lab import Lab
    from nastune.lab.procs import alive
    from nastune.lab.scenario import rate_bits
    from nastune.lab.sh import run
    from nastune.lab.storage import aged_files

    lab = Lab()
    if lab.state.data.get("status") != "up":
        raise ValueError("the lab is not up: run `nastune lab up` first")
    # the shaping as it is now (an htb_rate change moves it), else as the scenario built it
    rate = network.qdisc_rate(network.NAS_NS) or rate_bits(lab.state.data["scenario"]["network"]["rate"])
    link = json.loads(run(["ip", "-n", network.NAS_NS, "-j", "link", "show", network.LINK]).stdout)
    mtu = link[0]["mtu"]
    pids = {r["name"]: r["pid"] for r in lab.state.of("process") if r.get("pid") and alive(r)}
    aged = [list(f) for f in aged_files(Path(lab.state.data["storage"]["share"]))]
    common = {
        "client_ns": network.client_ns(1),
        "link_bps": rate,
        "mtu": mtu,
        "overhead": HTB_OVERHEAD,
        "server_pid": pids.get("smbd"),
        "extra": {"aged": aged},
    }
    ip = network.NAS_IP
    share = lab.state.data["storage"]["share"]
    from nastune.lab.servers import smbfs_path

    smbfs = smbfs_path(lab.dir)
    return {
        **{
            name: Target(name, p.url(ip, p.lab_share), host=ip, share=p.lab_share, **common)
            for name, p in PROTOCOLS.items()
        },
        "iperf3": Target("iperf3", f"iperf3://{ip}", host=ip, **common),
        "smbfs": Target(
            "path",
            str(smbfs),
            share=str(smbfs),
            via_network=True,
            **{k: v for k, v in common.items() if k != "client_ns"},
        ),
        "local": Target(
            "path",
            share,
            share=share,
            server_pid=pids.get("smbd"),
            extra={"device": re.sub(r"^/dev/", "", lab.state.data["storage"]["device"])},
        ),
    }


INVENTORY_KINDS = ("smb", "nfs", "ftp", "iperf3", "mount")


def client_tools(kind: str) -> list[str]:
    """What a client runs to measure `kind`: bash times a tool, dd makes source files, python3
    runs the NFS operations driver, ping proves the data path after a network change."""
    if kind == "iperf3":
        return ["iperf3", "ping"]
    if kind == "mount":
        return ["bash", "ping"]  # fio itself is the client's fio server
    return ["bash", "dd", "ping", *(["python3"] if kind == "nfs" else []), *PROTOCOLS[kind].tools]


def client_mtu(ssh: Ssh, address: str) -> int | None:
    """The MTU of the client's interface toward `address` (its route, then its link)."""
    from nastune import commands

    route = commands.run(ssh.argv(["ip", "-j", "route", "get", "to", address]), 20)
    try:
        dev = json.loads(route.stdout)[0]["dev"]
        link = commands.run(ssh.argv(["ip", "-j", "link", "show", "dev", dev]), 20)
        return int(json.loads(link.stdout)[0]["mtu"])
    except (ValueError, LookupError, TypeError):
        return None


def inventory_targets(inv: Inventory, kind: str, hosts: list[Host]) -> list[Target]:
    """Target `kind` (a protocol, iperf3, or `mount`: the share where each client mounts it)
    as each client sees it; ValueError names a client that cannot measure it."""
    nas, out = inv.nas, []
    if kind not in INVENTORY_KINDS:
        raise ValueError(f"--target {kind!r} with an inventory: use one of {', '.join(INVENTORY_KINDS)}")
    for host in hosts:
        ssh = Ssh(host)
        why = ssh.check()
        if why:
            raise ValueError(why)
        lacking = missing_tools(ssh, client_tools(kind))
        if lacking:
            raise ValueError(
                f"client {host.name} ({host.address}) lacks {', '.join(lacking)}: "
                f"apt-get install {' '.join(sorted({PACKAGES.get(t, t) for t in lacking}))}"
            )
        base = Target(
            kind,
            f"iperf3://{nas.data_address}",
            host=nas.data_address,
            ssh=ssh,
            client_name=host.name,
            link_bps=nas.link_bps,
            mtu=client_mtu(ssh, nas.data_address),
            overhead=nas.link_overhead,
        )
        if kind == "mount":
            if not host.mount:
                raise ValueError(f"{inv.path}: client {host.name} has no nastune_mount (where it mounts the share)")
            extra = {"fio_server": host.fio_server} if host.fio_server else {}
            base = replace(base, kind="path", url=f"{host.name}:{host.mount}", share=host.mount, extra=extra)
            out.append(replace(base, host=None, via_network=True))
        elif kind == "iperf3":
            out.append(base)
        elif kind not in inv.protocols_of(host):
            raise ValueError(f"{inv.path}: client {host.name} does not use {kind} ({SHARE_HINT})")
        else:
            share = nas.shares[kind]
            url = PROTOCOLS[kind].url(nas.data_address, share)
            out.append(replace(base, url=url, share=share, extra={"aged": [list(f) for f in nas.read_set]}))
    return out


SHARE_HINT = "its nastune_protocols, and the NAS's nastune_smb_share, nastune_nfs_export, nastune_ftp_dir"
