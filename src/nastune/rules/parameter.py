"""Rules of the form "a server's parameter is X: set it to Y", as rows of one table per server
(catalog/smb_parameters.py, catalog/zfs_properties.py): one check reads every row, and each row
is still its own rule, with its id, title, severity, source, doc and case. A rule whose reading
needs more than the value (a version that changes what the value means) stays a module of its own."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present, served_datasets

Said = Callable[[str, str, str], str]  # (where, parameter, value) -> the finding's message
Check = Callable[[Rule, Facts], Iterable[Finding]]


@dataclass(frozen=True)
class Slow:
    """What fires: a value among `values` (compared in lower case); the change it offers, `new`."""

    values: tuple[str, ...]
    new: str
    impact: int
    message: Said
    severity: Severity | None = None  # the finding's own, where it differs from the rule's
    advice: str | None = None

    def fires(self, value: str) -> bool:
        return value.strip().lower() in self.values


def samba(keys: tuple[str, ...], slow: Slow, shares: bool = True, default: str | None = None) -> Check:
    """A check of Samba's `keys` in [global] and, with `shares`, every share's section; `default`:
    the value smbd uses where the file does not set it."""

    def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
        smb = present(facts.smb)
        c = smb.config.value if smb.config.known else None
        if c is None:
            return
        for scope, params in (("global", c.globals), *(c.shares.items() if shares else ())):
            for key in keys:
                value = params.get(key, default)
                if value is None or not slow.fires(value):
                    continue
                yield rule.finding(
                    target=f"{scope}:{key}",
                    impact=slow.impact,
                    message=slow.message(scope, key, value),
                    evidence=[Evidence(fact=f"[{scope}] {key}", value=value, source=smb.config.source)],
                    changes=[Change(knob="samba", target=scope, key=key, current=value, new=slow.new)],
                    severity=slow.severity,
                    advice=slow.advice,
                )

    return check


def zfs(prop: str, slow: Slow) -> Check:
    """A check of ZFS property `prop` on every dataset a share serves."""

    def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
        found = present(facts.zfs)
        for d in served_datasets(facts):  # not a boot pool's or an application's dataset
            value = d.properties.get(prop)
            if value is None or not slow.fires(value):
                continue
            yield rule.finding(
                target=d.name,
                impact=slow.impact,
                message=slow.message(d.name, prop, value),
                evidence=[Evidence(fact=f"{d.name} {prop}", value=value, source=found.datasets.source)],
                changes=[Change(knob="zfs_property", target=d.name, key=prop, current=value, new=slow.new)],
                severity=slow.severity,
                advice=slow.advice,
            )

    return check
