"""Each screened rule's own effect in words (`optimize --screen`), the gains its rules one by
one do not explain, what the screening could miss, and what its design cannot tell apart: the
lines the console and the report say of a screening."""

from __future__ import annotations

from nastune import wire
from nastune.outcomes.optimize import Interleaved
from nastune.outcomes.screen import MARGIN, Screened, bound
from nastune.report import tables

CONFOUNDED = (
    "each rule's own effect is estimated with the other rules' settings on in half its runs and off in the "
    "other half: an effect that needs two rules together (TCP buffers with the MTU) is spread over both, or "
    "shows in a third"
)


def effects(mixed: Interleaved) -> list[str]:
    said = [line for s in mixed.screened for line in rule_lines(s)]
    said += [_rest(m) for m in mixed.sums if m.unexplained]
    unseen = unseen_line(mixed.unseen, mixed.screen_runs)
    return said + ([unseen] if unseen else []) + ([CONFOUNDED] if mixed.design else [])


def _rest(m: wire.Together) -> str:
    """A gain the rules one by one do not explain."""
    return (
        f"{m.metric}: {m.bundle:+.0%} with every rule, of which their own effects explain {m.own:+.0%}: "
        "an effect of rules together, or effects too small to resolve one by one"
    )


def rule_lines(s: Screened) -> list[str]:
    """The rule's own effect, in words."""
    head = f"{s.rule} ({s.changes} change{'s' if s.changes > 1 else ''}) on its own"
    standing = s.standing
    if standing == "no verdict":
        return [f"{head}: no verdict, {s.stopped or 'nothing measured'}"]
    if standing == "helped":
        return [f"{head}: {line}" for line in tables.moved(s.rows)]
    widest = max(s.rows, key=bound)
    low, high = widest.change_ci
    where = f"{widest.workload} @ {widest.target}" + ("" if widest.metric == widest.unit else f" {widest.metric}")
    if standing == "small":
        said = f"at most {bound(widest):+.1%} on every metric the plan moved (margin {MARGIN:.0%})"
        return [f"{head}: {said}" + (f"; kept: {s.kept_for}" if s.kept_for else "")]
    return [f"{head}: not resolved, could be anywhere from {low:+.0%} to {high:+.0%} ({where}); kept"]


def unseen_line(unseen: float | None, runs: int) -> str:
    """What the screening could miss, and how to resolve smaller effects."""
    if unseen is None:
        return ""
    return (
        f"effects under {unseen:.0%} could go unseen here (the smallest this screening finds 8 times in 10, at "
        f"the spread it measured); --screen-runs {2 * runs} resolves smaller ones"
    )
