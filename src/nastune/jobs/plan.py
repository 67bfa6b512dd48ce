"""`nastune plan` as a workflow: every rule on the facts, the findings' changes written as a plan
file to read and edit before `apply`."""

from __future__ import annotations

from pathlib import Path

from nastune.facts import Facts
from nastune.sites.base import Site
from nastune.tune.plan import Plan, from_findings


def run(facts: Facts, only: list[str] | None, out: Path, site: Site) -> Plan:
    """The plan, written to `out`, as `site` stamps it (the lab's say so: a later apply from
    outside the lab's nas host needs to know)."""
    made = site.stamp(from_findings(site.findings(facts, only)))
    out.write_text(made.to_json() + "\n")
    return made
