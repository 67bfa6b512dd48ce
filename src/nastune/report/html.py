"""The report: one self-contained HTML file that works offline, opening with the console's answer
(report/summary.py) and the overview chart, everything else folded below it: what moved and each
rule's own effect, the verdicts, the system, the findings and changes, each workload's charts
(report/charts.py: static SVG; autotune's page alone carries plotly.js, for Optuna's figures);
and a CSV and a workbook of every number. Text from the system is escaped (Jinja2 autoescape,
and the SVG's own escaping; figure JSON has no '<')."""

from __future__ import annotations

import base64
import csv
import gzip
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, Template, select_autoescape
from plotly.offline import get_plotlyjs

from nastune.bench.results import ResultSet
from nastune.facts import Facts
from nastune.outcomes.optimize import Interleaved, OptimizeOutcome
from nastune.report import outcomes, tables, workbook
from nastune.report.charts import (
    bar_charts,
    course_charts,
    iozone_charts,
    numa_charts,
    overview_chart,
    profile_charts,
    run_label,
    view,
)
from nastune.report.effects import effects
from nastune.rules.model import Finding
from nastune.stats.runs import failures
from nastune.tune.knobs import KNOBS
from nastune.tune.plan import PlannedChange
from nastune.wire import Verdict


def write_csv(runs: list[ResultSet], path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "workload", "target", "metric", "repeat", "value", "limit"])
        for i, rs in enumerate(runs):
            for r in rs.results:
                for name, m in r.metrics.items():
                    metric = name if m.unit in name else f"{name} ({m.unit})"  # its unit once, not a column of repeats
                    for n, v in enumerate(m.values, 1):
                        w.writerow([run_label(rs, i), r.workload, r.target.url, metric, n, v, m.limit or ""])


def system_summary(facts: dict | None) -> list[tuple[str, str]]:
    if not facts:
        return []
    s = facts.get("system", {})
    val = lambda f: (f or {}).get("value")
    rows = [
        ("kernel", val(s.get("kernel"))),
        ("distribution", val(s.get("distribution"))),
        *([("appliance", f"{a['title']} {a.get('version') or ''}".strip())] if (a := val(s.get("appliance"))) else []),
        ("CPU", f"{val(s.get('cpu_model'))} x {val(s.get('cpus'))}"),
        ("memory", f"{(val(s.get('memory_bytes')) or 0) / (1 << 30):.1f} GiB"),
        ("NUMA nodes", str(len(s.get("numa_nodes", [])))),
    ]
    for i in facts.get("network", {}).get("interfaces", []):
        rows.append(
            (f"interface {i['name']}", f"MTU {val(i.get('mtu'))}, speed {val(i.get('speed_mbps')) or '?'} Mb/s")
        )
    return [(k, str(v)) for k, v in rows]


@dataclass
class Search:
    """autotune's part of its page: the verdict, what the winner trades, the rule-based plan's
    changes every trial made, Optuna's figures (plotly JSON by id) and each tunable's importance."""

    verdict: str
    trades: list[str] = field(default_factory=list)
    beside: list[str] = field(default_factory=list)
    charts: list[dict[str, str]] = field(default_factory=list)
    importance: dict[str, float] = field(default_factory=dict)


@dataclass
class Page:
    """What one report shows: the runs and the verdicts between them, the system they ran on and
    its findings, and what the workflow that made them adds: optimize's outcome (its interleaved
    run, the changes it left applied, the undo, the answer the console opened with) or autotune's
    search."""

    runs: list[ResultSet]
    rows: list[Verdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    title: str = "nastune report"
    facts: Facts | None = None
    findings: list[Finding] = field(default_factory=list)
    optimized: OptimizeOutcome | None = None
    search: Search | None = None


def render(page: Page, out: Path) -> Path:
    """The report at `out`, with its CSV and workbook beside it."""
    done = page.optimized
    mixed = done.interleaved if done else None
    mixed_rows = mixed.rows if mixed else []
    refused = mixed.refused if mixed else []
    added = [rs for rs in (mixed.runs if mixed else []) if all(rs is not r for r in page.runs)]  # once each
    findings = [f.model_dump(mode="json") for f in page.findings]
    applied = [_applied(c, done.persisted) for c in done.plan.changes] if done else []
    html = _template().render(
        title=page.title,
        headline=headline(page.rows, mixed_rows, refused),
        moved=_moved(page.runs, page.rows, mixed_rows, mixed.runs if mixed else []),
        undo=done.undo if done else "",
        keep=(done.persisting or "") if done else "",
        effects=effects(mixed) if mixed else [],
        answer=outcomes.summary_lines(done) if done else [],
        refused=refused,
        runs=[(run_label(rs, i), rs) for i, rs in enumerate(page.runs)],
        rows=page.rows,
        notes=page.notes,
        interleaved=(mixed_rows, _said(mixed)) if mixed else None,
        search=page.search,
        failed=failures(page.runs),
        system=system_summary(json.loads(page.facts.to_json()) if page.facts else None),
        findings=findings,
        applied=applied,
        left_out=done.skipped if done else [],
        overview=overview_chart([*page.runs, *added]),
        bars=bar_charts(page.runs),
        iozone=iozone_charts(page.runs),
        profiles=profile_charts(page.runs),
        numa=numa_charts(page.runs),
        courses=course_charts([*page.runs, *added]),
        plotly_packed=packed_plotly() if page.search else "",
        csv_name=out.with_suffix(".csv").name,
        xlsx_name=out.with_suffix(".xlsx").name,
    )
    out.write_text(html)
    write_csv(page.runs, out.with_suffix(".csv"))
    sheets = workbook.Sheets(page.rows, mixed_rows, applied, findings)
    labels = [run_label(rs, i) for i, rs in enumerate(page.runs + added)]  # each run one sheet
    workbook.write(page.runs + added, out.with_suffix(".xlsx"), labels, sheets)
    return out


def _applied(change: PlannedChange, persisted: bool) -> dict:
    """A change as the report lists it: with whether it survives a reboot."""
    knob = KNOBS[change.knob]
    lasts = "persisted (survives a reboot)" if persisted and knob.persists not in ("action", "mount") else knob.lasts()
    return {**change.model_dump(mode="json"), "lasts": lasts}


def _said(mixed: Interleaved) -> list[str]:
    """The interleaved run's notes as the report shows them: why it stopped, if it did, and each
    transfer left below the link with nothing named that limited it."""
    below = tables.unexplained(mixed.rows, tables.limited(mixed.runs))
    return mixed.notes + ([mixed.stopped] if mixed.stopped else []) + [f"below the link: {line}" for line in below]


def _moved(runs: list[ResultSet], rows: list[Verdict], mixed: list[Verdict], mixed_runs: list[ResultSet]) -> list[str]:
    """Each transfer that moved, with what limited it: before against after, then A against B
    (without and with the settings)."""
    bars = lambda found: [r for r in found if view(r.workload) == "bars"]
    return tables.moved(bars(rows), tables.limited(runs)) + tables.moved(bars(mixed), tables.limited(mixed_runs))


def _template() -> Template:
    env = Environment(loader=PackageLoader("nastune.report", "templates"), autoescape=select_autoescape(["html", "j2"]))
    env.filters["pvalue"] = pvalue
    return env.get_template("report.html.j2")


@cache
def packed_plotly() -> str:
    """Plotly's bundle, gzip-compressed and base64-encoded: the report carries it once, in about
    a third of its size, so that it opens offline and is small enough to attach to a ticket; the
    browser unpacks it (DecompressionStream: Chromium 80, Firefox 113, Safari 16.4 and later)."""
    return base64.b64encode(gzip.compress(get_plotlyjs().encode(), 9, mtime=0)).decode()


def pvalue(p: float) -> str:
    """A p-value as a reader needs it: 3 decimals, and below 0.001 said so rather than 0.000."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def headline(rows: list[Verdict], interleaved: list[Verdict], refused: list[str]) -> str:
    """The report's first line: what was proved, each way of measuring counted on its own."""
    parts = []
    for name, table in (("before/after", rows), ("interleaved", interleaved)):
        if table:
            parts.append(f"{name}: {tables.tally(table)}")
    if refused:
        parts.append(f"{len(refused)} metric(s) refused by the A/A control (no verdict)")
    return "; ".join(parts)
