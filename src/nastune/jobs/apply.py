"""apply as a workflow: the plan read and diffed under the system's lock, held until the journal
is closed (a plan read and diffed outside it could be applied a second time over the first, and
leave an empty journal newer than the real one), shown, asked about, applied with the journal,
and, after network changes on a live host, the confirm-or-revert watchdog armed before anything
else is said (the reader may be gone with the network). Returns the summary `apply --json` prints."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nastune import wire
from nastune.risks import Risks
from nastune.sites.base import Site
from nastune.tune import executor, lock, watchdog
from nastune.tune.executor import Pending
from nastune.tune.plan import Plan, load
from nastune.tune.system import TuneError

CONFIRM_TIMEOUT = 120  # seconds a live host waits for `nastune confirm` after a network change


class Unusable(TuneError):
    """The plan cannot be read, or not be diffed against this system: nothing was touched."""

    code = 2


@dataclass
class ApplySpec:
    plan_file: Path  # `-`: standard input
    dry_run: bool = False
    persist: bool = False
    accept_risk: Risks = frozenset()
    confirm_timeout: int | None = None  # None: CONFIRM_TIMEOUT on a live host, no revert on the lab


def run(
    spec: ApplySpec,
    site: Site,
    show: Callable[[list[Pending]], None],
    ask: Callable[[], None],
    log: Callable[[str], None],
) -> wire.Apply:
    """`show` gets the diff; `ask` raises to stop before anything changes; TuneError (Stranded
    when the automatic rollback could not restore everything) says why it failed."""
    system = site.system()
    with lock.hold(system, "apply", wait=lock.COMMAND_WAIT):
        try:
            plan = load(spec.plan_file)
            system = site.system_for(plan)  # a plan written for the lab is the lab's, whoever applies it
            rows = executor.diff(plan, system)
        except TuneError as e:
            raise Unusable(str(e)) from e
        show(rows)
        pending = [r for r in rows if not r.noop]
        settings = [
            wire.Planned(
                setting=r.knob.label(r.change),
                current=_text(r.current),
                new=_text(r.change.new),
                change=not r.noop,
                index=r.index,
                error=r.error,
            )
            for r in rows
        ]
        counts = {
            "changes": len(plan.changes),
            "would_change": len(pending),
            "dry_run": spec.dry_run,
            "settings": settings,
        }
        if spec.dry_run or not pending:
            log(
                "dry run: nothing changed" if spec.dry_run else "nothing to change: every setting is already as planned"
            )
            return wire.Apply(journal=None, watchdog=0, changed=0, **counts)
        ask()
        journal = executor.apply(plan, system, accept_risk=spec.accept_risk, persist=spec.persist, log=log)
        if journal is None:
            log("nothing to change: every setting is already as planned")
            return wire.Apply(journal=None, watchdog=0, changed=0, **counts)
        network = [r for r in rows if r.knob.network and not r.noop]
        timeout = spec.confirm_timeout if spec.confirm_timeout is not None else CONFIRM_TIMEOUT * system.reverts
        armed = timeout if network and system.live and timeout > 0 else 0
        if armed:  # before anything is printed: the reader may be gone with the network
            journal.record({"type": "watchdog", "after": armed})
            watchdog.start(journal, armed)
        log(f"applied; journal {journal.path}. Check with `nastune verify`, undo with `nastune rollback`.")
        if armed:
            log(f"network changes will be reverted in {armed} s unless you run `nastune confirm`")
        return wire.Apply(journal=journal.path, watchdog=armed, changed=len(pending), **counts)


def across(
    spec: ApplySpec, site: Site, show: Callable[[Plan], None], ask: Callable[[], None], log: Callable[[str], None]
) -> str | None:
    """The plan applied by nastune on each host it changes (the NAS, the clients), once shown
    and agreed to (`ask` raises to stop): the --journal value naming each host's journal, None
    when nothing changed."""
    try:
        plan = load(spec.plan_file)
    except TuneError as e:
        raise Unusable(str(e)) from e
    show(plan)
    if spec.dry_run or not plan.changes:
        log("dry run: nothing changed" if spec.dry_run else "the plan changes nothing")
        return None
    ask()
    tuner = site.tuner()
    with tuner.hold("apply"):
        return tuner.apply(plan, spec.accept_risk, log, spec.persist)


def _text(value: object) -> str:
    return "" if value is None else str(value)
