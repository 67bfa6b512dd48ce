"""Who applies and rolls back a plan: this process on this host (or the lab), or nastune on
the NAS of an inventory. optimize and the interleaved A/B runs use either through one face:
hold, apply, verify, rollback, and the command that undoes an apply."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Protocol

from nastune import commands
from nastune.remote.nas import NasAgent, NasError
from nastune.risks import Risks
from nastune.tune import executor, lock
from nastune.tune.journal import Journal
from nastune.tune.plan import Plan
from nastune.tune.rollback import rollback
from nastune.tune.system import Stranded, System, TuneError


class Tuner(Protocol):
    """What optimize, ab and autotune ask of whoever tunes the NAS."""

    def hold(self, what: str = "optimize") -> AbstractContextManager[None]: ...

    def apply(
        self, plan: Plan, accept_risk: Risks, log: Callable[[str], None], persist: bool = False
    ) -> str | None: ...

    def verify(self, journal: str) -> list[str]: ...

    def rollback(self, journal: str) -> None: ...

    def undo(self, journal: str) -> str: ...

    def persisting(self, journal: str) -> str | None:
        """The command that makes `journal`'s settings survive a reboot (None: the NAS does not reboot)."""
        ...

    def newest(self) -> str | None: ...


@dataclass
class Here:
    """Tuning this host (or the lab) from this process."""

    system: System

    def hold(self, what: str = "optimize") -> AbstractContextManager[None]:
        return lock.hold(self.system, what)

    def apply(self, plan: Plan, accept_risk: Risks, log: Callable[[str], None], persist: bool = False) -> str | None:
        """The journal's path; None when every setting already was as planned (and, with
        `persist`, already survives a reboot)."""
        journal = executor.apply(plan, self.system, accept_risk=accept_risk, persist=persist, log=log)
        return journal.path if journal else None

    def verify(self, journal: str) -> list[str]:
        """The settings of `journal` that do not read as applied."""
        return [label for label, _, _, ok in executor.verify(Journal.at(self.system, journal), self.system) if not ok]

    def rollback(self, journal: str) -> None:
        report = rollback(Journal.at(self.system, journal), self.system, log=lambda m: None)
        if not report.ok:
            raise TuneError(report.summary())

    def undo(self, journal: str) -> str:
        return f"nastune rollback --journal {journal}"

    def persisting(self, journal: str) -> str | None:
        return f"nastune persist --journal {journal}" if self.system.boots else None

    def newest(self) -> str | None:
        """The newest journal on the tuned system (to find what a killed apply left)."""
        try:
            return Journal.latest(self.system).path
        except TuneError:
            return None


@dataclass
class OnNas:
    """Tuning the NAS of an inventory with nastune on the NAS: the journal and the
    confirm-or-revert watchdog live there. After a network change the coordinator proves, over
    new connections, that it still reaches the NAS and that every client still reaches the
    NAS's data address with full-size packets; only then does it confirm. If that fails, or the
    session is cut, nothing confirms and the NAS reverts by itself."""

    agent: NasAgent
    inventory: str
    clients: list = field(default_factory=list)  # the measuring clients' Ssh
    confirm_timeout: int = 120

    def hold(self, what: str = "optimize") -> AbstractContextManager[None]:
        return contextlib.nullcontext()  # nastune on the NAS holds the NAS's lock for each command

    def apply(self, plan: Plan, accept_risk: Risks, log: Callable[[str], None], persist: bool = False) -> str | None:
        timeout = self.confirm_timeout
        try:
            done = self.agent.apply(plan, accept_risk, timeout, persist)
        except Stranded:
            raise
        except NasError as e:
            raise NasError(
                f"{e}. If the session was cut, nastune on the NAS finishes or rolls back the apply by itself "
                f"and reverts its network changes within {timeout} s; check with `nastune verify --inventory "
                f"{self.inventory}`"
            ) from e
        if not done.journal:
            log(f"nothing to change on {self.agent.name}: every setting already is as planned")
            return None
        journal = done.journal
        log(f"applied on {self.agent.name}; its journal is there: {journal}")
        if done.watchdog:
            why = self.agent.fresh_check() or self.unreached()
            if why:
                raise NasError(
                    f"after the network changes, {why}: not confirming, so the NAS reverts them by itself "
                    f"within {done.watchdog} s; then `{self.undo(journal)}` restores the rest"
                )
            self.agent.confirm(journal)
            log("network changes confirmed: the NAS and every client still reach each other")
        return journal

    def unreached(self) -> str | None:
        """Why a client no longer reaches the NAS's data address with packets of its MTU."""
        address = self.agent.host.data_address
        for ssh in self.clients:
            mtu = ssh.mtu_toward(address) or 1500
            probe = ["ping", "-c", "2", "-W", "3", "-M", "do", "-s", str(mtu - 28), "--", address]
            result = commands.run(ssh.argv(probe), 30)
            if not result.ok:
                return f"client {ssh.host.name} does not reach {address} with {mtu}-byte packets ({result.tail(1)})"
        return None

    def verify(self, journal: str) -> list[str]:
        return [s.setting for s in self.agent.verify(journal).settings if not s.ok]

    def rollback(self, journal: str) -> None:
        self.agent.rollback(journal)

    def undo(self, journal: str) -> str:
        return f"nastune rollback --inventory {self.inventory} --journal {journal}"

    def persisting(self, journal: str) -> str | None:
        if self.agent.host.lab:  # the lab's NAS, a namespace of this machine: gone at a reboot
            return None
        return f"nastune persist --inventory {self.inventory} --journal {journal}"

    def newest(self) -> str | None:
        try:
            return self.agent.verify().journal
        except NasError:
            return None  # no journal: verify said so in words
