"""The search space of autotune: the named tunables (declared beside their knobs, tune/knobs) bound to this system,
and the rules that tie them together. A configuration outside the space or against a rule is refused
before anything is applied."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from nastune.errors import Failure
from nastune.facts import Facts
from nastune.risks import Risks
from nastune.rules import query
from nastune.tune.knobs import KNOBS, TUNABLES, Bound, Config
from nastune.tune.knobs.domains import GiB
from nastune.tune.plan import Plan, PlannedChange

if TYPE_CHECKING:
    from optuna.trial import Trial


class SpaceError(Failure, ValueError):
    """A configuration or a space request that autotune refuses; the message names the tunable."""

    code = 2  # bad input


def _dirty_order(space: Space, config: Config) -> str | None:
    background, dirty = space.value(config, "dirty-background-ratio"), space.value(config, "dirty-ratio")
    if isinstance(background, int) and isinstance(dirty, int) and background >= dirty:
        return f"dirty-background-ratio {background} must be below dirty-ratio {dirty}: writers would stall first"
    return None


def _tcp_memory(space: Space, config: Config) -> str | None:
    value, memory = space.value(config, "tcp-buffer-max"), query.ram(space.facts)
    if not isinstance(value, int) or memory is None:
        return None
    budget = query.tcp_buffer_ceiling(memory)  # tcp-buffers-small-ram's
    if value > budget:
        return (
            f"tcp-buffer-max {value} bytes: {query.TCP_CLIENTS} connections at it would take more than a quarter of "
            f"{query.human(memory)} of RAM (at most {budget})"
        )
    return None


def _arc_memory(space: Space, config: Config) -> str | None:
    value, memory = space.value(config, "zfs-arc-max"), query.ram(space.facts)
    if not isinstance(value, int) or memory is None or value <= memory - 2 * GiB:
        return None
    return f"zfs-arc-max {query.human(value)}: leaves less than 2 GiB of {query.human(memory)} of RAM to the rest"


CONSTRAINTS = (_dirty_order, _tcp_memory, _arc_memory)  # NfsTransferSize keeps MaxRead = MaxWrite by construction


@dataclass
class Space:
    """The tunables searched on one system, bound to it."""

    facts: Facts
    bound: dict[str, Bound]
    # the rule-based plan's changes no tunable searches: every trial but the base makes them too,
    # so the search looks for the best on top of the plan rather than without its other changes
    beside: tuple[PlannedChange, ...] = ()

    def value(self, config: Config, name: str) -> Any:
        """`name`'s value in `config`, or its current one when the config leaves it out."""
        if name in config:
            return config[name]
        b = self.bound.get(name)
        return b.current if b else None

    def check(self, config: Config) -> list[str]:
        """Why `config` is refused: unknown tunables, values outside their domain, broken rules."""
        errors = []
        for name, value in config.items():
            if name not in self.bound:
                errors.append(f"{name}: not a tunable of this search ({', '.join(self.bound) or 'none'})")
                continue
            why = self.bound[name].tunable.domain.check(value)
            if why and value != self.bound[name].current:  # a system's own value is always its to keep
                errors.append(f"{name}: {why}")
        return errors or [why for rule in CONSTRAINTS if (why := rule(self, config))]

    def suggest(self, trial: Trial) -> Config:
        return {name: b.tunable.domain.suggest(trial, name) for name, b in self.bound.items()}

    def params(self, config: Config) -> dict:
        """Optuna's parameters for `config` (to enqueue a known configuration as a trial): a
        current value between two of the domain's stands as the nearest in the sampler's model."""
        found = {}
        for name, value in config.items():
            domain = self.bound[name].tunable.domain
            if value is not None and (near := domain.nearest(value)) is not None:
                found[name] = domain.param(near)
        return found

    def trades(self, config: Config) -> list[str]:
        """The durability trades `config` makes: what it moves of the tunables that trade crash
        safety for speed."""
        return [
            f"{name} {b.current} -> {config[name]}"
            for name, b in self.bound.items()
            if b.tunable.durability and name in config and config[name] != b.current
        ]

    def current(self) -> Config:
        return {name: b.current for name, b in self.bound.items()}

    def plan(self, config: Config) -> Plan:
        """The plan that sets `config`: the plan's changes beside the search, and a change for
        every tunable it moves from its current value."""
        errors = self.check(config)
        if errors:
            raise SpaceError("; ".join(errors))
        made = [
            PlannedChange(id=0, rule=f"autotune:{name}", why=self.bound[name].tunable.doc, **c.model_dump())
            for name, value in config.items()
            if value != self.bound[name].current
            for c in self.bound[name].changes(value)
        ]
        changes = [c.model_copy(update={"id": i + 1}) for i, c in enumerate([*self.beside, *made])]
        return Plan(changes=changes)

    def described_beside(self) -> list[str]:
        return [c.describe() for c in self.beside]

    def changes_anything(self, config: Config) -> bool:
        return bool(self.beside) or config != self.current()

    def unsearched(self, plan: Plan) -> list[PlannedChange]:
        """`plan`'s changes that no tunable searches, but its one-off actions (a trial sets; it
        does not run a defragmenter each time)."""
        searched = {key for b in self.bound.values() if b.current is not None for key in _keys(b, b.current)}
        return [c for c in plan.changes if (c.knob, c.target, c.key) not in searched and not KNOBS[c.knob].action]

    def on_top_of(self, changes: list[PlannedChange]) -> Space:
        """This space with `changes` made beside every trial but the base."""
        return replace(self, beside=tuple(changes))

    def of_plan(self, plan: Plan) -> Config:
        """The configuration a plan (the rule-based one) sets, current values elsewhere; a
        tunable the plan sets to a value between the domain's takes the next one up (a rule's
        value is a minimum it needs met), one it cannot read is left to the search."""
        config = {}
        for name, b in self.bound.items():
            sets = _keys(b, b.current) if b.current is not None else set()
            planned = [p for p in plan.changes if (p.knob, p.target, p.key) in sets]
            if not planned:
                config[name] = b.current
                continue
            wanted = next((v for v in b.tunable.domain.values() if _sets(b, v, planned)), None)
            if wanted is None and (asked := b.tunable.value_of(planned)) is not None:
                wanted = b.tunable.domain.snap(asked)
            if wanted is not None:
                config[name] = wanted
        return config


def _keys(bound: Bound, value: Any) -> set[tuple[str, str, str | None]]:
    return {(c.knob, c.target, c.key) for c in bound.changes(value)}


def _sets(bound: Bound, value: Any, planned: list[PlannedChange]) -> bool:
    made = {(c.knob, c.target, c.key): c.new for c in bound.changes(value)}
    return all(str(made.get((p.knob, p.target, p.key))) == str(p.new) for p in planned)


def build(facts: Facts, names: list[str] | None, shared_kernel: bool, accept_risk: Risks) -> tuple[Space, list[str]]:
    """The space on this system, and why each tunable asked for (or known) is left out
    (`shared_kernel`: the NAS shares this machine's kernel with its clients, as the lab's does)."""
    unknown = [n for n in names or [] if n not in TUNABLES]
    if unknown:
        raise SpaceError(f"unknown tunable {unknown[0]!r}; the tunables are {', '.join(TUNABLES)}")
    bound, left = {}, []
    for name in names or list(TUNABLES):
        t = TUNABLES[name]
        if t.durability and "durability" not in accept_risk:
            left.append(f"{name}: trades durability (needs --accept-risk durability)")
        elif t.machine_wide and shared_kernel:
            left.append(f"{name}: machine-wide; the lab's nas shares this kernel with its clients")
        elif (b := t.bind(facts)) is None:
            left.append(f"{name}: not on this system")
        elif b.current is None:
            left.append(f"{name}: its current value is unset or outside the safe domain ({t.domain.describe()})")
        else:
            bound[name] = b
    if not bound:
        raise SpaceError("nothing to search: " + "; ".join(left))
    return Space(facts, bound), left
