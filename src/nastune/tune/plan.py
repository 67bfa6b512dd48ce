"""Plans: the changes findings recommend, as a JSON file a person can read, edit and apply."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from nastune.jsonfile import load_versioned
from nastune.rules.model import Change, Finding
from nastune.tune.knobs import KNOBS
from nastune.tune.system import TuneError

SCHEMA = "nastune.plan/1"


class PlannedChange(Change):
    id: int
    rule: str = "manual"
    why: str = ""


class Plan(BaseModel):
    schema_: str = Field(SCHEMA, alias="schema")
    created: str = ""
    lab: bool = False
    changes: list[PlannedChange]

    model_config = {"populate_by_name": True}

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=1)


def from_findings(findings: list[Finding], lab: bool) -> Plan:
    seen, changes = set(), []
    for f in findings:
        for c in f.changes:
            key = (c.knob, c.target, c.key)
            if key in seen:
                continue
            seen.add(key)
            changes.append(PlannedChange(**c.model_dump(), id=len(changes) + 1, rule=f.rule, why=f.message))
    return Plan(created=datetime.now(timezone.utc).isoformat(timespec="seconds"), lab=lab, changes=changes)


def load(path: Path) -> Plan:
    """A plan file, validated whole before anything is applied; errors name the file and field."""
    try:
        data = load_versioned(path, SCHEMA, "plan")
    except ValueError as e:
        raise TuneError(str(e)) from e
    try:
        plan = Plan.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        raise TuneError(f"{path}: field {'.'.join(map(str, err['loc']))}: {err['msg']}") from e
    for i, change in enumerate(plan.changes):
        knob = KNOBS.get(change.knob)
        if knob is None:
            raise TuneError(f"{path}: changes[{i}].knob: unknown knob {change.knob!r} "
                            f"(known: {', '.join(sorted(KNOBS))})")
        try:
            knob.validate(change)
        except TuneError as e:
            raise TuneError(f"{path}: changes[{i}]: {e}") from e
    return plan
