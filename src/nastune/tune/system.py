"""What a knob acts on: a root for files and commands, the mount namespaces of the servers, and
where its network stack is. A System whose network is not the root's (another namespace) says so
and runs its network tools there; commands run only on a live system, never on a tree."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from nastune import commands
from nastune.errors import Failure
from nastune.root import Root, Unavailable

UNITS = {"ganesha": "nfs-ganesha"}  # a service's systemd unit, where its name differs
PORTS = {"ganesha": 2049}  # where a restarted service answers: systemctl may return before it listens
READY_WAIT = 60.0  # seconds a restarted service may take to listen


class TuneError(Failure):
    """A change that cannot be made; the message names the knob, target and reason."""


class Stranded(TuneError):
    """An apply failed and its automatic rollback could not restore everything: the system is
    no longer as it was. Whoever applied must stop and say so (never measure or search on)."""

    code = 3  # the README's exit codes: changes remain applied


@dataclass
class System:
    root: Root
    server_pids: list[int] = field(default_factory=list)  # one per mount namespace that serves files
    config_paths: dict[str, str] = field(default_factory=dict)  # daemon -> config file it runs with
    # where nastune keeps its journals, under the root (a host of the lab keeps them in the lab)
    state_dir: str = field(default_factory=lambda: os.environ.get("NASTUNE_STATE_DIR", "/var/lib/nastune"))
    boots: ClassVar[bool] = True  # it reboots, so its settings can be made to last (apply --persist)
    # its network stack is not the root's /proc/sys/net and /sys/class/net (a namespace): its
    # network values are read and written with tools run where it is (run_net)
    own_network: ClassVar[bool] = False
    reverts: ClassVar[bool] = True  # network changes revert unless confirmed (a person may be cut off)

    @property
    def live(self) -> bool:
        return self.root.live

    @property
    def name(self) -> str:
        """The system as a person names it in an error."""
        return "this host" if self.live else f"the tree {self.root.path}"

    def read(self, path: str) -> str | None:
        try:
            return self.root.read(path)
        except Unavailable:
            return None

    def run(self, argv: Sequence[str], what: str = "", timeout: float = 600) -> str:
        """Run a command on the live system; stdout."""
        if not self.live:
            raise TuneError(f"{what or argv[0]}: needs a live system (this root is {self.root.path})")
        result = commands.run(argv, timeout=timeout)
        if result.error:
            raise TuneError(f"{what or argv[0]}: {result.error}")
        if result.returncode != 0:
            raise TuneError(f"{what or ' '.join(argv)}: {result.tail(1) or f'exit {result.returncode}'}")
        return result.stdout

    def run_net(self, argv: Sequence[str], what: str = "") -> str:
        """Run a network tool (ip, ethtool, sysctl, tc) where the system's network stack is."""
        return self.run(argv, what=what)

    def restart(self, service: str) -> None:
        """Restart a daemon whose configuration changed (tune/services.py): its systemd unit
        here; the lab's System restarts the lab's own process."""
        unit = UNITS.get(service, service)
        if not shutil.which("systemctl"):
            raise TuneError(f"restart {unit}: no systemctl here; restart it by hand")
        self.run(["systemctl", "restart", unit], what=f"restart {unit}")
        port = PORTS.get(service)
        deadline = time.monotonic() + READY_WAIT
        while port and not self.listening(port):
            if time.monotonic() > deadline:
                raise TuneError(f"restart {unit}: nothing listens on TCP port {port} {READY_WAIT:.0f} s later")
            time.sleep(0.1)

    def set_mtu(self, dev: str, mtu: int, what: str) -> None:
        """An interface's MTU (a System of several hosts sets the whole segment's)."""
        self.run_net(["ip", "link", "set", "dev", dev, "mtu", str(mtu)], what=what)

    def listening(self, port: int) -> bool:
        """Whether a socket listens on TCP `port` here (/proc/net/tcp and tcp6: state 0A)."""
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for line in (self.read(table) or "").splitlines()[1:]:
                fields = line.split()
                if len(fields) > 3 and fields[3] == "0A" and fields[1].rsplit(":", 1)[-1] == f"{port:04X}":
                    return True
        return False

    @property
    def journal_dir(self) -> str:
        return f"{self.state_dir}/journal"


def for_root(root: str) -> System:
    """The system a tuning command acts on: a root directory (live when '/'); the lab's is
    nastune.sites.lab.system.running()."""
    if not Path(root).is_dir():
        raise TuneError(f"{root}: tuning needs a directory root (a snapshot archive is read-only)")
    try:
        return System(root=Root(root))
    except Unavailable as e:
        raise TuneError(str(e)) from e
