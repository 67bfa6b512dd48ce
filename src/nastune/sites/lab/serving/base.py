"""What serves one protocol in the lab: its server configured from the scenario, its state under
the lab's directory, started in the NAS's namespace and checked by a real client before `up`
returns. The protocol (nastune.protocols) is what a client measures; this is the lab's side of it."""

from __future__ import annotations

from pathlib import Path

from nastune.lab import network
from nastune.lab.procs import client_ok, wait_for
from nastune.lab.scenario import Scenario
from nastune.lab.state import Process, State
from nastune.login import Login
from nastune.protocols import Protocol


class Serving:
    protocol: Protocol

    def start(
        self, state: State, directory: Path, share: str, scenario: Scenario, cgroups: list[str], login: Login
    ) -> Process:
        """Configure and start the lab's server, which asks for `login` where the protocol has
        logins; return its process entry once it answers."""
        raise NotImplementedError

    def ready(self, entry: Process, login: Login | None, timeout: float = 30) -> Process:
        """`entry`, once a real client is served the lab's share (as `login`)."""
        p = self.protocol
        call = p.check(network.NAS_IP, p.lab_share, login)
        wait_for(p.server, entry, lambda: client_ok(call.argv, call.input), timeout)
        return entry
