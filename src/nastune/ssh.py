"""Reaching a host with the system's OpenSSH client: key-based and never asking (BatchMode),
one shared connection per host (ControlMaster) so each command costs a round trip rather than
a handshake, dead peers noticed within seconds (ServerAlive), and the user's known_hosts
policy. A remote command is an argument vector quoted for the remote shell with shlex: a
share named `x; rm -rf /` arrives as one argument, never as shell syntax; the host comes after
`--` (and is a validated name or address), so it can never be read as an option."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from nastune import commands

CONTROL_DIR = Path("/run/nastune/ssh")  # short: a socket path must fit in 108 bytes
UNREACHABLE = 255  # ssh's own exit status: the connection, not the remote command, failed


class Host(Protocol):
    """What reaching a host takes (remote.inventory.Host is one): named here, so SSH depends on
    no inventory."""

    @property
    def name(self) -> str: ...
    @property
    def address(self) -> str: ...
    @property
    def user(self) -> str | None: ...
    @property
    def port(self) -> int: ...
    @property
    def key(self) -> Path | None: ...
    @property
    def ssh_args(self) -> list[str]: ...


@dataclass(frozen=True)
class Ssh:
    host: Host

    def options(self) -> list[str]:
        CONTROL_DIR.mkdir(parents=True, exist_ok=True, mode=0o700)
        opts = [
            "-T",
            "-o",
            "BatchMode=yes",
            "-o",
            "ConnectTimeout=10",
            "-o",
            "ServerAliveInterval=5",
            "-o",
            "ServerAliveCountMax=3",
            "-o",
            "ControlMaster=auto",
            "-o",
            f"ControlPath={CONTROL_DIR}/%C",
            "-o",
            "ControlPersist=120",
            "-o",
            "LogLevel=ERROR",
            "-p",
            str(self.host.port),
        ]
        if self.host.key:
            opts += ["-i", str(self.host.key), "-o", "IdentitiesOnly=yes"]
        if self.host.user:
            opts += ["-l", self.host.user]
        return opts + self.host.ssh_args

    def argv(self, argv: list[str]) -> list[str]:
        """The local command that runs `argv` on the host, in the C locale."""
        remote = shlex.join(["env", "LC_ALL=C", "LANG=C", *argv])
        return ["ssh", *self.options(), "--", self.host.address, remote]

    def check(self, timeout: float = 20, role: str = "client") -> str | None:
        """None when the host runs a command for us, else why not, naming the host."""
        result = commands.run(self.argv(["true"]), timeout)
        if result.ok:
            return None
        return f"{role} {self.host.name} ({self.host.address}): {unreachable_reason(result)}"

    def mtu_toward(self, address: str) -> int | None:
        """The MTU of the host's interface toward `address` (its route, then its link)."""
        route = commands.run(self.argv(["ip", "-j", "route", "get", "to", address]), 20)
        try:
            dev = json.loads(route.stdout)[0]["dev"]
            link = commands.run(self.argv(["ip", "-j", "link", "show", "dev", dev]), 20)
            return int(json.loads(link.stdout)[0]["mtu"])
        except (ValueError, LookupError, TypeError):
            return None

    def close(self) -> None:
        """End the shared connection (ControlPersist would keep it a while)."""
        commands.run(["ssh", *self.options(), "-O", "exit", "--", self.host.address], 10)


def unreachable_reason(result: commands.CommandResult) -> str:
    if result.error:
        return result.error
    text = (result.stderr.strip() or result.stdout.strip()).splitlines()
    detail = text[-1] if text else f"exit {result.returncode}"
    if "Permission denied" in detail:
        return f"the key was refused ({detail})"
    if "Host key verification failed" in detail or "No matching host key" in detail:
        return f"its host key is not in known_hosts ({detail})"
    return f"cannot connect ({detail})"


def missing_tools(ssh: Ssh, tools: list[str]) -> list[str]:
    """Which of `tools` the host lacks, asked in one round trip (`command -v` through sh, the
    one thing run through a shell, with the names passed as arguments, not as code)."""
    script = 'for t in "$@"; do command -v "$t" >/dev/null 2>&1 || echo "$t"; done'
    result = commands.run(ssh.argv(["sh", "-c", script, "nastune", *tools]), 30)
    if result.returncode == UNREACHABLE or result.error:
        return []  # unreachable: check() says so
    return result.stdout.split()
