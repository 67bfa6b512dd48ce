"""The list of rules as `explain` shows it, read from rules/index.json: every rule's id, title,
area, severity and source, and where its doc is, without importing a rule (the rules import the
collectors and pydantic, a tenth of a second a process). `python -m nastune.rules.index` writes
the file from the registry, and a test fails when the two differ."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from nastune import plugins

RULES = Path(__file__).parent / "rules"
INDEX = RULES / "index.json"


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    area: str
    severity: str
    source: str
    page: str  # its doc's file name in rules/catalog/ (an extension's: the doc's whole path)
    clients: bool = False  # also checked on each client that runs nastune

    @property
    def doc_path(self) -> Path:
        return RULES / "catalog" / self.page

    def doc(self) -> str:
        return self.doc_path.read_text(encoding="utf-8")


def entries() -> list[Entry]:
    """Every rule, in the registry's order (area, then id), then the installed extensions'."""
    return [Entry(**e) for e in json.loads(INDEX.read_text(encoding="utf-8"))] + _extensions()


def _extensions() -> list[Entry]:
    """The rules installed packages add (nastune.plugins), read from their modules: imported only
    where a package names one."""
    rules = [(m.RULE, Path(str(m.__file__)).with_suffix(".md")) for m in plugins.modules(plugins.RULES)]
    return [Entry(r.id, r.title, r.area, r.severity.name, r.source, str(doc), r.clients) for r, doc in rules]


def find(rule_id: str) -> Entry:
    for entry in entries():
        if entry.id == rule_id:
            return entry
    raise KeyError(rule_id)
