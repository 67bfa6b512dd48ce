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
from functools import cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, Template, select_autoescape
from plotly.offline import get_plotlyjs

from nastune.bench.results import ResultSet
from nastune.report import tables, workbook
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
from nastune.stats.runs import Row, failures


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


def render(
    runs: list[ResultSet],
    out: Path,
    rows: list[Row] | None = None,
    notes: list[str] | None = None,
    facts: dict | None = None,
    findings: list[dict] | None = None,
    applied: list[dict] | None = None,
    title: str = "nastune report",
    interleaved: tuple[list[Row], list[str]] | None = None,
    search: dict | None = None,
    undo: str = "",
    refused: list[str] | None = None,
    interleaved_runs: list[ResultSet] | None = None,
    left_out: list[str] | None = None,
    keep: str = "",
    effects: list[str] | None = None,
    answer: list[str] | None = None,
) -> Path:
    """`search`: autotune's verdict, charts and importances; `undo`, `keep`: the commands that roll
    the plan back and make it survive a reboot; `refused`: metrics the A/A control left without a
    verdict; `interleaved_runs`: A's and B's results; `effects`: each rule's own effect (--screen);
    `answer`: the lines the console opens with (report/summary.py), which the report opens with too."""
    html = _template().render(
        title=title,
        headline=headline(rows or [], interleaved[0] if interleaved else [], refused or []),
        moved=_moved(runs, rows or [], interleaved[0] if interleaved else [], interleaved_runs or []),
        undo=undo,
        keep=keep,
        effects=effects or [],
        answer=answer or [],
        refused=refused or [],
        runs=[(run_label(rs, i), rs) for i, rs in enumerate(runs)],
        rows=rows or [],
        notes=notes or [],
        interleaved=interleaved,
        search=search,
        failed=failures(runs),
        system=system_summary(facts),
        findings=findings or [],
        applied=applied or [],
        left_out=left_out or [],
        overview=overview_chart([*runs, *(r for r in interleaved_runs or [] if all(r is not x for x in runs))]),
        bars=bar_charts(runs),
        iozone=iozone_charts(runs),
        profiles=profile_charts(runs),
        numa=numa_charts(runs),
        courses=course_charts([*runs, *(r for r in interleaved_runs or [] if all(r is not x for x in runs))]),
        plotly_packed=packed_plotly() if search else "",
        csv_name=out.with_suffix(".csv").name,
        xlsx_name=out.with_suffix(".xlsx").name,
    )
    out.write_text(html)
    write_csv(runs, out.with_suffix(".csv"))
    mixed = [rs for rs in interleaved_runs or [] if all(rs is not r for r in runs)]  # each run one sheet
    sheets = workbook.Sheets(rows or [], interleaved[0] if interleaved else [], applied or [], findings or [])
    workbook.write(
        runs + mixed, out.with_suffix(".xlsx"), [run_label(rs, i) for i, rs in enumerate(runs + mixed)], sheets
    )
    return out


def _moved(runs: list[ResultSet], rows: list[Row], mixed: list[Row], mixed_runs: list[ResultSet]) -> list[str]:
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


def headline(rows: list[Row], interleaved: list[Row], refused: list[str]) -> str:
    """The report's first line: what was proved, each way of measuring counted on its own."""
    parts = []
    for name, table in (("before/after", rows), ("interleaved", interleaved)):
        if table:
            parts.append(f"{name}: {tables.tally(table)}")
    if refused:
        parts.append(f"{len(refused)} metric(s) refused by the A/A control (no verdict)")
    return "; ".join(parts)
