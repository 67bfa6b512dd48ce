"""A search ready to run on a Site (the lab through its inventory, an inventory's NAS, or this
host): how its trials are measured, the space bound to that NAS's facts, and the rule-based plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nastune import rules as knowledge
from nastune.autotune.objective import Objective
from nastune.autotune.resume import recover
from nastune.autotune.search import Search, Settings
from nastune.autotune.space import Space, build
from nastune.bench.params import with_size
from nastune.bench.sizing import sized
from nastune.facts import Reading
from nastune.jobs.offer import choose
from nastune.sites.base import Site
from nastune.tune.plan import Plan, from_findings

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console


def prepare(
    goal: Objective,
    site: Site,
    settings: Settings,
    knobs: list[str] | None,
    size: int | None,
    console: Console,  # the progress bar's (a log's lines when not a terminal)
    log: Callable[[str], None] = print,
    kind: type[Search] = Search,
    resume: bool = False,
) -> tuple[Search, Plan]:

    for target, name in goal.workloads:  # refuse unknown workloads and targets before any trial
        site.pairs(target, [name])
    if resume:  # the killed trial's changes go before the system is read
        recover(settings.out, site.tuner(), log)
    log(f"inspect: {site.name}")
    model = site.facts(Reading("sample"))
    space, left = build(model, knobs, site.shared_kernel, settings.accept_risk)
    for line in left:
        log(f"left out: {line}")
    rule_plan, _ = choose(
        site.stamp(from_findings(knowledge.evaluate(model))), site.shared_kernel, settings.accept_risk
    )
    space = _on_top_of(space, rule_plan, site, log)
    targets = [t for target, name in goal.workloads for _, t in site.pairs(target, [name])]
    params = sized(with_size(size), targets, log)
    return kind(space, goal, site, params, settings, console, log), rule_plan


def _on_top_of(space: Space, rule_plan: Plan, site: Site, log: Callable[[str], None]) -> Space:
    """The space searched on top of the plan's changes no tunable searches, but those the NAS
    refuses (each trial would fail on them)."""
    beside = space.unsearched(rule_plan)
    refused = site.tuner().refusals(site.stamp(Plan(changes=beside))) if beside else {}
    for i, c in enumerate(beside):
        if i in refused:
            log(f"left out of every trial: {refused[i]} (rule {c.rule})")
        else:
            log(f"every trial also makes: {c.describe()} (rule {c.rule}; no tunable searches it)")
    return space.on_top_of([c for i, c in enumerate(beside) if i not in refused])
