"""A tunable: a setting as autotune searches it, one or more changes of a knob with a safe range
or list of values (its domain), bound to a system by its facts. Each declares it in the module
of the knob it changes (that module's TUNABLES list), as an extension's settings module does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nastune.facts import Facts
from nastune.rules.model import Change
from nastune.tune.knobs.domains import Choice, PowersOfTwo, Steps

Domain = PowersOfTwo | Steps | Choice
Config = dict[str, object]  # a configuration of the search: each tunable's name -> its value


@dataclass(frozen=True)
class Bound:
    """A tunable on this system: its current value (None: outside the domain; it may lie between
    two of the domain's values) and the changes that set a value."""

    tunable: Tunable
    current: object
    targets: tuple[str, ...]
    context: dict = field(default_factory=dict)  # what else the changes keep (a sysctl's other fields)

    def changes(self, value: Any) -> list[Change]:
        return [c for target in self.targets for c in self.tunable.changes(target, value, self.context)]


@dataclass
class Tunable:
    """One dimension of the search: `find` returns (current value, targets) on a system, or
    None where the tunable does not exist there."""

    name: str
    doc: str
    domain: Domain
    durability: bool = False  # a trade of crash safety for speed: searched only with --accept-risk durability
    machine_wide: bool = False  # a kernel-wide value the lab's nas shares with its clients

    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        raise NotImplementedError

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        raise NotImplementedError

    def value_of(self, planned: Sequence[Change]) -> int | None:
        """The value of this tunable that `planned` (changes of its knobs) asks for, when it is
        not one of the domain's; None when it cannot be read."""
        return None

    def bind(self, facts: Facts) -> Bound | None:
        found = self.find(facts)
        if found is None:
            return None
        current, targets, context = found
        return Bound(self, current if self.domain.nearest(current) is not None else None, targets, context)
