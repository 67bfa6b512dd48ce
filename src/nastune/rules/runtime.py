"""Findings ranked by what measured runs showed: a finding whose rule addresses a factor that
limited a run (bench.limits) is marked with that evidence and comes first, the strongest
evidence leading; the others keep their order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nastune.rules.model import Finding

if TYPE_CHECKING:
    from nastune.bench.results import ResultSet


def with_runtime(findings: list[Finding], runs: list[ResultSet]) -> list[Finding]:
    strongest: dict[str, tuple[float, str]] = {}
    for run in runs:
        for result in run.results:
            for limit in result.limits:
                said = f"{limit.evidence} ({result.workload} @ {result.target.get('url')})"
                for rule in limit.rules:
                    if limit.score > strongest.get(rule, (-1.0, ""))[0]:
                        strongest[rule] = (limit.score, said)
    marked = [f.model_copy(update={"limiting": strongest[f.rule][1]}) if f.rule in strongest else f for f in findings]
    order = {id(f): n for n, f in enumerate(marked)}
    return sorted(marked, key=lambda f: (-strongest[f.rule][0] if f.limiting else 0.0, order[id(f)]))
