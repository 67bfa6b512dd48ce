"""The plan optimize offers an operator: the findings' (or the operator's own file), the rules
they chose, what the site and the accepted risks allow, and the one-off actions allowed by name
(--allow) or by answer, each bounded in time; what was left out, and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from nastune import rules as knowledge
from nastune.errors import Failure, UsageError
from nastune.risks import Risks
from nastune.rules.model import Finding
from nastune.sites.base import Site
from nastune.tune.knobs import KNOBS
from nastune.tune.plan import Plan, from_findings, load
from nastune.tune.review import Review, Step

MACHINE_WIDE = ("vm.", "fs.", "kernel.")  # sysctls the lab's nas shares with its clients and this host


@dataclass
class Choices:
    """What the operator chose of the plan: their own plan file, the rules to keep or leave out,
    the one-off actions allowed (by knob kind, xfs_fsr) and how long each may run."""

    plan_file: Path | None = None
    only: list[str] = field(default_factory=list)
    skip: list[str] = field(default_factory=list)
    allow: list[str] = field(default_factory=list)
    action_seconds: int = 3600

    def __post_init__(self) -> None:
        actions = [k for k, knob in KNOBS.items() if knob.action]
        for kind in self.allow:
            if kind not in actions:
                raise UsageError(f"--allow {kind}: the one-off actions are {', '.join(actions)}")


class Consent(Protocol):
    """The operator, shown the reviewed plan: the one-off actions to run (those --allow named,
    and those they say yes to), or None when they say no to the plan (an operator who cannot
    be asked runs only what --allow named, and only with --yes); and at the end, what of the
    proved settings to keep and whether to persist them (one who cannot be asked: no)."""

    def decide(self, review: Review) -> list[Step] | None: ...

    def keep(self, kept: list[str], dropped: list[str]) -> bool:
        """Whether to leave off the settings of the `dropped` rules (those whose own effect
        helped nothing measured) and apply only the `kept` ones'."""
        ...

    def persist(self, count: int) -> bool:
        """Whether to make the `count` settings that a reboot would undo survive it."""
        ...


class Declined(Failure):
    """The operator said no to the plan: nothing was changed."""

    code = 1


def offered(spec: Choices, site: Site, findings: list[Finding], accept_risk: Risks) -> tuple[Plan, list[str]]:
    """The plan optimize offers: the operator's own file or the findings', the rules they chose,
    what the site and the risks allow, its one-off actions each bounded to `action_seconds`; and
    why each change left out was."""
    if spec.plan_file:
        plan = site.stamp(load(spec.plan_file))
    else:
        plan = site.stamp(from_findings(findings))
    known = {c.rule for c in plan.changes} | {f.rule for f in findings}
    for rule in spec.only + spec.skip:
        if rule not in known and not any(r.id == rule for r in knowledge.all_rules()):
            raise UsageError(f"--only/--skip {rule}: no such rule (`nastune explain` lists them)")
    picked, left = [], []
    for c in plan.changes:
        if (spec.only and c.rule not in spec.only) or c.rule in spec.skip:
            left.append(f"{c.knob} {c.target} {c.key or ''}: rule {c.rule} not chosen (--only/--skip)")
        else:
            picked.append(c)
    plan, skipped = choose(plan.model_copy(update={"changes": picked}), site.shared_kernel, accept_risk)
    timed = lambda c: c.model_copy(update={"new": spec.action_seconds}) if KNOBS[c.knob].action else c
    return plan.model_copy(update={"changes": [timed(c) for c in plan.changes]}), left + skipped


def agreed(plan: Plan, left: list[str], switches: int, spec: Choices, consent: Consent) -> tuple[Plan, list[str]]:
    """The plan as the operator agreed to it after seeing it: its settings, and the one-off actions
    --allow named or they said yes to; Declined when they said no."""
    review = Review.of(plan, left, switches, spec.allow)
    chosen = consent.decide(review)
    if chosen is None:
        raise Declined("nothing was changed")
    run = {s.change.id for s in chosen}
    kept = [c for c in plan.changes if not KNOBS[c.knob].action or c.id in run]
    left = left + [
        f"{s.label}: a one-off run that cannot be undone (--allow {s.change.knob} runs it)"
        for s in review.actions
        if s.change.id not in run
    ]
    return plan.model_copy(update={"changes": kept}), left


def choose(plan: Plan, shared_kernel: bool, accept_risk: Risks) -> tuple[Plan, list[str]]:
    """The changes optimize applies, and why it leaves the others out (`shared_kernel`: the NAS
    shares this machine's kernel with its clients, as the lab's does)."""
    kept, skipped = [], []
    for c in plan.changes:
        unaccepted = [r for r in c.risks if r not in accept_risk]
        if unaccepted:
            skipped.append(
                f"{c.knob} {c.target} {c.key or ''}: trades {unaccepted[0]} (needs --accept-risk {unaccepted[0]})"
            )
        elif shared_kernel and c.knob == "sysctl" and c.target.startswith(MACHINE_WIDE):
            skipped.append(f"sysctl {c.target}: machine-wide; the lab's nas shares this kernel with its clients")
        else:
            kept.append(c)
    return plan.model_copy(update={"changes": kept}), skipped
