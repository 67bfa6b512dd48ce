"""`nastune plan` as a workflow: every rule on the facts, the findings' changes written as a plan
file to read and edit before `apply`."""

from __future__ import annotations

from pathlib import Path

from nastune import rules as knowledge
from nastune.facts import Facts
from nastune.tune.plan import Plan, from_findings


def run(facts: Facts, only: list[str] | None, out: Path, lab: bool = False) -> Plan:
    """The plan, written to `out`; `lab`: made in the lab's nas host, which a later apply from
    outside it needs to know."""
    made = from_findings(knowledge.evaluate(facts, only=only))
    made.lab = lab
    out.write_text(made.to_json() + "\n")
    return made
