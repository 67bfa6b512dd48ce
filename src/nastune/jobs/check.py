"""Is this NAS still tuned? Qumulo's story is a regression nobody asked for: a kernel upgrade
swapped a NIC driver, the script that pinned its interrupts no longer ran, and writes fell by
30%. A check, run by a timer, finds that: the findings of every rule on today's facts, each
setting of the last applied plan read back (drift), and, when asked, a short benchmark of a
baseline's workloads compared with it (regression)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from nastune import rules as knowledge
from nastune.bench import runner
from nastune.bench.results import ResultSet, load
from nastune.bench.targets import Target
from nastune.bench.workloads import WORKLOADS, Workload
from nastune.errors import UsageError
from nastune.facts import Facts
from nastune.outcomes.check import CheckOutcome
from nastune.sites.base import Site
from nastune.tune import executor
from nastune.tune.system import TuneError
from nastune.wire import Drift

if TYPE_CHECKING:
    from rich.console import Console


def settings_drift(site: Site, journal: str | None) -> tuple[str | None, dict[str, bool], list[Drift]]:
    """The settings of the site's newest journal (or `journal`), each read back; none applied: none."""
    try:
        found = site.journal(journal)
    except TuneError:
        if journal:
            raise
        return None, {}, []
    rows = executor.verify(found, found.system)
    drift = [Drift(setting=s, expected=e, actual=a) for s, e, a, ok in rows if not ok]
    return found.path, {label: ok for label, _, _, ok in rows}, drift


def baseline_pairs(stored: ResultSet, site: Site) -> list[tuple[Workload, Target]]:
    """The baseline's workloads on its targets, found again by URL on `site`."""
    out = []
    for r in stored.results:
        if r.workload not in WORKLOADS:
            raise UsageError(f"baseline workload {r.workload!r}: not a workload of this nastune")
        out.append((WORKLOADS[r.workload], site.find(r.target.url)))
    return out


def measure(name: str, site: Site, out: Path, console: Console | None = None) -> ResultSet:
    """Baseline `name`'s workloads measured again on its targets, with its parameters and repeats."""
    from nastune.stats import baseline as baselines  # lazy: scipy, the controller extra

    stored = baselines.load_named(name)
    if not stored.results:
        raise UsageError(f"baseline {name!r} holds no results")
    repeats = max([2] + [len(m.values) for r in stored.results for m in r.metrics.values()])
    params = stored.results[0].params
    return runner.run(baseline_pairs(stored, site), params, repeats, out, site, label="check", console=console)


def _measured_path(baseline: str) -> Path:
    """Where a check's own measurement is kept: beside the baselines, never the working directory
    (a timer's check runs from /)."""
    from nastune.stats import baseline as baselines  # lazy: scipy, the controller extra

    checks = baselines.directory() / "checks"
    checks.mkdir(parents=True, exist_ok=True)
    return checks / f"{baseline}.json"


def check(facts: Facts, site: Site, journal: str | None = None) -> CheckOutcome:
    findings = knowledge.evaluate(facts)
    path, settings, drift = settings_drift(site, journal)
    return CheckOutcome(findings, path, settings, drift)


@dataclass
class CheckSpec:
    site: Site  # where the NAS is: its facts, its journals, where its baseline is measured
    journal: str | None = None  # the journal whose settings to read back (default: the newest)
    baseline: str | None = None
    measured: Path | None = None  # a result file to compare with the baseline
    bench: bool = False  # or: measure the baseline's workloads again on the site
    metrics: Path | None = None  # where to write the Prometheus textfile


def run(spec: CheckSpec) -> CheckOutcome:
    """A check, compared with its baseline when one is named, its metrics written; TuneError,
    UsageError and OSError say what failed."""
    done = check(spec.site.facts(), spec.site, spec.journal)
    if spec.baseline:
        measured = load(spec.measured) if spec.measured else None
        if measured is None and spec.bench:
            measured = measure(spec.baseline, spec.site, _measured_path(spec.baseline))
        if measured is not None:
            from nastune.stats import baseline as baselines  # lazy: scipy, the controller extra

            done.baseline = baseline = spec.baseline
            done.rows, done.notes = baselines.check(baseline, measured)
    if spec.metrics:
        from nastune.report import metrics as prometheus  # lazy: prometheus_client, only with --metrics

        try:
            prometheus.write(done, spec.metrics)
        except OSError as e:
            raise OSError(e.errno, f"{spec.metrics}: {e.strerror}") from e
    return done
