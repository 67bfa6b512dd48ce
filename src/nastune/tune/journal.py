"""The journal: one JSON line per step, fsynced before the step's effect, so that rollback
knows every original value even when apply was killed at any point."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from nastune.tune.system import System, TuneError


class Journal:
    def __init__(self, system: System, path: str):
        self.system = system
        self.path = path  # inside the system's root

    @property
    def host(self) -> Path:
        return Path(self.system.root.host_path(self.path))

    @classmethod
    def create(cls, system: System, header: dict) -> "Journal":
        name = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + f"-{os.getpid()}.jsonl"
        journal = cls(system, f"{system.journal_dir}/{name}")
        journal.host.parent.mkdir(parents=True, exist_ok=True)
        journal.record({"type": "header", **header})
        return journal

    @classmethod
    def latest(cls, system: System) -> "Journal":
        directory = Path(system.root.host_path(system.journal_dir))
        found = sorted(directory.glob("*.jsonl")) if directory.is_dir() else []
        if not found:
            raise TuneError(f"no journal in {system.journal_dir}: nothing was applied here")
        return cls(system, f"{system.journal_dir}/{found[-1].name}")

    @classmethod
    def at(cls, system: System, path: str) -> "Journal":
        journal = cls(system, path)
        if not journal.host.exists():
            raise TuneError(f"{path}: no such journal")
        return journal

    def record(self, entry: dict) -> None:
        fd = os.open(self.host, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, (json.dumps(entry) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)

    def lines(self) -> list[dict]:
        out = []
        raw = self.host.read_text().splitlines()
        for n, line in enumerate(raw, 1):
            try:
                out.append(json.loads(line))
            except ValueError:
                if n < len(raw):
                    raise TuneError(f"{self.path}: line {n} is corrupt") from None
                # a torn last line is what a kill during a write leaves: ignore it
        return out

    def header(self) -> dict:
        lines = self.lines()
        if not lines or lines[0].get("type") != "header":
            raise TuneError(f"{self.path}: not a nastune journal")
        return lines[0]

    def changes(self) -> list[dict]:
        """One merged entry per change: its change, before-state, and latest state."""
        merged: dict[int, dict] = {}
        for line in self.lines():
            if line.get("type") == "change":
                merged.setdefault(line["seq"], {}).update(line)
        return [merged[k] for k in sorted(merged)]

    def has(self, kind: str) -> bool:
        return any(line.get("type") == kind for line in self.lines())
