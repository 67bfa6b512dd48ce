"""What to keep once each rule's own effect is estimated (`optimize --screen`): a rule is offered
for removal only when its effect is shown to be small, its interval below MARGIN on every metric
the whole plan moved (an equivalence test, not a verdict of "~": absence of evidence is not
evidence of absence); a rule with no verdict either way is not resolved and stays, its interval
shown. Where the plan's gain on a metric is more than its rules' own effects add up to (an effect
of rules together, or effects too small to resolve one by one), no rule that can act on that
metric is offered. The screening also says how large an effect it could have missed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from nastune import wire
from nastune.jobs import screen as screening
from nastune.jobs.offer import Consent
from nastune.outcomes.optimize import Interleaved
from nastune.outcomes.screen import MARGIN, Screened
from nastune.tune.plan import Plan


def decide(screened: list[Screened], sums: list[wire.Together]) -> tuple[list[str], list[str]]:
    """The rules to keep and those to offer for removal. A rule shown small stays where the
    plan's gain on a metric its settings reach is unexplained by the rules one by one; and none
    is offered when every rule would be (the plan moved something, and its rules did it together)."""
    for s in screened:
        unexplained = [m for m in sums if m.unexplained and s.rule in m.reaches]
        if s.standing == "small" and unexplained:
            m = unexplained[0]
            s.kept_for = f"the plan's {m.bundle:+.0%} on {m.metric} is not explained by the rules one by one"
    offered = [s.rule for s in screened if s.offered]
    kept = [s.rule for s in screened if not s.offered]
    return (kept, offered) if kept else ([s.rule for s in screened], [])


def screened(result: Interleaved, found: screening.Found) -> None:
    """The screening's findings, kept in the interleaved run's result."""
    result.screened, result.design, result.sums = found.screened, found.design, found.sums
    result.unseen, result.screen_runs = found.unseen, found.runs


def keep(
    result: Interleaved,
    settings: Plan,
    path: Path,
    keep_only: bool,
    consent: Consent | None,
    log: Callable[[str], None],
) -> Plan:
    """The settings to apply after screening: all of them, or (`keep_only`, or the operator's
    yes) those of the rules not shown to help less than MARGIN, which `path` (keep.json) holds
    either way."""
    kept, result.idle = decide(result.screened, result.sums)
    if not result.idle:
        return settings
    helped = screening.without(settings, result.idle)
    path.write_text(helped.to_json() + "\n")
    result.dropped = keep_only or bool(consent and consent.keep(kept, result.idle))
    shown = f"shown below {MARGIN:.0%} on every metric moved"
    if result.dropped:
        note = f"left off, as their own effect is {shown}: {', '.join(result.idle)}"
    else:
        note = f"{shown} on their own: {', '.join(result.idle)} ({path.name} holds the rest)"
    log(f"keep: {note}")
    result.notes.append(note)
    return helped if result.dropped else settings
