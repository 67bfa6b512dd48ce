"""Plans: the changes findings recommend, as a JSON file a person can read, edit and apply."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError, computed_field, field_validator

from nastune.conf import safe
from nastune.errors import UsageError
from nastune.jsonfile import invalid, load_versioned
from nastune.risks import Risk
from nastune.rules.model import Change, Finding
from nastune.tune import knobs
from nastune.tune.knobs import KNOBS
from nastune.tune.system import TuneError

SCHEMA = "nastune.plan/1"
BOOT_FILE = "file"  # persist's own kind (tune/persist.FileKnob): the boot files it journals, never in a plan file


class PlannedChange(Change):
    id: int = Field(ge=0, le=1_000_000)
    rule: str = "manual"
    why: str = ""
    target: str = Field(min_length=1, max_length=4096)
    key: str | None = Field(None, max_length=256)
    host: str | None = Field(None, pattern=f"^{safe.HOST_NAME}$")  # a client (None: the NAS)

    @field_validator("knob")
    @classmethod
    def _registered(cls, v: str) -> str:
        if v not in KNOBS and v != BOOT_FILE:
            raise UsageError(f"unknown knob {v[:40]!r} (known: {', '.join(sorted(KNOBS))})")
        return v

    @field_validator("new", "current")
    @classmethod
    def _scalar(cls, v: object) -> object:
        """A value is one scalar: text, a whole number or a finite number (or none)."""
        if v is None or (isinstance(v, str | int) and not isinstance(v, bool)):
            if isinstance(v, str) and len(v) > 65536:
                raise UsageError("longer than 65536 characters")
            return v
        if isinstance(v, float) and math.isfinite(v):
            return v
        raise UsageError(f"must be text or a number, not {type(v).__name__}")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def risks(self) -> list[Risk]:
        """What the change trades, as its knob judges it from the values: written for the reader
        of a plan file, never read from one (a plan cannot vouch for itself); apply judges it once
        more from the value it reads on the system."""
        return knobs.risks(self)  # type: ignore[return-value]


class Plan(BaseModel):
    schema_: str = Field(SCHEMA, alias="schema")
    created: str = ""
    lab: bool = False
    changes: list[PlannedChange] = Field(max_length=10_000)

    model_config = {"populate_by_name": True}

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=1)


def from_findings(findings: list[Finding]) -> Plan:
    """Each finding's changes, once each, numbered; a Site stamps the plan as its own."""
    seen: set[tuple[str, str, str | None, str | None]] = set()
    changes: list[PlannedChange] = []
    for f in findings:
        for c in f.changes:
            key = (c.knob, c.target, c.key, f.host)
            if key in seen:
                continue
            seen.add(key)
            changes.append(
                PlannedChange(**c.model_dump(), id=len(changes) + 1, rule=f.rule, why=f.message, host=f.host)
            )
    return Plan(created=datetime.now(UTC).isoformat(timespec="seconds"), changes=changes)


def load(path: Path) -> Plan:
    """A plan file, validated whole before anything is applied; errors name the file and field."""
    try:
        data = load_versioned(path, SCHEMA, "plan")
    except ValueError as e:
        raise TuneError(str(e)) from e
    if not isinstance(data.get("changes"), list):
        raise TuneError(f"{path}: field changes: must be a list of changes")
    for i, raw in enumerate(data["changes"]):
        if isinstance(raw, dict) and "knob" in raw and raw["knob"] not in KNOBS:
            raise TuneError(
                f"{path}: changes[{i}].knob: unknown knob {str(raw['knob'])[:40]!r} (known: {', '.join(sorted(KNOBS))})"
            )
    try:
        plan = Plan.model_validate(data)
    except ValidationError as e:
        raise TuneError(invalid(path, e)) from e
    for i, change in enumerate(plan.changes):
        knob = KNOBS[change.knob]
        try:
            knob.validate(change)
        except TuneError as e:
            raise TuneError(f"{path}: changes[{i}]: {e}") from e
    return plan
