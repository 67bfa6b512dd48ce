"""The lab's record of what it created, written before each thing is created, so that
`down` can remove exactly that (and nothing else) after any failure or kill."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from nastune.errors import UsageError

DEFAULT_DIR = Path(os.environ.get("NASTUNE_LAB_DIR", "/var/lib/nastune/lab"))


class State:
    def __init__(self, directory: Path = DEFAULT_DIR):
        self.dir = directory
        self.path = directory / "state.json"
        self.data: dict[str, Any] = {"version": 1, "status": "absent", "resources": []}
        if self.path.exists():
            try:
                self.data = json.loads(self.path.read_text())
            except ValueError as e:
                raise UsageError(f"{self.path}: corrupt lab state ({e}); remove the lab by hand") from e

    @property
    def exists(self) -> bool:
        return self.path.exists()

    @property
    def resources(self) -> list[dict[str, Any]]:
        return self.data["resources"]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [r for r in self.resources if r["kind"] == kind]

    def save(self) -> None:
        """Atomically, durably: a kill at any point leaves the old or the new file."""
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w") as f:
            json.dump(self.data, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def add(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Record a resource before creating it."""
        entry = {"kind": kind, **fields}
        self.resources.append(entry)
        self.save()
        return entry

    def update(self, entry: dict[str, Any], **fields: Any) -> None:
        entry.update(fields)
        self.save()

    def set(self, **fields: Any) -> None:
        self.data.update(fields)
        self.save()

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
        self.data = {"version": 1, "status": "absent", "resources": []}
