"""Where a benchmark's I/O goes: a path (local or a mounted share), smb://, nfs:// (libnfs, no
kernel client), ftp://, or an iperf3 peer; a Site says which targets it has (sites/)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from urllib.parse import urlparse

from nastune.bench.results import TargetRecord
from nastune.errors import UsageError
from nastune.facts.mounts import parse_mounts
from nastune.login import Login
from nastune.protocols import PROTOCOLS
from nastune.root import Root
from nastune.ssh import Ssh

TCP_OVERHEAD = 52  # IP + TCP headers with timestamps
ETHERNET_OVERHEAD = 38  # Ethernet header, FCS, preamble, inter-frame gap: what a real wire carries


def goodput_bytes(link_bps: int, mtu: int, overhead: int = ETHERNET_OVERHEAD) -> float:
    """TCP payload bytes/s a link can carry: 117.7 MB/s for 1 GbE at MTU 1500, 123.8 at 9000
    (the lab's link too: lab/network.py shapes it with Ethernet's framing)."""
    return link_bps / 8 * (mtu - TCP_OVERHEAD) / (mtu + overhead)


KINDS = ("path", *PROTOCOLS, "iperf3", "system")  # system: this host itself (memory bandwidth)


@dataclass
class Target:
    kind: str  # one of KINDS
    url: str
    host: str | None = None
    share: str | None = None  # smb share, nfs export, ftp directory, or the local path
    client_via: tuple[str, ...] = ()  # the argv prefix that runs a client tool where its client is
    ssh: Ssh | None = None  # or on this client over SSH
    client_name: str | None = None  # the client host, as the inventory names it
    server_pid: int | None = None  # a server process, for its network namespace's counters
    link_bps: int | None = None  # the link's line rate; from the NAS when the two ways differ
    uplink_bps: int | None = None  # toward the NAS, when it differs from link_bps
    mtu: int | None = None
    overhead: int = ETHERNET_OVERHEAD  # per-frame bytes the link's rate also carries
    via_network: bool = False  # a path on a network file system mount (its I/O crosses the link)
    extra: dict = field(default_factory=dict)
    login: Login | None = field(default=None, repr=False)  # the share's; never written to a result
    protection: str | None = None  # SMB: what the client requires of its sessions (sign, encrypt, off)
    # when its timed transfers begin on its client (epoch seconds), for clients that start together
    starts_at: float | None = field(default=None, compare=False)
    # iperf3: starts a one-off server where the NAS is, for that many seconds at most (None: the
    # operator runs one, as for iperf3://HOST)
    serve: Callable[[float], AbstractContextManager[None]] | None = field(default=None, repr=False, compare=False)

    @property
    def crosses_network(self) -> bool:
        return self.kind in PROTOCOLS or self.kind == "iperf3" or self.via_network

    @property
    def limit_bytes(self) -> float | None:
        """The physical ceiling of a throughput through this target, if known: of a read, and
        of any throughput when the link is the same both ways."""
        return self.limit_for("read")

    def limit_for(self, path: str) -> float | None:
        """The ceiling of a throughput on `path` (read: from the NAS; write: toward it; both: the
        faster way, which no mix of the two can pass)."""
        if not (self.crosses_network and self.link_bps and self.mtu):
            return None
        toward = self.uplink_bps or self.link_bps
        line = {"read": self.link_bps, "write": toward}.get(path, max(self.link_bps, toward))
        return goodput_bytes(line, self.mtu, self.overhead)

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
        return [*self.client_via, *argv]

    @property
    def on(self) -> str:
        """` on HOST` for messages, when the client is not this machine."""
        return f" on {self.client_name}" if self.client_name else ""

    def record(self) -> TargetRecord:
        """What a result keeps of this target."""
        return TargetRecord(
            kind=self.kind,
            url=self.url,
            client=self.client_name,
            protection=self.protection,
            link_bps=self.link_bps,
            uplink_bps=self.uplink_bps,
            mtu=self.mtu,
            overhead=self.overhead,
        )


def parse(spec: str) -> Target:
    """A target from a URL or a path; errors say what forms are accepted."""
    if spec.startswith("/"):
        return Target("path", spec, share=spec)
    url = urlparse(spec)
    if url.scheme in PROTOCOLS and url.hostname and url.path.strip("/"):
        return Target(url.scheme, spec, host=url.hostname, share=url.path.strip("/"))
    if url.scheme == "iperf3" and url.hostname:
        return Target("iperf3", spec, host=url.hostname)
    raise UsageError(
        f"target {spec!r}: use an absolute path, smb://HOST/SHARE, nfs://HOST/EXPORT, ftp://HOST/DIR or iperf3://HOST"
    )
