"""A host as the coordinator reaches it, the NAS or a client that runs nastune: nastune's own
commands run there (over SSH, or here when the inventory says `ansible_connection=local`), so
that its facts are read there, its journal is written there (a host that reboots mid-apply is
rolled back there, by `nastune rollback` on it), and its confirm-or-revert watchdog runs there:
when a network change cuts the coordinator off, the host reverts by itself. The plan travels on
standard input."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from nastune import commands, wire
from nastune.errors import Failure
from nastune.facts import Facts
from nastune.facts.context import Reading
from nastune.remote import session
from nastune.remote.inventory import Host, Nas, load
from nastune.risks import Risks
from nastune.ssh import UNREACHABLE, Ssh, unreachable_reason
from nastune.tune.plan import Plan
from nastune.tune.system import Stranded

W = TypeVar("W", bound=wire.Wire)
NOT_FOUND = 127  # the remote shell's status for a command it cannot find
STRANDED = 3  # `nastune apply`: failed, and changes remain applied


class NasError(Failure):
    """A command on the NAS (or a client that runs nastune) failed; the message names the host
    and the command."""

    def __init__(self, message: str, returncode: int | None = None):
        super().__init__(message)
        self.returncode = returncode


@dataclass(frozen=True)
class Agent:
    host: Host
    role: str = "NAS"  # or "client", for messages

    @classmethod
    def of(cls, inventory: Path) -> Agent:
        """The NAS of the inventory at `inventory` (InventoryError names what is wrong in it)."""
        return cls(load(inventory).nas)

    def forward(self, args: list[str]) -> commands.CommandResult:
        """nastune `args` run on the NAS, whatever its exit status (the caller passes it on);
        NasError when the NAS cannot be reached or the command cannot run."""
        why = self.check()
        if why:
            raise NasError(why)
        result = commands.run(self.argv([*self.nastune_argv, *args]), 600)
        if result.error:
            raise NasError(f"{args[0]} on {self.name}: {result.error}")
        return result

    @property
    def ssh(self) -> Ssh | None:
        return None if self.host.local else Ssh(self.host)

    @property
    def name(self) -> str:
        return f"{self.role} {self.host.name}" + ("" if self.host.local else f" ({self.host.address})")

    @property
    def nastune_argv(self) -> list[str]:
        """nastune on the host: the inventory's nastune_command; on this host, this very nastune."""
        command = self.host.command or ["nastune"]
        if self.host.local and command == ["nastune"]:
            return [sys.executable, "-m", "nastune"]
        return list(command)

    @property
    def serving(self) -> list[str]:
        """The command that opens nastune's session on the host (remote/session.py)."""
        return self.argv([*self.nastune_argv, "serve", *self.lab_args])

    @property
    def lab_args(self) -> list[str]:
        return ["--lab"] if isinstance(self.host, Nas) and self.host.lab else []

    def argv(self, argv: list[str]) -> list[str]:
        return argv if self.ssh is None else self.ssh.argv(argv)

    def check(self) -> str | None:
        """None when the NAS runs commands for us, else why not."""
        return None if self.ssh is None else self.ssh.check(role=self.role)

    def fresh_check(self) -> str | None:
        """Like check, over a new connection: after a network change the shared one may be a
        survivor that hides a NAS no new session can reach."""
        if self.ssh is not None:
            session.close(self.serving)
            self.ssh.close()
        return self.check()

    def run(
        self, argv: list[str], what: str, timeout: float = 600, input: str | None = None, ok: tuple[int, ...] = (0,)
    ) -> str:
        return self._checked(commands.run(self.argv(argv), timeout, input), argv, what, ok)

    def _checked(self, result: commands.CommandResult, argv: list[str], what: str, ok: tuple[int, ...]) -> str:
        """The output of `argv` run on the host; NasError says why there is none."""
        if self.ssh is not None and result.returncode == UNREACHABLE:
            raise NasError(f"{what} on {self.name}: {unreachable_reason(result)}")
        if result.error:
            raise NasError(f"{what} on {self.name}: {result.error}")
        if result.returncode == NOT_FOUND:
            raise NasError(
                f"{what} on {self.name}: {argv[0]} is not installed there (nastune_command: "
                f"{' '.join(self.host.command or ['nastune'])}): {result.tail(1)}"
            )
        if result.returncode not in ok:
            raise NasError(
                f"{what} on {self.name} failed (exit {result.returncode}): {_why(result)}", result.returncode
            )
        return result.stdout

    def nastune(
        self, *args: str, what: str, input: str | None = None, timeout: float = 600, ok: tuple[int, ...] = (0,)
    ) -> str:
        """nastune ARGS on the host, through its session there (remote/session.py) where it has one."""
        argv = [*self.nastune_argv, *args]
        served = session.run(self.serving, args, timeout, input, self.argv(argv))
        if served is None:
            return self.run(argv, what, timeout, input, ok)
        return self._checked(served, argv, what, ok)

    def facts(self, reading: Reading, areas: Sequence[str]) -> Facts:
        """The host's facts of `areas`, read there as `reading` says (facts.Reading: its options
        travel as inspect's own)."""
        chosen = [a for area in areas for a in ("--area", area)]
        out = self.nastune("inspect", "--json", *self.lab_args, *reading.args(), *chosen, what="inspect")
        try:
            return Facts.model_validate(self._json(out, "inspect"))
        except ValueError as e:
            raise NasError(f"inspect on {self.name}: not facts nastune reads ({str(e)[:200]})") from None

    def apply(self, plan: Plan, accept_risk: Risks, confirm_timeout: int, persist: bool = False) -> wire.Apply:
        """Apply `plan` on the NAS: its journal there, and the watchdog's seconds (0: none armed);
        with `persist`, its settings also survive the NAS's reboots."""
        risk = [word for r in sorted(accept_risk) for word in ("--accept-risk", r)]
        risk += ["--persist"] if persist else []
        try:
            out = self.nastune(
                "apply",
                "-",
                "--yes",
                "--json",
                *self.lab_args,
                *risk,
                "--confirm-timeout",
                str(confirm_timeout),
                what="apply",
                input=plan.to_json(),
            )
        except NasError as e:
            if e.returncode == STRANDED:  # its rollback failed: the NAS is not as it was
                raise Stranded(f"{self.name}: {e}") from e
            raise
        return self._wire(out, "apply", wire.Apply)

    def refusals(self, plan: Plan) -> dict[int, str]:
        """Why each change of `plan` the host cannot make cannot, by its place in the plan (a
        dry run there: nothing changes)."""
        out = self.nastune(
            "apply", "-", "--dry-run", "--json", *self.lab_args, what="apply --dry-run", input=plan.to_json()
        )
        done = self._wire(out, "apply --dry-run", wire.Apply)
        return {s.index: s.error for s in done.settings if s.error}

    def confirm(self, journal: str) -> None:
        self.nastune("confirm", "--journal", journal, what="confirm")

    def verify(self, journal: str | None = None) -> wire.Verify:
        """Each setting of `journal` (the newest: None) as applied or not (exit 1 is drift, not
        failure); NasError when there is no journal."""
        which = ["--journal", journal] if journal else []
        out = self.nastune("verify", *which, "--json", *([] if journal else self.lab_args), what="verify", ok=(0, 1))
        return self._wire(out, "verify", wire.Verify)

    def rollback(self, journal: str) -> str:
        return self.nastune("rollback", "--to", journal, what="rollback")  # --to: what older agents know too

    def drop_caches(self) -> None:
        """The NAS's page cache, so that reads are served from its disks."""
        # one round trip: dirty pages are written first, or they could not be dropped
        self.run(["sh", "-c", "sync && exec sysctl -q -w vm.drop_caches=3"], "drop caches")

    def sampler(self, interval: float) -> list[str]:
        """The command that streams the NAS's /proc samples, one JSON line each."""
        return self.argv([*self.nastune_argv, "sample", "--interval", str(interval)])

    def _wire(self, text: str, what: str, model: type[W]) -> W:
        """A typed summary nastune printed on the NAS, checked against its schema."""
        try:
            return model.model_validate_json(text)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(the whole)"
            raise NasError(
                f"{what} on {self.name}: not a {wire.tag(model)} summary ({where}: {first['msg']})"
            ) from None

    def _json(self, text: str, what: str) -> dict:
        try:
            data = json.loads(text)
        except ValueError:
            raise NasError(f"{what} on {self.name}: not JSON: {text[:200]!r}") from None
        if not isinstance(data, dict):
            raise NasError(f"{what} on {self.name}: not a JSON object")
        return data


def _why(result: commands.CommandResult) -> str:
    """Why a command on a host failed: from nastune's own last error line on, where it printed
    one (what it showed before, such as a plan's table, is not the reason); else the output's tail."""
    lines = result.stderr.strip().splitlines()
    errors = [i for i, line in enumerate(lines) if line.startswith(("error:", "internal error:"))]
    return " | ".join(lines[errors[-1] :]) if errors else result.tail(3)
