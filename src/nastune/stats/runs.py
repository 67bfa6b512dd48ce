"""Comparing two result files: metric by metric, refusing comparisons that mean nothing
(another target or other workload parameters) and noting what changed in between (kernel,
settings), which is how a regression after an upgrade (004) is caught."""

from __future__ import annotations

from dataclasses import dataclass

from nastune.bench.results import ResultSet
from nastune.stats.compare import Comparison, compare


class Incomparable(ValueError):
    pass


@dataclass
class Row:
    workload: str
    target: str
    metric: str
    unit: str
    higher_is_better: bool
    limit: float | None
    result: Comparison

    def to_json(self) -> dict:
        return {
            "workload": self.workload,
            "target": self.target,
            "metric": self.metric,
            "unit": self.unit,
            "higher_is_better": self.higher_is_better,
            "limit": self.limit,
            **self.result.to_json(),
        }


def _flatten(d, prefix=""):
    out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(_flatten(v, f"{prefix}{k}."))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out.update(_flatten(v, f"{prefix}{i}."))
    else:
        out[prefix.rstrip(".")] = d
    return out


def notes(a: ResultSet, b: ResultSet) -> list[str]:
    found = []
    if a.provenance.kernel != b.provenance.kernel:
        found.append(
            f"kernel changed: {a.provenance.kernel} -> {b.provenance.kernel} "
            "(a kernel upgrade can change drivers and IRQ placement, as in 004)"
        )
    sa, sb = _flatten(a.provenance.settings), _flatten(b.provenance.settings)
    for key in sorted(set(sa) | set(sb)):
        if sa.get(key) != sb.get(key):
            found.append(f"setting {key}: {sa.get(key)!r} -> {sb.get(key)!r}")
    for tool in sorted(set(a.provenance.tools) | set(b.provenance.tools)):
        if a.provenance.tools.get(tool) != b.provenance.tools.get(tool):
            found.append(f"{tool} changed: {a.provenance.tools.get(tool)} -> {b.provenance.tools.get(tool)}")
    return found


def failures(runs: list[ResultSet]) -> list[str]:
    """One line per workload that failed in any of the runs, for consoles and reports."""
    return [
        f"{rs.label or f'run {i + 1}'}: {r.key} failed: {r.error}"
        for i, rs in enumerate(runs)
        for r in rs.results
        if r.failed
    ]


def compare_runs(
    a: ResultSet, b: ResultSet, force: bool = False, noise_floor: float = 0.03
) -> tuple[list[Row], list[str]]:
    before = {r.key: r for r in a.results}
    after = {r.key: r for r in b.results}
    remarks = notes(a, b)
    rows = []
    for key in before:
        if key not in after:
            remarks.append(f"{key}: only in the first run")
            continue
        ra, rb = before[key], after[key]
        failed = [(label, r.error) for label, r in (("first", ra), ("second", rb)) if r.failed]
        if failed:
            remarks.append(
                f"{key}: FAILED in the "
                + " and the ".join(f"{label} run ({error})" for label, error in failed)
                + "; not compared"
            )
            continue
        if ra.params != rb.params:
            differing = sorted(k for k in set(ra.params) | set(rb.params) if ra.params.get(k) != rb.params.get(k))
            message = f"{key}: workload parameters differ ({', '.join(differing)})"
            if not force:
                raise Incomparable(message + "; the numbers do not measure the same thing (--force compares anyway)")
            remarks.append(message + " (compared anyway: --force)")
        for name, ma in ra.metrics.items():
            mb = rb.metrics.get(name)
            if mb is None:
                continue
            rows.append(
                Row(
                    ra.workload,
                    ra.target["url"],
                    name,
                    ma.unit,
                    ma.higher_is_better,
                    ma.limit,
                    compare(ma.values, mb.values, ma.higher_is_better, noise_floor),
                )
            )
    remarks += [f"{key}: only in the second run" for key in after if key not in before]
    fewest = min(
        (
            min(len(a.metrics[m].values), len(after[k].metrics[m].values))
            for k, a in before.items()
            if k in after and not (a.failed or after[k].failed)
            for m in a.metrics
            if m in after[k].metrics
        ),
        default=0,
    )
    if 0 < fewest < 4:
        remarks.append(
            f"only {fewest} repeats on a side: a rank test cannot reach p < 0.05 with so few, so no "
            "change can be called better or worse (use --repeats 5)"
        )
    if not rows and not any(key in after for key in before):
        raise Incomparable("the two runs share no workload on the same target")
    return rows, remarks
