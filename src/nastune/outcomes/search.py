"""autotune's result: autotune.json (wire.Autotune), and the report beside it."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from nastune import wire


class SearchOutcome(wire.Autotune):
    report: Path = Field(exclude=True)
