"""The HTML report in a real browser: it loads offline without console errors, its charts are
drawn, system text is escaped; and the CLI writes it with a CSV of every repeat."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nastune.bench.results import MetricResult, Provenance, ResultSet, WorkloadResult
from nastune.outcomes.optimize import Interleaved, OptimizeOutcome
from nastune.outcomes.screen import Screened
from nastune.report.html import Page, Search, render
from nastune.rules.model import Finding, Severity
from nastune.stats.runs import compare_runs
from nastune.tune.plan import Plan, PlannedChange
from tests.conftest import need, run_cli

ARTIFACTS = Path(__file__).parents[2] / "test-artifacts"
CHROMIUM = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
    "--virtual-time-budget=5000",
]
EVIL = "<script>alert('share')</script>"
OPEN_ALL = '<script>document.querySelectorAll("details").forEach(d => { d.open = true; });</script>'


def result_set(label: str, scale: float) -> ResultSet:
    def m(unit, base, higher=True, limit=None):
        return MetricResult(
            unit=unit,
            higher_is_better=higher,
            values=[base * scale * f for f in (0.98, 0.99, 1.0, 1.01, 1.02)],
            limit=limit,
        )

    profile = {"cpus": {"cpu0": {"user": 10.0, "system": 30.0, "softirq": 20.0, "iowait": 1.0, "idle": 39.0}}}
    iozone = {
        f"{op} {f} rec {r} {kind}": m(
            "MB/s" if kind == "MB/s" else "us", 100 if kind == "MB/s" else 50, higher=kind == "MB/s"
        )
        for op in ("write", "read", "random-read", "random-write")
        for f in ("64K", "1M")
        for r in ("4K", "64K")
        for kind in ("MB/s", "latency")
    }
    results = [
        WorkloadResult(
            workload="seq-write",
            target={"url": f"smb://nas/{EVIL}"},
            params={},
            started="",
            seconds=1,
            metrics={"MB/s": m("MB/s", 90, limit=117.7)},
            profile=profile,
            attribution="network-bound",
            limits=[{"factor": "network", "score": 0.99, "evidence": "network-bound"}],
        ),
        WorkloadResult(
            workload="iozone",
            target={"url": "/srv"},
            params={},
            started="",
            seconds=1,
            metrics=iozone,
            profile=profile,
            attribution="storage",
        ),
        WorkloadResult(
            workload="numa-bandwidth",
            target={"url": "system://x"},
            params={},
            started="",
            seconds=1,
            metrics={f"node{i}->node{j} GB/s": m("GB/s", 46 if i == j else 6.3) for i in (0, 1) for j in (0, 1)},
        ),
    ]
    return ResultSet(
        created="2026-11-21T00:00:00+00:00",
        label=label,
        results=results,
        provenance=Provenance(nastune="0", kernel="6.1.0", command=[], tools={}),
    )


def finding(text: str) -> Finding:
    return Finding(
        rule="smb-aio-off",
        title="-",
        area="smb",
        severity=Severity.high,
        impact=10,
        target=text,
        message=text,
        evidence=[],
        gain="-",
        changes=[],
        tradeoff="-",
        source="-",
    )


def optimized(rows: list, out: Path, **fields) -> OptimizeOutcome:
    """optimize's outcome with `rows` as its interleaved run's verdicts (nothing done once)."""
    mixed = Interleaved(rows=rows, pairs=5, **fields)
    undo = "nastune rollback --journal J"
    return OptimizeOutcome(report=out, plan=Plan(changes=[]), journal="J", undo=undo, interleaved=mixed)


@pytest.fixture
def report(tmp_path) -> Path:
    """The page optimize --screen writes: its answer, each rule's own effect, the runs' verdicts."""
    before, after = result_set("before", 1.0), result_set("after", 1.2)
    rows, notes = compare_runs(before, after)
    screened = [  # optimize --screen's, as report.effects words them
        Screened(rule="ganesha-io-size-small", changes=4, rows=rows[:1]),
        Screened(rule="nic-offloads-disabled", changes=1, stopped="its settings already read as planned"),
    ]
    done = optimized([r for r in rows if r.workload != "iozone"][:2], tmp_path / "report.html", screened=screened)
    return render(Page([before, after], rows, notes, findings=[finding(EVIL)], optimized=done), done.report)


def test_system_text_is_escaped(report):
    text = report.read_text()
    assert EVIL not in text
    assert "&lt;script&gt;alert" in text


def test_verdicts_follow_each_metric_direction_in_the_rendered_report(report):
    # every value grew by 20%: throughput is better, latency (lower is better) is worse
    rows = re.findall(r"<tr><td>(.*?)</tr>", report.read_text(), re.S)
    latency = [r for r in rows if " latency</td>" in r]
    throughput = [r for r in rows if " MB/s</td>" in r and "iozone" in r]
    assert len(latency) == 16
    assert len(throughput) == 16
    assert all('class="worse">worse<' in r for r in latency)
    assert all('class="better">better<' in r for r in throughput)


def test_an_autotune_winner_that_trades_durability_is_marked(tmp_path):
    before, after = result_set("base", 1.0), result_set("best trial", 1.2)
    search = Search("trial 4 beats the base", trades=["dirty-ratio 20 -> 40"])
    page = render(Page([before, after], search=search), tmp_path / "r.html").read_text()
    assert "The winner trades durability:</b> dirty-ratio 20 -&gt; 40" in page
    search.trades = []
    assert "trades durability" not in render(Page([before, after], search=search), tmp_path / "s.html").read_text()


def test_csv_holds_every_repeat(report):
    with open(report.with_suffix(".csv")) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 * 5 * (1 + 32 + 4)  # runs x repeats x metrics
    assert {r["run"] for r in rows} == {"before", "after"}
    assert list(rows[0]) == ["run", "workload", "target", "metric", "repeat", "value", "limit"]
    assert {r["metric"] for r in rows if r["workload"] == "seq-write"} == {"MB/s"}  # the unit once, in the metric
    assert any(r["metric"].endswith(" latency (us)") for r in rows)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is installed by scripts/setup")
def test_report_opens_in_chromium_without_console_errors_and_draws_its_charts(report, tmp_path):
    """Every chart is an SVG in the page itself (nothing to unpack or run): the overview, the
    IOzone curves of each run, each run's profile and its timelines, the NUMA matrix."""
    ARTIFACTS.mkdir(exist_ok=True)
    profile = ["--user-data-dir=" + str(tmp_path / "profile")]
    dom = subprocess.run(
        ["chromium", *CHROMIUM, *profile, "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120
    )
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    assert dom.stdout.count("<svg") == dom.stdout.count('<figure class="chart">') >= 1 + 2 * 4 + 2 + 2
    assert "plotly" not in report.read_text().lower()  # autotune's page alone carries it
    shot = ARTIFACTS / "report.png"
    subprocess.run(
        ["chromium", *CHROMIUM, *profile, "--window-size=1200,3000", f"--screenshot={shot}", report.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.stat().st_size > 10000


FOLD = (
    "<script>const b = s => document.querySelector(s).getBoundingClientRect().bottom; "
    "document.body.dataset.fold = JSON.stringify({answer: b('.answer'), overview: b('#overview'), "
    "height: document.documentElement.scrollHeight});</script></body>"
)


def fold(page: Path, tmp_path: Path) -> dict:
    """Where the answer and the overview end, and the page's height, as Chromium lays it out at 1280x800."""
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", FOLD))
    profile = ["--user-data-dir=" + str(tmp_path / "profile")]
    dom = subprocess.run(
        ["chromium", *CHROMIUM, *profile, "--window-size=1280,800", "--dump-dom", probe.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    found = re.search(r'data-fold="([^"]+)"', dom)
    assert found, dom[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"'))


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is installed by scripts/setup")
def test_the_answer_is_above_the_fold_at_1280_by_800(report, tmp_path):
    """The console's answer and the chart of every transfer in every run are on the first screen
    of a 1280x800 window; folded, the whole page is three screens at most, and under 1 MB."""
    at = fold(report, tmp_path)
    assert 0 < at["answer"] < at["overview"] <= 800, at
    assert at["height"] <= 3 * 800, at  # three screens: the details are folded below
    assert report.stat().st_size < 1_000_000


def test_report_and_compare_commands(tmp_path):
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    result_set("before", 1.0).save(before)
    result_set("after", 1.2).save(after)
    out = run_cli("compare", str(before), str(after), "--json").stdout
    assert '"verdict": "better"' in out
    said = " ".join(run_cli("report", str(before), str(after), "--out", str(tmp_path / "r.html")).stdout.split())
    assert (tmp_path / "r.html").stat().st_size < 1_000_000  # SVG charts: one small file to attach
    for name in ("r.html", "r.csv", "r.xlsx"):  # every file it wrote, named
        assert (tmp_path / name).exists()
        assert str(tmp_path / name) in said.replace(" ", "") or str(tmp_path / name) in said
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    proc = run_cli("compare", str(before), str(bad), check=False)
    assert proc.returncode == 2
    assert "not a nastune result file" in proc.stderr


def test_the_report_opens_with_its_headline_and_labels_every_number(tmp_path):
    """The verdict counts of each way of measuring, the refusals and the undo command first;
    units on both sides of a verdict, p below 0.001 said so, every bar chart's axes titled, and
    one goodput line per run when the runs' links differ (an MTU change moves it)."""

    from markupsafe import escape

    from nastune.report.charts import bar_charts, overview_chart, view
    from nastune.report.html import headline, pvalue
    from nastune.report.tables import moved

    before, after = result_set("before", 1.0), result_set("after", 1.2)
    for rs, limit in ((before, 117.7), (after, 123.8)):
        rs.results[0].metrics["MB/s"].limit = limit
    rows, notes = compare_runs(before, after)
    page = render(Page([before, after], rows, notes), tmp_path / "r.html").read_text()  # nastune report's
    line = headline(rows, [], [])
    assert line.startswith("before/after: ")
    assert headline(rows, [], ["nfs seq-read"]).endswith("1 metric(s) refused by the A/A control (no verdict)")
    assert page.index(line) < page.index("<details>")  # above every section
    # optimize's opens with the console's answer, the undo and how to keep the changes
    keep = "nastune persist --journal J"
    done = optimized([], tmp_path / "o.html", refused=["nfs seq-read"])
    done.persisting = keep
    shown = render(Page([before, after], rows, notes, optimized=done), done.report).read_text()
    assert shown.index("<code>nastune rollback --journal J</code>") < shown.index("<details>")
    assert f"to keep them after a reboot: <code>{keep}</code>" in shown  # persisting is offered where it is read
    assert "1 metric without a verdict: A drifted in its own control" in shown
    transfers = [r for r in rows if view(r.workload) == "bars"]  # the IOzone matrix, NUMA: their own sections
    gains = [str(escape(g)) for g in moved(transfers)]  # each gain, before -> after, above everything else
    assert gains
    assert all(page.index(g) < page.index("<details>") for g in gains)
    assert " -&gt; " in gains[0]
    assert f"{gains[0]}. What limited it before: network-bound; after: network-bound</li>" in page  # the profile's why
    assert (pvalue(0.0004), pvalue(0.0123)) == ("< 0.001", "0.012")
    assert "0.000<" not in page
    seq = rows[[r.workload for r in rows].index("seq-write")]
    assert f"{seq.before_median:.4g} {seq.unit}</td>" in page
    assert bar_charts([before, after]) == []  # MB/s alone: the overview draws it
    drawn = need(overview_chart([before, after]))["svg"]
    assert ">MB/s</text>" in drawn
    # before's link and after's (an MTU change), each a dashed line with its label
    assert drawn.count('stroke-dasharray="6 4"') == 2
    assert "link goodput 117.7 MB/s" in drawn and "link goodput 123.8 MB/s" in drawn


def test_a_link_shaped_one_way_draws_each_way_s_goodput():
    """A run whose upload and download have their own ceilings (the lab after htb_rate on the
    NAS's side) draws both, each named by its metric."""

    from nastune.report.charts import bar_charts

    rs = result_set("B", 1.0)
    limits = {"upload MB/s": 117.7, "download MB/s": 105.9}
    metrics = {name: MetricResult(unit="MB/s", values=[100.0, 101.0], limit=limit) for name, limit in limits.items()}
    rs.results = [
        WorkloadResult(
            workload="network", target={"url": "iperf3://nas"}, params={}, started="", seconds=1, metrics=metrics
        )
    ]
    drawn = bar_charts([rs])[0]["svg"]
    assert drawn.count('stroke-dasharray="6 4"') == 2
    assert "link goodput 105.9 MB/s (B, download MB/s)" in drawn and "link goodput 117.7 MB/s (B, upload MB/s)" in drawn


def test_a_run_measured_without_a_profile_draws_no_cpu_chart_and_no_empty_bullets():
    """Interleaved sides carry no CPU profile: no empty chart, no bullet without a diagnosis."""
    from nastune.report.charts import profile_charts

    bare = result_set("A", 1.0)
    for r in bare.results:
        r.profile, r.attribution, r.limits = {}, "", []
    profiled = result_set("before", 1.0)
    charts = profile_charts([bare, profiled])
    assert [c["title"] for c in charts] == ["before"]
    assert all(first for _, first, _ in charts[0]["limits"])


def test_the_changes_say_whether_they_survive_a_reboot_and_what_was_left_out(tmp_path):
    before, after = result_set("before", 1.0), result_set("after", 1.2)
    rows, notes = compare_runs(before, after)
    done = optimized([], tmp_path / "r.html")
    change = PlannedChange(id=0, rule="mtu-jumbo-frames", knob="mtu", target="eth0", current=1500, new=9000)
    left = ["vm-dirty-writeback: machine-wide (the lab shares this kernel)"]
    done.plan, done.skipped = Plan(changes=[change]), left
    page = render(Page([before, after], rows, notes, optimized=done), done.report).read_text()
    assert "<th>after a reboot</th>" in page
    assert "<td>lost at reboot unless persisted</td>" in page
    assert "<summary>Left out of the plan</summary>" in page
    assert f"<li>{left[0]}</li>" in page


def test_a_sustained_write_s_course_is_drawn_before_against_after(tmp_path):
    """Each run's first repeat of a sustained write, MB/s each second, on one chart."""
    from nastune.report.charts import course_charts

    runs = []
    for label, course in (("before", [110.0, 111.0, 40.0, 0.0, 41.0]), ("after", [80.0, 79.0, 78.0, 80.0, 79.0])):
        rs = result_set(label, 1.0)
        rs.results = [
            WorkloadResult(
                workload="sustained-write", target={"url": "c1:/mnt/nfs"}, params={}, started="", seconds=1,
                metrics={"MB/s": MetricResult(unit="MB/s", values=[60.0])}, course=[course],
            )
        ]  # fmt: skip
        runs.append(rs)
    (chart,) = course_charts(runs)
    assert chart["title"] == "sustained-write @ c1:/mnt/nfs"
    assert chart["svg"].count("<polyline") == 2 and "before" in chart["svg"] and "after" in chart["svg"]
    assert "sustained-write @ c1:/mnt/nfs: MB/s each second" in render(Page(runs), tmp_path / "r.html").read_text()
