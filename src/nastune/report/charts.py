"""The report's charts, one Plotly figure each as JSON the page draws: every transfer of every run
against the link's goodput (the overview), before/after bars with intervals, IOzone latency
curves, each run's system profile over time and the NUMA matrix."""

from __future__ import annotations

import re
from typing import Literal

import plotly.graph_objects as go

from nastune.bench.results import MetricResult, ResultSet, WorkloadResult
from nastune.bench.workloads import WORKLOADS
from nastune.stats.compare import median_ci

PROFILE_FIELDS = ("user", "system", "softirq", "irq", "iowait")


# the metric names of the IOzone-style matrix and the NUMA bandwidth matrix (bench/workloads.py)
IOZONE_CELL = re.compile(
    r"(?P<op>[a-z-]{1,20}) (?P<size>[0-9]{1,6})(?P<unit>[KM]) rec (?P<record>[0-9]{1,6}[KM]) latency"
)
NUMA_CELL = re.compile(r"node([0-9]{1,4})->node([0-9]{1,4}) GB/s")


def _figure_json(fig: go.Figure) -> str:
    return fig.to_json().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


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


def _whiskers(metrics: list[MetricResult]) -> dict:
    """Plotly's error bars for these medians: each one's 95% bootstrap interval."""
    import numpy as np

    spans = [median_ci(np.asarray(m.values, float), np.random.default_rng(0)) for m in metrics]
    return {
        "type": "data",
        "symmetric": False,
        "array": [high - m.median for m, (_, high) in zip(metrics, spans)],
        "arrayminus": [m.median - low for m, (low, _) in zip(metrics, spans)],
    }


def overview_chart(runs: list[ResultSet]) -> dict | None:
    """The answer in one chart: every transfer's MB/s in every run side by side, with its 95%
    interval, and each distinct goodput limit of the link as one line."""
    fig, limits = go.Figure(), set()
    for i, rs in enumerate(runs):
        shown = [(name, m) for r in rs.results if view(r.workload) == "bars" for name, m in _throughputs(r)]
        if not shown:
            continue
        fig.add_bar(
            name=run_label(rs, i),
            x=[name for name, _ in shown],
            y=[m.median for _, m in shown],
            error_y=_whiskers([m for _, m in shown]),
        )
        limits |= {m.limit for _, m in shown if m.limit}
    if not fig.data:
        return None
    for i, limit in enumerate(sorted(limits)):  # labels on alternate sides: two close lines stay readable
        side = "bottom right" if i % 2 == 0 else "top left"
        fig.add_hline(
            y=limit,
            line_dash="dash",
            line_color="red",
            annotation_text=f"link goodput {limit:.1f} MB/s",
            annotation_position=side,
        )
    fig.update_layout(barmode="group", height=360, margin={"t": 30, "b": 40}, yaxis={"title": "MB/s"})
    return {"id": "overview", "title": "every transfer, each run", "json": _figure_json(fig)}


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
        fig = go.Figure()
        limits: dict[str, float] = {}  # each run's goodput limit: an MTU change moves it, an htb_rate one way
        units: set[str] = set()
        for i, rs in enumerate(runs):
            result = next((r for r in rs.results if r.key == key), None)
            if result is None:
                continue
            names = []
            ways = len({m.limit for m in result.metrics.values() if m.limit})  # 2: each way its own ceiling
            for name, m in result.metrics.items():
                names.append(name if m.unit in name else f"{name} ({m.unit})")
                units.add(m.unit)
                if m.limit:
                    limits[run_label(rs, i) + (f", {name}" if ways > 1 else "")] = m.limit
            fig.add_bar(
                name=run_label(rs, i),
                x=names,
                y=[m.median for m in result.metrics.values()],
                error_y=_whiskers(list(result.metrics.values())),
            )
        same = len(set(limits.values())) == 1  # one line then; else one per run, each named
        for label, limit in sorted(limits.items(), key=lambda kv: kv[1])[: 1 if same else None]:
            text = f"link goodput {limit:.1f} MB/s" + ("" if same else f" ({label})")
            fig.add_hline(y=limit, line_dash="dash", line_color="red", annotation_text=text)
        unit = units.pop() if len(units) == 1 else "value (unit in each name)"
        fig.update_layout(
            title=key,
            barmode="group",
            height=380,
            margin={"t": 50, "b": 40},
            yaxis={"title": unit},
            xaxis={"title": "metric"},
        )
        charts.append({"id": f"bar{len(charts)}", "title": key, "json": _figure_json(fig)})
    return charts


def iozone_charts(runs: list[ResultSet]) -> list[dict]:
    """Latency versus file size, one curve per record size (as MiNET's 2013 benchmark plots IOzone's output)."""
    charts: list[dict] = []
    for i, rs in enumerate(runs):
        for r in rs.results:
            if view(r.workload) != "iozone":
                continue
            for op in ("write", "read", "random-read", "random-write"):
                fig = go.Figure()
                curves: dict[str, list[tuple[int, float]]] = {}
                for name, m in r.metrics.items():
                    cell = IOZONE_CELL.fullmatch(name)  # a name of another form is not a cell: left out
                    if not cell or cell["op"] != op:
                        continue
                    scale = 1 << 20 if cell["unit"] == "M" else 1 << 10
                    curves.setdefault(cell["record"], []).append((int(cell["size"]) * scale, m.median))
                for record, points in curves.items():
                    points.sort()
                    fig.add_scatter(
                        x=[p[0] / 1024 for p in points],
                        y=[p[1] for p in points],
                        mode="lines+markers",
                        name=f"record {record}",
                    )
                fig.update_layout(
                    title=f"{run_label(rs, i)}: {op} latency vs file size",
                    height=340,
                    xaxis={"title": "file size (KiB)", "type": "log"},
                    yaxis={"title": "latency (us)", "type": "log"},
                )
                charts.append(
                    {"id": f"ioz{len(charts)}", "title": f"{run_label(rs, i)} {op}", "json": _figure_json(fig)}
                )
    return charts


def profile_charts(runs: list[ResultSet]) -> list[dict]:
    """Each run's CPU time shares per workload, averaged over the CPUs; a run measured without a
    profile (interleaved sides) has no chart, and a result without a diagnosis no bullet."""
    charts: list[dict] = []
    for i, rs in enumerate(runs):
        fig = go.Figure()
        keys = [r.key for r in rs.results if r.profile.get("cpus")]
        if not keys:
            continue
        for field in PROFILE_FIELDS:
            fig.add_bar(
                name=field,
                x=keys,
                y=[
                    sum(c.get(field, 0) for c in r.profile["cpus"].values()) / len(r.profile["cpus"])
                    for r in rs.results
                    if r.profile.get("cpus")
                ],
            )
        fig.update_layout(
            title=f"{run_label(rs, i)}: where the CPU time went (% of all CPUs)",
            barmode="stack",
            height=380,
            yaxis={"title": "% of all CPUs"},
            xaxis={"title": "workload @ target"},
        )
        charts.append(
            {
                "id": f"prof{i}",
                "title": run_label(rs, i),
                "json": _figure_json(fig),
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
    disk wait; what an average hides (a stall, a daemon that saturates in bursts)."""
    from plotly.subplots import make_subplots

    charts = []
    for n, r in enumerate(rs.results):
        points = r.profile.get("timeline") or []
        if len(points) < 2:
            continue
        t = [p["t"] for p in points]
        fig = make_subplots(rows=len(TIMELINE_ROWS), cols=1, shared_xaxes=True, vertical_spacing=0.06)
        for row, (key, title) in enumerate(TIMELINE_ROWS, 1):
            if key == "daemon_cores":
                daemons = sorted({d for p in points for d in p[key]})
                for d in daemons:
                    fig.add_scatter(x=t, y=[p[key].get(d, 0) for p in points], name=d, row=row, col=1)
            else:
                fig.add_scatter(x=t, y=[p[key] for p in points], name=title, row=row, col=1, showlegend=False)
            fig.update_yaxes(title_text=title, title_font={"size": 10}, title_standoff=4, row=row, col=1)
        fig.update_xaxes(title_text="seconds", row=len(TIMELINE_ROWS), col=1)
        fig.update_layout(title=f"{run_label(rs, i)}: {r.key} over time", height=900, margin={"l": 90})
        charts.append({"id": f"tl{i}-{n}", "title": f"{run_label(rs, i)} {r.key}", "json": _figure_json(fig)})
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
            fig = go.Figure(
                go.Heatmap(
                    z=z,
                    x=[f"memory node {n}" for n in nodes],
                    y=[f"CPU node {n}" for n in nodes],
                    text=[[f"{v:.1f}" for v in row] for row in z],
                    texttemplate="%{text} GB/s",
                    colorscale="Viridis",
                )
            )
            fig.update_layout(title=f"{run_label(rs, i)}: memory read bandwidth (GB/s)", height=360)
            charts.append({"id": f"numa{len(charts)}", "title": run_label(rs, i), "json": _figure_json(fig)})
    return charts
