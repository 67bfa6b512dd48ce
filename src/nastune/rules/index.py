"""Writes rules/index.json, the list `explain` reads without importing a rule (nastune/rulebook.py),
from the registry: `python -m nastune.rules.index`. tests/rules/test_index.py fails when the
file and the registry differ."""

from __future__ import annotations

import json
from dataclasses import asdict

from nastune import rulebook
from nastune.rules import all_rules, catalog


def made() -> list[rulebook.Entry]:
    """nastune's own rules (an installed extension's are read from its package)."""
    return [
        rulebook.Entry(r.id, r.title, r.area, r.severity.name, r.source, r.doc, r.clients)
        for r in all_rules()
        if r.module.startswith(f"{catalog.__name__}.")
    ]


def text() -> str:
    return json.dumps([asdict(e) for e in made()], indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    rulebook.INDEX.write_text(text(), encoding="utf-8")
    print(f"wrote {rulebook.INDEX}")
