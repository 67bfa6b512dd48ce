"""The main job, end to end as the seeds do it: inspect, diagnose, measure, plan, apply (with the
tuning engine's safety), measure again, compare, report."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from nastune import rules as knowledge
from nastune.bench import runner
from nastune.facts import Facts
from nastune.jsonfile import dumps
from nastune.remote.nas import NasAgent, NasError
from nastune.report import html
from nastune.rules.runtime import with_runtime
from nastune.stats.runs import Row, compare_runs, failures
from nastune.tune import executor, lock
from nastune.tune.plan import Plan, from_findings
from nastune.tune.system import System

MACHINE_WIDE = ("vm.", "fs.", "kernel.")  # sysctls the lab's nas shares with its clients and this host


@dataclass
class Outcome:
    rows: list[Row]
    notes: list[str]
    report: Path
    plan: Plan
    skipped: list[str]
    journal: str
    failed: list[str]
    undo: str  # the command that rolls the plan back


def fresh_lab(scenario: str, log=print) -> Path:
    """A fresh lab in `scenario` (the one running is taken down); its inventory, which optimize
    then uses as a real deployment's: the NAS over SSH, measured from the clients."""
    from nastune.lab import scenario as scenarios
    from nastune.lab.lab import Lab, require_root

    require_root()
    chosen = scenarios.load(scenario)
    log(f"lab: starting from a fresh {chosen.name}")
    fresh = Lab()
    if fresh.state.exists:
        fresh.down(log=log)
    Lab().up(chosen, log=log)
    return Lab().inventory_path


def prepare_live(target: str | None):
    """The facts and the System of this live system, measured at `target`."""
    if not target:
        raise ValueError("with --live, say where to measure: --target PATH|URL")
    from nastune.facts import collect
    from nastune.root import Root

    return json.loads(collect(Root("/")).to_json()), System(root=Root("/"))


@dataclass
class Here:
    """Tuning this host (or the lab) from this process."""

    system: System

    def hold(self):
        return lock.hold(self.system, "optimize")

    def apply(self, plan: Plan, accept_risk: bool, log) -> str:
        return executor.apply(plan, self.system, accept_risk=accept_risk, log=log).path

    def undo(self, journal: str) -> str:
        return f"nastune rollback --to {journal}"


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

    def hold(self):
        return contextlib.nullcontext()  # nastune on the NAS holds the NAS's lock for each command

    def apply(self, plan: Plan, accept_risk: bool, log) -> str:
        timeout = self.confirm_timeout
        try:
            done = self.agent.apply(plan, accept_risk, timeout)
        except NasError as e:
            raise NasError(
                f"{e}. If the session was cut, nastune on the NAS finishes or rolls back the apply by itself "
                f"and reverts its network changes within {timeout} s; check with `nastune verify --inventory "
                f"{self.inventory}`"
            ) from e
        journal = str(done.get("journal"))
        log(f"applied on {self.agent.name}; its journal is there: {journal}")
        if done.get("watchdog"):
            why = self.agent.fresh_check() or self.unreached()
            if why:
                raise NasError(
                    f"after the network changes, {why}: not confirming, so the NAS reverts them by itself "
                    f"within {done['watchdog']} s; then `{self.undo(journal)}` restores the rest"
                )
            self.agent.confirm(journal)
            log("network changes confirmed: the NAS and every client still reach each other")
        return journal

    def unreached(self) -> str | None:
        """Why a client no longer reaches the NAS's data address with packets of its MTU."""
        from nastune import commands
        from nastune.bench.targets import client_mtu

        address = self.agent.host.data_address
        for ssh in self.clients:
            mtu = client_mtu(ssh, address) or 1500
            probe = ["ping", "-c", "2", "-W", "3", "-M", "do", "-s", str(mtu - 28), address]
            result = commands.run(ssh.argv(probe), 30)
            if not result.ok:
                return f"client {ssh.host.name} does not reach {address} with {mtu}-byte packets ({result.tail(1)})"
        return None

    def undo(self, journal: str) -> str:
        return f"nastune rollback --inventory {self.inventory} --to {journal}"


def prepare_inventory(path: Path, clients: str, confirm_timeout: int, log=print):
    """The inventory, its chosen clients, the NAS's facts (read there) and how to tune it."""
    from nastune.remote import inventory
    from nastune.remote.ssh import Ssh

    inv = inventory.load(path)
    hosts = inv.select(clients)
    agent = NasAgent(inv.nas)
    why = agent.check()
    if why:
        raise NasError(why)
    log(f"inspect: {agent.name}")
    facts = agent.facts(xfs_fragmentation=True)
    return inv, hosts, facts, OnNas(agent, str(path), [Ssh(h) for h in hosts], confirm_timeout)


def choose(plan: Plan, lab: bool, accept_risk: bool) -> tuple[Plan, list[str]]:
    """The changes optimize applies, and why it leaves the others out."""
    kept, skipped = [], []
    for c in plan.changes:
        if c.durability_risk and not accept_risk:
            skipped.append(f"{c.knob} {c.target} {c.key or ''}: trades durability (needs --accept-risk durability)")
        elif lab and c.knob == "sysctl" and c.target.startswith(MACHINE_WIDE):
            skipped.append(f"sysctl {c.target}: machine-wide; the lab's nas shares this kernel with its clients")
        else:
            kept.append(c)
    return plan.model_copy(update={"changes": kept}), skipped


class OptimizeError(RuntimeError):
    """optimize stopped after applying its plan; the message says how to undo it."""

    def __init__(self, message: str, interrupted: bool = False):
        super().__init__(message)
        self.interrupted = interrupted


def run(
    make_pairs,
    params: dict,
    repeats: int,
    out: Path,
    lab: bool,
    facts: dict,
    tuner: Here | OnNas,
    accept_risk: bool,
    console,
    log=print,
) -> Outcome:
    """`make_pairs()` resolves the targets; it is called for each measurement, because tuning
    changes what they are (an MTU change moves the link's goodput ceiling). A workload that
    fails is reported as failed and the rest compared; anything that stops the run once the
    plan is applied ends in an OptimizeError that names the rollback command."""
    nas = tuner.agent if isinstance(tuner, OnNas) else None
    with tuner.hold():
        out.mkdir(parents=True, exist_ok=True)
        (out / "facts.json").write_text(json.dumps(facts, indent=1))
        findings = knowledge.evaluate(Facts.model_validate(facts))
        log(f"diagnose: {len(findings)} findings")
        log("measure: before")
        before = runner.run(
            make_pairs(), params, repeats, out / "before.json", label="before", lab=lab, console=console, nas=nas
        )
        findings = with_runtime(findings, [before])  # what limited the baseline leads
        (out / "findings.json").write_text(json.dumps([f.model_dump(mode="json") for f in findings], indent=1))
        for f in findings:
            if f.limiting:
                log(f"limiting: {f.rule}: {f.limiting}")
        plan, skipped = choose(from_findings(findings, lab=lab), lab, accept_risk)
        (out / "plan.json").write_text(plan.to_json() + "\n")
        log(f"apply: {len(plan.changes)} changes ({len(skipped)} left out)")
        journal = tuner.apply(plan, accept_risk, log)
        undo = f"undo it with `{tuner.undo(journal)}`"
        try:
            log("measure: after")
            after = runner.run(
                make_pairs(), params, repeats, out / "after.json", label="after", lab=lab, console=console, nas=nas
            )
            rows, notes = compare_runs(before, after)
            failed = failures([before, after])
            (out / "compare.json").write_text(
                dumps({"rows": [r.to_json() for r in rows], "notes": notes, "failed": failed})
            )
            report = html.render(
                [before, after],
                out / "report.html",
                rows,
                notes,
                facts=facts,
                findings=[f.model_dump(mode="json") for f in findings],
                applied=[c.model_dump(mode="json") for c in plan.changes],
                title="nastune optimize",
            )
        except KeyboardInterrupt:
            raise OptimizeError(
                f"interrupted after the plan was applied; results so far in {out}; {undo}", interrupted=True
            ) from None
        except Exception as e:
            raise OptimizeError(f"stopped after the plan was applied: {e}; results so far in {out}; {undo}") from e
    return Outcome(rows, notes, report, plan, skipped, journal, failed, tuner.undo(journal))
