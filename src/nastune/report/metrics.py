"""A check as Prometheus metrics for node_exporter's textfile collector: written atomically
(prometheus_client writes a temporary file, then renames it), no timestamps, the `nastune_`
prefix, base units (seconds, ratios). Alert on `nastune_drifted_settings > 0`,
`nastune_baseline_regressions > 0` or a `nastune_last_check_timestamp_seconds` grown old.

Debian's prometheus-node-exporter reads /var/lib/prometheus/node-exporter/*.prom."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Gauge, write_to_textfile

if TYPE_CHECKING:  # a check without a baseline runs on the core install: no scipy at run time
    from nastune.outcomes.check import CheckOutcome


TEXTFILE = Path("/var/lib/prometheus/node-exporter/nastune.prom")


def registry(check: CheckOutcome) -> CollectorRegistry:
    reg = CollectorRegistry()
    Gauge("nastune_last_check_timestamp_seconds", "When nastune check last ran (Unix time).", registry=reg).set(
        check.at
    )
    Gauge("nastune_check_ok", "1 when nothing drifted or regressed, else 0.", registry=reg).set(int(check.ok))
    findings = Gauge("nastune_findings", "Findings of each rule by severity.", ["rule", "severity"], registry=reg)
    for (rule, severity), n in sorted(Counter((f.rule, f.severity.name.lower()) for f in check.findings).items()):
        findings.labels(rule, severity).set(n)
    setting = Gauge(
        "nastune_setting_drifted",
        "1 when a setting of the last applied plan no longer reads as applied.",
        ["setting"],
        registry=reg,
    )
    for label, ok in sorted(check.settings.items()):
        setting.labels(label).set(0 if ok else 1)
    Gauge("nastune_drifted_settings", "Settings of the last applied plan that drifted.", registry=reg).set(
        len(check.drift)
    )
    if check.baseline:
        ratio = Gauge(
            "nastune_baseline_ratio",
            "A metric's median now divided by its baseline's (above 1: more of it).",
            ["baseline", "workload", "target", "metric"],
            registry=reg,
        )
        for r in check.rows:
            ratio.labels(check.baseline, r.workload, r.target, r.metric).set(1 + r.change)
        Gauge(
            "nastune_baseline_regressions",
            "Metrics significantly worse than the baseline.",
            ["baseline"],
            registry=reg,
        ).labels(check.baseline).set(len(check.regressed))
    return reg


def write(check: CheckOutcome, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_to_textfile(str(path), registry(check))
    return path
