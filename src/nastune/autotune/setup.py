"""A search ready to run: the system it tunes (the lab, an inventory's NAS or this host), how
its trials are measured, the space bound to that system's facts, and the rule-based plan."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nastune.autotune.objective import Objective
from nastune.autotune.search import Search, Settings
from nastune.tune.plan import Plan


@dataclass
class Where:
    """The system a search tunes: the lab (a fresh one of `scenario`), an inventory's NAS, or
    (lab False, no inventory) this live system measured at `target`."""

    lab: bool = True
    scenario: str = "soho"
    inventory: Path | None = None
    target: str | None = None
    root: str = "/"
    clients: str = "all"


def prepare(
    goal: Objective,
    where: Where,
    settings: Settings,
    knobs: list[str] | None,
    size: int,
    resume: bool,
    console=None,
    log=print,
    kind: type[Search] = Search,
) -> tuple[Search, Plan]:
    from nastune import rules as knowledge
    from nastune.autotune.space import build
    from nastune.bench.selection import inventory_pairs, pairs
    from nastune.bench.workloads import DEFAULTS
    from nastune.facts import Facts
    from nastune.optimize import choose, prepare_inventory, prepare_live
    from nastune.tune.plan import from_findings
    from nastune.tuner import Here, OnNas

    inventory, lab = where.inventory, where.lab
    if lab and not inventory:
        inventory = _lab_inventory(where.scenario, resume, log)
    if inventory:
        inv, _, facts, tuner = prepare_inventory(inventory, where.clients, 120, log)
        lab = inv.nas.lab

        def make_pairs():
            return [p for kind, name in goal.workloads for p in inventory_pairs(inv, kind, [name], where.clients)]
    else:
        facts, system = prepare_live(where.target, where.root)
        tuner = Here(system)

        def make_pairs():
            return pairs(where.target, False, [name for _, name in goal.workloads])

    make_pairs()  # refuse unknown workloads and targets before any trial
    model = Facts.model_validate(facts)
    space, left = build(model, knobs, lab, settings.accept_risk)
    for line in left:
        log(f"left out: {line}")
    rule_plan, _ = choose(from_findings(knowledge.evaluate(model), lab=lab), lab, settings.accept_risk)
    settings.lab = lab
    params = {**DEFAULTS, "size": size}
    nas = tuner.agent if isinstance(tuner, OnNas) else None
    return kind(space, goal, tuner, make_pairs, params, settings, console, nas, log), rule_plan


def _lab_inventory(scenario: str, resume: bool, log) -> Path:
    """The lab's inventory: a fresh lab, or on --resume the lab as it runs (the study's base)."""
    from nastune.lab.lab import Lab
    from nastune.optimize import fresh_lab

    running = Lab()
    if resume and running.state.data.get("status") == "up":
        return running.inventory_path
    return fresh_lab(scenario, log)
