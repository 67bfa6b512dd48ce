"""The lab as a Site, two ways. LabSite: measured from its first client's namespace (every
target of the lab, its local share and the smbnetfs mount included) and tuned in this process.
LabInventorySite: the lab through the inventory it writes of its own hosts, exactly as a real
NAS and its clients are reached (optimize and autotune use it)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from nastune.bench.drivers import iperf3
from nastune.bench.targets import Target
from nastune.errors import UsageError
from nastune.facts import AREAS, Facts, Reading
from nastune.lab import network
from nastune.lab import scenario as scenarios
from nastune.lab.procs import alive
from nastune.lab.sh import LabError, in_ns
from nastune.lab.state import Process
from nastune.lab.storage import aged_files
from nastune.protocols import PROTOCOLS
from nastune.sites.base import Site
from nastune.sites.inventory import InventorySite
from nastune.sites.lab import credentials
from nastune.sites.lab.lab import Lab, require_root
from nastune.sites.lab.servers import smbfs_path
from nastune.sites.lab.system import LabSystem, if_running, running
from nastune.sites.tuner import Here
from nastune.tune.journal import Journal, find
from nastune.tune.plan import Plan
from nastune.tune.system import TuneError, for_root
from nastune.units import rate_bits

SHARED_KERNEL = True  # the lab's NAS is a namespace of this machine's kernel, shared with its clients


def up() -> Lab:
    lab = Lab()
    if not lab.state.up:
        raise UsageError("the lab is not up: run `nastune lab up` first")
    return lab


def lab_targets() -> dict[str, Target]:
    """The running lab's targets, used from its first client; the link's rate and MTU as they are."""
    lab = up()
    # the shaping as it is now (an htb_rate change moves it), else as the scenario built it
    mtu = network.mtu_of(network.NAS_NS, network.LINK)
    rate = network.qdisc_rate(network.NAS_NS, mtu=mtu) or rate_bits(lab.state.scenario.network.rate)
    # toward the NAS its own shaping, which a plan on the NAS (htb_rate on its lab0) leaves as it is
    uplink = network.qdisc_rate(*network.into_nas(), mtu=mtu)
    pids = {r.name: r.pid for r in lab.state.of(Process) if alive(r)}
    share = lab.state.disk.share
    common: dict[str, Any] = {
        "client_via": ("ip", "netns", "exec", network.client_ns(1)),
        "link_bps": rate,
        "uplink_bps": uplink if uplink and uplink != rate else None,
        "mtu": mtu,
        "server_pid": pids.get(profiled()),
        "extra": {"aged": [list(f) for f in aged_files(Path(share))]},
    }
    ip, smbfs, login = network.NAS_IP, str(smbfs_path(lab.dir)), credentials.load(lab.dir)
    protection = lab.state.scenario.client_protection
    return {
        **{
            name: Target(
                name,
                p.url(ip, p.lab_share),
                host=ip,
                share=p.lab_share,
                login=login if p.login_var else None,
                protection=protection if name == "smb" else None,
                **common,
            )
            for name, p in PROTOCOLS.items()
        },
        "iperf3": Target("iperf3", f"iperf3://{ip}", host=ip, serve=one_off_iperf3, **common),
        "smbfs": Target(
            "path", smbfs, share=smbfs, via_network=True, **{k: v for k, v in common.items() if k != "client_via"}
        ),
        "local": Target(
            "path",
            share,
            share=share,
            server_pid=pids.get(profiled()),
            extra={"device": re.sub(r"^/dev/", "", lab.state.disk.device)},
        ),
    }


def one_off_iperf3(seconds: float) -> AbstractContextManager[None]:
    """A one-off iperf3 server in the NAS's namespace, for one test of the network workload."""
    there = partial(in_ns, network.NAS_NS)
    return iperf3.one_off(there, network.NAS_IP, iperf3.PORT, seconds, "the lab's NAS")


def profiled() -> str:
    """The lab server whose network namespace's counters a profile reads (they all share it)."""
    return next(iter(PROTOCOLS.values())).server


def lab_servers() -> list[int]:
    """The lab's processes (its servers), whose work is the measurement."""
    return [r.pid for r in Lab().state.of(Process) if r.pid]


def scenario() -> str | None:
    scenario = Lab().state.record.scenario
    return scenario.name if scenario else None


class LabSite(Site):
    name = "the lab's NAS"
    shared_kernel = SHARED_KERNEL

    def __init__(self) -> None:
        self.scenario = scenario()

    def facts(self, reading: Reading | None = None, areas: Sequence[str] = AREAS) -> Facts:
        """Read inside the nas namespace, with the lab's own address and link rate."""
        try:
            return Facts.model_validate_json(Lab().facts_json(reading or Reading(), areas))
        except (LabError, ValueError) as e:
            raise UsageError(f"the lab's facts: {e}") from e

    def system(self) -> LabSystem:
        return running()

    def tuner(self) -> Here:
        return Here(self.system())

    def journal(self, path: str | None) -> Journal:
        """Only the lab's journals (they live on this host, in the lab's directory)."""
        lab = if_running()
        if path:
            found = find(for_root("/"), path, lab)  # a journal of the lab comes back bound to it
            if found.system is not lab:
                raise TuneError(f"{found.path}: not a journal of the lab")
            return found
        if lab is None:
            raise TuneError("the lab is not up: run `nastune lab up` first")
        return find(lab)

    def targets(self, target: str | None) -> list[Target]:
        known = lab_targets()
        if target and target not in known:
            raise UsageError(f"--lab --target {target!r}: the lab's targets are {', '.join(known)}")
        # the smbnetfs mount is measured when asked for: SMB has its own client by default
        return [known[target]] if target else [t for name, t in known.items() if name != "smbfs"]

    def default_workloads(self) -> list[str]:
        """Sequential write and read per protocol and the network; with an aged data set, its read."""
        aged = next(iter(lab_targets().values())).extra.get("aged")
        return ["seq-write", "seq-read", *(["aged-read"] if aged else []), "network"]

    def find(self, url: str) -> Target:
        known = {t.url: t for t in lab_targets().values()}
        if url not in known:
            raise UsageError(f"baseline target {url}: not a target of the lab that is up")
        return known[url]

    def stamp(self, plan: Plan) -> Plan:
        return plan.model_copy(update={"lab": True})

    def servers(self, target: Target) -> list[int]:
        return lab_servers()


@dataclass
class LabInventorySite(InventorySite):
    """The lab through its own inventory: measured and tuned as a real deployment is."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.scenario = scenario()

    def kinds(self, target: str | None) -> list[str]:
        """`smbfs`, the lab's SMB mount, is what the inventory calls its clients' mount."""
        return super().kinds("mount" if target == "smbfs" else target)

    def servers(self, target: Target) -> list[int]:
        return lab_servers()


def inventory_site(clients: str = "all", **options: Any) -> LabInventorySite:
    """The running lab through its inventory; its SMB server's pid for the profiler's counters."""
    lab = up()
    server_pid = next(iter(lab_targets().values())).server_pid
    return LabInventorySite.load(lab.inventory_path, clients, server_pid=server_pid, **options)


def fresh(name: str, log: Callable[[str], None] = print) -> None:
    """A fresh lab in scenario `name` (the one running is taken down): optimize and autotune on
    the lab start from its as-shipped state."""

    require_root()
    chosen = scenarios.load(name)
    log(f"lab: starting from a fresh {chosen.name}")
    running = Lab()
    if running.state.exists:
        running.down(log=log)
    Lab().up(chosen, log=log)


def started(
    scenario_name: str, resume: bool = False, clients: str = "all", log: Callable[[str], None] = print, **options: Any
) -> LabInventorySite:
    """The lab through its inventory, from a fresh lab of `scenario_name`; with `resume`, the lab
    as it runs when one is up (a resumed search's base)."""
    if not (resume and Lab().state.up):
        fresh(scenario_name, log)
    return inventory_site(clients, **options)
