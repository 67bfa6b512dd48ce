"""The lab as a whole: up (idempotent), down (exactly what was recorded), status, reset, exec."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from nastune.areas import AREAS
from nastune.facts.context import Reading
from nastune.faults import checkpoint
from nastune.lab import network, procs, storage
from nastune.lab.scenario import Scenario
from nastune.lab.sh import LabError, need, run
from nastune.lab.state import DEFAULT_DIR, Cgroup, Link, Loop, Mounted, Netns, Process, State
from nastune.protocols import PROTOCOLS
from nastune.remote import inventory
from nastune.sites.lab import access, building, credentials, servers
from nastune.ssh import Ssh
from nastune.units import rate_bits

BASE_TOOLS = (
    *("ip", "tc", "mkfs.xfs", "losetup", "mount", "umount", "unshare", "nsenter", "iperf3", "smbnetfs"),
    *("sshd", "ssh", "ssh-keygen", "fio"),
)
TOOLS = BASE_TOOLS + tuple(t for p in PROTOCOLS.values() for t in (*p.server_tools, *p.tools))
CGROUP = f"nastune-lab-{network.PREFIX}"


def taken_message(taken: set[str]) -> str:
    """Why the lab can't be built: another lab (named by its directory) or a foreign namespace."""
    owners = {str(o) for ns in taken if (o := network.owner(ns)) and (o / "state.json").exists()}
    names = ", ".join(sorted(taken))
    if owners:
        where = sorted(owners)[0]
        return f"another lab is up in {where} (namespaces {names}): NASTUNE_LAB_DIR={where} nastune lab down"
    return (
        f"network namespace {names} already exists and is not a lab's: "
        "remove it (ip netns del NAME) or stop what uses it"
    )


class Lab:
    def __init__(self, directory: Path = DEFAULT_DIR):
        self.dir = directory
        self.state = State(directory)

    # -- up -----------------------------------------------------------------
    def up(self, scenario: Scenario, log: Callable[[str], None] = print) -> bool:
        """Build the lab; False when an identical lab was already up (nothing done)."""
        if building.kept(self, scenario, "lab", log):
            return False
        network.check_prefix()
        if self.dir.resolve().is_relative_to("/var/tmp"):  # access.OWN_VAR_TMP: each client's own
            raise LabError(f"the lab's directory {self.dir} is under /var/tmp, which each client replaces with its own")
        need(*TOOLS)
        taken = network.existing_namespaces() & {
            network.NAS_NS,
            network.SWITCH_NS,
            *(network.client_ns(i) for i in range(1, scenario.clients + 1)),
        }
        if taken:
            raise LabError(taken_message(taken))
        with building.building(self, scenario, log) as record:
            log(f"network: {scenario.clients} client(s), {scenario.network.rate}, MTU {scenario.network.mtu}")
            network.build(self.state, scenario.clients, scenario.network.rate, scenario.network.mtu)
            access.links(self.state, scenario.clients)
            checkpoint("lab:network")
            for key in ("tcp_rmem", "tcp_wmem"):
                value = getattr(scenario.network, key)
                if value:
                    network.set_sysctl(network.NAS_NS, f"net.ipv4.{key}", value)
            log(
                f"storage: XFS on a {scenario.storage.size} loop image"
                + (", aging the data set" if scenario.storage.aging else "")
            )
            disk = storage.build(self.state, self.dir, scenario.storage)
            checkpoint("lab:storage")
            groups = procs.make_cgroups(self.state, CGROUP, scenario.limits, disk.device) if scenario.limits else []
            checkpoint("lab:cgroups")
            log("servers: smbd, rpcbind + ganesha, vsftpd (shares need a login); client: smbnetfs")
            servers.start(self.state, self.dir, disk.share, scenario, groups, credentials.create(self.dir))
            log("clients: sshd and a fio server on each, reached over a management link")
            read_set = storage.aged_files(Path(disk.share))
            access.start(
                self.state, self.dir, scenario.clients, scenario.network.rate, read_set, scenario.client_protection
            )
            record.storage, record.targets, record.clients = disk, servers.targets(), scenario.clients
        return True

    # -- down ---------------------------------------------------------------
    def down(self, log: Callable[[str], None] = print) -> None:
        """Remove every recorded resource, newest first; safe to repeat and after any failure."""
        st = self.state
        if not st.exists and not self.dir.exists():
            return
        access.close(self.inventory_path)
        namespaces = [r.name for r in st.of(Netns)]
        pids = [r.pid for r in st.of(Process) if r.pid and procs.alive(r)]
        for ns in namespaces:  # anything running in our namespaces is ours, even if unrecorded
            if ns in network.existing_namespaces():
                pids += procs.namespace_pids(ns)
        procs.kill(sorted(set(pids)))
        for group in reversed(st.of(Cgroup)):
            procs.remove_cgroup(group.path)
        for mount in reversed(st.of(Mounted)):
            storage.unmount(mount.path)
        for loop in reversed(st.of(Loop)):
            storage.detach(loop.image)
        for ns in reversed(namespaces):
            network.remove(ns)
        for link in st.of(Link):
            access.remove_link(link.name)
        shutil.rmtree(self.dir, ignore_errors=True)
        st.clear()
        log("lab removed")

    def restart(self, name: str) -> None:
        """Restart one server with the command it was started with (its config files as they are
        now), and wait until a client gets an answer again."""
        entries = [r for r in self.state.of(Process) if r.name == name]
        if not entries:
            raise LabError(f"the lab has no server {name!r}")
        old = entries[-1]
        if old.pid and procs.alive(old):
            procs.kill([old.pid])
        self.state.remove(old)
        groups = [r.path for r in self.state.of(Cgroup)]
        new = procs.spawn(self.state, name, old.argv, Path(old.log), groups, old.env)
        servers.wait_ready(name, new, credentials.load(self.dir))

    def reset(self, log: Callable[[str], None] = print) -> None:
        """Back to the scenario's state: rebuild from the recorded scenario."""
        if not self.state.exists:
            raise LabError("no lab to reset: run `nastune lab up` first")
        scenario = self.state.scenario
        self.down(log)
        self.up(scenario, log)

    # -- status ---------------------------------------------------------------
    def status(self) -> list[dict]:
        """Each part with up/down and the check that proves it."""
        st = self.state
        if not st.exists:
            return [{"part": "lab", "ok": False, "check": f"no state file at {st.path}"}]
        parts = []
        existing = network.existing_namespaces()
        for ns in st.of(Netns):
            parts.append({"part": f"namespace {ns.name}", "ok": ns.name in existing, "check": "ip netns list"})
        rate = network.qdisc_rate(network.NAS_NS) if network.NAS_NS in existing else None
        want = st.record.scenario.network.rate if st.record.scenario else None
        parts.append(
            {
                "part": "shaping",
                "ok": rate is not None,
                "check": f"htb on {network.NAS_NS}/{network.LINK}: {rate or 'no'} bit/s of Ethernet (scenario {want})",
            }
        )
        for m in st.of(Mounted):
            parts.append({"part": f"mount {m.path}", "ok": storage.mounted(m.path), "check": "/proc/self/mounts"})
        for r in st.of(Process):
            parts.append(
                {
                    "part": f"process {r.name}",
                    "ok": procs.alive(r),
                    "check": f"pid {r.pid} with its start time",
                }
            )
        if st.of(Mounted) and st.up:
            smbfs = servers.smbfs_path(self.dir)
            parts.append({"part": "smbnetfs mount", "ok": (smbfs / "pub").is_dir(), "check": f"ls {smbfs}"})
        if network.client_ns(1) in existing and (self.dir / "credentials").exists():
            for name, call in servers.checks(credentials.load(self.dir)).items():
                ok = procs.client_ok(call.argv, call.input)
                parts.append({"part": f"{name} answers a client", "ok": ok, "check": " ".join(call.argv)})
        if self.inventory_path.exists() and st.up:
            hosts = inventory.load(self.inventory_path)
            for host in [hosts.nas, *hosts.clients]:
                why = Ssh(host).check(10, role="NAS" if host is hosts.nas else "client")
                parts.append({"part": f"ssh to {host.name}", "ok": why is None, "check": why or f"ssh {host.address}"})
        return parts

    @property
    def inventory_path(self) -> Path:
        """The lab's hosts as an Ansible inventory, written by `up`."""
        return self.dir / "inventory.ini"

    def exec_argv(self, host: str, argv: list[str]) -> list[str]:
        """The argv that runs `argv` on a lab host: nas, client (the first), or client2, ..."""
        names = {"nas": network.NAS_NS, "client": network.client_ns(1)}
        names.update({f"client{i}": network.client_ns(i) for i in range(1, 9)})
        ns = names.get(host)
        if ns is None:
            raise LabError(f"no lab host {host!r}: the hosts are nas, client, client2 ... client8")
        if ns not in network.existing_namespaces():
            raise LabError(
                f"the lab's {host} is not up (no network namespace {ns}): `nastune lab up` first (the kernel lab's "
                'hosts are reached with --inventory "$(nastune lab inventory --kernel)")'
            )
        return ["ip", "netns", "exec", ns, *argv]

    def reading(self, fragmentation: str | None = None) -> Reading:
        """What the lab knows of its NAS's link, for a collection of its facts."""
        rate = self.state.record.scenario.network.rate if self.state.record.scenario else None
        return Reading(fragmentation, network.NAS_IP, rate_bits(rate) if rate else None)

    def facts_json(self, reading: Reading, areas: Sequence[str] = AREAS) -> str:
        """The nas host's facts of `areas` as JSON, collected inside its namespace, with its link
        as the lab knows it where `reading` does not say (the NAS's address, the scenario's rate)."""
        mine = self.reading(reading.fragmentation)
        how = reading.knowing(mine.address, mine.link_bps)
        argv = [sys.executable, "-m", "nastune.facts", *how.args(), *(a for area in areas for a in ("--area", area))]
        result = run(self.exec_argv("nas", argv), timeout=300)
        return result.stdout


def require_root() -> None:
    if os.geteuid() != 0:
        raise LabError("the lab needs root (namespaces, loop devices, mounts)")
