"""The list of rules as `explain` shows it, read from rules/index.json: every rule's id, title,
area, severity, source and page, without importing a rule (the rules import the collectors and
pydantic, a tenth of a second a process). `python -m nastune.rules.index` writes the file from
the registry, and a test fails when the two differ."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from nastune import plugins

INDEX = Path(__file__).parent / "rules" / "index.json"


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    area: str
    severity: str
    source: str
    doc: str  # its page: Problem, Detection, Fix, Trade-off, Source
    clients: bool = False  # also checked on each client that runs nastune


def entries() -> list[Entry]:
    """Every rule, in the registry's order (area, then id), then the installed extensions'."""
    return [Entry(**e) for e in json.loads(INDEX.read_text(encoding="utf-8"))] + _extensions()


def _extensions() -> list[Entry]:
    """The rules installed packages add (nastune.plugins), read from their modules: imported only
    where a package names one."""
    rules = [found for m in plugins.modules(plugins.RULES) for found in defined(m)]
    return [Entry(r.id, r.title, r.area, r.severity.name, r.source, doc, r.clients) for r, doc in rules]


def defined(module: ModuleType) -> list[tuple[Any, str]]:
    """A rule module's rules, each with its page: its RULE, the module's docstring; or a table's
    RULES (rules/parameter.py), one rule a row, each row's own `doc`."""
    if hasattr(module, "RULE"):
        return [(module.RULE, module.__doc__ or "")]
    return [(rule, rule.doc) for rule in module.RULES]


def find(rule_id: str) -> Entry:
    for entry in entries():
        if entry.id == rule_id:
            return entry
    raise KeyError(rule_id)
