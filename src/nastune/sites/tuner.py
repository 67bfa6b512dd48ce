"""Who applies and rolls back a plan: this process on this host (or the lab), or nastune on
the NAS of an inventory. optimize and the interleaved A/B runs use either through one face:
hold, apply, verify, rollback, and the command that undoes an apply."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from nastune import commands
from nastune.errors import UsageError
from nastune.remote.agent import Agent, NasError
from nastune.remote.inventory import Nas
from nastune.risks import Risks
from nastune.sites import handles
from nastune.ssh import Ssh
from nastune.tune import executor, lock, persist_after
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

    def applying(self, plan_file: Path) -> str:
        """The command that applies `plan_file` here, as the operator runs it."""
        ...

    def persisting(self, journal: str) -> str | None:
        """The command that makes `journal`'s settings survive a reboot (None: the NAS does not reboot)."""
        ...

    def persist(self, journal: str, log: Callable[[str], None]) -> None:
        """Make `journal`'s settings survive a reboot, as `persisting`'s command does."""
        ...

    def newest(self) -> str | None: ...

    def refusals(self, plan: Plan) -> dict[int, str]:
        """Why each change of `plan` that cannot be made cannot, by its place in the plan
        (nothing is changed)."""
        ...


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

    def applying(self, plan_file: Path) -> str:
        return f"nastune apply {plan_file}"

    def persisting(self, journal: str) -> str | None:
        return f"nastune persist --journal {journal}" if self.system.boots else None

    def persist(self, journal: str, log: Callable[[str], None]) -> None:
        made = persist_after.written(Journal.at(self.system, journal), log)  # optimize holds the lock
        if made:
            log(f"persisted; `nastune rollback --journal {made}` removes what that wrote")

    def refusals(self, plan: Plan) -> dict[int, str]:
        return {r.index: r.error for r in executor.diff(plan, self.system) if r.error and r.index >= 0}

    def newest(self) -> str | None:
        """The newest journal on the tuned system (to find what a killed apply left)."""
        try:
            return Journal.latest(self.system).path
        except TuneError:
            return None


@dataclass
class OnNas:
    """Tuning the NAS of an inventory with nastune on the NAS, and each client the plan changes
    with nastune on that client: each host's journal and confirm-or-revert watchdog live there.
    After a network change the coordinator proves, over new connections, that it still reaches
    the host and that every client still reaches the NAS's data address with full-size packets;
    only then does it confirm. If that fails, or the session is cut, nothing confirms and the
    host reverts by itself. A failure on one host rolls back what the plan changed on the others."""

    agent: Agent
    inventory: str
    clients: list[Ssh] = field(default_factory=list)  # the measuring clients
    confirm_timeout: int = 120
    tuned: dict[str, Agent] = field(default_factory=dict)  # the clients that run nastune, by name

    @property
    def nas(self) -> Nas:
        if not isinstance(self.agent.host, Nas):
            raise TypeError(f"{self.agent.name} is not an inventory's NAS")
        return self.agent.host

    def hold(self, what: str = "optimize") -> AbstractContextManager[None]:
        return contextlib.nullcontext()  # nastune on each host holds its lock for each command

    def apply(self, plan: Plan, accept_risk: Risks, log: Callable[[str], None], persist: bool = False) -> str | None:
        """Each host's part of the plan on that host, the NAS first; one --journal value naming
        each host's journal (handles.py), None when nothing needed changing."""
        done: list[handles.Part] = []
        for host, part in self._parts(plan):
            try:
                journal = self._apply_on(host, part, accept_risk, log, persist)
            except (NasError, TuneError) as e:
                self._undo_after(done, e)
                if not done or isinstance(e, Stranded):
                    raise
                restored = ", ".join(self._agent(h).name for h, _ in done)
                raise NasError(f"{e}; what the plan changed on {restored} was rolled back") from e
            if journal:
                done.append((host, journal))
        return handles.joined(done) if done else None

    def _parts(self, plan: Plan) -> list[tuple[str | None, Plan]]:
        """The plan's changes by host, the NAS's first, each as the host's own plan."""
        hosts = list(dict.fromkeys([None, *(c.host for c in plan.changes)]))
        unknown = [h for h in hosts if h is not None and h not in self.tuned]
        if unknown:
            raise UsageError(
                f"the plan changes client {unknown[0]}, which {self.inventory} gives no nastune_command "
                "(nastune reads and tunes only the clients that run it)"
            )
        parts = []
        for host in hosts:
            changes = [c.model_copy(update={"host": None}) for c in plan.changes if c.host == host]
            if changes or host is None:
                parts.append((host, plan.model_copy(update={"changes": changes})))
        return parts

    def refusals(self, plan: Plan) -> dict[int, str]:
        """Each host's refusals of its part, by the change's place in the whole plan."""
        found: dict[int, str] = {}
        for host, part in self._parts(plan):
            places = [i for i, c in enumerate(plan.changes) if c.host == host]
            if part.changes:
                found |= {places[i]: why for i, why in self._agent(host).refusals(part).items()}
        return found

    def _agent(self, host: str | None) -> Agent:
        return self.agent if host is None else self.tuned[host]

    def _apply_on(
        self, host: str | None, plan: Plan, accept_risk: Risks, log: Callable[[str], None], persist: bool
    ) -> str | None:
        agent, timeout = self._agent(host), self.confirm_timeout
        if not plan.changes:
            return None
        try:  # the lab's clients share this host's files: nothing of theirs to persist
            done = agent.apply(plan, accept_risk, timeout, persist and not (host and self.nas.lab))
        except Stranded:
            raise
        except NasError as e:
            raise NasError(
                f"{e}. If the session was cut, nastune on {agent.name} finishes or rolls back the apply by "
                f"itself and reverts its network changes within {timeout} s; check with `nastune verify` there"
            ) from e
        if not done.journal:
            log(f"nothing to change on {agent.name}: every setting already is as planned")
            return None
        log(f"applied on {agent.name}; its journal is there: {done.journal}")
        if done.watchdog:
            why = agent.fresh_check() or self.unreached()
            if why:
                raise NasError(
                    f"after the network changes, {why}: not confirming, so {agent.name} reverts them by itself "
                    f"within {done.watchdog} s; then `nastune rollback --journal {done.journal}` there "
                    "restores the rest"
                )
            agent.confirm(done.journal)
            log(f"network changes on {agent.name} confirmed: the NAS and every client still reach each other")
        return done.journal

    def _undo_after(self, done: list[handles.Part], cause: BaseException) -> None:
        """After a failure on one host, the hosts already changed are restored; Stranded when one
        of them cannot be."""
        try:
            self.rollback(handles.joined(done))
        except NasError as e:
            raise Stranded(f"{cause}; and restoring the hosts already changed failed: {e}") from e

    def unreached(self) -> str | None:
        """Why a client no longer reaches the NAS's data address with packets of its MTU."""
        address = self.nas.data_address
        for ssh in self.clients:
            mtu = ssh.mtu_toward(address) or 1500
            # two probes 0.2 s apart (the shortest interval ping grants a user that is not root):
            # every switch to B after a network change waits on this
            probe = ["ping", "-c", "2", "-i", "0.2", "-W", "3", "-M", "do", "-s", str(mtu - 28), "--", address]
            result = commands.run(ssh.argv(probe), 30)
            if not result.ok:
                return f"client {ssh.host.name} does not reach {address} with {mtu}-byte packets ({result.tail(1)})"
        return None

    def verify(self, journal: str) -> list[str]:
        """The settings of each host's journal that do not read as applied (a client's named)."""
        drifted = []
        for host, path in self._split(journal):
            where = f"{host}: " if host else ""
            drifted += [where + s.setting for s in self._agent(host).verify(path).settings if not s.ok]
        return drifted

    def rollback(self, journal: str) -> None:
        """Each host's journal rolled back, the last applied first; every host is tried, and
        NasError names those that failed."""
        failed = []
        for host, path in reversed(self._split(journal)):
            try:
                self._agent(host).rollback(path)
            except NasError as e:
                failed.append(str(e))
        if failed:
            raise NasError("; ".join(failed))

    def _split(self, journal: str) -> list[handles.Part]:
        return handles.split(journal, self.tuned)

    def undo(self, journal: str) -> str:
        """Each host's newest journal rolled back: `journal` is, when this is said, and the
        command stays one line to copy (no journal paths)."""
        return f"nastune rollback --inventory {self.inventory}"

    def applying(self, plan_file: Path) -> str:
        return f"nastune apply {plan_file} --inventory {self.inventory}"

    def persisting(self, journal: str) -> str | None:
        if self.nas.lab:  # the lab's hosts, namespaces of this machine: gone at a reboot
            return None
        return f"nastune persist --inventory {self.inventory} --journal {journal}"

    def persist(self, journal: str, log: Callable[[str], None]) -> None:
        """Each host's journal persisted there, as `nastune persist` on that host does."""
        for host, path in self._split(journal):
            agent = self._agent(host)
            said = agent.nastune("persist", "--journal", path, what="persist").strip()
            log(f"{agent.name}: {said}")

    def newest(self) -> str | None:
        try:
            return self.agent.verify().journal
        except NasError:
            return None  # no journal: verify said so in words
