"""The report's charts, each a static SVG (report/svg.py): every transfer of every run against the
link's goodput (the overview), before/after bars with intervals, IOzone latency curves, each
run's system profile and its course over time, and the NUMA matrix."""

from __future__ import annotations

import re
from typing import Literal

from nastune.bench.results import MetricResult, ResultSet, WorkloadResult
from nastune.bench.workloads import WORKLOADS
from nastune.report import svg
from nastune.stats.compare import median_ci

PROFILE_FIELDS = ("user", "system", "softirq", "irq", "iowait")


# the metric names of the IOzone-style matrix and the NUMA bandwidth matrix (bench/workloads.py)
IOZONE_CELL = re.compile(
    r"(?P<op>[a-z-]{1,20}) (?P<size>[0-9]{1,6})(?P<unit>[KM]) rec (?P<record>[0-9]{1,6}[KM]) latency"
)
NUMA_CELL = re.compile(r"node([0-9]{1,4})->node([0-9]{1,4}) GB/s")


def run_label(rs: ResultSet, i: int) -> str:
    return rs.label or f"run {i + 1}"


def view(workload: str) -> str:
    """How the report draws a workload's results (a workload of another version: as bars)."""
    known = WORKLOADS.get(workload)
    return known.view if known else "bars"


def _throughputs(result: WorkloadResult) -> list[tuple[str, MetricResult]]:
    """A result's MB/s metrics, each named as the overview shows it: workload, protocol, metric."""
    url = result.target.url
    scheme = url.split("://")[0] if "://" in url else "path"
    return [
        (f"{result.workload} {scheme}" + ("" if name == m.unit else f" {name.removesuffix(' MB/s')}"), m)
        for name, m in result.metrics.items()
        if m.unit == "MB/s" and m.values
    ]


def _series(name: str, metrics: list[MetricResult]) -> svg.Series:
    """Bars of these medians, each with its 95% bootstrap interval."""
    import numpy as np

    spans = [median_ci(np.asarray(m.values, float), np.random.default_rng(0)) for m in metrics]
    return svg.Series(name, [m.median for m in metrics], [lo for lo, _ in spans], [hi for _, hi in spans])


def overview_chart(runs: list[ResultSet]) -> dict | None:
    """The answer in one chart: every transfer's MB/s in every run side by side, with its 95%
    interval, and each distinct goodput limit of the link as one line."""
    names: list[str] = []
    found: list[tuple[str, dict[str, MetricResult]]] = []
    limits: set[float] = set()
    for i, rs in enumerate(runs):
        shown = {name: m for r in rs.results if view(r.workload) == "bars" for name, m in _throughputs(r)}
        if shown:
            found.append((run_label(rs, i), shown))
            names += [n for n in shown if n not in names]
            limits |= {m.limit for m in shown.values() if m.limit}
    if not found:
        return None
    series = [_series(label, [shown[n] for n in names if n in shown]) for label, shown in found]
    if any(len(s.values) != len(names) for s in series):  # a transfer missing from a run: its own bars only
        names = [n for n in names if all(n in shown for _, shown in found)]
        series = [_series(label, [shown[n] for n in names]) for label, shown in found]
    lines = [(f"link goodput {limit:.1f} MB/s", limit) for limit in sorted(limits)]
    drawn = svg.bars("Every transfer, each run", names, series, "MB/s", lines)
    return {"id": "overview", "title": "every transfer, each run", "svg": drawn}


def bar_charts(runs: list[ResultSet]) -> list[dict]:
    """One chart per workload and target that measures more than MB/s (the overview already
    shows every MB/s with its interval and the link's goodput): each metric's median per run,
    with its 95% interval and the link's physical goodput drawn as a line."""
    charts: list[dict] = []
    keys = []
    for rs in runs:
        for r in rs.results:
            ceilings = {m.limit for m in r.metrics.values() if m.limit}  # two: each way its own, named here
            beyond = any(m.unit != "MB/s" for m in r.metrics.values()) or len(ceilings) > 1
            if view(r.workload) == "bars" and beyond and r.key not in keys:
                keys.append(r.key)
    for key in keys:
        charts.append({"id": f"bar{len(charts)}", "title": key, "svg": _bars_of(runs, key)})
    return charts


def _bars_of(runs: list[ResultSet], key: str) -> str:
    """One workload @ target's metrics, a bar per run, and its goodput limits as lines."""
    limits: dict[str, float] = {}  # each run's goodput limit: an MTU change moves it, an htb_rate one way
    series, names, units = [], [], set()
    for i, rs in enumerate(runs):
        result = next((r for r in rs.results if r.key == key), None)
        if result is None:
            continue
        ways = len({m.limit for m in result.metrics.values() if m.limit})  # 2: each way its own ceiling
        names = [name if m.unit in name else f"{name} ({m.unit})" for name, m in result.metrics.items()]
        units |= {m.unit for m in result.metrics.values()}
        for name, m in result.metrics.items():
            if m.limit:
                limits[run_label(rs, i) + (f", {name}" if ways > 1 else "")] = m.limit
        series.append(_series(run_label(rs, i), list(result.metrics.values())))
    same = len(set(limits.values())) == 1  # one line then; else one per run, each named
    lines = [
        (f"link goodput {limit:.1f} MB/s" + ("" if same else f" ({label})"), limit)
        for label, limit in sorted(limits.items(), key=lambda kv: kv[1])[: 1 if same else None]
    ]
    unit = units.pop() if len(units) == 1 else "value (unit in each name)"
    return svg.bars(key, names, [s for s in series if len(s.values) == len(names)], unit, lines)


def iozone_charts(runs: list[ResultSet]) -> list[dict]:
    """Latency versus file size, one curve per record size (as MiNET's 2013 benchmark plots IOzone's output)."""
    charts: list[dict] = []
    for i, rs in enumerate(runs):
        for r in rs.results:
            if view(r.workload) != "iozone":
                continue
            for op in ("write", "read", "random-read", "random-write"):
                curves: dict[str, list[tuple[int, float]]] = {}
                for name, m in r.metrics.items():
                    cell = IOZONE_CELL.fullmatch(name)  # a name of another form is not a cell: left out
                    if not cell or cell["op"] != op:
                        continue
                    scale = 1 << 20 if cell["unit"] == "M" else 1 << 10
                    curves.setdefault(cell["record"], []).append((int(cell["size"]) * scale, m.median))
                series = [
                    svg.Series(
                        f"record {record}", [v for _, v in sorted(points)], xs=[x / 1024 for x, _ in sorted(points)]
                    )
                    for record, points in curves.items()
                ]
                title = f"{run_label(rs, i)}: {op} latency vs file size"
                drawn = svg.curves(title, series, "file size (KiB), log", "latency (us), log", log=True)
                charts.append({"id": f"ioz{len(charts)}", "title": f"{run_label(rs, i)} {op}", "svg": drawn})
    return charts


def profile_charts(runs: list[ResultSet]) -> list[dict]:
    """Each run's CPU time shares per workload, averaged over the CPUs; a run measured without a
    profile (interleaved sides) has no chart, and a result without a diagnosis no bullet."""
    charts: list[dict] = []
    for i, rs in enumerate(runs):
        profiled = [r for r in rs.results if r.profile.get("cpus")]
        if not profiled:
            continue
        series = [
            svg.Series(field, [sum(c.get(field, 0) for c in r.profile["cpus"].values()) / len(r.profile["cpus"])
                               for r in profiled])
            for field in PROFILE_FIELDS
        ]  # fmt: skip
        title = f"{run_label(rs, i)}: where the CPU time went (% of all CPUs)"
        charts.append(
            {
                "id": f"prof{i}",
                "title": run_label(rs, i),
                "svg": svg.bars(title, [r.key for r in profiled], series, "% of all CPUs", stacked=True),
                "limits": [
                    (r.key, r.attribution, [limit.evidence for limit in r.limits])
                    for r in rs.results
                    if r.attribution or r.limits
                ],
            }
        )
        charts += timeline_charts(rs, i)
    return charts


TimelineRow = Literal["net_MBps", "daemon_cores", "throttled_percent", "softirq_percent", "disk_await_ms"]
TIMELINE_ROWS: tuple[tuple[TimelineRow, str], ...] = (
    ("net_MBps", "NIC MB/s"),
    ("daemon_cores", "daemon CPU (cores)"),
    ("throttled_percent", "cgroup throttled %"),
    ("softirq_percent", "busiest CPU softirq %"),
    ("disk_await_ms", "disk wait ms"),
)


def timeline_charts(rs: ResultSet, i: int) -> list[dict]:
    """Per workload, its profile over time: throughput, CPU per daemon, throttling, softirq,
    disk wait, a panel each; what an average hides (a stall, a daemon that saturates in bursts)."""
    charts = []
    for n, r in enumerate(rs.results):
        points = r.profile.get("timeline") or []
        if len(points) < 2:
            continue
        t = [p["t"] for p in points]
        panels = []
        for key, title in TIMELINE_ROWS:
            if key == "daemon_cores":
                daemons = sorted({d for p in points for d in p[key]})
                series = [svg.Series(d, [p[key].get(d, 0) for p in points], xs=t) for d in daemons]
            else:
                series = [svg.Series(title, [p[key] for p in points], xs=t)]
            panels.append(svg.curves(title, series, "seconds", title, height=170))
        heading = f"{run_label(rs, i)}: {r.key} over time"
        charts.append({"id": f"tl{i}-{n}", "title": heading, "svg": "".join(panels)})
    return charts


def numa_charts(runs: list[ResultSet]) -> list[dict]:
    charts: list[dict] = []
    for i, rs in enumerate(runs):
        for r in rs.results:
            if view(r.workload) != "heatmap":
                continue
            pairs = {name: NUMA_CELL.fullmatch(name) for name in r.metrics}  # another name is not a cell
            cells = {(int(c[1]), int(c[2])): r.metrics[name].median for name, c in pairs.items() if c}
            nodes = sorted({a for a, _ in cells})
            z = [[cells.get((a, b), 0) for b in nodes] for a in nodes]
            title = f"{run_label(rs, i)}: memory read bandwidth (GB/s)"
            drawn = svg.heatmap(title, [f"CPU node {n}" for n in nodes], [f"memory node {n}" for n in nodes], z, "GB/s")
            charts.append({"id": f"numa{len(charts)}", "title": run_label(rs, i), "svg": drawn})
    return charts


def course_charts(runs: list[ResultSet]) -> list[dict]:
    """A sustained write's course, MB/s each second, each run's first repeat on one chart: the
    burst the write-back cache takes, the rate after it, the stalls (bench/cliff.py)."""
    keys = list(dict.fromkeys(r.key for rs in runs for r in rs.results if r.course))
    charts: list[dict] = []
    for key in keys:
        series = [
            svg.Series(run_label(rs, i), r.course[0], xs=list(range(1, len(r.course[0]) + 1)))
            for i, rs in enumerate(runs)
            for r in rs.results
            if r.key == key and r.course
        ]
        drawn = svg.curves(f"{key}: MB/s each second", series, "seconds", "MB/s")
        charts.append({"id": f"course{len(charts)}", "title": key, "svg": drawn})
    return charts
