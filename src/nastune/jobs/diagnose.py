"""`nastune diagnose` as a workflow: the rules asked for (unknown ones refused), measured runs
and a NUMA matrix loaded, the facts read, every rule evaluated, and the findings whose subject
limited those runs put first."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from nastune import rules as knowledge
from nastune.bench import cliff, results
from nastune.bench.limits import with_runtime
from nastune.errors import UsageError
from nastune.facts import Facts
from nastune.facts import numa_matrix as numa_matrix_file
from nastune.faults import checkpoint
from nastune.rules.model import Findings
from nastune.severity import Severity
from nastune.sites.base import Site


@dataclass
class DiagnoseSpec:
    min_severity: Severity = Severity.info
    only: list[str] = field(default_factory=list)  # rule ids; empty: every rule
    numa_matrix: Path | None = None
    profiles: list[Path] = field(default_factory=list)  # result files of measured runs


def check(spec: DiagnoseSpec) -> list:
    """The measured runs, after refusing unknown rules and unreadable files (UsageError)."""
    known = {r.id for r in knowledge.all_rules()}
    unknown = [r for r in spec.only if r not in known]
    if unknown:
        raise UsageError(f"unknown rule {', '.join(unknown)}; `nastune explain` lists them")
    return [results.load(path) for path in spec.profiles]


def run(spec: DiagnoseSpec, site: Site, facts: Facts, runs: list) -> Findings:
    """Every rule on the NAS's `facts`, and on each client of `site` that runs nastune."""
    checkpoint("diagnose")
    if spec.numa_matrix is not None:
        facts.numa_bandwidth = numa_matrix_file.load(spec.numa_matrix)
    facts.write_course = cliff.measured(runs) or facts.write_course  # the disks' rate the dirty-data rule sizes from
    found = [f for f in site.findings(facts, spec.only or None) if f.severity >= spec.min_severity]
    if runs:
        found = with_runtime(found, runs)
    return Findings(rules=len(knowledge.all_rules()), findings=found, warnings=facts.warnings)
