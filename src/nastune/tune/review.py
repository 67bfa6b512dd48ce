"""What applying a plan means, said before it happens: for each change what it acts on, its value
now and after, whether it survives a reboot and what it disturbs while it is made; which changes
are one-off actions that cannot be undone; what was left out and why."""

from __future__ import annotations

from dataclasses import dataclass, field

from nastune.tune.knobs import KNOBS
from nastune.tune.plan import Plan, PlannedChange


@dataclass(frozen=True)
class Step:
    change: PlannedChange
    label: str  # knob, target and key, as apply names it
    lasts: str  # survives a reboot or not, in words
    fate: str  # the same in a word: kept, lost, once or remount (Knob.fate)
    disruption: str  # what making it (or undoing it) disturbs; "" for nothing
    action: bool  # a one-off run that cannot be undone
    allowed: bool = False  # an action the operator allowed already (--allow): not asked about

    @classmethod
    def of(cls, change: PlannedChange, allow: list[str] | tuple[str, ...] = ()) -> Step:
        knob = KNOBS[change.knob]
        label = (f"on client {change.host}: " if change.host else "") + knob.label(change)
        return cls(change, label, knob.lasts(), knob.fate(), knob.disruption, knob.action, change.knob in allow)


@dataclass
class Review:
    """A plan as a person decides on it: its settings, its one-off actions, what was left out,
    and how many times a proof by interleaving switches the settings (0: no such proof)."""

    settings: list[Step]
    actions: list[Step]
    left_out: list[str] = field(default_factory=list)
    switches: int = 0

    @classmethod
    def of(cls, plan: Plan, left_out: list[str], switches: int = 0, allow: list[str] | tuple[str, ...] = ()) -> Review:
        steps = [Step.of(c, allow) for c in plan.changes]
        return cls([s for s in steps if not s.action], [s for s in steps if s.action], left_out, switches)

    @property
    def disruptions(self) -> list[str]:
        """Each distinct disturbance the settings cause, once."""
        return list(dict.fromkeys(s.disruption for s in self.settings if s.disruption))

    @property
    def empty(self) -> bool:
        return not self.settings and not self.actions
