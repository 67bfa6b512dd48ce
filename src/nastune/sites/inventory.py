"""An inventory's NAS, measured from its clients over SSH and tuned by nastune on the NAS (its
journal and its confirm-or-revert watchdog live there). Each workload runs on the chosen clients:
alone when one is chosen, on all together otherwise, or on 1, 2, 4, ... of them (`scaling`)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Self

from nastune import rules as knowledge
from nastune.bench.drivers import iperf3
from nastune.bench.profile import Profiler, RemoteProfiler
from nastune.bench.selection import known, scaling_steps
from nastune.bench.targets import Target
from nastune.bench.together import Together
from nastune.errors import UsageError
from nastune.facts import AREAS, Facts, Reading
from nastune.packages import PACKAGES, install_hint
from nastune.protocols import PROTOCOLS
from nastune.protocols.client import BenchError, on_client
from nastune.remote import inventory as inventories
from nastune.remote.agent import Agent, NasError
from nastune.remote.inventory import Host, Inventory
from nastune.sites.base import Pairs, Site
from nastune.sites.tuner import OnNas
from nastune.ssh import Ssh, missing_tools

KINDS = (*PROTOCOLS, "iperf3", "mount")  # mount: the share where each client mounts it
SHARE_HINT = f"its nastune_protocols, and the NAS's {', '.join(p.share_var for p in PROTOCOLS.values())}"


def client_tools(kind: str) -> list[str]:
    """What a client runs to measure `kind`: bash times a tool, dd makes source files, python3
    runs the NFS operations driver, ping proves the data path after a network change."""
    if kind == "iperf3":
        return ["iperf3", "ping"]
    if kind == "mount":
        return ["bash", "ping"]  # fio itself is the client's fio server
    return ["bash", "dd", "ping", *PROTOCOLS[kind].tools]


@dataclass
class InventorySite(Site):
    inventory: Inventory
    clients: str = "all"  # all, or client names separated by commas
    confirm_timeout: int = 120
    scaling: bool = False
    server_pid: int | None = None  # the NAS's file server here (the lab's), for its network counters

    def __post_init__(self) -> None:
        self._reached: set[tuple[str | None, str]] = set()
        self.agent = Agent(self.inventory.nas)
        self.name = self.agent.name
        self.shared_kernel = self.inventory.nas.lab
        self.hosts = self.inventory.select(self.clients)
        if not self.hosts:
            raise UsageError(f"--clients {self.clients!r} names no client of {self.inventory.path}")

    @classmethod
    def load(cls, path: Path, clients: str = "all", **options: Any) -> Self:
        """The inventory at `path`, its NAS answering; NasError says why not."""
        site = cls(inventories.load(path), clients, **options)
        why = site.agent.check()
        if why:
            raise NasError(why)
        return site

    @property
    def remote(self) -> bool:
        return self.agent.ssh is not None

    def facts(self, reading: Reading | None = None, areas: Sequence[str] = AREAS) -> Facts:
        """Read on the NAS by nastune there, with what the inventory says of its link."""
        nas = self.inventory.nas
        return self.agent.facts((reading or Reading()).knowing(nas.data_address, nas.link_bps), areas)

    def client_facts(self) -> dict[str, Facts]:
        """Read by nastune on each client the inventory gives a nastune_command, with what the
        inventory says of the NAS's link (a client's path to the NAS runs at its rate)."""
        nas = self.inventory.nas
        reading = Reading().knowing(nas.data_address, nas.link_bps)
        areas = sorted({a for rule in knowledge.all_rules() if rule.clients for a in rule.needs})
        return {name: agent.facts(reading, areas) for name, agent in self.tuned().items()}

    def tuned(self) -> dict[str, Agent]:
        """The clients nastune reads and tunes."""
        return {h.name: Agent(h, "client") for h in self.inventory.tuned_clients}

    def tuner(self) -> OnNas:
        measuring = [Ssh(h) for h in self.hosts]
        return OnNas(self.agent, self.inventory.path, measuring, self.confirm_timeout, self.tuned())

    def default_workloads(self) -> list[str]:
        """Sequential write and read, the read set's read when the NAS names one, and the network
        only from one client (an iperf3 server serves one client at a time)."""
        together = len(self.hosts) > 1 or self.scaling
        read = ["aged-read"] if self.inventory.nas.read_set else []
        return ["seq-write", "seq-read", *read, *([] if together else ["network"])]

    def kinds(self, target: str | None) -> list[str]:
        if target:
            return [target]
        return [p for p in PROTOCOLS if p in self.inventory.nas.shares] + ["iperf3"]

    def targets(self, target: str | None) -> list[Target]:
        return [t for kind in self.kinds(target) for t in self.of_kind(kind, self.hosts)]

    def pairs(self, target: str | None, names: list[str]) -> Pairs:
        """Each workload on the chosen clients: alone, together, or in scaling steps."""
        kinds = self.kinds(target)
        found: dict[str, list[Target]] = {}  # found anew on each call: tuning changes them (an MTU change)
        out: Pairs = []
        for w in known(names):
            usable = [k for k in kinds if ("path" if k == "mount" else k) in w.kinds]
            if not usable:
                raise UsageError(f"workload {w.name} runs on {', '.join(w.kinds)} targets, not on {', '.join(kinds)}")
            for kind in usable:
                if kind not in found:
                    found[kind] = self.of_kind(kind, self.hosts)
                for n in scaling_steps(len(found[kind])) if self.scaling else [len(found[kind])]:
                    group = found[kind][:n]
                    if n == 1:
                        out.append((w, group[0]))
                    elif kind == "iperf3":
                        raise UsageError("network runs from one client at a time (an iperf3 server serves one client)")
                    else:
                        names_ = ",".join(t.client_name or "" for t in group)
                        out.append((Together(w, group), replace(group[0], client_name=names_, ssh=None)))
        return out

    def stress(self, target: str | None, names: list[str]) -> tuple[Pairs, list[Target]]:
        """The first chosen client's pairs, and the targets of the clients that load the NAS."""
        if not target or len(self.hosts) < 2:
            raise UsageError("--stress needs a --target and two clients or more (one measures, the others load)")
        alone = replace(self, clients=self.hosts[0].name, scaling=False)
        return alone.pairs(target, names), self.of_kind(target, self.hosts[1:])

    def of_kind(self, kind: str, hosts: list[Host]) -> list[Target]:
        """Target `kind` as each of `hosts` sees it now; ValueError names a client that cannot
        measure it."""
        inv, nas, out = self.inventory, self.inventory.nas, []
        if kind not in KINDS:
            raise UsageError(f"--target {kind!r} with an inventory: use one of {', '.join(KINDS)}")
        for host in hosts:
            ssh = Ssh(host)
            why = ssh.check()
            if why:
                raise UsageError(why)
            lacking = missing_tools(ssh, client_tools(kind))
            if lacking:
                raise UsageError(
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
                mtu=ssh.mtu_toward(nas.data_address),
                overhead=nas.link_overhead,
            )
            if kind == "mount":
                if not host.mount:
                    raise UsageError(f"{inv.path}: client {host.name} has no nastune_mount (where it mounts the share)")
                extra = {"fio_server": host.fio_server} if host.fio_server else {}
                base = replace(base, kind="path", url=f"{host.name}:{host.mount}", share=host.mount, extra=extra)
                out.append(replace(base, host=None, via_network=True, server_pid=self.server_pid))
            elif kind == "iperf3":
                self._nas_has_iperf3()
                out.append(
                    replace(base, server_pid=self.server_pid, extra={"port": nas.iperf3_port}, serve=self._iperf3)
                )
            elif kind not in inv.protocols_of(host):
                raise UsageError(f"{inv.path}: client {host.name} does not use {kind} ({SHARE_HINT})")
            else:
                share, login = nas.shares[kind], inv.login(host, kind)
                url = PROTOCOLS[kind].url(nas.data_address, share)
                aged = [list(f) for f in nas.read_set]
                target = replace(base, url=url, share=share, extra={"aged": aged}, server_pid=self.server_pid)
                target = replace(target, protection=host.smb_protection if kind == "smb" else None)
                out.append(self._logged_in(replace(target, login=login)))
        return out

    def _nas_has_iperf3(self) -> None:
        """The network workload's server runs on the NAS: refused before a run when it is missing."""
        ssh = self.agent.ssh
        lacking = missing_tools(ssh, ["iperf3"]) if ssh else [t for t in ["iperf3"] if shutil.which(t) is None]
        if lacking:
            raise UsageError(f"{self.agent.name} lacks iperf3, the network workload's server: {install_hint('iperf3')}")

    def _iperf3(self, seconds: float) -> AbstractContextManager[None]:
        """A one-off iperf3 server on the NAS (over its SSH) for one test of the network workload."""
        nas = self.inventory.nas
        return iperf3.one_off(self.agent.argv, nas.data_address, nas.iperf3_port, seconds, self.agent.name)

    def _logged_in(self, target: Target) -> Target:
        """`target`, once its client has reached its share with its login (asked once per client
        and share: a wrong password is one clear error before anything runs, not a failed run)."""
        key = (target.client_name, target.url)
        if key not in self._reached:
            protocol = PROTOCOLS[target.kind]
            call = protocol.check(str(target.host), str(target.share), target.login)
            who = f"as {target.login.user}" if target.login else "as a guest (no login in the inventory)"
            on_client(target, call.argv, f"{protocol.title} {target.url} {who}", 60, call.input, protocol.words)
            self._reached.add(key)
        return target

    # measured on the NAS when it is another host

    def drop_caches(self) -> None:
        if not self.remote:
            return super().drop_caches()
        try:
            self.agent.drop_caches()
        except NasError as e:
            raise BenchError(str(e)) from e

    def profiler(self, target: Target, interval: float) -> Profiler:
        if not self.remote:
            return super().profiler(target, interval)
        return RemoteProfiler(argv=self.agent.sampler(interval))

    def host(self, facts: Facts) -> tuple[str, str]:
        if not self.remote:
            return super().host(facts)
        kernel = facts.system.kernel.value if facts.system and facts.system.kernel.known else "unknown"
        return str(kernel), f"{self.agent.host.name} ({self.agent.host.address})"
