"""The System of the running lab, as the tuning engine acts on it: this host's files, the nas
network namespace, the servers' mount namespaces, the rest of the segment (clients and switch,
which an MTU change must reach too, its shaping following the frame size), and the lab's own
restart of a daemon."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from nastune.facts.nfs_server import config_path
from nastune.facts.system import Process as Daemon
from nastune.lab import network, procs
from nastune.lab.sh import HOST, LabError
from nastune.lab.state import DEFAULT_DIR, Netns, Process
from nastune.sites.lab.lab import Lab
from nastune.tune.knobs.daemons import CONFIG_FLAGS
from nastune.tune.system import System, TuneError


@dataclass
class LabSystem(System):
    netns: str = network.NAS_NS  # the nas host: its network stack
    lab_dir: Path = DEFAULT_DIR  # its journals live with it (gone with `lab down`)
    peer_netns: list[str] = field(default_factory=list)  # the lab's clients and switch: the rest of the segment
    boots: ClassVar[bool] = False  # the lab is gone at a reboot: nothing of it to persist
    own_network: ClassVar[bool] = True  # the nas namespace's, not this host's /proc/sys/net
    reverts: ClassVar[bool] = False  # no person works over the lab's data link: no watchdog unless asked

    @property
    def name(self) -> str:
        return "the lab's NAS"

    @property
    def journal_dir(self) -> str:
        return f"{self.lab_dir}/journal"

    def run_net(self, argv: Sequence[str], what: str = "") -> str:
        return self.run(["ip", "netns", "exec", self.netns, *argv], what=what or argv[0])

    def set_mtu(self, dev: str, mtu: int, what: str) -> None:
        """Every host and the switch of the segment get the MTU (they must agree), each link
        still shaped as Ethernet of its rate."""
        try:
            for ns in self.peer_netns:
                network.segment_mtu(ns, mtu)
            network.set_mtu(self.netns, dev, mtu)
        except LabError as e:
            raise TuneError(f"{what}: {e}") from e

    def restart(self, service: str) -> None:
        try:
            Lab(self.lab_dir).restart(service)
        except LabError as e:
            raise TuneError(f"restart the lab's {service}: {e}") from e


def running() -> LabSystem:
    """The lab that is up; TuneError when it is not."""
    lab = Lab()
    if not lab.state.up:
        raise TuneError("the lab is not up: run `nastune lab up` first")
    seen, pids = set(), []
    for entry in lab.state.of(Process):
        if entry.pid and procs.alive(entry):
            ns = HOST.readlink(f"/proc/{entry.pid}/ns/mnt")
            if ns not in seen:
                seen.add(ns)
                pids.append(entry.pid)
    peers = [r.name for r in lab.state.of(Netns) if r.name != network.NAS_NS]
    system = LabSystem(root=HOST, netns=network.NAS_NS, lab_dir=lab.dir, server_pids=pids, peer_netns=peers)
    system.config_paths.update(_configs(lab))
    return system


def _configs(lab: Lab) -> dict[str, str]:
    """The configuration files the lab started its own servers with, from its record: another
    lab's servers share this host's process table, where the first one found may be theirs."""
    found = {}
    for entry in lab.state.of(Process):
        names = [os.path.basename(arg) for arg in entry.argv]
        for daemon, flags in CONFIG_FLAGS.items():
            if daemon in names:
                argv = entry.argv[names.index(daemon) :]
                found[daemon] = config_path([Daemon(pid=0, name=daemon, cmdline=argv)], flags, "")
    return {daemon: path for daemon, path in found.items() if path}


def if_running() -> LabSystem | None:
    """The lab's System when a lab is up, else None (journals: the lab's are searched too)."""
    try:
        return running()
    except TuneError:
        return None
