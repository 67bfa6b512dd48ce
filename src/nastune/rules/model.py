"""What a rule is and what it produces: findings with evidence and typed changes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field, field_serializer

from nastune.facts import Facts
from nastune.facts.model import Fact, Warning_
from nastune.severity import Severity


class Elsewhere(BaseModel):
    """Another manager on the box that also sets what a change does, and what it will do to it."""

    manager: str  # TuneD, irqbalance, bpftune
    note: str


class Change(BaseModel):
    """One typed change: which knob, on what, from what to what."""

    # a knob by its kind, as the tuning engine registers it (tune/knobs); a planned change is
    # checked against that registry, which this layer cannot import
    knob: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    target: str
    key: str | None = None
    current: Any = None
    new: Any = None
    # said to the operator before apply, never acted on; left out of JSON where no manager sets it
    elsewhere: Elsewhere | None = Field(None, exclude_if=lambda value: value is None)
    # What a change trades (durability, security) is judged by its knob from the value it writes
    # (tune/knobs/trades.py); a plan's own "durability_risk"/"security_risk" flags, which older
    # plans carry, are ignored on input.

    def describe(self) -> str:
        what = f"{self.target} {self.key}" if self.key else self.target
        return f"{self.knob} {what}: {self.current!r} -> {self.new!r}"


class Evidence(BaseModel):
    fact: str
    value: Any
    source: str

    @classmethod
    def of(cls, name: str, fact: Fact) -> Evidence:
        return cls(fact=name, value=fact.value if fact.known else f"unknown: {fact.unknown}", source=fact.source)


class Finding(BaseModel):
    rule: str
    title: str
    area: str
    severity: Severity
    impact: int  # expected share of throughput at stake, 0-100: the sort key
    target: str
    message: str
    evidence: list[Evidence]
    gain: str
    changes: list[Change]
    advice: str | None = None  # what to do by hand when no change can be applied by a tool
    tradeoff: str
    source: str
    limiting: str | None = None  # runtime evidence that this finding's subject limited a measured run
    host: str | None = None  # the client whose facts it was read from (None: the NAS, or this host)

    @field_serializer("severity")
    def _severity(self, value: Severity) -> str:
        return value.name


class Findings(BaseModel):
    """What `diagnose --json` prints: every finding, and what the collectors could not read."""

    schema_: Literal["nastune.findings/1"] = Field("nastune.findings/1", alias="schema")
    rules: int  # how many rules looked
    findings: list[Finding]
    warnings: list[Warning_]

    model_config = {"populate_by_name": True}

    def dumps(self) -> str:
        """Findings whole, warnings without their empty fields (as diagnose has always printed)."""
        return json.dumps(
            {
                "schema": self.schema_,
                "rules": self.rules,
                "findings": [f.model_dump(mode="json") for f in self.findings],
                "warnings": [w.model_dump(mode="json", exclude_none=True) for w in self.warnings],
            },
            indent=1,
        )


@dataclass
class Rule:
    """A rule: metadata plus `check`, a pure function of facts yielding findings."""

    id: str
    title: str
    area: str
    severity: Severity
    gain: str
    tradeoff: str
    source: str
    check: Callable[[Rule, Facts], Iterable[Finding]]
    needs: tuple[str, ...] = ()  # fact areas the rule reads; it is skipped when one was not collected
    # it is also true of a client (its TCP stack, its NFS mounts): checked on each client that
    # runs nastune, its changes made there
    clients: bool = False
    # what its changes can move: one file-sharing protocol's transfers ("": any) and one way of a
    # transfer (read or write; "": both), so that a run it cannot act on never names it limiting
    protocol: str = ""
    path: str = ""
    # what kind of I/O its changes can move: "data" (files' contents: fragmentation, read-ahead),
    # "metadata" (listings and lookups: a directory's case matching); "": both
    moves: str = ""
    # its page (Problem, Detection, Fix, Trade-off, Source): a rule module's docstring, or a table row's own
    doc: str = field(default="", repr=False)
    module: str = field(default="", repr=False)  # the module that defines it

    def applies(self, facts: Facts) -> bool:
        return all(getattr(facts, area) is not None for area in self.needs)

    def finding(
        self,
        target: str,
        message: str,
        evidence: list[Evidence],
        changes: Sequence[Change] = (),
        impact: int = 5,
        severity: Severity | None = None,
        advice: str | None = None,
        gain: str | None = None,
        tradeoff: str | None = None,
    ) -> Finding:
        return Finding(
            rule=self.id,
            title=self.title,
            area=self.area,
            severity=severity or self.severity,
            impact=impact,
            target=target,
            message=message,
            evidence=evidence,
            gain=gain or self.gain,
            changes=list(changes),
            advice=advice,
            tradeoff=tradeoff or self.tradeoff,
            source=self.source,
        )
